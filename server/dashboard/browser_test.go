package dashboard_test

import (
	"context"
	"encoding/json"
	"github.com/stopgate/stopgate"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stopgate/stopgate/server/dashboard/internal/cdp"
	"github.com/stopgate/stopgate/server/dashboard/internal/cdp/cdptest"
)

// TestBrowser loads the dashboard in a real headless Chromium (see package cdptest for how
// it is found) and checks what a person would see: no error logged, the chart drawn with
// the recorded counts, the filter and links working, with and without JavaScript. It saves a
// screenshot of each page in $STOPGATE_ARTIFACTS, or in a temporary directory, and logs
// where.
func TestBrowser(t *testing.T) {
	srv := httptest.NewServer(newDashboard(t, openStore(t, fixture())))
	defer srv.Close()
	b := cdptest.Launch(t)
	ctx := cdptest.Context(t)

	artifacts := os.Getenv("STOPGATE_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	} else if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}

	// open loads path in a fresh 1280-pixel-wide tab, scripts on or off.
	open := func(t *testing.T, path string, scripts bool) *cdp.Page {
		t.Helper()
		p, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetViewport(ctx, 1280, 900, 1); err != nil {
			t.Fatal(err)
		}
		if !scripts {
			if err := p.Call(ctx, "Emulation.setScriptExecutionDisabled", map[string]any{"value": true}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Navigate(ctx, srv.URL+path); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// noErrors fails the test when the page logged any error; the evaluation round trip
	// first makes sure every message the load produced has arrived.
	noErrors := func(t *testing.T, p *cdp.Page) {
		t.Helper()
		if err := p.Evaluate(ctx, "document.readyState", nil); err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Errors() {
			t.Errorf("the page logged an error: %s", e)
		}
	}
	screenshot := func(t *testing.T, p *cdp.Page, name string) {
		t.Helper()
		png, err := p.Screenshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		path, err := filepath.Abs(filepath.Join(artifacts, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", path, len(png))
	}

	t.Run("overview", func(t *testing.T) {
		p := open(t, "/", true)
		noErrors(t, p)
		var got struct {
			Segments []struct {
				Check, Verdict string
				Count          int64
				Height, Width  float64
			}
			Pending, Background, Button string
		}
		evaluate(ctx, t, p, `({
			segments: [...document.querySelectorAll("svg.decisions-chart rect[data-count]")].map(r => ({
				check: r.dataset.check, verdict: r.dataset.verdict, count: +r.dataset.count,
				height: r.getBoundingClientRect().height, width: r.getBoundingClientRect().width,
			})),
			pending: document.querySelector("#pending .value").textContent,
			background: getComputedStyle(document.body).backgroundColor,
			button: getComputedStyle(document.querySelector("form.filters button")).display,
		})`, &got)
		series := map[string]int64{}
		for _, s := range got.Segments {
			series[s.Check+"/"+s.Verdict] += s.Count
			// Drawn, and as tall as its count says: every count here is 1.
			if s.Width < 5 || s.Height < 5 {
				t.Errorf("segment %s/%s is drawn %.1fx%.1f pixels", s.Check, s.Verdict, s.Width, s.Height)
			}
			if first := got.Segments[0]; s.Height/float64(s.Count) != first.Height/float64(first.Count) {
				t.Errorf("segment %s/%s: %.2f pixels for %d, the first %.2f for %d",
					s.Check, s.Verdict, s.Height, s.Count, first.Height, first.Count)
			}
		}
		want := map[string]int64{"completed/stop": 1, "stall/continue": 1, "processes/continue": 1,
			"error/retry": 1, "error/stop": 1, "pending_wake/stop": 1, "todos/continue": 1}
		if !maps.Equal(series, want) {
			t.Errorf("rendered chart counts %v, want %v", series, want)
		}
		if got.Pending != "25%" {
			t.Errorf("pending share reads %q, want 25%%", got.Pending)
		}
		if got.Background != "rgb(244, 245, 247)" {
			t.Errorf("body background %q: the stylesheet did not apply", got.Background)
		}
		if got.Button != "none" {
			t.Errorf("the Apply button is displayed %q; the script should hide it", got.Button)
		}
		screenshot(t, p, "dashboard.png")

		// The harness filter applies on change (the script), and keeps the window.
		from := b.Mark()
		evaluate(ctx, t, p, `(() => {
			const s = document.querySelector("select[name=harness]");
			s.value = "codex";
			s.dispatchEvent(new Event("change"));
			return true;
		})()`, nil)
		if err := p.WaitLoad(ctx, from); err != nil {
			t.Fatal(err)
		}
		noErrors(t, p)
		var filtered struct {
			Search string
			Counts map[string]int64
		}
		evaluate(ctx, t, p, `({
			search: location.search,
			counts: Object.fromEntries([...document.querySelectorAll("ul.legend li")].map(li =>
				[li.dataset.check + "/" + li.dataset.verdict, +li.dataset.total])),
		})`, &filtered)
		if filtered.Search != "?window=24h&harness=codex" {
			t.Errorf("the filter went to %q", filtered.Search)
		}
		if want := map[string]int64{"processes/continue": 1, "error/retry": 1, "error/stop": 1}; !maps.Equal(filtered.Counts, want) {
			t.Errorf("codex's legend %v, want %v", filtered.Counts, want)
		}
	})

	t.Run("without JavaScript", func(t *testing.T) {
		p := open(t, "/?window=7d", false)
		noErrors(t, p)
		var got struct {
			Bars    int
			Button  string
			Current string
		}
		evaluate(ctx, t, p, `({
			bars: document.querySelectorAll("svg.decisions-chart g[data-bucket]").length,
			button: getComputedStyle(document.querySelector("form.filters button")).display,
			current: document.querySelector(".segmented a[aria-current]").textContent,
		})`, &got)
		if got.Bars != 28 || got.Button == "none" || got.Current != "7d" {
			t.Errorf("without scripts: %d bars, Apply button %q, window %q; want 28, shown, 7d", got.Bars, got.Button, got.Current)
		}
	})

	t.Run("session", func(t *testing.T) {
		p := open(t, "/", true)
		from := b.Mark()
		evaluate(ctx, t, p, `document.querySelector('tr[data-session="s-beta"] a').click(), true`, nil)
		if err := p.WaitLoad(ctx, from); err != nil {
			t.Fatal(err)
		}
		noErrors(t, p)
		var got struct {
			Path      string
			Decisions []string
			Trail     []int
			Decided   []string
			Reasons   []string
		}
		evaluate(ctx, t, p, `({
			path: location.pathname,
			decisions: [...document.querySelectorAll("li.decision")].map(li => li.dataset.check + "/" + li.dataset.verdict),
			trail: [...document.querySelectorAll("li.decision")].map(li => li.querySelectorAll("tr[data-outcome]").length),
			decided: [...document.querySelectorAll("tr.decided")].map(tr =>
				tr.dataset.check + " " + (getComputedStyle(tr.cells[0]).backgroundColor !== "rgba(0, 0, 0, 0)")),
			reasons: [...document.querySelectorAll("#terminations tr[data-category]")].map(tr => tr.dataset.category),
		})`, &got)
		want := struct {
			Path      string
			Decisions []string
			Trail     []int
			Decided   []string
			Reasons   []string
		}{
			"/sessions/s-beta",
			[]string{"processes/continue", "error/retry", "error/stop"},
			[]int{len(stopgate.Checks()), len(stopgate.Checks()), len(stopgate.Checks())},
			[]string{"processes true", "error true", "error true"},
			[]string{"rate_limited", "auth_failed"},
		}
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("session page:\n got %s\nwant %s", g, w)
		}
		screenshot(t, p, "session.png")
	})

	t.Run("empty log", func(t *testing.T) {
		empty := httptest.NewServer(newDashboard(t, openStore(t, nil)))
		defer empty.Close()
		p, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Navigate(ctx, empty.URL); err != nil {
			t.Fatal(err)
		}
		noErrors(t, p)
		var commands []string
		evaluate(ctx, t, p, `[...document.querySelectorAll("#empty pre")].map(e => e.innerText)`, &commands)
		want := []string{"stopgate audit --record ~/.claude/projects", "stopgate hook install claude-code"}
		if g, w := mustJSON(t, commands), mustJSON(t, want); g != w {
			t.Errorf("the empty state shows %s, want %s", g, w)
		}
	})

	t.Run("hostile text", func(t *testing.T) {
		p := open(t, "/", true)
		from := b.Mark()
		evaluate(ctx, t, p, `[...document.querySelectorAll("tr[data-session]")].find(tr => tr.dataset.session === `+
			strconv.Quote(hostileSession)+`).querySelector("a").click(), true`, nil)
		if err := p.WaitLoad(ctx, from); err != nil {
			t.Fatal(err)
		}
		noErrors(t, p)
		var got struct {
			Pwned   any
			Message string
			Ident   string
		}
		evaluate(ctx, t, p, `({
			pwned: window.pwned ?? null,
			message: document.querySelector("blockquote.message").textContent,
			ident: document.querySelector("h1 .ident").textContent,
		})`, &got)
		if got.Pwned != nil || got.Message != hostileMessage || got.Ident != hostileSession {
			t.Errorf("hostile session: pwned=%v, message %q, heading %q", got.Pwned, got.Message, got.Ident)
		}
	})
}

// evaluate evaluates expr in p into out, failing the test on error.
func evaluate(ctx context.Context, t *testing.T, p *cdp.Page, expr string, out any) {
	t.Helper()
	if err := p.Evaluate(ctx, expr, out); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
