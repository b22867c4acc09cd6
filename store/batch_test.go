package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/store"
)

// TestBatch adds to one SQLite batch the way the group commit does and checks what each
// kind of failure leaves: an invalid event, or an ID given twice in one Add, refuses that
// Add alone; an ID already stored rolls the whole batch back; only a commit stores anything.
func TestBatch(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	ev := func(id string) store.Event {
		return store.Event{ID: id, Kind: store.KindObservation, Time: at, Payload: json.RawMessage(`{"id":"` + id + `"}`)}
	}
	ids := func(s store.Store) []string {
		t.Helper()
		evs, err := s.Query(ctx, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range evs {
			out = append(out, e.ID)
		}
		return out
	}
	s := openSQLite(t)
	defer s.Close()
	bs, ok := s.(store.Batcher)
	if !ok {
		t.Fatalf("the SQLite store (%T) is not a store.Batcher", s)
	}
	if err := s.Append(ctx, ev("stored")); err != nil {
		t.Fatal(err)
	}

	b, err := bs.BeginBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ev("a1"), ev("a2")); err != nil {
		t.Fatalf("Add: %v", err)
	}
	bad := ev("bad")
	bad.Payload = json.RawMessage(`{"unclosed":`)
	if err := b.Add(ev("b1"), bad); !errors.Is(err, store.ErrInvalidEvent) || errors.Is(err, store.ErrBatchBroken) {
		t.Fatalf("Add of an invalid event: %v, want ErrInvalidEvent and the batch intact", err)
	}
	if err := b.Add(ev("c1"), ev("c1")); !errors.Is(err, store.ErrDuplicate) || errors.Is(err, store.ErrBatchBroken) {
		t.Fatalf("Add of one ID twice: %v, want ErrDuplicate and the batch intact", err)
	}
	// 200 events take two INSERT statements (128 and 64 rows) and three more (4, 2, 2…).
	var many []store.Event
	for i := range 200 {
		many = append(many, ev(fmt.Sprintf("m%03d", i)))
	}
	if err := b.Add(many...); err != nil {
		t.Fatalf("Add of 200: %v", err)
	}
	if err := b.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	if got := ids(s); !slices.Equal(got, []string{"stored"}) {
		t.Fatalf("before the commit the log holds %q, want only the event stored before", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	want := []string{"stored", "a1", "a2"}
	for _, e := range many {
		want = append(want, e.ID)
	}
	if got := ids(s); !slices.Equal(got, want) {
		t.Fatalf("after the commit the log holds %d events %q…, want %d", len(got), got[:min(len(got), 4)], len(want))
	}
	if err := b.Add(ev("late")); err == nil {
		t.Fatal("Add after Commit succeeded")
	}
	if err := b.Rollback(); err != nil {
		t.Fatalf("Rollback after Commit: %v, want nil", err)
	}

	// An ID already stored breaks the batch: what was added before is gone too.
	b, err = bs.BeginBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ev("d1")); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	// The rows of a few decisions go in one statement, so the stored ID is found by Add or,
	// as here, by Commit, which inserts the last rows.
	if err := b.Add(ev("d2"), ev("stored")); err != nil {
		_ = b.Rollback()
		t.Fatalf("Add of a stored ID among the first rows: %v, want it found by Commit", err)
	}
	if err := b.Commit(); !errors.Is(err, store.ErrDuplicate) || !errors.Is(err, store.ErrBatchBroken) {
		t.Fatalf("Commit of a batch holding a stored ID: %v, want ErrDuplicate and ErrBatchBroken", err)
	}
	if err := b.Add(ev("d3")); !errors.Is(err, store.ErrBatchBroken) {
		t.Fatalf("Add after the batch broke: %v, want ErrBatchBroken", err)
	}
	// 70 rows make Add insert: a stored ID among them is found there.
	b, err = bs.BeginBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ev("g1")); err != nil {
		t.Fatal(err)
	}
	rows := []store.Event{ev("stored")}
	for i := range 69 {
		rows = append(rows, ev(fmt.Sprintf("g%03d", i+2)))
	}
	if err := b.Add(rows...); !errors.Is(err, store.ErrDuplicate) || !errors.Is(err, store.ErrBatchBroken) {
		_ = b.Rollback()
		t.Fatalf("Add of 70 rows holding a stored ID: %v, want ErrDuplicate and ErrBatchBroken", err)
	}
	if err := b.Commit(); !errors.Is(err, store.ErrBatchBroken) {
		t.Fatalf("Commit of a broken batch: %v, want ErrBatchBroken", err)
	}
	if got := ids(s); !slices.Equal(got, want) {
		t.Fatalf("a broken batch left %d events, want the %d from before", len(got), len(want))
	}

	// Rolled back: nothing stored, and the write connection is free again.
	b, err = bs.BeginBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ev("e1")); err != nil {
		t.Fatal(err)
	}
	if err := b.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, ev("f1")); err != nil {
		t.Fatalf("Append after a rollback: %v", err)
	}
	if got := ids(s); !slices.Equal(got, append(want, "f1")) {
		t.Fatalf("after a rolled-back batch and an append the log holds %q…, want %q last", got[len(got)-1], "f1")
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.BeginBatch(ctx); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("BeginBatch after Close: %v, want ErrClosed", err)
	}
}

// TestCheckpointer checks that the SQLite store's own checkpointer copies the WAL into the
// database file while the store is open, since its writer connection no longer does.
func TestCheckpointer(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.db")
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := range 50 {
		var evs []store.Event
		for j := range 20 {
			evs = append(evs, store.Event{ID: fmt.Sprintf("e%02d-%02d", i, j), Kind: store.KindObservation, Time: at,
				Payload: json.RawMessage(`{"pad":"` + strings.Repeat("x", 400) + `"}`)})
		}
		if err := s.Append(ctx, evs...); err != nil {
			t.Fatal(err)
		}
	}
	// The database file grows only as pages are checkpointed into it: the appends are
	// 450 KB, a tenth of the WAL SQLite's own automatic checkpoint waits for.
	deadline := time.Now().Add(10 * time.Second)
	for {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 300<<10 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file is %d bytes 10 s after 450 KB of appends: nothing was checkpointed", fi.Size())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
