// Package dashboard serves stopgate's operator dashboard: an overview of the event log
// (decisions over time by check and verdict, why runs ended by provider and harness, the share
// of nudges given while work was pending, the recent sessions) and a view of each session's
// decisions with their full trails.
//
// Everything is rendered on the server with html/template from templates embedded in the
// binary; charts are inline SVG, the stylesheet and a few lines of optional JavaScript are
// embedded too, so the dashboard needs no network access and works with scripts off. Each
// page costs the store one call: the overview one Stats and one Query, a session one Query.
//
// Mount it at the root of a server, or under a prefix with [http.StripPrefix]: its links are
// relative.
//
//	mux.Handle("/", dashboard.New(st, nil))
//
// testdata/dashboard.png is the overview as the browser test renders it.
package dashboard

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// Options configures the dashboard. The zero value (and a nil *Options) shows the last 24
// hours, titled "stopgate", on the wall clock.
type Options struct {
	// Title names the dashboard in page headings and browser tabs; empty means "stopgate".
	Title string
	// Window is the span the overview shows when the request names none (?window=1h, 24h, 7d
	// or 30d). Another duration is rounded up to the next of those, 30 days at most; zero
	// means 24 hours.
	Window time.Duration
	// Now returns the current time; nil means time.Now. Tests set it to render a fixed
	// window.
	Now func() time.Time
	// Logger receives the errors a page hits (a store that cannot be read); nil discards
	// them.
	Logger *slog.Logger
}

// The overview reads at most recentLimit of the newest decisions to list recent sessions,
// and lists at most sessionRows of them; a session page shows at most sessionLimit events.
const (
	recentLimit  = 500
	sessionRows  = 20
	sessionLimit = 2000
)

var (
	//go:embed templates/*.html
	templateFS embed.FS
	//go:embed static
	staticFS embed.FS
)

// handler serves the pages; it holds nothing that changes, so it is safe for concurrent use.
type handler struct {
	st     store.Store
	title  string
	window window
	now    func() time.Time
	log    *slog.Logger
	tmpl   *template.Template
	assets map[string]string // file name → "static/name?v=hash"
}

// New returns the dashboard for the event log st. It serves:
//
//   - GET / : the overview; ?window=1h|24h|7d|30d picks the span and ?harness=NAME counts
//     only that harness's events.
//   - GET /sessions/{id} : one session's decisions, trails and termination reasons; 404 when
//     the log holds no decision, termination or observation for it.
//   - GET /static/… : the embedded stylesheet, script and icon.
//
// Any other path is 404, any other method 405. New panics when st is nil.
func New(st store.Store, opts *Options) http.Handler {
	if st == nil {
		panic("dashboard: New called with a nil store")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	h := &handler{
		st:     st,
		title:  cmp.Or(o.Title, "stopgate"),
		window: windowFor(o.Window),
		now:    o.Now,
		log:    o.Logger,
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.assets = assetPaths()
	h.tmpl = template.Must(template.New("dashboard").Funcs(template.FuncMap{
		"num":     formatNum,
		"count":   formatCount,
		"percent": formatPercent,
		"when":    formatTime,
		"iso":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"asset":   func(name string) string { return h.assets[name] },
		"join":    func(s []string) string { return strings.Join(s, ", ") },

		"verdictClass":  verdictClass,
		"outcomeClass":  outcomeClass,
		"categoryClass": categoryClass,
	}).ParseFS(templateFS, "templates/*.html"))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.overview)
	mux.HandleFunc("GET /sessions/{id}", h.session)
	mux.Handle("GET /static/", staticHandler(h.assets))
	return secure(mux)
}

// page is what every page's layout needs.
type page struct {
	// Title is the dashboard's title; Heading the page's.
	Title, Heading string
	// Root is the relative path back to the dashboard's root ("./" or "../").
	Root string
	// Now is when the page was rendered.
	Now time.Time
}

// errorPage is the body of a 4xx or 5xx response.
type errorPage struct {
	page
	Status  int
	Message string
}

// render executes the template name into a buffer and writes it with status, so that a
// template failure is a clean 500 rather than half a page.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := h.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		h.log.ErrorContext(r.Context(), "dashboard: render", "template", name, "path", r.URL.Path, "err", err)
		http.Error(w, "dashboard: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// fail renders an error page; root is the page's relative path to the dashboard's root.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, root string, status int, msg string, err error) {
	if err != nil {
		h.log.ErrorContext(r.Context(), "dashboard: "+msg, "path", r.URL.Path, "err", err)
	}
	h.render(w, r, status, "error", errorPage{
		page:    page{Title: h.title, Heading: http.StatusText(status), Root: root, Now: h.now().UTC()},
		Status:  status,
		Message: msg,
	})
}

// secure sets the headers every response carries. The policy allows only the dashboard's own
// stylesheet, script and icon: no inline script or style, no other origin.
func secure(next http.Handler) http.Handler {
	const csp = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// assetPaths returns, for each embedded static file, the relative URL pages link it by: its
// path with a hash of its content, so that it can be cached for good.
func assetPaths() map[string]string {
	paths := map[string]string{}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		paths[strings.TrimPrefix(p, "static/")] = p + "?v=" + hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		panic(fmt.Sprintf("dashboard: embedded assets: %v", err))
	}
	return paths
}

// staticHandler serves the embedded assets: for a year when asked for the current version,
// revalidated otherwise.
func staticHandler(assets map[string]string) http.Handler {
	files := http.FileServerFS(staticFS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		if cur, ok := assets[name]; ok && "static/"+name+"?v="+r.URL.Query().Get("v") == cur {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	})
}

// verdictClass is the CSS class of a verdict's chip.
func verdictClass(v stopgate.Verdict) string {
	switch v {
	case stopgate.Stop, stopgate.Continue, stopgate.Retry, stopgate.Shadow:
		return "v-" + string(v)
	}
	return "v-other"
}

// outcomeClass is the CSS class of a trail outcome's chip: the outcomes that decide stand
// out, those that found nothing recede.
func outcomeClass(o stopgate.Outcome) string {
	switch o {
	case stopgate.Pass, stopgate.Blocked, stopgate.Exhausted, stopgate.Ended, stopgate.Parked:
		return "o-" + string(o)
	}
	return "o-quiet"
}

// categoryClass is the CSS class of a termination category: a completed run is good news, a
// parked one neither, one the user or an approval ended neutral, the rest trouble.
func categoryClass(c termination.Category) string {
	switch c {
	case termination.Completed:
		return "c-good"
	case termination.Suspended:
		return "c-parked"
	case termination.Cancelled, termination.ApprovalStop, termination.Abandoned, termination.Unknown:
		return "c-neutral"
	}
	return "c-bad"
}

// validText reports whether s could be stored in the event log at all: valid UTF-8 without
// NUL bytes. Anything else is refused before it reaches the store.
func validText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// formatNum writes an SVG coordinate: at most two decimals, no trailing zeros.
func formatNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// formatCount writes a count with thousands separators.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatPercent writes a share in [0, 1] as a percentage: whole, or with one decimal when it
// would otherwise round to 0% or 100% without being either.
func formatPercent(share float64) string {
	p := share * 100
	if s := strconv.FormatFloat(p, 'f', 0, 64); (s != "0" || p == 0) && (s != "100" || p == 100) {
		return s + "%"
	}
	if p < 50 {
		return strconv.FormatFloat(max(p, 0.1), 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(min(p, 99.9), 'f', 1, 64) + "%"
}

// formatTime writes an instant in UTC, to the second.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") + " UTC" }

// ago says how long before now t was, roughly ("3m ago").
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < -time.Minute:
		return "in the future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	case d < 2*day:
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	}
	return strconv.Itoa(int(d/day)) + "d ago"
}
