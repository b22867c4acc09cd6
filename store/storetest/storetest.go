// Package storetest is the conformance suite of store.Store implementations, in the manner of
// testing/slogtest: an implementation's test calls [Run] with a function that opens a fresh,
// empty store, and the suite checks everything the interface promises.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// Run runs the conformance suite as subtests of t. open must return a new, empty store each
// time it is called; the suite closes every store it opens.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	fresh := func(t *testing.T) store.Store {
		t.Helper()
		s := open(t)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	for _, c := range []struct {
		name string
		fn   func(*testing.T, func(*testing.T) store.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"Filters", testFilters},
		{"Ordering", testOrdering},
		{"Stats", testStats},
		{"PruneByAge", testPruneByAge},
		{"PruneByCount", testPruneByCount},
		{"PruneDefaultsAndBatches", testPruneDefaultsAndBatches},
		{"ConcurrentAppends", testConcurrentAppends},
		{"PayloadFidelity", testPayloadFidelity},
		{"BadInput", testBadInput},
		{"BadFilters", testBadFilters},
		{"CancelledContext", testCancelledContext},
		{"Close", testClose},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, fresh) })
	}
}

// base is the suite's reference instant: a fixed time, in a zone other than UTC so that a
// store that drops or misreads the zone shows.
var base = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("UTC+2", 2*3600))

// ev builds an event with the given id, kind and offset from base, and the columns a kind
// requires.
func ev(id string, kind store.Kind, offset time.Duration) store.Event {
	e := store.Event{ID: id, Kind: kind, Time: base.Add(offset), Payload: json.RawMessage(`{"id":"` + id + `"}`)}
	switch kind {
	case store.KindDecision:
		e.Check, e.Verdict = stopgate.CheckCompleted, stopgate.Stop
	case store.KindTermination:
		e.Category = termination.Completed
	}
	return e
}

// with returns e changed by fn.
func with(e store.Event, fn func(*store.Event)) store.Event { fn(&e); return e }

func mustAppend(t *testing.T, s store.Store, events ...store.Event) {
	t.Helper()
	if err := s.Append(context.Background(), events...); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

func mustQuery(t *testing.T, s store.Store, f store.Filter) []store.Event {
	t.Helper()
	got, err := s.Query(context.Background(), f)
	if err != nil {
		t.Fatalf("Query(%+v): %v", f, err)
	}
	return got
}

func ids(events []store.Event) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		out = append(out, e.ID)
	}
	return out
}

// sameEvent reports how want and got differ ("" when they do not): the time must be the same
// instant, returned in UTC; every other field must be equal, the payload byte for byte.
func sameEvent(want, got store.Event) string {
	if !got.Time.Equal(want.Time) {
		return fmt.Sprintf("time %v, want %v", got.Time, want.Time)
	}
	if got.Time.Location() != time.UTC {
		return fmt.Sprintf("time %v is not in UTC", got.Time)
	}
	if string(got.Payload) != string(want.Payload) {
		return fmt.Sprintf("payload %q, want %q", got.Payload, want.Payload)
	}
	g, w := got, want
	g.Time, w.Time, g.Payload, w.Payload = time.Time{}, time.Time{}, nil, nil
	if !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("%+v, want %+v", g, w)
	}
	return ""
}

func testRoundTrip(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	full := store.Event{
		ID: "every-field", Ref: "its-decision", Kind: store.KindTermination, Time: base,
		Harness: "claude-code", Session: "sess-ü-😀", Agent: "sub agent 2",
		Check: stopgate.CheckError, Verdict: stopgate.Retry, Category: termination.RateLimited,
		Provider: "anthropic", Pending: true,
		Payload: json.RawMessage(`{"category":"rate_limited","site":"supervisor.decide","nested":{"a":[1,2.5,"x",null,true]}}`),
	}
	minimal := store.Event{ID: "minimal", Kind: store.KindObservation, Time: base.Add(time.Nanosecond), Payload: json.RawMessage(`null`)}
	mustAppend(t, s, full, minimal)
	got := mustQuery(t, s, store.Filter{})
	if len(got) != 2 {
		t.Fatalf("Query returned %d events, want 2: %+v", len(got), got)
	}
	for i, want := range []store.Event{full, minimal} {
		if d := sameEvent(want, got[i]); d != "" {
			t.Errorf("event %q: %s", want.ID, d)
		}
	}
	// An empty store, and a filter that matches nothing, return no events and no error.
	if got := mustQuery(t, open(t), store.Filter{}); len(got) != 0 {
		t.Errorf("a new store returned %d events", len(got))
	}
	if got := mustQuery(t, s, store.Filter{Session: "nobody"}); len(got) != 0 {
		t.Errorf("an unmatched filter returned %d events", len(got))
	}
	// Appending nothing is a no-op.
	if err := s.Append(context.Background()); err != nil {
		t.Errorf("Append() with no events: %v", err)
	}
}

// filterSet is the events the filter tests select from.
func filterSet() []store.Event {
	h := time.Hour
	return []store.Event{
		with(ev("a", store.KindDecision, 0), func(e *store.Event) {
			e.Harness, e.Session, e.Check, e.Verdict, e.Provider = "claude-code", "s1", stopgate.CheckTodos, stopgate.Continue, "anthropic"
		}),
		with(ev("b", store.KindTermination, h), func(e *store.Event) {
			e.Harness, e.Session, e.Check, e.Verdict, e.Category, e.Provider = "claude-code", "s1", stopgate.CheckError, stopgate.Stop, termination.AuthFailed, "anthropic"
		}),
		with(ev("c", store.KindObservation, 2*h), func(e *store.Event) {
			e.Harness, e.Session, e.Agent, e.Provider = "codex", "s2", "child", "openai"
		}),
		with(ev("d", store.KindDecision, 3*h), func(e *store.Event) {
			e.Harness, e.Session, e.Check, e.Verdict = "codex", "s2", stopgate.CheckStall, stopgate.Continue
		}),
		with(ev("e", store.KindDecision, 4*h), func(e *store.Event) {
			e.Harness, e.Session, e.Check, e.Verdict, e.Category = "gemini-cli", "s3", stopgate.CheckCompleted, stopgate.Stop, termination.Completed
		}),
	}
}

func testFilters(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	mustAppend(t, s, filterSet()...)
	h := time.Hour
	for _, c := range []struct {
		name string
		f    store.Filter
		want []string
	}{
		{"everything", store.Filter{}, []string{"a", "b", "c", "d", "e"}},
		{"since is inclusive", store.Filter{Since: base.Add(h)}, []string{"b", "c", "d", "e"}},
		{"until is exclusive", store.Filter{Until: base.Add(2 * h)}, []string{"a", "b"}},
		{"time range", store.Filter{Since: base.Add(h), Until: base.Add(3*h + 1)}, []string{"b", "c", "d"}},
		{"time range in another zone", store.Filter{Since: base.Add(h).UTC(), Until: base.Add(2 * h).In(time.FixedZone("UTC-7", -7*3600))}, []string{"b"}},
		{"empty range", store.Filter{Since: base.Add(2 * h), Until: base.Add(2 * h)}, nil},
		{"inverted range", store.Filter{Since: base.Add(3 * h), Until: base.Add(h)}, nil},
		{"range far outside the int64 span", store.Filter{Since: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Hour), Until: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"a", "b", "c", "d", "e"}},
		{"session", store.Filter{Session: "s2"}, []string{"c", "d"}},
		{"harness", store.Filter{Harness: "claude-code"}, []string{"a", "b"}},
		{"agent", store.Filter{Agent: "child"}, []string{"c"}},
		{"kind decision", store.Filter{Kind: store.KindDecision}, []string{"a", "d", "e"}},
		{"kind termination", store.Filter{Kind: store.KindTermination}, []string{"b"}},
		{"kind observation", store.Filter{Kind: store.KindObservation}, []string{"c"}},
		{"check", store.Filter{Check: stopgate.CheckStall}, []string{"d"}},
		{"verdict", store.Filter{Verdict: stopgate.Continue}, []string{"a", "d"}},
		{"category", store.Filter{Category: termination.AuthFailed}, []string{"b"}},
		{"provider", store.Filter{Provider: "anthropic"}, []string{"a", "b"}},
		{"combined", store.Filter{Kind: store.KindDecision, Verdict: stopgate.Continue, Harness: "codex"}, []string{"d"}},
		{"combined, no match", store.Filter{Kind: store.KindTermination, Session: "s2"}, nil},
		{"limit", store.Filter{Limit: 2}, []string{"a", "b"}},
		{"newest", store.Filter{Newest: true}, []string{"e", "d", "c", "b", "a"}},
		{"newest with limit", store.Filter{Newest: true, Limit: 2}, []string{"e", "d"}},
		{"newest with limit and filter", store.Filter{Newest: true, Limit: 1, Verdict: stopgate.Continue}, []string{"d"}},
		{"limit above count", store.Filter{Limit: 100, Kind: store.KindDecision}, []string{"a", "d", "e"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ids(mustQuery(t, s, c.f))
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("Query(%+v) = %v, want %v", c.f, got, c.want)
			}
		})
	}
}

func testOrdering(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	// Appended out of time order, across calls and within one; x1…x4 share one instant.
	mustAppend(t, s, ev("late", store.KindObservation, time.Hour), ev("x1", store.KindObservation, 0))
	mustAppend(t, s, ev("early", store.KindObservation, -time.Hour))
	mustAppend(t, s, ev("x2", store.KindObservation, 0), ev("x3", store.KindObservation, 0))
	mustAppend(t, s, ev("x4", store.KindObservation, 0), ev("ns", store.KindObservation, time.Nanosecond))

	want := []string{"early", "x1", "x2", "x3", "x4", "ns", "late"}
	if got := ids(mustQuery(t, s, store.Filter{})); !slices.Equal(got, want) {
		t.Errorf("oldest first: %v, want %v", got, want)
	}
	slices.Reverse(want)
	if got := ids(mustQuery(t, s, store.Filter{Newest: true})); !slices.Equal(got, want) {
		t.Errorf("newest first: %v, want %v", got, want)
	}
}

// statsSet is a known set of events and the Stats it must produce over [since, until) in
// half-hour buckets, for every harness and for claude-code alone.
func statsSet() (events []store.Event, since, until time.Time, all, claude store.Stats) {
	hour := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	n := 0
	dec := func(at time.Duration, harness string, c stopgate.Check, v stopgate.Verdict, pending bool) {
		n++
		events = append(events, store.Event{ID: fmt.Sprintf("d%02d", n), Kind: store.KindDecision, Time: hour.Add(at),
			Harness: harness, Check: c, Verdict: v, Pending: pending, Payload: json.RawMessage(`{}`)})
	}
	term := func(at time.Duration, harness string, c termination.Category, provider string) {
		n++
		events = append(events, store.Event{ID: fmt.Sprintf("t%02d", n), Kind: store.KindTermination, Time: hour.Add(at),
			Harness: harness, Category: c, Provider: provider, Payload: json.RawMessage(`{}`)})
	}
	m := time.Minute
	// Outside the range: before since, and at until (exclusive).
	dec(-1*m, "claude-code", stopgate.CheckTodos, stopgate.Continue, true)
	term(-1*m, "claude-code", termination.Timeout, "openai")
	dec(90*m, "claude-code", stopgate.CheckTodos, stopgate.Continue, true)
	// Bucket 10:00.
	dec(0, "claude-code", stopgate.CheckTodos, stopgate.Continue, true)
	dec(5*m, "claude-code", stopgate.CheckTodos, stopgate.Continue, false)
	dec(29*m+59*time.Second, "codex", stopgate.CheckTodos, stopgate.Continue, true)
	dec(10*m, "codex", stopgate.CheckCompleted, stopgate.Stop, true) // pending, but no nudge
	dec(12*m, "claude-code", stopgate.CheckError, stopgate.Retry, true)
	// Bucket 10:30.
	dec(30*m, "claude-code", stopgate.CheckStall, stopgate.Continue, false)
	dec(31*m, "codex", stopgate.CheckPendingWake, stopgate.Stop, true)
	dec(59*m, "claude-code", stopgate.CheckCompleted, stopgate.Stop, false)
	// Bucket 11:00.
	dec(60*m, "gemini-cli", stopgate.CheckProcesses, stopgate.Continue, true)
	// Terminations.
	term(1*m, "claude-code", termination.RateLimited, "anthropic")
	term(2*m, "claude-code", termination.RateLimited, "anthropic")
	term(3*m, "codex", termination.RateLimited, "openai")
	term(4*m, "claude-code", termination.Completed, "")
	term(70*m, "claude-code", termination.ContextOverflow, "anthropic")
	// Observations count in neither table.
	events = append(events, store.Event{ID: "o1", Kind: store.KindObservation, Time: hour, Harness: "claude-code",
		Provider: "anthropic", Category: termination.OutputTruncated, Payload: json.RawMessage(`{}`)})

	since, until = hour, hour.Add(90*m)
	b := func(min int) time.Time { return hour.Add(time.Duration(min) * m) }
	all = store.Stats{
		Decisions: []store.DecisionCount{
			{Bucket: b(0), Check: stopgate.CheckCompleted, Verdict: stopgate.Stop, Count: 1},
			{Bucket: b(0), Check: stopgate.CheckError, Verdict: stopgate.Retry, Count: 1},
			{Bucket: b(0), Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Count: 3},
			{Bucket: b(30), Check: stopgate.CheckCompleted, Verdict: stopgate.Stop, Count: 1},
			{Bucket: b(30), Check: stopgate.CheckPendingWake, Verdict: stopgate.Stop, Count: 1},
			{Bucket: b(30), Check: stopgate.CheckStall, Verdict: stopgate.Continue, Count: 1},
			{Bucket: b(60), Check: stopgate.CheckProcesses, Verdict: stopgate.Continue, Count: 1},
		},
		Terminations: []store.TerminationCount{
			{Category: termination.Completed, Provider: "", Harness: "claude-code", Count: 1},
			{Category: termination.ContextOverflow, Provider: "anthropic", Harness: "claude-code", Count: 1},
			{Category: termination.RateLimited, Provider: "anthropic", Harness: "claude-code", Count: 2},
			{Category: termination.RateLimited, Provider: "openai", Harness: "codex", Count: 1},
		},
		// Continue or retry: todos ×3, error retry, stall, processes = 6; pending among
		// them: todos 10:00, todos 10:29:59 (codex), error retry, processes = 4.
		Nudges: 6, PendingNudges: 4,
	}
	claude = store.Stats{
		Decisions: []store.DecisionCount{
			{Bucket: b(0), Check: stopgate.CheckError, Verdict: stopgate.Retry, Count: 1},
			{Bucket: b(0), Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Count: 2},
			{Bucket: b(30), Check: stopgate.CheckCompleted, Verdict: stopgate.Stop, Count: 1},
			{Bucket: b(30), Check: stopgate.CheckStall, Verdict: stopgate.Continue, Count: 1},
		},
		Terminations: []store.TerminationCount{
			{Category: termination.Completed, Provider: "", Harness: "claude-code", Count: 1},
			{Category: termination.ContextOverflow, Provider: "anthropic", Harness: "claude-code", Count: 1},
			{Category: termination.RateLimited, Provider: "anthropic", Harness: "claude-code", Count: 2},
		},
		Nudges: 4, PendingNudges: 2,
	}
	return events, since, until, all, claude
}

func testStats(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	events, since, until, all, claude := statsSet()
	mustAppend(t, s, events...)
	for _, c := range []struct {
		name string
		f    store.StatsFilter
		want store.Stats
	}{
		{"all harnesses", store.StatsFilter{Since: since, Until: until, Bucket: 30 * time.Minute}, all},
		{"one harness", store.StatsFilter{Since: since, Until: until, Bucket: 30 * time.Minute, Harness: "claude-code"}, claude},
		{"empty range", store.StatsFilter{Since: until.Add(24 * time.Hour)}, store.Stats{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.Stats(context.Background(), c.f)
			if err != nil {
				t.Fatalf("Stats: %v", err)
			}
			if !statsEqual(got, c.want) {
				t.Errorf("Stats(%+v) =\n%s\nwant\n%s", c.f, dump(got), dump(c.want))
			}
		})
	}
	t.Run("share", func(t *testing.T) {
		if got := all.PendingShare(); got != 4.0/6.0 {
			t.Errorf("PendingShare = %v, want 4/6", got)
		}
		if got := (store.Stats{}).PendingShare(); got != 0 {
			t.Errorf("PendingShare with no nudges = %v, want 0", got)
		}
	})
	t.Run("default bucket is an hour", func(t *testing.T) {
		got, err := s.Stats(context.Background(), store.StatsFilter{Since: since, Until: until})
		if err != nil {
			t.Fatalf("Stats: %v", err)
		}
		var buckets []time.Time
		for _, d := range got.Decisions {
			if !slices.ContainsFunc(buckets, d.Bucket.Equal) {
				buckets = append(buckets, d.Bucket)
			}
		}
		want := []time.Time{since, since.Add(time.Hour)}
		if !slices.EqualFunc(buckets, want, time.Time.Equal) {
			t.Errorf("buckets %v, want %v", buckets, want)
		}
	})
	t.Run("the widest bucket", func(t *testing.T) {
		got, err := s.Stats(context.Background(), store.StatsFilter{Since: since, Until: until, Bucket: store.MaxBucket})
		if err != nil {
			t.Fatalf("Stats: %v", err)
		}
		for _, d := range got.Decisions {
			if !d.Bucket.Equal(time.Unix(0, 0)) {
				t.Errorf("bucket %v, want the epoch", d.Bucket)
			}
		}
		if got.Nudges != all.Nudges {
			t.Errorf("Nudges %d, want %d", got.Nudges, all.Nudges)
		}
	})
	t.Run("buckets before the epoch floor", func(t *testing.T) {
		s := open(t)
		at := time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)
		mustAppend(t, s, store.Event{ID: "old", Kind: store.KindDecision, Time: at, Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Payload: json.RawMessage(`{}`)})
		got, err := s.Stats(context.Background(), store.StatsFilter{Bucket: time.Hour})
		if err != nil {
			t.Fatalf("Stats: %v", err)
		}
		want := time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC)
		if len(got.Decisions) != 1 || !got.Decisions[0].Bucket.Equal(want) {
			t.Errorf("Decisions = %+v, want one in the bucket of %v", got.Decisions, want)
		}
	})
}

func statsEqual(a, b store.Stats) bool {
	return a.Nudges == b.Nudges && a.PendingNudges == b.PendingNudges &&
		slices.Equal(a.Terminations, b.Terminations) &&
		slices.EqualFunc(a.Decisions, b.Decisions, func(x, y store.DecisionCount) bool {
			return x.Bucket.Equal(y.Bucket) && x.Bucket.Location() == time.UTC && x.Check == y.Check && x.Verdict == y.Verdict && x.Count == y.Count
		})
}

func dump(s store.Stats) string {
	var b strings.Builder
	for _, d := range s.Decisions {
		fmt.Fprintf(&b, "  decision %s %s %s %d\n", d.Bucket.Format(time.RFC3339Nano), d.Check, d.Verdict, d.Count)
	}
	for _, c := range s.Terminations {
		fmt.Fprintf(&b, "  termination %s %q %s %d\n", c.Category, c.Provider, c.Harness, c.Count)
	}
	fmt.Fprintf(&b, "  nudges %d pending %d", s.Nudges, s.PendingNudges)
	return b.String()
}

// agedSet returns events at the given ages before now, named by age.
func agedSet(now time.Time, ages ...time.Duration) []store.Event {
	var out []store.Event
	for _, a := range ages {
		out = append(out, ev("age-"+a.String(), store.KindObservation, 0))
		out[len(out)-1].Time = now.Add(-a)
	}
	return out
}

func testPruneByAge(t *testing.T, open func(*testing.T) store.Store) {
	// The ages are hours apart, so the test does not depend on how long it takes to run.
	h := time.Hour
	for _, c := range []struct {
		name    string
		r       store.Retention
		deleted int64
		kept    []string
	}{
		{"a day", store.Retention{MaxAge: 24 * h}, 2, []string{"age-1h0m0s", "age--1h0m0s"}},
		{"half an hour", store.Retention{MaxAge: 30 * time.Minute}, 3, []string{"age--1h0m0s"}},
		{"a week", store.Retention{MaxAge: 7 * 24 * h}, 0, []string{"age-48h0m0s", "age-25h0m0s", "age-1h0m0s", "age--1h0m0s"}},
		{"with a count bound too", store.Retention{MaxAge: 24 * h, MaxEvents: 1}, 3, []string{"age--1h0m0s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			mustAppend(t, s, agedSet(time.Now(), 48*h, 25*h, h, -h)...)
			n, err := s.Prune(context.Background(), c.r)
			if err != nil {
				t.Fatalf("Prune: %v", err)
			}
			if n != c.deleted {
				t.Errorf("Prune deleted %d, want %d", n, c.deleted)
			}
			if got := ids(mustQuery(t, s, store.Filter{})); !slices.Equal(got, c.kept) {
				t.Errorf("kept %v, want %v", got, c.kept)
			}
		})
	}
}

func testPruneByCount(t *testing.T, open func(*testing.T) store.Store) {
	for _, c := range []struct {
		name    string
		max     int64
		deleted int64
		kept    []string
	}{
		{"keep 3", 3, 4, []string{"x4", "late", "later"}},
		{"keep 4", 4, 3, []string{"x3", "x4", "late", "later"}},
		{"keep 1", 1, 6, []string{"later"}},
		{"keep as many as there are", 7, 0, []string{"early", "x1", "x2", "x3", "x4", "late", "later"}},
		{"keep more than there are", 100, 0, []string{"early", "x1", "x2", "x3", "x4", "late", "later"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			// x1…x4 share an instant: the count bound splits them by append order.
			mustAppend(t, s, ev("x1", store.KindObservation, 0), ev("late", store.KindObservation, time.Hour))
			mustAppend(t, s, ev("x2", store.KindObservation, 0), ev("early", store.KindObservation, -time.Hour))
			mustAppend(t, s, ev("x3", store.KindObservation, 0), ev("x4", store.KindObservation, 0))
			mustAppend(t, s, ev("later", store.KindObservation, 2*time.Hour))
			n, err := s.Prune(context.Background(), store.Retention{MaxEvents: c.max})
			if err != nil {
				t.Fatalf("Prune: %v", err)
			}
			if n != c.deleted {
				t.Errorf("Prune deleted %d, want %d", n, c.deleted)
			}
			if got := ids(mustQuery(t, s, store.Filter{})); !slices.Equal(got, c.kept) {
				t.Errorf("kept %v, want %v", got, c.kept)
			}
		})
	}
}

func testPruneDefaultsAndBatches(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	// More events than one pruning batch deletes, so that pruning takes several.
	const total, keep = 1234, 100
	var events []store.Event
	for i := range total {
		events = append(events, ev(fmt.Sprintf("e%04d", i), store.KindObservation, time.Duration(i)*time.Second))
	}
	mustAppend(t, s, events...)
	// A zero Retention with no store default keeps everything.
	if n, err := s.Prune(context.Background(), store.Retention{}); err != nil || n != 0 {
		t.Fatalf("Prune(zero) = %d, %v; want 0, nil", n, err)
	}
	n, err := s.Prune(context.Background(), store.Retention{MaxEvents: keep})
	if err != nil {
		t.Fatalf("Prune: %v", err)
	}
	if n != total-keep {
		t.Errorf("Prune deleted %d, want %d", n, total-keep)
	}
	got := ids(mustQuery(t, s, store.Filter{}))
	if len(got) != keep || got[0] != fmt.Sprintf("e%04d", total-keep) || got[keep-1] != fmt.Sprintf("e%04d", total-1) {
		t.Errorf("kept %d events from %v to %v, want the newest %d", len(got), got[0], got[len(got)-1], keep)
	}
	// Pruning again deletes nothing.
	if n, err := s.Prune(context.Background(), store.Retention{MaxEvents: keep}); err != nil || n != 0 {
		t.Errorf("second Prune = %d, %v; want 0, nil", n, err)
	}
}

func testConcurrentAppends(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	const goroutines, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				e := ev(fmt.Sprintf("g%d-%03d", g, i), store.KindObservation, time.Duration(i)*time.Millisecond)
				if i%4 == 0 { // a batch now and then
					e2 := with(e, func(e *store.Event) { e.ID += "b" })
					errs <- s.Append(context.Background(), e, e2)
					continue
				}
				errs <- s.Append(context.Background(), e)
			}
		})
	}
	// Readers at the same time.
	wg.Go(func() {
		for range 20 {
			if _, err := s.Query(context.Background(), store.Filter{Limit: 10, Newest: true}); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Append: %v", err)
		}
	}
	got := mustQuery(t, s, store.Filter{})
	want := goroutines * (each + each/4)
	if len(got) != want {
		t.Fatalf("stored %d events, want %d", len(got), want)
	}
	seen := map[string]bool{}
	for _, e := range got {
		if seen[e.ID] {
			t.Errorf("event %q stored twice", e.ID)
		}
		seen[e.ID] = true
	}
}

func testPayloadFidelity(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	payloads := []struct{ name, json string }{
		{"key order kept", `{"z":1,"a":2,"m":{"y":true,"b":false}}`},
		{"whitespace kept", "{ \"a\" :\n\t[ 1 , 2 ]\r\n}"},
		{"duplicate keys kept", `{"a":1,"a":2}`},
		{"escapes kept as written", `{"s":"\u00e9\n\"q\"\\ \/ \u2028 \ud83d\ude00 \u0041"}`},
		{"raw unicode", `{"s":"é 😀 中文 \u0000 escaped NUL"}`},
		{"numbers beyond float64", `{"big":123456789012345678901234567890,"tiny":1e-400,"huge":1e400,"neg":-0.0}`},
		{"top-level array", `[1,"two",{"three":3},null]`},
		{"top-level string", `"just a string"`},
		{"top-level number", `42`},
		{"null", `null`},
		{"empty object", `{}`},
		{"large", `{"text":"` + strings.Repeat("the agent said something long. ", 40000) + `"}`},
	}
	var events []store.Event
	for i, p := range payloads {
		events = append(events, store.Event{ID: fmt.Sprintf("p%02d", i), Kind: store.KindObservation,
			Time: base.Add(time.Duration(i)), Payload: json.RawMessage(p.json)})
	}
	mustAppend(t, s, events...)
	got := mustQuery(t, s, store.Filter{})
	if len(got) != len(payloads) {
		t.Fatalf("stored %d events, want %d", len(got), len(payloads))
	}
	for i, p := range payloads {
		if string(got[i].Payload) != p.json {
			g := string(got[i].Payload)
			if len(g) > 200 {
				g = g[:200] + "…"
			}
			t.Errorf("%s: payload came back as %q", p.name, g)
		}
	}
	// A decision's payload decodes back into the decision it was made from.
	d := stopgate.Decision{Verdict: stopgate.Stop, Check: stopgate.CheckCompleted,
		Reason: &termination.Reason{Category: termination.Completed, Site: termination.SiteSupervisor, Source: termination.SourceControl},
		Trail:  []stopgate.TrailEntry{{Check: stopgate.CheckError, Outcome: stopgate.Pass, Why: "no error"}}}
	evs, err := store.DecisionEvents(stopgate.Turn{Session: "s"}, d, base)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, evs...)
	back := mustQuery(t, s, store.Filter{Kind: store.KindDecision})
	if len(back) != 1 {
		t.Fatalf("got %d decisions, want 1", len(back))
	}
	var d2 stopgate.Decision
	if err := json.Unmarshal(back[0].Payload, &d2); err != nil {
		t.Fatalf("decode the stored decision: %v", err)
	}
	if d2.Verdict != d.Verdict || d2.Check != d.Check || *d2.Reason != *d.Reason || !reflect.DeepEqual(d2.Trail, d.Trail) {
		t.Errorf("decision came back as %+v, want %+v", d2, d)
	}
}

func testBadInput(t *testing.T, open func(*testing.T) store.Store) {
	good := ev("good", store.KindObservation, 0)
	for _, c := range []struct {
		name string
		bad  store.Event
		is   error
		want string // in the error
	}{
		{"no kind", with(good, func(e *store.Event) { e.Kind = "" }), store.ErrInvalidEvent, "kind is empty"},
		{"unknown kind", with(good, func(e *store.Event) { e.Kind = "verdict" }), store.ErrInvalidEvent, `unknown kind "verdict"`},
		{"no id", with(good, func(e *store.Event) { e.ID = "" }), store.ErrInvalidEvent, "id is empty"},
		{"long id", with(good, func(e *store.Event) { e.ID = strings.Repeat("x", store.MaxIDLen+1) }), store.ErrInvalidEvent, "id is 129 bytes long"},
		{"no time", with(good, func(e *store.Event) { e.Time = time.Time{} }), store.ErrInvalidEvent, "time is zero"},
		{"time out of range", with(good, func(e *store.Event) { e.Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) }), store.ErrInvalidEvent, "outside the years 1678 to 2261"},
		{"no payload", with(good, func(e *store.Event) { e.Payload = nil }), store.ErrInvalidEvent, "payload is empty"},
		{"payload not JSON", with(good, func(e *store.Event) { e.Payload = json.RawMessage(`{"a":`) }), store.ErrInvalidEvent, "payload is not valid JSON"},
		{"payload with trailing data", with(good, func(e *store.Event) { e.Payload = json.RawMessage(`{} {}`) }), store.ErrInvalidEvent, "payload is not valid JSON"},
		{"payload with a raw NUL", with(good, func(e *store.Event) { e.Payload = json.RawMessage("{\"a\":\"\x00\"}") }), store.ErrInvalidEvent, "payload contains a NUL byte"},
		{"payload not UTF-8", with(good, func(e *store.Event) { e.Payload = json.RawMessage("\"\xff\"") }), store.ErrInvalidEvent, "payload is not valid UTF-8"},
		{"session not UTF-8", with(good, func(e *store.Event) { e.Session = "s\xc3" }), store.ErrInvalidEvent, "session is not valid UTF-8"},
		{"NUL in harness", with(good, func(e *store.Event) { e.Harness = "a\x00b" }), store.ErrInvalidEvent, "harness contains a NUL byte"},
		{"decision without verdict", with(ev("d", store.KindDecision, 0), func(e *store.Event) { e.Verdict = "" }), store.ErrInvalidEvent, "a decision has no verdict"},
		{"decision without check", with(ev("d", store.KindDecision, 0), func(e *store.Event) { e.Check = "" }), store.ErrInvalidEvent, "a decision has no check"},
		{"termination without category", with(ev("t", store.KindTermination, 0), func(e *store.Event) { e.Category = "" }), store.ErrInvalidEvent, "a termination has no category"},
		{"id already stored", with(good, func(e *store.Event) { e.ID = "existing" }), store.ErrDuplicate, `"existing"`},
		{"id twice in the call", with(good, func(e *store.Event) { e.ID = "first" }), store.ErrDuplicate, `events 1 and 2: duplicate event id "first"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			existing := ev("existing", store.KindObservation, -time.Hour)
			mustAppend(t, s, existing)
			// The bad event between good ones: nothing of the call may be written.
			batch := []store.Event{ev("first", store.KindObservation, time.Second), c.bad, ev("third", store.KindObservation, 2*time.Second)}
			err := s.Append(context.Background(), batch...)
			if err == nil {
				t.Fatalf("Append accepted %+v", c.bad)
			}
			if !errors.Is(err, c.is) {
				t.Errorf("error %q is not %v", err, c.is)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if c.is == store.ErrInvalidEvent && !strings.Contains(err.Error(), "event 2 of 3") {
				t.Errorf("error %q does not name the event", err)
			}
			if got := ids(mustQuery(t, s, store.Filter{})); !slices.Equal(got, []string{"existing"}) {
				t.Errorf("after the failed Append the store holds %v, want only [existing]", got)
			}
		})
	}
	t.Run("the same event twice in two calls", func(t *testing.T) {
		s := open(t)
		e := ev("once", store.KindObservation, 0)
		mustAppend(t, s, e)
		err := s.Append(context.Background(), ev("new", store.KindObservation, time.Second), e)
		if !errors.Is(err, store.ErrDuplicate) || !strings.Contains(err.Error(), `"once"`) {
			t.Errorf("second Append: %v, want ErrDuplicate naming \"once\"", err)
		}
		if got := ids(mustQuery(t, s, store.Filter{})); !slices.Equal(got, []string{"once"}) {
			t.Errorf("the store holds %v, want only [once]", got)
		}
	})
}

func testBadFilters(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"negative limit", func() error { _, err := s.Query(ctx, store.Filter{Limit: -1}); return err }, "limit -1 is negative"},
		{"unknown kind", func() error { _, err := s.Query(ctx, store.Filter{Kind: "x' OR '1'='1"}); return err }, "unknown kind"},
		{"negative bucket", func() error { _, err := s.Stats(ctx, store.StatsFilter{Bucket: -time.Second}); return err }, "bucket -1s is negative"},
		{"bucket too wide", func() error { _, err := s.Stats(ctx, store.StatsFilter{Bucket: store.MaxBucket + 1}); return err }, "is wider than"},
		{"negative age", func() error { _, err := s.Prune(ctx, store.Retention{MaxAge: -time.Hour}); return err }, "negative bound"},
		{"negative count", func() error { _, err := s.Prune(ctx, store.Retention{MaxEvents: -1}); return err }, "negative bound"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if !errors.Is(err, store.ErrInvalidFilter) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrInvalidFilter saying %q", err, c.want)
			}
		})
	}
}

func testCancelledContext(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Append(ctx, ev("x", store.KindObservation, 0)); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := s.Query(ctx, store.Filter{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Query with a cancelled context: %v, want context.Canceled", err)
	}
	if got := mustQuery(t, s, store.Filter{}); len(got) != 0 {
		t.Errorf("the cancelled Append stored %v", ids(got))
	}
}

func testClose(t *testing.T, open func(*testing.T) store.Store) {
	s := open(t)
	mustAppend(t, s, ev("x", store.KindObservation, 0))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Append", func() error { return s.Append(ctx, ev("y", store.KindObservation, 0)) }},
		{"Append of nothing", func() error { return s.Append(ctx) }},
		{"Query", func() error { _, err := s.Query(ctx, store.Filter{}); return err }},
		{"Stats", func() error { _, err := s.Stats(ctx, store.StatsFilter{}); return err }},
		{"Prune", func() error { _, err := s.Prune(ctx, store.Retention{MaxEvents: 1}); return err }},
	} {
		if err := c.call(); !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", c.name, err)
		}
	}
}
