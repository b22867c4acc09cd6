package server

import (
	"errors"
	"log/slog"
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
	g := newGroupRecorder(st, m, slog.New(slog.DiscardHandler))
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
	g := newGroupRecorder(st, m, slog.New(slog.DiscardHandler))
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
	g := newGroupRecorder(st, newMetrics(), slog.New(slog.DiscardHandler))
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
