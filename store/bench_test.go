package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// benchBackends are the stores the benchmarks measure: SQLite as configured by default and
// with FullSync, and PostgreSQL when STOPGATE_TEST_POSTGRES names a server (the benchmarks,
// unlike the tests, run without one).
func benchBackends(b *testing.B) []struct {
	name string
	open func(b *testing.B) (string, *store.Options)
} {
	bs := []struct {
		name string
		open func(b *testing.B) (string, *store.Options)
	}{
		{"sqlite", func(b *testing.B) (string, *store.Options) {
			return filepath.Join(b.TempDir(), "events.db"), nil
		}},
		{"sqlite-fullsync", func(b *testing.B) (string, *store.Options) {
			return filepath.Join(b.TempDir(), "events.db"), &store.Options{FullSync: true}
		}},
	}
	if os.Getenv(postgresEnv) != "" {
		bs = append(bs, struct {
			name string
			open func(b *testing.B) (string, *store.Options)
		}{"postgres", func(b *testing.B) (string, *store.Options) { return postgresDSN(b), nil }})
	}
	return bs
}

// benchEvents returns n decision events of a realistic size: a real decision with its trail.
func benchEvents(b *testing.B, n int) []store.Event {
	b.Helper()
	turn := stopgate.Turn{Harness: "claude-code", Session: "bench", Message: &stopgate.Message{Text: "All done.", Provider: "anthropic", FinishReason: "end_turn"}}
	d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
	var out []store.Event
	at := time.Now()
	for len(out) < n {
		evs, err := store.DecisionEvents(turn, d, at)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, evs[0])
	}
	return out
}

// BenchmarkAppend appends one event per call and a hundred per call, and reports events/s.
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	for _, be := range benchBackends(b) {
		for _, batch := range []int{1, 8, 64} {
			b.Run(be.name+"/batch="+strconv.Itoa(batch), func(b *testing.B) {
				dsn, opts := be.open(b)
				s, err := store.Open(ctx, dsn, opts)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				tmpl := benchEvents(b, batch)
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					for i := range tmpl {
						tmpl[i].ID = "e" + strconv.Itoa(n)
						n++
					}
					if err := s.Append(ctx, tmpl...); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// BenchmarkHookCycle is what one stop hook costs the log: open the store, append a decision
// and its termination event, close.
func BenchmarkHookCycle(b *testing.B) {
	ctx := context.Background()
	for _, be := range benchBackends(b) {
		b.Run(be.name, func(b *testing.B) {
			dsn, opts := be.open(b)
			s, err := store.Open(ctx, dsn, opts) // the schema exists before the loop
			if err != nil {
				b.Fatal(err)
			}
			_ = s.Close()
			turn := stopgate.Turn{Harness: "claude-code", Session: "bench", Message: &stopgate.Message{Text: "All done."}}
			d := stopgate.New(stopgate.Config{}).Decide(ctx, turn)
			b.ReportAllocs()
			for b.Loop() {
				s, err := store.Open(ctx, dsn, opts)
				if err != nil {
					b.Fatal(err)
				}
				evs, err := store.DecisionEvents(turn, d, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Append(ctx, evs...); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStats aggregates a day of 50,000 events, what the dashboard asks for on each load.
func BenchmarkStats(b *testing.B) {
	ctx := context.Background()
	const total = 50000
	day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	checks := stopgate.Checks()
	verdicts := []stopgate.Verdict{stopgate.Stop, stopgate.Continue, stopgate.Retry}
	var events []store.Event
	for i := range total {
		e := store.Event{ID: strconv.Itoa(i), Kind: store.KindDecision, Time: day.Add(time.Duration(i) * (24 * time.Hour / total)),
			Harness: fmt.Sprint("h", i%3), Check: checks[i%len(checks)], Verdict: verdicts[i%len(verdicts)], Pending: i%5 == 0,
			Payload: json.RawMessage(`{}`)}
		if i%4 == 0 {
			e.Kind, e.Check, e.Verdict, e.Category, e.Provider = store.KindTermination, "", "", "rate_limited", "openai"
		}
		events = append(events, e)
	}
	for _, be := range benchBackends(b) {
		if be.name == "sqlite-fullsync" {
			continue
		}
		b.Run(be.name, func(b *testing.B) {
			dsn, opts := be.open(b)
			s, err := store.Open(ctx, dsn, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.Append(ctx, events...); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				st, err := s.Stats(ctx, store.StatsFilter{Since: day, Until: day.Add(24 * time.Hour)})
				if err != nil {
					b.Fatal(err)
				}
				if st.Nudges == 0 {
					b.Fatal("no nudges counted")
				}
			}
		})
	}
}
