package cdp_test

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/server/dashboard/internal/cdp/cdptest"
)

// TestPageErrors loads pages that fail in each way a dashboard page could, and checks that
// Errors reports each: a silent browser test would otherwise pass for the wrong reason.
func TestPageErrors(t *testing.T) {
	mux := http.NewServeMux()
	page := func(path, csp, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			if csp != "" {
				w.Header().Set("Content-Security-Policy", csp)
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			// The empty data: icon stops Chromium fetching /favicon.ico, whose 404 would be
			// logged as an error on every page, sooner or later.
			fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>t</title><link rel="icon" href="data:,"></head><body>%s</body></html>`, body)
		})
	}
	page("/clean", "", `<p id="p">fine</p><script>console.log("not an error"); console.warn("nor this")</script>`)
	page("/console", "", `<script>console.error("boom", 42)</script>`)
	page("/throw", "", `<script>throw new Error("kaput")</script>`)
	page("/missing", "", `<img src="/nope.png" alt="">`)
	page("/csp", "script-src 'none'", `<script>document.title = "ran"</script>`)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := cdptest.Launch(t)
	ctx := cdptest.Context(t)
	tests := []struct {
		path string
		want string // a substring of the one error expected; empty for none
	}{
		{"/clean", ""},
		{"/console", "console.error: boom 42"},
		{"/throw", "kaput"},
		{"/missing", "404"},
		{"/csp", "Content Security Policy"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.path, "/"), func(t *testing.T) {
			p, err := b.NewPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Navigate(ctx, srv.URL+tt.path); err != nil {
				t.Fatal(err)
			}
			// An evaluation round trip after the load event: every message the page logged
			// while loading has arrived by its reply.
			var title string
			if err := p.Evaluate(ctx, "document.title", &title); err != nil {
				t.Fatal(err)
			}
			errs := p.Errors()
			if tt.want == "" {
				if len(errs) != 0 {
					t.Fatalf("errors on a clean page: %q", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0], tt.want) {
				t.Fatalf("errors = %q, want one containing %q", errs, tt.want)
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	b := cdptest.Launch(t)
	ctx := cdptest.Context(t)
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		expr    string
		want    any
		wantErr string
	}{
		{expr: "1 + 2", want: float64(3)},
		{expr: `["a", "b"].join("-")`, want: "a-b"},
		{expr: "Promise.resolve({n: 7})", want: map[string]any{"n": float64(7)}},
		{expr: `(() => { throw new Error("nope") })()`, wantErr: "nope"},
	}
	for _, tt := range tests {
		var got any
		err := p.Evaluate(ctx, tt.expr, &got)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Evaluate(%s) error = %v, want one containing %q", tt.expr, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("Evaluate(%s): %v", tt.expr, err)
		case fmt.Sprint(got) != fmt.Sprint(tt.want):
			t.Errorf("Evaluate(%s) = %#v, want %#v", tt.expr, got, tt.want)
		}
	}
}

func TestScreenshot(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html><body style="margin:0"><div style="width:300px;height:2000px;background:#c8414f"></div></body></html>`)
	}))
	defer srv.Close()
	b := cdptest.Launch(t)
	ctx := cdptest.Context(t)
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetViewport(ctx, 640, 480, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}
	data, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// The whole page, beyond the 480-pixel viewport.
	if got := img.Bounds().Size(); got.X != 640 || got.Y != 2000 {
		t.Fatalf("screenshot is %v, want 640x2000", got)
	}
	if r, g, b, _ := img.At(10, 1990).RGBA(); r>>8 != 0xc8 || g>>8 != 0x41 || b>>8 != 0x4f {
		t.Errorf("pixel near the bottom is %02x%02x%02x, want c8414f", r>>8, g>>8, b>>8)
	}
}
