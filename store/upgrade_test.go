package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// TestUpgradeFromVersion1 fills a database made by schema version 1, the first release's, and
// opens it with this binary: every event must come back as it was stored, in the same order,
// and the migrated table must keep refusing duplicate IDs and keep the append order.
func TestUpgradeFromVersion1(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		dsn  func(t *testing.T) (string, *sql.DB)
		// has reports whether the database has the index or the table's definition the text.
		has func(t *testing.T, db *sql.DB, index, text string) (hasIndex, hasText bool)
	}{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			p := filepath.Join(t.TempDir(), "events.db")
			return p, rawSQLite(t, p)
		}, func(t *testing.T, db *sql.DB, index, text string) (bool, bool) {
			var n int
			var def string
			if err := db.QueryRow("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND name = ?", index).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'events'").Scan(&def); err != nil {
				t.Fatal(err)
			}
			return n > 0, strings.Contains(def, text)
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			d := postgresDSN(t)
			return d, rawPostgres(t, d)
		}, func(t *testing.T, db *sql.DB, index, text string) (bool, bool) {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1", index).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n > 0, false
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn, db := c.dsn(t)
			if err := store.MigrateTo(ctx, db, c.name, 1); err != nil {
				t.Fatalf("make a version 1 database: %v", err)
			}
			at := time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC)
			old := []store.Event{
				{ID: "d1", Kind: store.KindDecision, Time: at, Harness: "claude-code", Session: "s1", Agent: "child",
					Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Provider: "anthropic", Pending: true,
					Payload: json.RawMessage(`{"verdict":"continue", "kept":"as written","é":"😀\u0000"}`)},
				{ID: "t1", Ref: "d1", Kind: store.KindTermination, Time: at, Harness: "claude-code", Session: "s1",
					Check: stopgate.CheckTodos, Verdict: stopgate.Continue, Category: termination.RateLimited, Provider: "anthropic",
					Payload: json.RawMessage("{\n  \"category\": \"rate_limited\"\n}")},
				{ID: "gone", Kind: store.KindObservation, Time: at, Payload: json.RawMessage(`null`)},
				{ID: "o1", Kind: store.KindObservation, Time: at.Add(-time.Hour), Harness: "codex", Session: "s2",
					Category: termination.Completed, Payload: json.RawMessage(`[1,2.50,"x"]`)},
			}
			// The rows as version 1 wrote them, then a gap in seq where one was pruned.
			q := "INSERT INTO events (id, ref, kind, at_ns, harness, session, agent, check_name, verdict, category, provider, pending, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
			if c.name == "postgres" {
				for i := 1; strings.Contains(q, "?"); i++ {
					q = strings.Replace(q, "?", fmt.Sprintf("$%d", i), 1)
				}
			}
			for _, e := range old {
				if _, err := db.Exec(q, e.ID, e.Ref, string(e.Kind), e.Time.UnixNano(), e.Harness, e.Session, e.Agent,
					string(e.Check), string(e.Verdict), string(e.Category), e.Provider, e.Pending, string(e.Payload)); err != nil {
					t.Fatalf("insert %s into the version 1 table: %v", e.ID, err)
				}
			}
			if _, err := db.Exec("DELETE FROM events WHERE id = 'gone'"); err != nil {
				t.Fatal(err)
			}
			old = append(old[:2], old[3])

			s, err := store.Open(ctx, dsn, nil)
			if err != nil {
				t.Fatalf("open the version 1 database: %v", err)
			}
			defer s.Close()
			if hasIndex, hasCheck := c.has(t, db, "events_harness", "json_valid"); hasIndex || hasCheck {
				t.Errorf("after the upgrade: index events_harness %v, json_valid CHECK %v; want neither", hasIndex, hasCheck)
			}

			// A new event at the instant of the old ones comes after them: seq goes on.
			late := store.Event{ID: "d2", Kind: store.KindDecision, Time: at, Check: stopgate.CheckCompleted, Verdict: stopgate.Stop, Payload: json.RawMessage(`{}`)}
			if err := s.Append(ctx, late); err != nil {
				t.Fatal(err)
			}
			got, err := s.Query(ctx, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			want := []store.Event{old[2], old[0], old[1], late}
			if len(got) != len(want) {
				t.Fatalf("after the upgrade the log holds %d events, want %d: %+v", len(got), len(want), got)
			}
			for i := range want {
				if !got[i].Time.Equal(want[i].Time) || string(got[i].Payload) != string(want[i].Payload) {
					t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
				}
				g, w := got[i], want[i]
				g.Time, w.Time, g.Payload, w.Payload = time.Time{}, time.Time{}, nil, nil
				if !reflect.DeepEqual(g, w) {
					t.Errorf("event %d: %+v, want %+v", i, g, w)
				}
			}
			// The IDs stay unique, and the dashboard's counts read the migrated indexes.
			err = s.Append(ctx, store.Event{ID: "new", Kind: store.KindObservation, Time: at, Payload: json.RawMessage(`{}`)},
				store.Event{ID: "t1", Kind: store.KindObservation, Time: at, Payload: json.RawMessage(`{}`)})
			if !errors.Is(err, store.ErrDuplicate) || !strings.Contains(err.Error(), `"t1"`) {
				t.Errorf("appending an ID stored before the upgrade: %v, want ErrDuplicate naming it", err)
			}
			st, err := s.Stats(ctx, store.StatsFilter{Harness: "claude-code"})
			if err != nil {
				t.Fatal(err)
			}
			if st.Nudges != 1 || st.PendingNudges != 1 || len(st.Terminations) != 1 || st.Terminations[0].Count != 1 {
				t.Errorf("Stats for claude-code after the upgrade: %+v", st)
			}
		})
	}
}
