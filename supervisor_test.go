package stopgate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/claims"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/termination"
)

var (
	runStart = time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	now      = runStart.Add(10 * time.Minute)
)

func at(min int) *time.Time { t := runStart.Add(time.Duration(min) * time.Minute); return &t }
func ptr[T any](v T) *T     { return &v }

func msg(text string) *Message { return &Message{Text: text} }

// given returns Nudges with the named checks already spent n times each.
func given(consecutive int, spent map[Check]int) Nudges {
	var b Budget
	for c, n := range spent {
		for range n {
			b.Spend(c)
		}
	}
	return Nudges{Consecutive: consecutive, Given: b}
}

type fakeClient func(ctx context.Context, req model.Request) (model.Response, error)

func (f fakeClient) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return f(ctx, req)
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		turn    Turn
		verdict Verdict
		check   Check
		msgHas  []string
		reason  termination.Category // "" means no reason expected
		trail   map[Check]Outcome
	}{
		{
			name:    "nothing known: stop, completed",
			turn:    Turn{},
			verdict: Stop, check: CheckCompleted, reason: termination.Completed,
			trail: map[Check]Outcome{CheckError: Pass, CheckStopMetadata: Unknown, CheckLivelock: Unknown, CheckProcesses: Unknown, CheckSubagents: Unknown, CheckTodos: Unknown, CheckStall: Unknown},
		},
		{
			name:    "a completion summary stops",
			turn:    Turn{Message: &Message{Text: "I refactored the parser and added tests for the edge cases. All tests pass.", FinishReason: "end_turn", Provider: "anthropic"}},
			verdict: Stop, check: CheckCompleted, reason: termination.Completed,
			trail: map[Check]Outcome{CheckStopMetadata: Pass, CheckStall: Pass, CheckTodos: Pass},
		},
		{
			name:    "a trailing promise is nudged with the sentence quoted",
			turn:    Turn{Message: msg("I updated the config loader. Let me check the tests.")},
			verdict: Continue, check: CheckStall, msgHas: []string{`"Let me check the tests."`, "do it now"},
			trail: map[Check]Outcome{CheckStall: Blocked},
		},
		{
			name:    "a question to the user is a legitimate end in interactive mode",
			turn:    Turn{Message: msg("I found two ways to fix this. Shall I proceed with the first one?")},
			verdict: Stop, check: CheckCompleted, reason: termination.Completed,
		},
		{
			name:    "a permission-ask is a stall in autonomous mode",
			turn:    Turn{Mode: stall.Autonomous, Message: msg("I found two ways to fix this. Shall I proceed with the first one?")},
			verdict: Continue, check: CheckStall, msgHas: []string{"Nobody is here to answer", "autonomous"},
		},
		{
			name:    "the configured mode applies when the turn does not say",
			cfg:     Config{Mode: stall.Autonomous},
			turn:    Turn{Message: msg("I found two ways to fix this. Shall I proceed with the first one?")},
			verdict: Continue, check: CheckStall,
		},
		{
			name:    "a rate limit is retried after a back-off",
			turn:    Turn{Error: &ErrorInfo{Provider: "openai", Status: 429, Body: `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms.","type":"requests","code":"rate_limit_exceeded"}}`}},
			verdict: Retry, check: CheckError, reason: termination.RateLimited, msgHas: []string{"wait"},
		},
		{
			name:    "a bad key ends the run",
			turn:    Turn{Error: &ErrorInfo{Provider: "anthropic", Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`}},
			verdict: Stop, check: CheckError, reason: termination.AuthFailed,
			trail: map[Check]Outcome{CheckError: Ended, CheckStall: Skipped},
		},
		{
			name:    "a retry budget spent ends the run",
			turn:    Turn{Error: &ErrorInfo{Status: 503, Message: "service unavailable"}, Nudges: given(0, map[Check]int{CheckError: 2})},
			verdict: Stop, check: CheckError, reason: termination.ProviderError,
		},
		{
			name:    "a reason committed on a Go error wins over its text",
			turn:    Turn{Err: termination.Attach(errors.New("rejected api-timeout-investigation.pdf"), termination.New(termination.SiteTurnError, termination.SourceException, termination.Classification{Category: termination.InvalidRequest, Detail: "400"}))},
			verdict: Stop, check: CheckError, reason: termination.InvalidRequest,
		},
		{
			name:    "an empty response after the fallback is not retried again",
			turn:    Turn{Err: termination.Attach(errors.New("empty"), termination.Control(termination.SiteEmptyAfterFallback, termination.EmptyResponse))},
			verdict: Stop, check: CheckError, reason: termination.EmptyResponse,
		},
		{
			name:    "a truncated answer is asked to continue once",
			turn:    Turn{Message: &Message{Text: "Here is the first half", FinishReason: "max_tokens", Provider: "anthropic"}},
			verdict: Continue, check: CheckStopMetadata, msgHas: []string{"cut off", "max_tokens"},
		},
		{
			name:    "a truncated answer whose budget is spent ends the run",
			turn:    Turn{Message: &Message{Text: "Here is the first half", FinishReason: "length"}, Nudges: given(0, map[Check]int{CheckStopMetadata: 1})},
			verdict: Stop, check: CheckStopMetadata, reason: termination.OutputTruncated,
		},
		{
			name:    "a refusal ends the run and is not nudged",
			turn:    Turn{Message: &Message{Text: "I can't help with that. Let me know if there is something else.", Payload: map[string]any{"stop_reason": "refusal"}}},
			verdict: Stop, check: CheckStopMetadata, reason: termination.ContentRefusal,
		},
		{
			name:    "a livelock exit nudges at once, before todos and prose",
			turn:    Turn{Message: &Message{Text: "I stopped because I kept running the same command. Would you like me to try another approach?", Metadata: map[string]any{"livelocked": true}}, Todos: []Todo{{Content: "fix it", Status: "pending"}}},
			verdict: Continue, check: CheckLivelock,
			trail: map[Check]Outcome{CheckLivelock: Blocked, CheckTodos: Skipped},
		},
		{
			name:    "a loop in the steps is a livelock",
			turn:    Turn{Message: msg("The tests still fail."), Steps: repeat(loopguard.Step{Tool: "bash", Args: `{"cmd":"go test ./..."}`, Result: "FAIL"}, 6)},
			verdict: Continue, check: CheckLivelock,
		},
		{
			name:    "a livelock whose budget is spent ends the run with the loop guard's reason",
			turn:    Turn{Message: &Message{Text: "I am stuck.", Metadata: map[string]any{"livelocked": "true"}}, Nudges: given(0, map[Check]int{CheckLivelock: 1})},
			verdict: Stop, check: CheckLivelock, reason: termination.ToolLoopGuard,
		},
		{
			name: "a failed test run started this run and never read blocks",
			turn: Turn{RunStartedAt: runStart, Now: now, HostWakes: ptr(false), Message: msg("All done, the feature works."),
				Processes: []gate.Process{{ID: "bg1", Command: "go test ./...", StartedAt: *at(1), Status: "exited", ExitedAt: at(3), ExitCode: ptr(1), LogSize: 900}}},
			verdict: Continue, check: CheckProcesses, msgHas: []string{"go test ./...", "bg1"},
			trail: map[Check]Outcome{CheckSubagents: Unknown, CheckProcesses: Blocked},
		},
		{
			name: "a dev server from an earlier run never blocks",
			turn: Turn{RunStartedAt: runStart, Now: now, HostWakes: ptr(false), Message: msg("The page now renders the chart."),
				Processes: []gate.Process{{ID: "dev", Command: "npm run dev", StartedAt: runStart.Add(-time.Hour), Status: "running"}}},
			verdict: Stop, check: CheckCompleted, reason: termination.Completed,
		},
		{
			name: "a running sub-agent blocks when the host will not wake the agent",
			turn: Turn{RunStartedAt: runStart, Now: now, HostWakes: ptr(false), Message: msg("Waiting on the reviewer."),
				Subagents: []gate.Subagent{{ID: "a1", Status: "running", StartedAt: *at(2), Description: "review the diff"}}},
			verdict: Continue, check: CheckSubagents,
		},
		{
			name: "a running test suite with a host that wakes the agent is parked, not stalled",
			turn: Turn{RunStartedAt: runStart, Now: now, Message: msg("The suite is running in the background. Let me check the results."),
				Processes: []gate.Process{{ID: "bg1", Command: "go test ./...", StartedAt: *at(1), Status: "running"}}},
			verdict: Stop, check: CheckPendingWake, reason: termination.Suspended,
			trail: map[Check]Outcome{CheckProcesses: Pass, CheckPendingWake: Parked, CheckStall: Skipped},
		},
		{
			name:    "a running job silences the prose checks",
			turn:    Turn{Now: now, Message: msg("Let me look at how the chart renders."), Jobs: []Job{{ID: "j1", Label: "npm test", Status: "running"}}},
			verdict: Stop, check: CheckPendingWake, reason: termination.Suspended,
		},
		{
			name:    "a preview service job is not pending work",
			turn:    Turn{Now: now, Message: msg("Let me look at how the chart renders."), Jobs: []Job{{ID: "j1", Label: "vite", Status: "running", Service: true}}},
			verdict: Continue, check: CheckStall,
		},
		{
			name:    "a future one-shot schedule parks the run",
			turn:    Turn{Now: now, Message: msg("I will check the deploy later."), Schedules: []Schedule{{ID: "s1", Trigger: "once", At: now.Add(time.Hour)}}},
			verdict: Stop, check: CheckPendingWake, reason: termination.Suspended,
		},
		{
			name:    "a cron schedule is never a pending wake",
			turn:    Turn{Now: now, Message: msg("Let me look at how the chart renders."), Schedules: []Schedule{{ID: "daily", Trigger: "cron"}}},
			verdict: Continue, check: CheckStall,
		},
		{
			name:    "a past one-shot schedule is not pending",
			turn:    Turn{Now: now, Message: msg("Let me look at how the chart renders."), Schedules: []Schedule{{ID: "s1", Trigger: "once", At: now.Add(-time.Minute)}}},
			verdict: Continue, check: CheckStall,
		},
		{
			name:    "open todo items block and are listed",
			turn:    Turn{Message: msg("Part one is done."), Todos: []Todo{{Content: "write the parser", Status: "completed"}, {Content: "add tests", Status: "in_progress"}, {Content: "update the docs", Status: "pending"}}},
			verdict: Continue, check: CheckTodos, msgHas: []string{"2 open item", "- add tests", "- update the docs"},
		},
		{
			name:    "a completed todo list does not block",
			turn:    Turn{Message: msg("Everything is done."), Todos: []Todo{{Content: "write the parser", Status: "completed"}}},
			verdict: Stop, check: CheckCompleted, reason: termination.Completed,
			trail: map[Check]Outcome{CheckTodos: Pass},
		},
		{
			name:    "the final message's own <todo> block counts when the harness reports no list",
			turn:    Turn{Message: msg("Progress so far.\n<todo>\n- [x] parser\n- [ ] tests\n</todo>")},
			verdict: Continue, check: CheckTodos, msgHas: []string{"- tests"},
		},
		{
			name:    "nudges in a row are bounded",
			turn:    Turn{Message: msg("Let me check the tests."), Nudges: given(3, nil)},
			verdict: Stop, check: CheckCompleted, reason: termination.Completed,
			trail: map[Check]Outcome{CheckStall: Exhausted},
		},
		{
			name:    "the stall budget per run is bounded",
			turn:    Turn{Message: msg("Let me check the tests."), Nudges: given(0, map[Check]int{CheckStall: 2})},
			verdict: Stop, check: CheckCompleted,
			trail: map[Check]Outcome{CheckStall: Exhausted},
		},
		{
			name:    "a check turned off is recorded and does not block",
			cfg:     Config{Off: map[Check]bool{CheckStall: true}},
			turn:    Turn{Message: msg("Let me check the tests.")},
			verdict: Stop, check: CheckCompleted,
			trail: map[Check]Outcome{CheckStall: Off},
		},
		{
			name:    "the model classifier's clear YES is a stall",
			cfg:     Config{Classifier: &stall.ModelClassifier{Client: fakeClient(func(context.Context, model.Request) (model.Response, error) { return model.Response{Text: "YES"}, nil })}},
			turn:    Turn{Message: msg("The migration script is in place and the schema looks right to me")},
			verdict: Continue, check: CheckStall,
		},
		{
			name: "a failing model classifier is no nudge, and says why",
			cfg: Config{Classifier: &stall.ModelClassifier{Client: fakeClient(func(context.Context, model.Request) (model.Response, error) {
				return model.Response{}, termination.Attach(errors.New("boom"), termination.Control(termination.SiteModelCall, termination.NetworkError))
			})}},
			turn:    Turn{Message: msg("The migration script is in place and the schema looks right to me")},
			verdict: Stop, check: CheckCompleted,
			trail: map[Check]Outcome{CheckStall: Pass},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(tt.cfg).Decide(context.Background(), tt.turn)
			if d.Verdict != tt.verdict || d.Check != tt.check {
				t.Fatalf("verdict %s by %s, want %s by %s\ntrail: %s", d.Verdict, d.Check, tt.verdict, tt.check, trailString(d))
			}
			for _, s := range tt.msgHas {
				if !strings.Contains(d.Message, s) {
					t.Errorf("message %q does not contain %q", d.Message, s)
				}
			}
			if (d.Verdict == Continue) != (d.Message != "") && d.Verdict != Retry {
				t.Errorf("verdict %s with message %q", d.Verdict, d.Message)
			}
			switch {
			case tt.reason == "" && d.Verdict == Continue && d.Reason != nil:
				t.Errorf("a continuation carries reason %v", d.Reason)
			case tt.reason != "" && (d.Reason == nil || d.Reason.Category != tt.reason):
				t.Errorf("reason %v, want %s", d.Reason, tt.reason)
			}
			if d.Verdict == Stop && d.Reason == nil {
				t.Error("a stop must say why the run ended")
			}
			if len(d.Trail) != len(Checks()) {
				t.Errorf("trail has %d entries, want one per check (%d): %s", len(d.Trail), len(Checks()), trailString(d))
			}
			for i, e := range d.Trail {
				if e.Check != Checks()[i] {
					t.Errorf("trail[%d] is %s, want %s", i, e.Check, Checks()[i])
				}
				if e.Why == "" {
					t.Errorf("trail[%d] (%s) says no why", i, e.Check)
				}
				if want, ok := tt.trail[e.Check]; ok && e.Outcome != want {
					t.Errorf("trail %s: %s (%s), want %s", e.Check, e.Outcome, e.Why, want)
				}
			}
		})
	}
}

func repeat(s loopguard.Step, n int) []loopguard.Step {
	out := make([]loopguard.Step, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func trailString(d Decision) string {
	var b strings.Builder
	for _, e := range d.Trail {
		b.WriteString("\n  " + string(e.Check) + ": " + string(e.Outcome) + " (" + e.Why + ")")
	}
	return b.String()
}

func TestDecideCountsNudges(t *testing.T) {
	s := New(Config{})
	turn := Turn{Message: msg("Let me check the tests.")}
	d1 := s.Decide(context.Background(), turn)
	if d1.Verdict != Continue || d1.Nudges.Consecutive != 1 || d1.Nudges.Given.Count(CheckStall) != 1 {
		t.Fatalf("first: %s, nudges %+v", d1.Verdict, d1.Nudges)
	}
	// The harness passes the count back; the JSON round trip is how the CLI and hooks do it.
	b, err := json.Marshal(d1.Nudges)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &turn.Nudges); err != nil {
		t.Fatal(err)
	}
	d2 := s.Decide(context.Background(), turn)
	if d2.Verdict != Continue || d2.Nudges.Given.Count(CheckStall) != 2 {
		t.Fatalf("second: %s, nudges %+v", d2.Verdict, d2.Nudges)
	}
	turn.Nudges = d2.Nudges
	d3 := s.Decide(context.Background(), turn)
	if d3.Verdict != Stop || d3.Nudges.Consecutive != 0 {
		t.Fatalf("third: %s (budget 2 per run), nudges %+v", d3.Verdict, d3.Nudges)
	}
}

func TestTurnJSON(t *testing.T) {
	in := `{"harness":"claude-code","session":"s1","mode":"autonomous","now":"2026-08-23T10:10:00Z",
	"run_started_at":"2026-08-23T10:00:00Z","message":{"text":"Let me run the tests.","finish_reason":"end_turn"},
	"todos":[],"processes":[{"id":"p1","command":"make","started_at":"2026-08-23T10:01:00Z","status":"running"}],
	"host_wakes":false,"nudges":{"consecutive":1,"given":{"stall":1}}}`
	var turn Turn
	if err := json.Unmarshal([]byte(in), &turn); err != nil {
		t.Fatal(err)
	}
	if turn.Todos == nil || len(turn.Todos) != 0 {
		t.Errorf("todos [] must decode as known and empty, got %#v", turn.Todos)
	}
	if turn.Subagents != nil {
		t.Errorf("absent subagents must stay unknown (nil)")
	}
	if turn.HostWakes == nil || *turn.HostWakes {
		t.Errorf("host_wakes false lost")
	}
	if turn.Nudges.Given.Count("stall") != 1 || turn.Nudges.Consecutive != 1 {
		t.Errorf("nudges: %+v", turn.Nudges)
	}
	d := New(Config{}).Decide(context.Background(), turn)
	if d.Verdict != Continue || d.Check != CheckProcesses {
		t.Errorf("got %s by %s:%s", d.Verdict, d.Check, trailString(d))
	}
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"verdict":"continue"`, `"check":"processes"`, `"trail":[`, `"nudges":{`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("decision JSON lacks %s: %s", key, out)
		}
	}
}

func TestDecideClaims(t *testing.T) {
	failing := loopguard.Step{Tool: "Bash", Args: `{"command":"go test ./..."}`, Error: "Exit code 1\n--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/p\t0.01s"}
	edit := loopguard.Step{Tool: "Edit", Args: `{"file_path":"p.go"}`, Result: "ok"}
	passing := loopguard.Step{Tool: "Bash", Args: `{"command":"go test ./..."}`, Result: "ok  \texample.com/p\t0.01s"}
	tests := []struct {
		name    string
		text    string
		steps   []loopguard.Step
		given   int
		cfg     Config
		verdict Verdict
		check   Check
	}{
		{"contradicted", "All tests pass.", []loopguard.Step{edit, failing}, 0, Config{}, Continue, CheckClaims},
		{"contradicted, budget spent", "All tests pass.", []loopguard.Step{edit, failing}, 1, Config{}, Stop, CheckCompleted},
		{"reported honestly", "The last run still fails in TestParse; I could not fix it.", []loopguard.Step{edit, failing}, 1, Config{}, Stop, CheckCompleted},
		{"supported", "All tests pass.", []loopguard.Step{failing, edit, passing}, 0, Config{}, Stop, CheckCompleted},
		{"hedged", "All tests pass except the flaky TestParse.", []loopguard.Step{edit, failing}, 0, Config{}, Stop, CheckCompleted},
		{"unverified, rule off", "All tests pass.", []loopguard.Step{edit}, 0, Config{}, Stop, CheckCompleted},
		{"unverified, rule on", "All tests pass.", []loopguard.Step{edit}, 0, Config{Claims: claims.Config{RequireEvidence: true}}, Continue, CheckClaims},
		{"docs only", "I rewrote the README.", []loopguard.Step{edit, failing}, 0, Config{}, Stop, CheckCompleted},
		{"off", "All tests pass.", []loopguard.Step{edit, failing}, 0, Config{Off: map[Check]bool{CheckClaims: true}}, Stop, CheckCompleted},
	}
	for _, tt := range tests {
		turn := Turn{Message: &Message{Text: tt.text}, Steps: tt.steps}
		turn.Nudges.Given.Spend(CheckClaims)
		if tt.given == 0 {
			turn.Nudges.Given = Budget{}
		}
		d := New(tt.cfg).Decide(context.Background(), turn)
		if d.Verdict != tt.verdict || d.Check != tt.check {
			t.Errorf("%s: %s/%s, want %s/%s; trail %+v", tt.name, d.Verdict, d.Check, tt.verdict, tt.check, d.Trail)
			continue
		}
		if d.Verdict == Continue && tt.check == CheckClaims && !strings.Contains(d.Message, "go test ./...") && !strings.Contains(d.Message, "no tests command") && !strings.Contains(d.Message, "no tests") {
			t.Errorf("%s: message %q does not name the command", tt.name, d.Message)
		}
	}
}
