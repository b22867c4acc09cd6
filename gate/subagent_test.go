package gate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestIsSubagentUnresolved(t *testing.T) {
	tests := []struct {
		s    Subagent
		want bool
	}{
		{Subagent{ID: "a", Status: StatusRunning}, true},
		{Subagent{ID: "a", Status: StatusRunning, ResultCollected: true}, true}, // a follow-up turn is running
		{Subagent{ID: "a", Status: StatusFinished}, true},
		{Subagent{ID: "a", Status: StatusFinished, ResultCollected: true}, false},
		{Subagent{ID: "a", Status: StatusFailed}, true},
		{Subagent{ID: "a", Status: StatusFailed, ResultCollected: true}, false},
		{Subagent{ID: "a"}, false},                        // status unknown
		{Subagent{ID: "a", Status: "interrupted"}, false}, // not a status the gate knows
		{Subagent{ID: "a", Status: "Running"}, false},     // statuses are exact
	}
	for _, tt := range tests {
		if got := IsSubagentUnresolved(tt.s); got != tt.want {
			t.Errorf("IsSubagentUnresolved(%+v) = %t, want %t", tt.s, got, tt.want)
		}
	}
}

// TestSubagentLifecycle ports the origin's C1 and C2: a child is gated while it runs, still
// gated once it finishes or is interrupted uncollected, and released once its result is
// collected.
func TestSubagentLifecycle(t *testing.T) {
	child := Subagent{ID: "child1", Status: StatusRunning, StartedAt: ms(1010), Description: "slow job"}
	steps := []struct {
		name string
		edit func(*Subagent)
		want bool
	}{
		{"C1 running", func(*Subagent) {}, true},
		{"C1 finished, not collected", func(s *Subagent) { s.Status = StatusFinished }, true},
		{"C1 waited on", func(s *Subagent) { s.ResultCollected = true }, false},
		{"C2 interrupted by the host, not collected", func(s *Subagent) { s.Status, s.ResultCollected = StatusFailed, false }, true},
		{"C2 waited on", func(s *Subagent) { s.ResultCollected = true }, false},
	}
	for _, st := range steps {
		st.edit(&child)
		r := Check(Input{Subagents: []Subagent{child}})
		msg, ok := r.Message, r.Blocked
		if ok != st.want || (ok && !strings.Contains(msg, "child1")) {
			t.Errorf("%s: follow-up = %q, %t; want blocked=%t naming child1", st.name, msg, ok, st.want)
		}
		if got := SubagentGateMessage([]Subagent{child}) != ""; got != st.want {
			t.Errorf("%s: message present = %t, want %t", st.name, got, st.want)
		}
	}
}

func TestSelectUnresolvedSubagents(t *testing.T) {
	in := []Subagent{
		{ID: "c", Status: StatusFailed, StartedAt: ms(1030)},
		{ID: "b", Status: StatusRunning, StartedAt: ms(1010)},
		{ID: "a", Status: StatusFinished, StartedAt: ms(1010)},
		{ID: "d", Status: StatusFinished, StartedAt: ms(1000), ResultCollected: true},
		{ID: "e", Status: StatusRunning, StartedAt: ms(500)}, // earlier run: still owed
	}
	var got []string
	for _, s := range SelectUnresolvedSubagents(in) {
		got = append(got, s.ID)
	}
	if want := []string{"e", "a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("ids = %q, want %q", got, want)
	}
	if in[0].ID != "c" {
		t.Error("input reordered")
	}
}

func TestSubagentGateMessage(t *testing.T) {
	if msg := SubagentGateMessage(nil); msg != "" {
		t.Errorf("no sub-agents: %q", msg)
	}
	msg := SubagentGateMessage([]Subagent{
		{ID: "run1", Status: StatusRunning, StartedAt: ms(1010), Description: "port the parser tests"},
		{ID: "done1", Status: StatusFinished, StartedAt: ms(1020), Description: "survey\nthe  callers"},
		{ID: "bad1", Status: StatusFailed, StartedAt: ms(1030)},
		{ID: "ok1", Status: StatusFinished, StartedAt: ms(1040), ResultCollected: true},
	})
	for _, want := range []string{"run1 (port the parser tests)", "done1 (survey the callers)", "- bad1\n", `["run1", "done1", "bad1"]`, "wait_agent"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "ok1") {
		t.Errorf("a collected sub-agent is named:\n%s", msg)
	}
	golden(t, "subagent_message.golden", msg+"\n")
}

func TestSubagentGateCap(t *testing.T) {
	subs := []Subagent{{ID: "a", Status: StatusRunning}}
	for injected := range MaxSubagentGateInjections + 2 {
		ok := Check(Input{Subagents: subs, Injections: Injections{SubagentGate: injected}}).Blocked
		if want := injected < MaxSubagentGateInjections; ok != want {
			t.Errorf("injected %d: ok = %t, want %t", injected, ok, want)
		}
	}
}

func TestSubagentJSON(t *testing.T) {
	in := `{"id":"a1","status":"finished","started_at":"2026-08-23T10:00:00Z","result_collected":true,"description":"d"}`
	var s Subagent
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if s.ID != "a1" || s.Status != StatusFinished || !s.ResultCollected || s.Description != "d" || s.StartedAt.IsZero() {
		t.Errorf("decoded %+v", s)
	}
	b, _ := json.Marshal(s)
	if string(b) != in {
		t.Errorf("re-encoded\n got %s\nwant %s", b, in)
	}
}
