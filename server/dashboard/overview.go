package dashboard

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// overviewPage is what the overview template shows.
type overviewPage struct {
	page
	Window  window
	Windows []choice
	// Harness is the harness filter, empty for all; Harnesses are the ones to choose from.
	Harness   string
	Harnesses []string
	// Since and Until bound the window.
	Since, Until time.Time

	Totals  totals
	Pending pendingShare
	Chart   *chart

	Terminations []terminationRow
	TermTotal    int64
	// TermCategories counts the distinct categories, TermCompleted the runs that ended
	// completed.
	TermCategories int
	TermCompleted  int64

	Sessions []sessionRow
	// SessionsCapped reports that more sessions were active than are listed, or that the
	// list was made from the newest recentLimit decisions only.
	SessionsCapped bool
	RecentLimit    int

	// Empty reports that the log holds no decision at all (and the window no termination):
	// the page says how to fill it.
	Empty bool
	// Latest is the newest decision matching the harness filter, whenever it was made; zero
	// when there is none. Wider lists the longer windows, for a quiet one.
	Latest    time.Time
	LatestAgo string
	Wider     []choice
}

// choice is one link of a selector.
type choice struct {
	Label, Href string
	Current     bool
}

// totals are the window's headline counts.
type totals struct {
	Decisions, Stops, Continues, Retries, Shadows, Nudges, Terminations int64
}

// pendingShare is the share of nudges given while work was pending: the number that should
// stay at zero.
type pendingShare struct {
	Share           float64
	Nudges, Pending int64
	// Alert reports that some nudge was given while work was pending.
	Alert bool
}

// terminationRow is one category, provider and harness with its count; Bar is the count as a
// percentage of the largest row's.
type terminationRow struct {
	Category          termination.Category
	Provider, Harness string
	Count             int64
	Bar               float64
}

// sessionRow is one recently active session.
type sessionRow struct {
	ID, Href, Harness                string
	Agents                           int
	Decisions, Nudges, PendingNudges int64
	Last                             time.Time
	LastAgo                          string
	LastCheck                        stopgate.Check
	LastVerdict                      stopgate.Verdict
	agents                           map[string]bool
}

// overview serves GET /: one Stats call for the window's counts, one Query for the newest
// decisions (the recent sessions, the harnesses to filter by, whether the log is empty).
func (h *handler) overview(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	win := h.window
	named := q.Get("window")
	if named != "" {
		var ok bool
		if win, ok = windowNamed(named); !ok {
			h.fail(w, r, "./", http.StatusBadRequest,
				fmt.Sprintf("There is no window %q: choose one of %s.", named, windowNames()), nil)
			return
		}
	}
	harness := strings.TrimSpace(q.Get("harness"))
	if !validText(harness) {
		h.fail(w, r, "./", http.StatusBadRequest, "The harness filter is not valid UTF-8 text.", nil)
		return
	}
	now := h.now().UTC()
	recent, err := h.st.Query(r.Context(), store.Filter{Kind: store.KindDecision, Newest: true, Limit: recentLimit})
	if err != nil {
		h.fail(w, r, "./", http.StatusInternalServerError, "The event log could not be read.", err)
		return
	}
	if named == "" && len(recent) > 0 {
		// Open on the newest activity: the default window widened until it holds it.
		win = win.covering(recent[0].Time, now)
	}
	since, until := win.bounds(now)

	stats, err := h.st.Stats(r.Context(), store.StatsFilter{Since: since, Until: until, Bucket: win.Bucket, Harness: harness})
	if err != nil {
		h.fail(w, r, "./", http.StatusInternalServerError, "The event log could not be read.", err)
		return
	}

	p := overviewPage{
		page:        page{Title: h.title, Heading: h.title, Root: "./", Now: now},
		Window:      win,
		Harness:     harness,
		Since:       since,
		Until:       until,
		Chart:       buildChart(stats.Decisions, win, until),
		Pending:     pendingShare{Share: stats.PendingShare(), Nudges: stats.Nudges, Pending: stats.PendingNudges, Alert: stats.PendingNudges > 0},
		RecentLimit: recentLimit,
	}
	for _, o := range windows {
		c := choice{Label: o.Name, Href: overviewHref(o.Name, harness), Current: o.Name == win.Name}
		p.Windows = append(p.Windows, c)
		if o.Span > win.Span {
			p.Wider = append(p.Wider, c)
		}
	}
	for _, dc := range stats.Decisions {
		p.Totals.Decisions += dc.Count
		switch dc.Verdict {
		case stopgate.Stop:
			p.Totals.Stops += dc.Count
		case stopgate.Continue:
			p.Totals.Continues += dc.Count
		case stopgate.Retry:
			p.Totals.Retries += dc.Count
		case stopgate.Shadow:
			p.Totals.Shadows += dc.Count
		}
	}
	p.Totals.Nudges = stats.Nudges
	p.Terminations, p.TermTotal = terminationRows(stats.Terminations)
	p.Totals.Terminations = p.TermTotal
	categories := map[termination.Category]bool{}
	for _, row := range p.Terminations {
		categories[row.Category] = true
		if row.Category == termination.Completed {
			p.TermCompleted += row.Count
		}
	}
	p.TermCategories = len(categories)

	p.Sessions, p.SessionsCapped = recentSessions(recent, harness, since, until, now)
	if len(recent) == recentLimit {
		p.SessionsCapped = true
	}
	for _, e := range recent {
		if harness == "" || e.Harness == harness {
			p.Latest, p.LatestAgo = e.Time, ago(now, e.Time)
			break
		}
	}
	p.Empty = harness == "" && len(recent) == 0 && len(stats.Terminations) == 0
	p.Harnesses = harnessChoices(recent, stats.Terminations, harness)
	h.render(w, r, http.StatusOK, "overview", p)
}

// overviewHref is the overview's relative URL for a window and harness filter.
func overviewHref(window, harness string) string {
	v := url.Values{"window": {window}}
	if harness != "" {
		v.Set("harness", harness)
	}
	return "./?" + v.Encode()
}

// terminationRows orders the termination counts largest first and sizes their bars.
func terminationRows(counts []store.TerminationCount) ([]terminationRow, int64) {
	var rows []terminationRow
	var total, top int64
	for _, c := range counts {
		if c.Count <= 0 {
			continue
		}
		rows = append(rows, terminationRow{Category: c.Category, Provider: c.Provider, Harness: c.Harness, Count: c.Count})
		total += c.Count
		top = max(top, c.Count)
	}
	slices.SortStableFunc(rows, func(a, b terminationRow) int { return cmp.Compare(b.Count, a.Count) })
	for i := range rows {
		rows[i].Bar = round2(float64(rows[i].Count) / float64(top) * 100)
	}
	return rows, total
}

// recentSessions groups the newest decisions (newest first) by session, keeping those of
// the harness (any, when empty) active in [since, until), newest first. The second result
// reports that more sessions qualified than are returned.
func recentSessions(newest []store.Event, harness string, since, until, now time.Time) ([]sessionRow, bool) {
	var rows []*sessionRow
	index := map[string]*sessionRow{}
	for _, e := range newest {
		if e.Session == "" || (harness != "" && e.Harness != harness) || e.Time.Before(since) || !e.Time.Before(until) {
			continue
		}
		s := index[e.Session]
		if s == nil {
			s = &sessionRow{
				ID: e.Session, Href: "sessions/" + url.PathEscape(e.Session), Harness: e.Harness,
				Last: e.Time, LastAgo: ago(now, e.Time), LastCheck: e.Check, LastVerdict: e.Verdict,
				agents: map[string]bool{},
			}
			index[e.Session] = s
			rows = append(rows, s)
		}
		s.Decisions++
		if e.Verdict == stopgate.Continue || e.Verdict == stopgate.Retry {
			s.Nudges++
			if e.Pending {
				s.PendingNudges++
			}
		}
		if e.Agent != "" {
			s.agents[e.Agent] = true
		}
	}
	out := make([]sessionRow, 0, min(len(rows), sessionRows))
	for _, s := range rows[:min(len(rows), sessionRows)] {
		s.Agents = len(s.agents)
		out = append(out, *s)
	}
	return out, len(rows) > sessionRows
}

// harnessChoices lists the harnesses seen in the newest decisions and the window's
// terminations, and the one selected, sorted.
func harnessChoices(newest []store.Event, terms []store.TerminationCount, selected string) []string {
	seen := map[string]bool{}
	if selected != "" {
		seen[selected] = true
	}
	for _, e := range newest {
		if e.Harness != "" {
			seen[e.Harness] = true
		}
	}
	for _, c := range terms {
		if c.Harness != "" {
			seen[c.Harness] = true
		}
	}
	out := make([]string, 0, len(seen))
	for h := range seen {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}
