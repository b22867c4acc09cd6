package audit

import (
	"encoding/json"
	"github.com/stopgate/stopgate/harness/sweagent"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// TestRecord audits the hand-written sessions into a SQLite event log, reads the events back,
// and records again: the second audit appends nothing.
func TestRecord(t *testing.T) {
	ctx := t.Context()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "events.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	rep := run(t, &Options{Store: st}, handwritten)
	c := rep.Total.Counts
	if rep.Recorded == nil || rep.Recorded.Turns != c.Turns || rep.Recorded.Already != 0 {
		t.Fatalf("recorded %+v, want all %d turns", rep.Recorded, c.Turns)
	}

	decisions, err := st.Query(ctx, store.Filter{Kind: store.KindDecision})
	if err != nil {
		t.Fatal(err)
	}
	if len(decisions) != c.Stops {
		t.Errorf("%d decision events, want one per stop (%d)", len(decisions), c.Stops)
	}
	all, err := st.Query(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != rep.Recorded.Events {
		t.Errorf("%d events in the log, recorded %d", len(all), rep.Recorded.Events)
	}

	// Every decision of the report is in the log, under its turn's ID, at the turn's time.
	byID := map[string]store.Event{}
	for _, e := range all {
		byID[e.ID] = e
	}
	for _, s := range rep.Sessions {
		key := s.Harness + "\x00" + s.Session + "\x00" + s.Agent
		if s.Format != "claude-code" {
			continue // trajectories are keyed by content; checked below by session
		}
		for _, tr := range s.Turns {
			e, ok := byID[EventID(key, tr.Index)]
			if !ok {
				t.Errorf("%s turn %d: no event", label(s), tr.Index)
				continue
			}
			if !e.Time.Equal(tr.End) || e.Session != s.Session || e.Harness != "claude-code" {
				t.Errorf("%s turn %d: event at %v for %s/%s, want %v", label(s), tr.Index, e.Time, e.Harness, e.Session, tr.End)
			}
			switch {
			case tr.Decision == nil:
				if e.Kind != store.KindTermination || e.Category != tr.Ending {
					t.Errorf("%s turn %d: %s event of %s, want the termination %s", label(s), tr.Index, e.Kind, e.Category, tr.Ending)
				}
			default:
				var d stopgate.Decision
				if err := json.Unmarshal(e.Payload, &d); err != nil {
					t.Fatal(err)
				}
				if e.Kind != store.KindDecision || d.Verdict != tr.Decision.Verdict || d.Check != tr.Decision.Check {
					t.Errorf("%s turn %d: %s event %s/%s, want the decision %s/%s", label(s), tr.Index, e.Kind, d.Verdict, d.Check, tr.Decision.Verdict, tr.Decision.Check)
				}
			}
		}
	}

	// The termination events refer to their decision.
	terms, err := st.Query(ctx, store.Filter{Kind: store.KindTermination})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range terms {
		if e.Ref != "" && (!strings.HasPrefix(e.ID, e.Ref+"-") || byID[e.Ref].Kind != store.KindDecision) {
			t.Errorf("termination %s refers to %q", e.ID, e.Ref)
		}
	}
	// A trajectory's event names its harness and instance; one the user stopped is a
	// cancellation.
	cancelled, err := st.Query(ctx, store.Filter{Harness: sweagent.FormatMiniSWEAgent, Session: "demo__demo-14"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cancelled) != 1 || cancelled[0].Category != termination.Cancelled {
		t.Errorf("events of the interrupted mini-swe-agent run: %+v", cancelled)
	}

	// Recording again appends nothing, and says so.
	again := run(t, &Options{Store: st}, handwritten)
	if r := again.Recorded; r.Events != 0 || r.Turns != 0 || r.Already != c.Turns {
		t.Errorf("second audit recorded %+v, want every turn already there", r)
	}
	after, err := st.Query(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(all) {
		t.Errorf("%d events after recording again, want %d", len(after), len(all))
	}

	// A session the log holds in part is completed turn by turn.
	first := filepath.Join(handwritten, "claude-code", "stall.jsonl")
	st2, err := store.Open(ctx, filepath.Join(t.TempDir(), "partial.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	one := run(t, nil, first)
	events := turnEvents(&Session{Harness: "claude-code", ID: one.Sessions[0].Session, Turns: []Turn{{}}}, 0, one.Sessions[0].Turns[0].Decision)
	if err := st2.Append(ctx, events...); err != nil {
		t.Fatal(err)
	}
	rep2 := run(t, &Options{Store: st2}, first)
	if r := rep2.Recorded; r.Turns != 1 || r.Already != 1 {
		t.Errorf("partial session recorded %+v, want 1 turn added and 1 already there", r)
	}
}

// TestEventID checks that event IDs are stable, distinct per turn and session, and fit the
// store.
func TestEventID(t *testing.T) {
	a, b, c := EventID("k", 0), EventID("k", 1), EventID("k2", 0)
	if a != EventID("k", 0) || a == b || a == c {
		t.Errorf("ids %s %s %s", a, b, c)
	}
	if len(a)+len("-99") > store.MaxIDLen || !strings.HasPrefix(a, "audit-") {
		t.Errorf("id %q", a)
	}
}
