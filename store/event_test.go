package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// wantTermination is what one termination event made from a decision must hold.
type wantTermination struct {
	check    stopgate.Check
	category termination.Category
	provider string
}

func TestDecisionEvents(t *testing.T) {
	no := false
	at := time.Date(2026, 5, 1, 12, 0, 0, 7, time.FixedZone("CEST", 2*3600))
	wakes := true
	for _, c := range []struct {
		name     string
		turn     stopgate.Turn
		check    stopgate.Check
		verdict  stopgate.Verdict
		category termination.Category
		provider string
		pending  bool
		terms    []wantTermination
	}{
		{
			name:  "completed: the decision's own reason, which no trail entry carries",
			turn:  stopgate.Turn{Message: &stopgate.Message{Text: "All done.", Provider: "anthropic", FinishReason: "end_turn"}},
			check: stopgate.CheckCompleted, verdict: stopgate.Stop, category: termination.Completed, provider: "anthropic",
			terms: []wantTermination{{stopgate.CheckCompleted, termination.Completed, "anthropic"}},
		},
		{
			name:  "a retried error: the trail's reason and the decision's are one",
			turn:  stopgate.Turn{Error: &stopgate.ErrorInfo{Provider: "openai", Status: 429, Body: `{"error":{"type":"rate_limit_exceeded","message":"slow down"}}`}},
			check: stopgate.CheckError, verdict: stopgate.Retry, category: termination.RateLimited, provider: "openai",
			terms: []wantTermination{{stopgate.CheckError, termination.RateLimited, "openai"}},
		},
		{
			name:  "a truncated answer continued: no decision reason, the trail's is recorded",
			turn:  stopgate.Turn{Message: &stopgate.Message{Text: "The answer is", Provider: "openai", FinishReason: "length"}},
			check: stopgate.CheckStopMetadata, verdict: stopgate.Continue, provider: "openai",
			terms: []wantTermination{{stopgate.CheckStopMetadata, termination.OutputTruncated, "openai"}},
		},
		{
			name:  "a refusal ends the run",
			turn:  stopgate.Turn{Message: &stopgate.Message{Text: "No.", Provider: "openai", FinishReason: "content_filter"}},
			check: stopgate.CheckStopMetadata, verdict: stopgate.Stop, category: termination.ContentRefusal, provider: "openai",
			terms: []wantTermination{{stopgate.CheckStopMetadata, termination.ContentRefusal, "openai"}},
		},
		{
			name: "a nudge while a job runs and the host does not wake the agent: pending",
			turn: stopgate.Turn{HostWakes: &no, Jobs: []stopgate.Job{{ID: "j", Status: "running"}},
				Todos: []stopgate.Todo{{Content: "write the tests", Status: "pending"}}, Message: &stopgate.Message{Text: "Done for now."}},
			check: stopgate.CheckTodos, verdict: stopgate.Continue, pending: true,
		},
		{
			name: "a parked run: pending, and the suspension recorded",
			// A sub-agent's host does not wake it unless it says so (absent means false).
			turn:  stopgate.Turn{Jobs: []stopgate.Job{{ID: "j", Status: "running"}}, Message: &stopgate.Message{Text: "Waiting for the tests."}, HostWakes: &wakes},
			check: stopgate.CheckPendingWake, verdict: stopgate.Stop, category: termination.Suspended, pending: true,
			terms: []wantTermination{{stopgate.CheckPendingWake, termination.Suspended, ""}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.turn.Harness, c.turn.Session, c.turn.Agent = "claude-code", "sess-1", "child-7"
			d := stopgate.New(stopgate.Config{}).Decide(context.Background(), c.turn)
			events, err := store.DecisionEvents(c.turn, d, at)
			if err != nil {
				t.Fatalf("DecisionEvents: %v", err)
			}
			if len(events) != 1+len(c.terms) {
				t.Fatalf("got %d events, want the decision and %d termination(s): %+v", len(events), len(c.terms), events)
			}
			dec := events[0]
			if dec.Kind != store.KindDecision || dec.Check != c.check || dec.Verdict != c.verdict || dec.Category != c.category ||
				dec.Provider != c.provider || dec.Pending != c.pending || dec.Ref != "" {
				t.Errorf("decision event %+v, want check %s verdict %s category %q provider %q pending %v",
					dec, c.check, c.verdict, c.category, c.provider, c.pending)
			}
			want, _ := json.Marshal(d)
			if string(dec.Payload) != string(want) {
				t.Errorf("decision payload %s, want the decision's JSON %s", dec.Payload, want)
			}
			// Given the decision's JSON, DecisionEventsJSON makes the same events around it.
			given := json.RawMessage(`{"given":true}`)
			again, err := store.DecisionEventsJSON(c.turn, d, given, at)
			if err != nil || len(again) != len(events) || string(again[0].Payload) != string(given) {
				t.Fatalf("DecisionEventsJSON: %v, %d events, payload %s", err, len(again), again[0].Payload)
			}
			for i := range events {
				a, b := again[i], events[i]
				a.ID, b.ID, a.Ref, b.Ref, a.Payload, b.Payload = "", "", "", "", nil, nil
				// Every field the event exposes (its JSON holds them all).
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				if string(ja) != string(jb) {
					t.Errorf("DecisionEventsJSON event %d = %s, DecisionEvents made %s", i, ja, jb)
				}
			}
			for _, e := range events[1:] {
				var r termination.Reason
				if err := json.Unmarshal(e.Payload, &r); err != nil {
					t.Fatal(err)
				}
				if want, _ := json.Marshal(r); string(e.Payload) != string(want) {
					t.Errorf("termination payload %s, want json.Marshal's %s", e.Payload, want)
				}
			}
			for i, w := range c.terms {
				e := events[1+i]
				if e.Kind != store.KindTermination || e.Check != w.check || e.Category != w.category || e.Provider != w.provider ||
					e.Verdict != d.Verdict || e.Ref != dec.ID || e.Pending {
					t.Errorf("termination event %d: %+v, want check %s category %s provider %q verdict %s ref %s",
						i, e, w.check, w.category, w.provider, d.Verdict, dec.ID)
				}
				var r termination.Reason
				if err := json.Unmarshal(e.Payload, &r); err != nil || r.Category != w.category {
					t.Errorf("termination payload %s decodes to %+v, %v", e.Payload, r, err)
				}
			}
			seen := map[string]bool{}
			for _, e := range events {
				if !e.Time.Equal(at) || e.Time.Location() != time.UTC {
					t.Errorf("event time %v, want %v in UTC", e.Time, at)
				}
				if e.Harness != "claude-code" || e.Session != "sess-1" || e.Agent != "child-7" {
					t.Errorf("event origin %q %q %q, want the turn's", e.Harness, e.Session, e.Agent)
				}
				if seen[e.ID] {
					t.Errorf("ID %q used twice", e.ID)
				}
				seen[e.ID] = true
				if err := e.Validate(); err != nil {
					t.Errorf("the constructor made an invalid event: %v", err)
				}
			}
		})
	}
}

func TestDecisionEventsDeduplicatesReasons(t *testing.T) {
	r1 := termination.Control(termination.SiteSupervisor, termination.Completed)
	r2 := termination.New(termination.SiteStallClassifier, termination.SourceException,
		termination.Classification{Category: termination.Timeout, Provider: "ollama"})
	d := stopgate.Decision{Verdict: stopgate.Stop, Check: stopgate.CheckCompleted, Reason: &r1, Trail: []stopgate.TrailEntry{
		{Check: stopgate.CheckStopMetadata, Outcome: stopgate.Pass, Reason: &r1},
		{Check: stopgate.CheckStall, Outcome: stopgate.Pass, Reason: &r2},
		{Check: stopgate.CheckTodos, Outcome: stopgate.Pass, Reason: &r2},
	}}
	events, err := store.DecisionEvents(stopgate.Turn{}, d, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events[1:] {
		got = append(got, string(e.Check)+":"+string(e.Category)+":"+e.Provider)
	}
	want := []string{"stop_metadata:completed:", "stall:timeout:ollama"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("termination events %v, want %v", got, want)
	}
}

func TestPendingWork(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	code := 0
	msg := &stopgate.Message{Text: "Done."}
	for _, c := range []struct {
		name string
		turn stopgate.Turn
		want bool
	}{
		{"nothing reported", stopgate.Turn{}, false},
		{"a running job", stopgate.Turn{Jobs: []stopgate.Job{{Status: "running"}}}, true},
		{"a running service is not pending work", stopgate.Turn{Jobs: []stopgate.Job{{Status: "running", Service: true}}}, false},
		{"a finished job", stopgate.Turn{Jobs: []stopgate.Job{{Status: "completed"}}}, false},
		{"a running process", stopgate.Turn{Processes: []gate.Process{{ID: "p", Status: gate.StatusRunning}}}, true},
		{"a process with an exit code", stopgate.Turn{Processes: []gate.Process{{ID: "p", Status: gate.StatusRunning, ExitCode: &code}}}, false},
		{"a running sub-agent", stopgate.Turn{Subagents: []gate.Subagent{{ID: "s", Status: gate.StatusRunning}}}, true},
		{"a future one-shot schedule", stopgate.Turn{Now: now, Schedules: []stopgate.Schedule{{Trigger: stall.TriggerOnce, At: now.Add(time.Minute)}}}, true},
		{"a past one-shot schedule", stopgate.Turn{Now: now, Schedules: []stopgate.Schedule{{Trigger: stall.TriggerOnce, At: now.Add(-time.Minute)}}}, false},
		{"a one-shot schedule when the time is unknown", stopgate.Turn{Schedules: []stopgate.Schedule{{Trigger: stall.TriggerOnce, At: now}}}, true},
		{"a cron schedule", stopgate.Turn{Now: now, Schedules: []stopgate.Schedule{{Trigger: "cron", At: now.Add(time.Minute)}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.turn.Message = msg
			d := stopgate.New(stopgate.Config{}).Decide(context.Background(), c.turn)
			events, err := store.DecisionEvents(c.turn, d, now)
			if err != nil {
				t.Fatal(err)
			}
			if events[0].Pending != c.want {
				t.Errorf("Pending = %v, want %v", events[0].Pending, c.want)
			}
		})
	}
}

func TestTerminationEvent(t *testing.T) {
	r := termination.New(termination.SiteModelCall, termination.SourceException,
		termination.Classification{Category: termination.ContextOverflow, Provider: "anthropic", Detail: "prompt is too long"})
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.Local)
	e, err := store.TerminationEvent(store.Origin{Harness: "codex", Session: "s", Agent: "a"}, r, at)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != store.KindTermination || e.Category != termination.ContextOverflow || e.Provider != "anthropic" ||
		e.Harness != "codex" || e.Session != "s" || e.Agent != "a" || !e.Time.Equal(at) || e.Check != "" || e.Verdict != "" {
		t.Errorf("TerminationEvent = %+v", e)
	}
	var back termination.Reason
	if err := json.Unmarshal(e.Payload, &back); err != nil || back != r {
		t.Errorf("payload %s decodes to %+v, %v; want %+v", e.Payload, back, err, r)
	}
	if err := e.Validate(); err != nil {
		t.Error(err)
	}
}

func TestObservationEvent(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	o := store.Origin{Harness: "claude-code", Session: "s"}
	for _, c := range []struct {
		name     string
		provider string
		obs      termination.Observation
		category termination.Category
		payload  string
		err      string
	}{
		{"a stop token", "openai", termination.Observation{At: at, Path: termination.PathStream, Token: "length", Present: true},
			termination.OutputTruncated, `{"at":"2026-01-02T03:04:05.000000006Z","path":"stream","token":"length"}`, ""},
		{"an ordinary finish", "anthropic", termination.Observation{At: at, Path: termination.PathInvoke, Token: "end_turn", Present: true},
			termination.Completed, `{"at":"2026-01-02T03:04:05.000000006Z","path":"invoke","token":"end_turn"}`, ""},
		{"an absent token", "openai", termination.Observation{At: at, Path: termination.PathEvents},
			"", `{"at":"2026-01-02T03:04:05.000000006Z","path":"events","token":null}`, ""},
		{"an unknown token", "", termination.Observation{At: at, Path: "x", Token: "weird_token", Present: true},
			"", `{"at":"2026-01-02T03:04:05.000000006Z","path":"x","token":"weird_token"}`, ""},
		{"an instant RFC 3339 cannot write", "", termination.Observation{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
			"", "", "year outside [0, 9999]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := store.ObservationEvent(o, c.provider, c.obs)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ObservationEvent: %v, want an error saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != store.KindObservation || e.Category != c.category || e.Provider != c.provider ||
				string(e.Payload) != c.payload || !e.Time.Equal(at) || e.Harness != "claude-code" {
				t.Errorf("ObservationEvent = %+v (payload %s); want category %q payload %s", e, e.Payload, c.category, c.payload)
			}
			if err := e.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestValidateWrapsErrInvalidEvent(t *testing.T) {
	err := store.Event{}.Validate()
	if !errors.Is(err, store.ErrInvalidEvent) || err.Error() != "invalid event: id is empty" {
		t.Errorf("Validate of the zero event: %v", err)
	}
}

func TestNewIDIsUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := store.NewID()
		if seen[id] || len(id) == 0 || len(id) > store.MaxIDLen {
			t.Fatalf("NewID returned %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

// IDs are 26 characters of base32 and sort in the order they were made, a millisecond apart
// or more, so that the unique index on them grows at its end.
func TestNewIDSortsByTime(t *testing.T) {
	var prev string
	for i := range 5 {
		if i > 0 {
			time.Sleep(2 * time.Millisecond)
		}
		id := store.NewID()
		if len(id) != 26 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
			t.Fatalf("NewID returned %q, want 26 characters of base32", id)
		}
		if id <= prev {
			t.Errorf("NewID returned %q after %q", id, prev)
		}
		prev = id
	}
	// The random part varies within one millisecond.
	a, b := store.NewID(), store.NewID()
	if a[10:] == b[10:] {
		t.Errorf("two IDs share their random part: %q, %q", a, b)
	}
}
