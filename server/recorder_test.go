package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// decisionEvents returns the events of a decision for session.
func decisionEvents(t testing.TB, session string) []store.Event {
	t.Helper()
	turn := stopgate.Turn{Session: session}
	evs, err := store.DecisionEvents(turn, stopgate.New(stopgate.Config{}).Decide(t.Context(), turn), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestGroupCommitIsolatesFailure commits a batch in which one decision's events cannot be
// stored: the others are still recorded, and only that one fails.
func TestGroupCommitIsolatesFailure(t *testing.T) {
	st := openStore(t)
	m := newMetrics()
	g := newGroupRecorder(st, m, slog.New(slog.DiscardHandler), 1)
	defer g.close()

	stored := decisionEvents(t, "first")
	if err := g.record(t.Context(), stored); err != nil {
		t.Fatal(err)
	}
	good1, dup, good2 := decisionEvents(t, "a"), decisionEvents(t, "dup"), decisionEvents(t, "b")
	dup[0].ID = stored[0].ID // already in the store
	batch := []*pending{
		{events: good1, done: make(chan error, 1)},
		{events: dup, done: make(chan error, 1)},
		{events: good2, done: make(chan error, 1)},
	}
	var all []store.Event
	for _, p := range batch {
		all = append(all, p.events...)
	}
	g.commit(batch, all)
	for i, want := range []error{nil, store.ErrDuplicate, nil} {
		if err := <-batch[i].done; !errors.Is(err, want) {
			t.Errorf("decision %d: %v, want %v", i, err, want)
		}
	}
	assertStored(t, st, map[string]bool{stored[0].ID: true, good1[0].ID: true, good2[0].ID: true}, 3)
	if got := m.storeErrors.sorted(); len(got) != 1 || got[0].n.Load() != 2 {
		t.Errorf("store errors: the batch and the duplicate's own append; got %v", got)
	}
}

// TestGroupCommitStoreDown: a failure that is not one decision's fails the whole batch once.
func TestGroupCommitStoreDown(t *testing.T) {
	st := openStore(t)
	m := newMetrics()
	g := newGroupRecorder(st, m, slog.New(slog.DiscardHandler), 1)
	defer g.close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	batch := []*pending{
		{events: decisionEvents(t, "a"), done: make(chan error, 1)},
		{events: decisionEvents(t, "b"), done: make(chan error, 1)},
	}
	g.commit(batch, append(append([]store.Event{}, batch[0].events...), batch[1].events...))
	for i, p := range batch {
		if err := <-p.done; !errors.Is(err, store.ErrClosed) {
			t.Errorf("decision %d: %v", i, err)
		}
	}
	if n := m.appends.Load(); n != 1 {
		t.Errorf("%d appends, want 1: a store that is down is not retried per decision", n)
	}
}

func TestGroupRecorderClose(t *testing.T) {
	st := openStore(t)
	g := newGroupRecorder(st, newMetrics(), slog.New(slog.DiscardHandler), 1)
	evs := decisionEvents(t, "s")
	if err := g.record(t.Context(), evs); err != nil {
		t.Fatal(err)
	}
	g.close()
	g.close() // twice is fine
	if err := g.record(t.Context(), decisionEvents(t, "late")); !errors.Is(err, errRecorderClosed) {
		t.Errorf("record after close: %v", err)
	}
	assertStored(t, st, map[string]bool{evs[0].ID: true}, 1)
}

// stuckStore is a store whose Append blocks until release is closed, a log slower than any
// request's deadline; it then appends to the store it wraps.
type stuckStore struct {
	store.Store
	entered chan struct{} // receives once per Append that has begun
	release chan struct{}
}

func (s *stuckStore) Append(ctx context.Context, events ...store.Event) error {
	s.entered <- struct{}{}
	<-s.release
	return s.Store.Append(ctx, events...)
}

// TestSlowStoreDoesNotHoldTheDecision: with a store that does not answer, a decision is
// answered once RecordTimeout passes, marked not recorded, while the store is still stuck;
// the events are appended when it comes back.
func TestSlowStoreDoesNotHoldTheDecision(t *testing.T) {
	for _, each := range []bool{false, true} {
		name := "group commit"
		if each {
			name = "append each"
		}
		t.Run(name, func(t *testing.T) {
			inner := openStore(t)
			st := &stuckStore{Store: inner, entered: make(chan struct{}, 16), release: make(chan struct{})}
			s, ts := start(t, Options{Store: st, AppendEach: each, RecordTimeout: 50 * time.Millisecond})
			done := make(chan *http.Response, 1)
			go func() {
				resp, _ := do(t, "POST", ts.URL+"/v1/decide", `{"session":"slow","message":{"text":"All done."}}`, nil)
				done <- resp
			}()
			<-st.entered // the append has begun and is stuck
			var resp *http.Response
			select {
			case resp = <-done:
			case <-time.After(30 * time.Second):
				close(st.release)
				t.Fatal("the decision was held by the stuck store")
			}
			select {
			case <-st.entered:
				t.Error("a second append began")
			default:
			}
			if resp.StatusCode != http.StatusOK || resp.Header.Get(HeaderRecorded) != RecordedFailed || resp.Header.Get(HeaderEventID) != "" {
				t.Errorf("answer: %d, %s %q, want 200 and %s", resp.StatusCode, HeaderRecorded, resp.Header.Get(HeaderRecorded), RecordedFailed)
			}
			if n := s.metrics.unrecorded.Load(); n != 1 {
				t.Errorf("%d unrecorded decisions counted, want 1", n)
			}
			close(st.release)
			ts.Close()
			_ = s.Close() // waits for the writer, which appends once released
			got, err := inner.Query(t.Context(), store.Filter{Kind: store.KindDecision})
			if err != nil || len(got) != 1 || got[0].Session != "slow" {
				t.Errorf("after the store came back: %v, %+v", err, got)
			}
		})
	}
}

// TestGroupCommitWaitsForAnnouncedDecisions: the writer holds a commit for a decision
// announced and on its way, and commits a lone decision at once. The wait is an hour here, so
// that waiting where it should not hangs the test, and not waiting where it should splits the
// batch.
func TestGroupCommitWaitsForAnnouncedDecisions(t *testing.T) {
	st := openStore(t)
	m := newMetrics()
	g := newGroupRecorder(st, m, slog.New(slog.DiscardHandler), 1)
	g.wait = time.Hour
	defer g.close()

	lone := decisionEvents(t, "lone")
	g.announce()
	g.withdraw()
	if err := g.record(t.Context(), lone); err != nil { // nothing else announced: no wait
		t.Fatal(err)
	}

	a, b := decisionEvents(t, "a"), decisionEvents(t, "b")
	g.announce()
	g.announce()
	errA := make(chan error, 1)
	go func() {
		g.withdraw()
		errA <- g.record(t.Context(), a)
	}()
	// Give the writer time to take a and find b announced; b then joins the same commit.
	time.Sleep(20 * time.Millisecond)
	g.withdraw()
	if err := g.record(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	if err := <-errA; err != nil {
		t.Fatal(err)
	}
	if n := m.appends.Load(); n != 2 {
		t.Errorf("%d commits, want 2: the lone decision, then a and b together", n)
	}
	assertStored(t, st, map[string]bool{lone[0].ID: true, a[0].ID: true, b[0].ID: true}, 3)
}

// TestDirectRecorderClose: close waits for the appends under way, and a decision recorded
// afterwards is refused rather than appended to a store about to close.
func TestDirectRecorderClose(t *testing.T) {
	st := openStore(t)
	d := &directRecorder{st: st, m: newMetrics()}
	evs := decisionEvents(t, "s")
	if err := d.record(t.Context(), evs); err != nil {
		t.Fatal(err)
	}
	d.close()
	if err := d.record(t.Context(), decisionEvents(t, "late")); !errors.Is(err, errRecorderClosed) {
		t.Errorf("record after close: %v", err)
	}
	assertStored(t, st, map[string]bool{evs[0].ID: true}, 1)
}

// TestGroupCommitBatch runs the writer over a SQLite store, which inserts each decision's
// events as it takes them: a decision whose events are invalid is refused alone and the
// others are committed in the same transaction, and a decision whose ID is already stored
// breaks the transaction, after which each decision is appended on its own.
func TestGroupCommitBatch(t *testing.T) {
	st := openStore(t)
	if _, ok := st.(store.Batcher); !ok {
		t.Fatalf("the SQLite store (%T) is not a store.Batcher", st)
	}
	stored := decisionEvents(t, "first")
	if err := st.Append(t.Context(), stored...); err != nil {
		t.Fatal(err)
	}
	// run takes everything queued into one batch; the queue is closed, so it then returns.
	writer := func(m *metrics, decisions ...[]store.Event) []error {
		g := &groupRecorder{st: st, m: m, log: slog.New(slog.DiscardHandler), queue: make(chan *pending, len(decisions))}
		var ps []*pending
		for _, evs := range decisions {
			p := &pending{events: evs, done: make(chan error, 1)}
			ps = append(ps, p)
			g.queue <- p
		}
		close(g.queue)
		g.run()
		var errs []error
		for _, p := range ps {
			errs = append(errs, <-p.done)
		}
		return errs
	}

	good1, invalid, good2 := decisionEvents(t, "a"), decisionEvents(t, "invalid"), decisionEvents(t, "b")
	invalid[len(invalid)-1].Payload = []byte(`{"unclosed":`)
	m := newMetrics()
	errs := writer(m, good1, invalid, good2)
	for i, want := range []error{nil, store.ErrInvalidEvent, nil} {
		if !errors.Is(errs[i], want) {
			t.Errorf("decision %d: %v, want %v", i, errs[i], want)
		}
	}
	if n, e := m.appends.Load(), m.appended.Load(); n != 1 || e != uint64(len(good1)+len(good2)) {
		t.Errorf("%d commits of %d events, want one commit of the %d events of the two valid decisions", n, e, len(good1)+len(good2))
	}

	good3, dup, good4 := decisionEvents(t, "c"), decisionEvents(t, "dup"), decisionEvents(t, "d")
	dup[0].ID = stored[0].ID
	m = newMetrics()
	errs = writer(m, good3, dup, good4)
	for i, want := range []error{nil, store.ErrDuplicate, nil} {
		if !errors.Is(errs[i], want) {
			t.Errorf("decision %d: %v, want %v", i, errs[i], want)
		}
	}
	if n := m.appends.Load(); n != 4 {
		t.Errorf("%d appends, want 4: the whole batch again, then each decision on its own", n)
	}
	assertStored(t, st, map[string]bool{stored[0].ID: true, good1[0].ID: true, good2[0].ID: true, good3[0].ID: true, good4[0].ID: true}, 5)
}
