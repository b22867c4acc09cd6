package store_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// A stop hook records its decision; the dashboard reads it back.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "stopgate-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Open takes a file path (SQLite), a postgres:// URL, or "" for the default file.
	s, err := store.Open(ctx, filepath.Join(dir, "events.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	sup := stopgate.New(stopgate.Config{})
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, text := range []string{"I'll run the tests next.", "All tests pass; the fix is in."} {
		turn := stopgate.Turn{Harness: "claude-code", Session: "s1",
			Message: &stopgate.Message{Text: text, Provider: "anthropic", FinishReason: "end_turn"}}
		events, err := store.DecisionEvents(turn, sup.Decide(ctx, turn), at.Add(time.Duration(i)*time.Minute))
		if err != nil {
			log.Fatal(err)
		}
		if err := s.Append(ctx, events...); err != nil {
			log.Fatal(err)
		}
	}

	got, err := s.Query(ctx, store.Filter{Session: "s1"})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range got {
		line := fmt.Sprint(e.Time.Format(time.TimeOnly), " ", e.Kind, " ", e.Check, " ", e.Verdict)
		if e.Category != "" {
			line += " " + string(e.Category)
		}
		fmt.Println(line)
	}
	st, err := s.Stats(ctx, store.StatsFilter{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("nudges: %d, while work was pending: %d\n", st.Nudges, st.PendingNudges)
	// Output:
	// 12:00:00 decision stall continue
	// 12:01:00 decision completed stop completed
	// 12:01:00 termination completed stop completed
	// nudges: 1, while work was pending: 0
}
