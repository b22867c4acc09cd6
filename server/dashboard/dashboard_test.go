package dashboard_test

import (
	"context"
	"fmt"
	"github.com/stopgate/stopgate"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stopgate/stopgate/server/dashboard"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// get serves one request and returns the response's status, headers and body.
func get(t *testing.T, h http.Handler, method, target string) (int, http.Header, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(body)
}

// page gets target and parses it, failing unless the status is 200.
func page(t *testing.T, h http.Handler, target string) (*node, string) {
	t.Helper()
	status, _, body := get(t, h, http.MethodGet, target)
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d, body:\n%s", target, status, body)
	}
	return parseHTML(t, body), body
}

// newDashboard serves st at the fixed clock, logging to t.
func newDashboard(t *testing.T, st store.Store) http.Handler {
	return dashboard.New(st, &dashboard.Options{
		Now:    func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(tWriter{t}, nil)),
	})
}

// tWriter writes to a test's log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// resolve resolves a link href found on the page at path, as a browser would.
func resolve(t *testing.T, path, href string) string {
	t.Helper()
	ref, err := url.Parse(href)
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Path: path}).ResolveReference(ref).RequestURI()
}

func attrInt(t *testing.T, n *node, name string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(n.Attr[name], 10, 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.Tag, name, n.Attr[name], err)
	}
	return v
}

func TestOverviewCounts(t *testing.T) {
	h := newDashboard(t, openStore(t, fixture()))
	tests := []struct {
		name, query string
		// buckets is the chart: "bucket start check/verdict" → count.
		buckets map[string]int64
		slots   int
		// terms is the termination table: "category/provider/harness" → count.
		terms           map[string]int64
		nudges, pending int64
		share           string
		sessions        []string
	}{{
		name: "default 24h", query: "",
		buckets: map[string]int64{
			"2026-03-14T13:00:00Z stall/continue":     1,
			"2026-03-14T13:00:00Z completed/stop":     1,
			"2026-03-14T14:00:00Z processes/continue": 1,
			"2026-03-14T14:00:00Z error/retry":        1,
			"2026-03-14T15:00:00Z error/stop":         1,
			"2026-03-14T15:00:00Z pending_wake/stop":  1,
			"2026-03-14T15:00:00Z todos/continue":     1,
		},
		slots: 24,
		terms: map[string]int64{
			"completed/anthropic/claude-code": 1,
			"suspended/anthropic/claude-code": 1,
			"rate_limited/openai/codex":       1,
			"auth_failed/openai/codex":        1,
		},
		nudges: 4, pending: 1, share: "25%",
		sessions: []string{"s-gamma", "s-beta", hostileSession, "s-alpha"},
	}, {
		name: "7d", query: "?window=7d",
		buckets: map[string]int64{
			"2026-03-11T12:00:00Z completed/stop":     1,
			"2026-03-14T12:00:00Z stall/continue":     1,
			"2026-03-14T12:00:00Z completed/stop":     1,
			"2026-03-14T12:00:00Z processes/continue": 1,
			"2026-03-14T12:00:00Z error/retry":        1,
			"2026-03-14T12:00:00Z error/stop":         1,
			"2026-03-14T12:00:00Z pending_wake/stop":  1,
			"2026-03-14T12:00:00Z todos/continue":     1,
		},
		slots: 28,
		terms: map[string]int64{
			"completed/anthropic/claude-code": 1,
			"completed/google/gemini-cli":     1,
			"suspended/anthropic/claude-code": 1,
			"rate_limited/openai/codex":       1,
			"auth_failed/openai/codex":        1,
		},
		nudges: 4, pending: 1, share: "25%",
		sessions: []string{"s-gamma", "s-beta", hostileSession, "s-alpha", "s-old"},
	}, {
		name: "1h", query: "?window=1h",
		buckets: map[string]int64{
			"2026-03-14T14:40:00Z error/retry":       1,
			"2026-03-14T15:00:00Z todos/continue":    1,
			"2026-03-14T15:30:00Z error/stop":        1,
			"2026-03-14T15:35:00Z pending_wake/stop": 1,
		},
		slots: 12,
		terms: map[string]int64{
			"suspended/anthropic/claude-code": 1,
			"rate_limited/openai/codex":       1,
			"auth_failed/openai/codex":        1,
		},
		nudges: 2, pending: 0, share: "0%",
		sessions: []string{"s-gamma", "s-beta", hostileSession},
	}, {
		name: "one harness", query: "?harness=claude-code",
		buckets: map[string]int64{
			"2026-03-14T13:00:00Z stall/continue":    1,
			"2026-03-14T13:00:00Z completed/stop":    1,
			"2026-03-14T15:00:00Z pending_wake/stop": 1,
			"2026-03-14T15:00:00Z todos/continue":    1,
		},
		slots: 24,
		terms: map[string]int64{
			"completed/anthropic/claude-code": 1,
			"suspended/anthropic/claude-code": 1,
		},
		nudges: 2, pending: 0, share: "0%",
		sessions: []string{"s-gamma", hostileSession, "s-alpha"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, _ := page(t, h, "/"+tt.query)

			// The chart: each segment where it belongs, each bar's total its segments' sum,
			// the legend the per-series totals.
			svg := doc.one(t, "svg", "class", "decisions-chart")
			bars := svg.find("g", "data-bucket", "")
			if len(bars) != tt.slots || attrInt(t, svg, "data-buckets") != int64(tt.slots) {
				t.Errorf("%d bars, data-buckets=%s; want %d", len(bars), svg.Attr["data-buckets"], tt.slots)
			}
			got := map[string]int64{}
			series := map[string]int64{}
			var total int64
			for _, b := range bars {
				var sum int64
				for _, r := range b.find("rect", "data-count", "") {
					n := attrInt(t, r, "data-count")
					key := r.Attr["data-check"] + "/" + r.Attr["data-verdict"]
					got[b.Attr["data-bucket"]+" "+key] += n
					series[key] += n
					sum += n
				}
				if bt := attrInt(t, b, "data-total"); bt != sum {
					t.Errorf("bar %s: data-total %d, segments sum to %d", b.Attr["data-bucket"], bt, sum)
				}
				total += sum
			}
			if !maps.Equal(got, tt.buckets) {
				t.Errorf("chart segments:\n got %v\nwant %v", got, tt.buckets)
			}
			if st := attrInt(t, svg, "data-total"); st != total {
				t.Errorf("svg data-total %d, bars sum to %d", st, total)
			}
			legend := map[string]int64{}
			for _, li := range doc.find("li", "data-check", "") {
				legend[li.Attr["data-check"]+"/"+li.Attr["data-verdict"]] = attrInt(t, li, "data-total")
			}
			if !maps.Equal(legend, series) {
				t.Errorf("legend %v, chart series %v", legend, series)
			}

			// The headline numbers.
			for name, want := range map[string]int64{"decisions": total, "nudges": tt.nudges, "terminations": sum(tt.terms)} {
				if got := attrInt(t, doc.one(t, "div", "data-total", name), "data-count"); got != want {
					t.Errorf("%s total = %d, want %d", name, got, want)
				}
			}
			pending := doc.one(t, "div", "id", "pending")
			if attrInt(t, pending, "data-nudges") != tt.nudges || attrInt(t, pending, "data-pending") != tt.pending {
				t.Errorf("pending card: nudges %s, pending %s; want %d, %d",
					pending.Attr["data-nudges"], pending.Attr["data-pending"], tt.nudges, tt.pending)
			}
			if got := pending.one(t, "span", "class", "value").text(); got != tt.share {
				t.Errorf("pending share shows %q, want %q", got, tt.share)
			}
			wantClass := map[bool]string{true: "alert", false: "good"}[tt.pending > 0]
			if !strings.Contains(" "+pending.Attr["class"]+" ", " "+wantClass+" ") {
				t.Errorf("pending card class %q, want it to hold %q", pending.Attr["class"], wantClass)
			}

			// Why runs ended.
			terms := map[string]int64{}
			for _, tr := range doc.find("tr", "data-category", "") {
				terms[tr.Attr["data-category"]+"/"+tr.Attr["data-provider"]+"/"+tr.Attr["data-harness"]] = attrInt(t, tr, "data-count")
			}
			if !maps.Equal(terms, tt.terms) {
				t.Errorf("termination rows:\n got %v\nwant %v", terms, tt.terms)
			}

			// Recent sessions, newest activity first, each linking to its view.
			var sessions []string
			for _, tr := range doc.find("tr", "data-session", "") {
				sessions = append(sessions, tr.Attr["data-session"])
				a := tr.one(t, "a", "href", "")
				if want := "sessions/" + url.PathEscape(tr.Attr["data-session"]); a.Attr["href"] != want {
					t.Errorf("session %q links to %q, want %q", tr.Attr["data-session"], a.Attr["href"], want)
				}
			}
			if !slices.Equal(sessions, tt.sessions) {
				t.Errorf("sessions %q, want %q", sessions, tt.sessions)
			}
		})
	}
}

// TestOverviewCountsClaims: decisions of the claims check are counted like any other check's
// — their own segment in the chart and their own legend entry, and a nudge in the headline —
// whether the check blocked (continue) or let a supported claim stop.
func TestOverviewCountsClaims(t *testing.T) {
	completed := termination.Control(termination.SiteSupervisor, termination.Completed)
	turn := func(session string) stopgate.Turn {
		return stopgate.Turn{Harness: "claude-code", Session: session,
			Message: &stopgate.Message{Text: "All tests pass.", Provider: "anthropic"}}
	}
	contradicted := decision(stopgate.Continue, stopgate.CheckClaims,
		"Your final message says \"All tests pass.\", but the last tests run after your last edit, `make test`, exited with status 2.",
		nil, stopgate.Blocked, "contradicted: tests claim contradicted: the last tests run after the last edit failed", nil)
	h := newDashboard(t, openStore(t, []record{
		{at(14, 5), turn("s-claims"), contradicted},
		{at(14, 10), turn("s-claims"), decision(stopgate.Stop, stopgate.CheckCompleted, "", &completed, "", "", nil)},
		{at(15, 5), turn("s-claims-2"), contradicted},
	}))
	doc, _ := page(t, h, "/")
	got := map[string]int64{}
	for _, r := range doc.one(t, "svg", "class", "decisions-chart").find("rect", "data-count", "") {
		got[r.Attr["data-check"]+"/"+r.Attr["data-verdict"]] += attrInt(t, r, "data-count")
	}
	want := map[string]int64{"claims/continue": 2, "completed/stop": 1}
	if !maps.Equal(got, want) {
		t.Errorf("chart segments %v, want %v", got, want)
	}
	legend := map[string]int64{}
	for _, li := range doc.find("li", "data-check", "") {
		legend[li.Attr["data-check"]+"/"+li.Attr["data-verdict"]] = attrInt(t, li, "data-total")
	}
	if !maps.Equal(legend, want) {
		t.Errorf("legend %v, want %v", legend, want)
	}
	if n := attrInt(t, doc.one(t, "div", "data-total", "nudges"), "data-count"); n != 2 {
		t.Errorf("nudges total = %d, want 2 (the two claims blocks)", n)
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func TestOverviewSelectors(t *testing.T) {
	h := newDashboard(t, openStore(t, fixture()))
	doc, _ := page(t, h, "/?window=7d&harness=codex")
	var windows []string
	for _, a := range doc.one(t, "nav", "class", "segmented").find("a", "href", "") {
		windows = append(windows, a.text()+" "+a.Attr["href"]+" "+a.Attr["aria-current"])
	}
	want := []string{
		"1h ./?harness=codex&window=1h ",
		"24h ./?harness=codex&window=24h ",
		"7d ./?harness=codex&window=7d page",
		"30d ./?harness=codex&window=30d ",
		"1y ./?harness=codex&window=1y ",
	}
	if !slices.Equal(windows, want) {
		t.Errorf("window links:\n got %q\nwant %q", windows, want)
	}
	var harnesses []string
	for _, o := range doc.one(t, "select", "name", "harness").find("option", "", "") {
		harnesses = append(harnesses, o.Attr["value"]+map[bool]string{true: "*"}[o.Attr["selected"] != ""])
	}
	if want := []string{"", "claude-code", "codex*", "gemini-cli"}; !slices.Equal(harnesses, want) {
		t.Errorf("harness options %q, want %q", harnesses, want)
	}
	if got := doc.one(t, "input", "name", "window").Attr["value"]; got != "7d" {
		t.Errorf("the filter form keeps window %q, want 7d", got)
	}
}

func TestOverviewEmptyLog(t *testing.T) {
	h := newDashboard(t, openStore(t, nil))
	doc, body := page(t, h, "/")
	empty := doc.one(t, "section", "id", "empty")
	for _, cmd := range []string{"stopgate audit --record ~/.claude/projects", "stopgate hook install claude-code"} {
		if !strings.Contains(empty.text(), cmd) {
			t.Errorf("the empty state does not say %q:\n%s", cmd, empty.text())
		}
	}
	if strings.Contains(body, "decisions-chart") || len(doc.find("div", "id", "pending")) != 0 {
		t.Error("an empty log still shows a chart or numbers")
	}
}

// TestOverviewOpensOnNewestActivity checks that a page naming no window widens the default
// until it holds the newest decision, so a log filled from old sample sessions opens on them.
func TestOverviewOpensOnNewestActivity(t *testing.T) {
	var old []record
	for _, r := range fixture() {
		if r.turn.Session == "s-old" {
			old = append(old, r)
		}
	}
	h := newDashboard(t, openStore(t, old))
	doc, _ := page(t, h, "/")
	if len(doc.find("p", "class", "quiet")) != 0 {
		t.Error("the default page opened on a quiet window although the log has decisions")
	}
	var current []string
	for _, a := range doc.find("a", "aria-current", "page") {
		current = append(current, a.text())
	}
	if !slices.Contains(current, "7d") {
		t.Errorf("current window links %q, want 7d (the shortest holding a 3-day-old decision)", current)
	}
}

func TestOverviewQuietWindow(t *testing.T) {
	// Only the three-day-old session: the 24-hour window is quiet, the log is not empty.
	var old []record
	for _, r := range fixture() {
		if r.turn.Session == "s-old" {
			old = append(old, r)
		}
	}
	h := newDashboard(t, openStore(t, old))
	doc, _ := page(t, h, "/?window=24h")
	if len(doc.find("section", "id", "empty")) != 0 {
		t.Error("a quiet window is shown as an empty log")
	}
	quiet := doc.one(t, "section", "id", "decisions").one(t, "p", "class", "quiet")
	if !strings.Contains(quiet.text(), "The newest was made 3d ago") {
		t.Errorf("the quiet window does not say when the newest decision was: %q", quiet.text())
	}
	var wider []string
	for _, a := range quiet.find("a", "href", "") {
		wider = append(wider, a.Attr["href"])
	}
	if want := []string{"./?window=7d", "./?window=30d", "./?window=1y"}; !slices.Equal(wider, want) {
		t.Errorf("the quiet window offers %q, want %q", wider, want)
	}
	if got := doc.one(t, "div", "id", "pending").one(t, "span", "class", "value").text(); got != "0%" {
		t.Errorf("pending share with no nudges shows %q, want 0%%", got)
	}
}

func TestSessionView(t *testing.T) {
	h := newDashboard(t, openStore(t, fixture()))
	type dec struct{ check, verdict string }
	tests := []struct {
		session   string
		decisions []dec
		terms     []string
		// decided is each decision's trail row of the check that decided: "check outcome".
		decided []string
		message string // the first decision's message
	}{{
		session:   "s-beta",
		decisions: []dec{{"processes", "continue"}, {"error", "retry"}, {"error", "stop"}},
		terms:     []string{"rate_limited", "auth_failed"},
		decided:   []string{"processes blocked", "error blocked", "error ended"},
		message:   "Background-process completion gate: you cannot finish while bg1 is unresolved.",
	}, {
		session:   "s-alpha",
		decisions: []dec{{"stall", "continue"}, {"completed", "stop"}},
		terms:     []string{"completed"},
		decided:   []string{"stall blocked", ""},
		message:   `Your last message ended with "Now I'll run the tests:", but the turn ended before you did it.`,
	}, {
		session:   "s-gamma",
		decisions: []dec{{"pending_wake", "stop"}},
		terms:     []string{"suspended"},
		decided:   []string{"pending_wake parked"},
	}}
	for _, tt := range tests {
		t.Run(tt.session, func(t *testing.T) {
			doc, _ := page(t, h, "/sessions/"+tt.session)
			items := doc.one(t, "ol", "class", "timeline").find("li", "data-check", "")
			var got []dec
			var decided []string
			for _, li := range items {
				got = append(got, dec{li.Attr["data-check"], li.Attr["data-verdict"]})
				rows := li.find("tr", "data-outcome", "")
				if len(rows) != len(stopgate.Checks()) {
					t.Errorf("decision %s: %d trail rows, want all %d checks", li.Attr["id"], len(rows), len(stopgate.Checks()))
				}
				d := ""
				for _, tr := range li.find("tr", "class", "decided") {
					d = tr.Attr["data-check"] + " " + tr.Attr["data-outcome"]
				}
				decided = append(decided, d)
			}
			if !slices.Equal(got, tt.decisions) {
				t.Errorf("decisions %v, want %v", got, tt.decisions)
			}
			if !slices.Equal(decided, tt.decided) {
				t.Errorf("deciding trail rows %q, want %q", decided, tt.decided)
			}
			if tt.message != "" {
				if msg := items[0].one(t, "blockquote", "class", "message").text(); msg != tt.message {
					t.Errorf("message %q, want %q", msg, tt.message)
				}
			}
			var terms []string
			for _, tr := range doc.one(t, "section", "id", "terminations").find("tr", "data-category", "") {
				terms = append(terms, tr.Attr["data-category"])
				// Each reason links to the decision it was recorded with.
				href := tr.one(t, "a", "href", "").Attr["href"]
				if len(doc.find("li", "id", strings.TrimPrefix(href, "#"))) != 1 {
					t.Errorf("termination %s links to %q, no decision there", tr.Attr["data-category"], href)
				}
			}
			if !slices.Equal(terms, tt.terms) {
				t.Errorf("termination reasons %q, want %q", terms, tt.terms)
			}
		})
	}
}

func TestSessionTrailDetail(t *testing.T) {
	h := newDashboard(t, openStore(t, fixture()))
	doc, _ := page(t, h, "/sessions/s-beta")
	// The retry's error entry: check, outcome, why and the reason in full.
	li := doc.one(t, "li", "id", "d2")
	row := li.one(t, "tr", "data-check", "error")
	var cells []string
	for _, td := range row.find("td", "", "") {
		cells = append(cells, td.text())
	}
	want := []string{"error", "blocked", "rate_limited: retry after back-off",
		"rate_limited at supervisor.decide from exception · openai · 429 · retry after back-off"}
	if !slices.Equal(cells, want) {
		t.Errorf("trail row:\n got %q\nwant %q", cells, want)
	}
	if got := li.one(t, "p", "class", "decision-reason").text(); !strings.Contains(got, "rate_limited at supervisor.decide") {
		t.Errorf("decision reason %q", got)
	}
}

func TestHostileText(t *testing.T) {
	h := newDashboard(t, openStore(t, fixture()))
	doc, body := page(t, h, "/")
	var href string
	for _, tr := range doc.find("tr", "data-session", hostileSession) {
		href = tr.one(t, "a", "href", "").Attr["href"]
		if got := tr.one(t, "a", "href", "").text(); got != hostileSession {
			t.Errorf("session shown as %q, want %q", got, hostileSession)
		}
	}
	if href == "" {
		t.Fatalf("no row for session %q", hostileSession)
	}
	if strings.Contains(body, "<b>x</b>") {
		t.Error("the overview writes the session id unescaped")
	}

	doc, body = page(t, h, resolve(t, "/", href))
	for _, raw := range []string{"<script>window.pwned", "<img src=x", `<b>"fix & ship"</b>`, "<b>x</b>"} {
		if strings.Contains(body, raw) {
			t.Errorf("the session page holds %q unescaped", raw)
		}
	}
	if got := doc.one(t, "blockquote", "class", "message").text(); got != hostileMessage {
		t.Errorf("message shown as %q, want %q", got, hostileMessage)
	}
	if got := doc.one(t, "span", "class", "ident").text(); got != hostileSession {
		t.Errorf("heading shows %q, want %q", got, hostileSession)
	}
	if len(doc.find("script", "src", "")) != 1 || len(doc.all(func(n *node) bool { return n.Tag == "img" })) != 0 {
		t.Error("the page has elements the hostile text injected")
	}
}

func TestErrors(t *testing.T) {
	h := newDashboard(t, openStore(t, fixture()))
	tests := []struct {
		method, target string
		status         int
		says           string
	}{
		{"GET", "/sessions/no-such-session", http.StatusNotFound, `The event log holds nothing for session "no-such-session".`},
		{"GET", "/sessions/", http.StatusNotFound, ""},
		{"GET", "/elsewhere", http.StatusNotFound, ""},
		{"GET", "/?window=2h", http.StatusBadRequest, `There is no window "2h": choose one of 1h, 24h, 7d, 30d, 1y.`},
		{"GET", "/?harness=%FF", http.StatusBadRequest, "The harness filter is not valid UTF-8 text."},
		{"GET", "/sessions/%FF%00", http.StatusNotFound, `The event log holds nothing for session "\xff\x00".`},
		{"POST", "/", http.StatusMethodNotAllowed, ""},
		{"HEAD", "/", http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			status, _, body := get(t, h, tt.method, tt.target)
			if status != tt.status {
				t.Fatalf("status %d, want %d", status, tt.status)
			}
			if tt.says != "" {
				if got := parseHTML(t, body).one(t, "section", "class", "error-page").text(); !strings.Contains(got, tt.says) {
					t.Errorf("error page says %q, want %q", got, tt.says)
				}
			}
		})
	}
}

func TestHeadersAndAssets(t *testing.T) {
	h := newDashboard(t, openStore(t, fixture()))
	status, hdr, body := get(t, h, "GET", "/")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if ct := hdr.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	doc := parseHTML(t, body)
	links := map[string]string{
		"text/css":        doc.one(t, "link", "rel", "stylesheet").Attr["href"],
		"image/svg+xml":   doc.one(t, "link", "rel", "icon").Attr["href"],
		"text/javascript": doc.one(t, "script", "src", "").Attr["src"],
	}
	for ct, href := range links {
		t.Run(href, func(t *testing.T) {
			status, hdr, body := get(t, h, "GET", resolve(t, "/", href))
			if status != http.StatusOK || body == "" {
				t.Fatalf("status %d, %d bytes", status, len(body))
			}
			if got := hdr.Get("Content-Type"); !strings.HasPrefix(got, ct) {
				t.Errorf("Content-Type %q, want %s", got, ct)
			}
			if got := hdr.Get("Cache-Control"); !strings.Contains(got, "immutable") {
				t.Errorf("the versioned asset has Cache-Control %q", got)
			}
			// Without the current version, it must be revalidated.
			_, hdr, _ = get(t, h, "GET", resolve(t, "/", strings.Split(href, "?")[0]))
			if got := hdr.Get("Cache-Control"); got != "no-cache" {
				t.Errorf("the unversioned asset has Cache-Control %q", got)
			}
		})
	}
}

// countingStore counts the calls a page makes.
type countingStore struct {
	store.Store
	stats, queries atomic.Int64
}

func (c *countingStore) Stats(ctx context.Context, f store.StatsFilter) (store.Stats, error) {
	c.stats.Add(1)
	return c.Store.Stats(ctx, f)
}

func (c *countingStore) Query(ctx context.Context, f store.Filter) ([]store.Event, error) {
	c.queries.Add(1)
	return c.Store.Query(ctx, f)
}

func TestOneQueryPerPage(t *testing.T) {
	cs := &countingStore{Store: openStore(t, fixture())}
	h := newDashboard(t, cs)
	tests := []struct {
		target         string
		stats, queries int64
	}{
		{"/", 1, 1},
		{"/?window=30d&harness=codex", 1, 1},
		{"/sessions/s-beta", 0, 1},
	}
	for _, tt := range tests {
		cs.stats.Store(0)
		cs.queries.Store(0)
		page(t, h, tt.target)
		if s, q := cs.stats.Load(), cs.queries.Load(); s != tt.stats || q != tt.queries {
			t.Errorf("GET %s: %d Stats and %d Query calls, want %d and %d", tt.target, s, q, tt.stats, tt.queries)
		}
	}
}

// failingStore fails every read.
type failingStore struct{ store.Store }

func (failingStore) Stats(context.Context, store.StatsFilter) (store.Stats, error) {
	return store.Stats{}, fmt.Errorf("disk on fire: %w", store.ErrClosed)
}

func (failingStore) Query(context.Context, store.Filter) ([]store.Event, error) {
	return nil, fmt.Errorf("disk on fire: %w", store.ErrClosed)
}

func TestStoreFailure(t *testing.T) {
	h := newDashboard(t, failingStore{openStore(t, nil)})
	for _, target := range []string{"/", "/sessions/s-beta"} {
		status, _, body := get(t, h, "GET", target)
		if status != http.StatusInternalServerError {
			t.Errorf("GET %s: status %d, want 500", target, status)
		}
		if strings.Contains(body, "disk on fire") {
			t.Errorf("GET %s: the page shows the store's error to the visitor", target)
		}
	}
}

func TestSessionObservationsAndCap(t *testing.T) {
	st := openStore(t, nil)
	// One more event than a session page shows: finish-reason observations, one a second.
	var events []store.Event
	for i := range 2001 {
		obs := termination.Observation{At: at(10, 0).Add(time.Duration(i) * time.Second), Path: termination.PathInvoke,
			Token: "end_turn", Present: i%2 == 0}
		e, err := store.ObservationEvent(store.Origin{Harness: "claude-code", Session: "s-long"}, "anthropic", obs)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	if err := st.Append(context.Background(), events...); err != nil {
		t.Fatal(err)
	}
	doc, _ := page(t, newDashboard(t, st), "/sessions/s-long")
	rows := doc.one(t, "section", "id", "observations").find("tr", "data-token", "")
	if len(rows) != 2000 {
		t.Fatalf("%d observation rows, want the newest 2000", len(rows))
	}
	// The oldest shown is the second recorded, which carried no token; the newest the last.
	if first, last := rows[0].Attr["data-token"], rows[len(rows)-1].Attr["data-token"]; first != "" || last != "end_turn" {
		t.Errorf("first and last tokens %q, %q; want none, end_turn", first, last)
	}
	if note := doc.one(t, "p", "class", "note").text(); !strings.Contains(note, "its newest 2000") {
		t.Errorf("no note that the page is capped: %q", note)
	}
	if got := doc.one(t, "section", "id", "decisions").one(t, "p", "class", "quiet").text(); got != "No decision was recorded for this session." {
		t.Errorf("decisions section says %q", got)
	}
}
