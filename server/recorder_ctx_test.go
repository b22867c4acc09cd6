package server

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stopgate/stopgate/store"
)

// hangingStore is a store whose Append never returns before its context ends, as a database
// that accepted the connection and stopped answering.
type hangingStore struct {
	store.Store
}

func (hangingStore) Append(ctx context.Context, _ ...store.Event) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestRecordBoundedByRequest checks that an append waits no longer than the request's context,
// with either recorder, when the store does not answer.
func TestRecordBoundedByRequest(t *testing.T) {
	st := hangingStore{openStore(t)}
	g := newGroupRecorder(st, newMetrics(), slog.New(slog.DiscardHandler))
	defer func() {
		done := make(chan struct{})
		go func() { g.close(); close(done) }()
		select {
		case <-done:
		case <-time.After(appendTimeout + 5*time.Second):
			t.Error("close did not return after the append's timeout")
		}
	}()
	for name, rec := range map[string]recorder{"group": g, "direct": &directRecorder{st: st, m: newMetrics()}} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := rec.record(ctx, decisionEvents(t, "hang-"+name))
			if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
				t.Errorf("record: %v after %v; want the request's deadline, in about 200ms", err, took)
			}
		})
	}
}
