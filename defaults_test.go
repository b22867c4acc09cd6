package stopgate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/termination"
)

// TestSubagentHostWakesDefault: an absent host_wakes means the host wakes a main agent and
// does not wake a sub-agent, so a sub-agent that leaves an unread test run running may not stop.
func TestSubagentHostWakesDefault(t *testing.T) {
	goTest := []gate.Process{{ID: "p1", Command: "go test ./...", StartedAt: runStart.Add(time.Minute), Status: gate.StatusRunning}}
	tests := []struct {
		name      string
		agent     string
		hostWakes *bool
		verdict   Verdict
		check     Check
	}{
		{"sub-agent, host_wakes absent: the unread run blocks", "child-1", nil, Continue, CheckProcesses},
		{"sub-agent, host_wakes false: the unread run blocks", "child-1", ptr(false), Continue, CheckProcesses},
		{"sub-agent, host_wakes true: parked", "child-1", ptr(true), Stop, CheckPendingWake},
		{"main agent, host_wakes absent: parked", "", nil, Stop, CheckPendingWake},
		{"main agent, host_wakes false: the unread run blocks", "", ptr(false), Continue, CheckProcesses},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(Config{}).Decide(context.Background(), Turn{
				Agent: tt.agent, HostWakes: tt.hostWakes, Now: now, RunStartedAt: runStart,
				Message: msg("The tests are running in the background."), Processes: goTest,
			})
			if d.Verdict != tt.verdict || d.Check != tt.check {
				t.Errorf("decision %s/%s, want %s/%s; trail %+v", d.Verdict, d.Check, tt.verdict, tt.check, d.Trail)
			}
		})
	}
}

// TestTodoOpen: only statuses that say the item is still to do are open.
func TestTodoOpen(t *testing.T) {
	tests := []struct {
		status string
		open   bool
	}{
		{"pending", true},
		{"in_progress", true},
		{"IN_PROGRESS", true},
		{"in-progress", true},
		{"in progress", true},
		{" pending ", true},
		{"completed", false},
		{"cancelled", false},
		{"canceled", false},
		{"deleted", false}, // Claude Code's TaskUpdate
		{"blocked", false}, // Gemini CLI's write_todos
		{"skipped", false}, // unknown to every harness
		{"", false},        // absent
		{"done", false},
		{"inprogress2", false},
	}
	for _, tt := range tests {
		if got := (Todo{Content: "x", Status: tt.status}).Open(); got != tt.open {
			t.Errorf("status %q: open = %t, want %t", tt.status, got, tt.open)
		}
	}
	// And the supervisor agrees: a list of skipped and empty items has nothing open.
	d := New(Config{}).Decide(context.Background(), Turn{Message: msg("All done."),
		Todos: []Todo{{Content: "a", Status: "skipped"}, {Content: "b"}, {Content: "c", Status: "completed"}}})
	if d.Verdict != Stop {
		t.Errorf("skipped and empty todos nudged: %s %s %q", d.Verdict, d.Check, d.Message)
	}
}

// TestReasonAlwaysCategorized: a Reason with no category never leaves the supervisor, whatever
// the error it was handed carries.
func TestReasonAlwaysCategorized(t *testing.T) {
	turns := map[string]Turn{
		"an error carrying an empty reason": {Err: termination.Attach(errors.New("boom"), termination.Reason{})},
		"an error carrying a reason with only a site": {Err: termination.Attach(errors.New("boom"),
			termination.Reason{Site: termination.SiteSupervisor})},
		"an empty error description": {Error: &ErrorInfo{}},
		"a plain error":              {Err: errors.New("connection reset by peer")},
		"an unknown stop token":      {Message: &Message{Text: "ok", FinishReason: "weird_token"}},
	}
	for name, tu := range turns {
		d := New(Config{}).Decide(context.Background(), tu)
		if d.Reason != nil && d.Reason.Category == "" {
			t.Errorf("%s: decision reason has no category: %+v", name, *d.Reason)
		}
		for _, e := range d.Trail {
			if e.Reason != nil && e.Reason.Category == "" {
				t.Errorf("%s: trail %s reason has no category: %+v", name, e.Check, *e.Reason)
			}
		}
		if d.Verdict == Stop && d.Reason == nil {
			t.Errorf("%s: a stop with no reason", name)
		}
	}
}

// TestToolErrorBudgetEndsRun: the loop guard's error budget ends the run with its reason.
func TestToolErrorBudgetEndsRun(t *testing.T) {
	steps := []loopguard.Step{
		{Tool: "read_file", Args: `{"path":"a"}`, Error: "ENOENT"},
		{Tool: "grep", Args: `{"q":"b"}`, Error: "bad pattern"},
		{Tool: "bash", Args: `{"cmd":"make"}`, Error: "exit 2"},
	}
	tests := []struct {
		name    string
		steps   []loopguard.Step
		verdict Verdict
		check   Check
		cat     termination.Category
	}{
		{"three failures in a row: the budget ends the run", steps, Stop, CheckLivelock, termination.ToolErrorBudget},
		{"two failures: the run goes on to the other checks", steps[:2], Stop, CheckCompleted, termination.Completed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(Config{}).Decide(context.Background(), Turn{Message: msg("I could not get the build to run."), Steps: tt.steps})
			if d.Verdict != tt.verdict || d.Check != tt.check || d.Reason == nil || d.Reason.Category != tt.cat {
				t.Errorf("decision %s/%s reason %v, want %s/%s %s", d.Verdict, d.Check, d.Reason, tt.verdict, tt.check, tt.cat)
			}
			if tt.cat == termination.ToolErrorBudget {
				if d.Reason.Site != termination.SiteToolErrorBudget {
					t.Errorf("site %s, want %s", d.Reason.Site, termination.SiteToolErrorBudget)
				}
				if d.Trail[2].Check != CheckLivelock || d.Trail[2].Outcome != Ended {
					t.Errorf("livelock trail %+v, want ended", d.Trail[2])
				}
			}
		})
	}
}

// TestPauseTurnOwnBudget: a paused turn is resumed as many times as its own budget allows,
// whatever the stop metadata check's budget for truncated answers has spent.
func TestPauseTurnOwnBudget(t *testing.T) {
	paused := &Message{Provider: "anthropic", FinishReason: "pause_turn"}
	s := New(Config{})
	var given Budget
	given.Spend(CheckStopMetadata) // a truncated answer was continued earlier in the run
	for i := range DefaultPauseResumes {
		d := s.Decide(context.Background(), Turn{Message: paused, Nudges: Nudges{Given: given}})
		if d.Verdict != Retry || d.Check != CheckStopMetadata {
			t.Fatalf("pause %d: %s/%s, want retry/stop_metadata; trail %+v", i+1, d.Verdict, d.Check, d.Trail)
		}
		given = d.Nudges.Given
	}
	if given.Count(BudgetPauseTurn) != DefaultPauseResumes || given.Count(CheckStopMetadata) != 1 {
		t.Errorf("counts: pause %d, stop metadata %d", given.Count(BudgetPauseTurn), given.Count(CheckStopMetadata))
	}
	d := s.Decide(context.Background(), Turn{Message: paused, Nudges: Nudges{Given: given}})
	if d.Verdict != Stop || d.Reason == nil || d.Reason.Category != termination.Suspended {
		t.Errorf("past the budget: %s reason %v, want stop suspended", d.Verdict, d.Reason)
	}
	// A cap set in the configuration is honoured.
	d = New(Config{Caps: map[Check]int{BudgetPauseTurn: 0}}).Decide(context.Background(), Turn{Message: paused})
	if d.Verdict != Stop {
		t.Errorf("cap 0: %s, want stop", d.Verdict)
	}
}
