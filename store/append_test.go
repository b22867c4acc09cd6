package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/store"
)

// Append writes a call's events with several INSERT statements when there are many (one of
// 128 rows, 64, … down to 1). TestAppendSizes appends calls of sizes around those steps and
// checks that each event is stored once, in order, and that a call refused by its last
// statement leaves nothing of its earlier ones.
func TestAppendSizes(t *testing.T) {
	for _, b := range []struct {
		name string
		open func(t *testing.T) store.Store
	}{{"sqlite", openSQLite}, {"postgres", openPostgres}} {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := b.open(t)
			defer s.Close()
			at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
			var want []string
			n := 0
			event := func() store.Event {
				n++
				id := fmt.Sprintf("e%05d", n)
				return store.Event{ID: id, Kind: store.KindObservation, Time: at, Payload: json.RawMessage(`{"n":` + fmt.Sprint(n) + `}`)}
			}
			for _, size := range []int{1, 2, 3, 7, 8, 63, 64, 65, 127, 128, 129, 255, 300, 1000} {
				var batch []store.Event
				for range size {
					batch = append(batch, event())
				}
				// The same call with a stored ID last: refused whole.
				bad := append(batch[:len(batch):len(batch)], store.Event{ID: "e00001", Kind: store.KindObservation, Time: at, Payload: json.RawMessage(`{}`)})
				if size > 1 {
					err := s.Append(ctx, bad...)
					if len(want) > 0 && (!errors.Is(err, store.ErrDuplicate) || !strings.Contains(err.Error(), `"e00001"`)) {
						t.Fatalf("a call of %d events whose last one is stored: %v, want ErrDuplicate naming it", len(bad), err)
					}
				}
				if err := s.Append(ctx, batch...); err != nil {
					t.Fatalf("a call of %d events: %v", size, err)
				}
				for _, e := range batch {
					want = append(want, e.ID)
				}
			}
			got, err := s.Query(ctx, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("stored %d events, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].ID != want[i] || string(got[i].Payload) != fmt.Sprintf(`{"n":%d}`, i+1) {
					t.Fatalf("event %d is %s %s, want %s", i, got[i].ID, got[i].Payload, want[i])
				}
			}
		})
	}
}
