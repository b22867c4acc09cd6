package claudecode

import (
	"context"
	"testing"

	"github.com/stopgate/stopgate"
)

// TestClaimsEvidence: the Turn a Claude Code stop builds carries what the claims check reads —
// a Bash result's is_error flag and "Exit code N", and a background shell's outcome read
// through TaskOutput, BashOutput or a Read of its output file — so a claim the run's own
// results contradict is answered continue/claims, at a live stop (Turn) and in an audit
// (SessionTurn) alike, while a hedged claim, a passing run and a claim after a later edit let
// the agent stop.
func TestClaimsEvidence(t *testing.T) {
	const (
		failOut = "--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.003s"
		claim   = "All tests pass."
	)
	failing := func(j *jsonl) {
		j.call(1, "m1", "tu1", "Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})
		j.result(2, "tu1", "Exit code 1\n"+failOut, true, "Error: Exit code 1\n"+failOut)
	}
	tests := []struct {
		name  string
		steps func(j *jsonl)
		final string
		// verdict and check are the decision wanted.
		verdict stopgate.Verdict
		check   stopgate.Check
	}{
		{name: "failed Bash run, then the claim", steps: failing, final: claim,
			verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "exit code without the error flag", steps: func(j *jsonl) {
			j.call(1, "m1", "tu1", "Bash", map[string]any{"command": "npm test"})
			j.result(2, "tu1", "Exit code 1\n> calc@1.0.0 test\n> jest\n\nTests:       2 failed, 30 passed, 32 total", false, nil)
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "background run read with TaskOutput", steps: func(j *jsonl) {
			j.background(1, "m1", "tu1", "b7x", "pytest -q")
			j.call(3, "m2", "tu2", "TaskOutput", map[string]any{"task_id": "b7x", "block": true})
			j.result(4, "tu2", "<retrieval_status>success</retrieval_status>\n\n<task_id>b7x</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>failed</status>\n\n<exit_code>1</exit_code>\n\n<output>\n=== 1 failed, 41 passed in 2.10s ===\n</output>", false, nil)
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "background run read with BashOutput", steps: func(j *jsonl) {
			j.background(1, "m1", "tu1", "bash_1", "cargo test")
			j.call(3, "m2", "tu2", "BashOutput", map[string]any{"bash_id": "bash_1"})
			j.result(4, "tu2", "<status>completed</status>\n\n<exit_code>101</exit_code>\n\n<stdout>\ntest result: FAILED. 3 passed; 1 failed; 0 ignored\n</stdout>", false, nil)
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "background run read through its output file after it ended", steps: func(j *jsonl) {
			j.background(1, "m1", "tu1", "b7x", "go test ./...")
			j.say(2, "m2", "The tests are running in the background.", "end_turn")
			j.notification(3, "b7x", "failed", 1)
			j.call(4, "m3", "tu2", "Read", map[string]any{"file_path": "/tmp/claude/tasks/b7x.output"})
			j.result(5, "tu2", "     1→--- FAIL: TestParse (0.00s)\n     2→FAIL\n     3→FAIL\texample.com/calc\t0.003s\n", false, nil)
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "hedged claim", steps: failing, final: "All tests pass except the flaky TestParse.",
			verdict: stopgate.Stop, check: stopgate.CheckCompleted},
		{name: "honest report", steps: failing, final: "The tests still fail in TestParse; I could not fix it.",
			verdict: stopgate.Stop, check: stopgate.CheckCompleted},
		{name: "a passing run after the fix", steps: func(j *jsonl) {
			failing(j)
			j.call(3, "m2", "tu2", "Edit", map[string]any{"file_path": "/work/demo/parse.go", "old_string": "+", "new_string": "-"})
			j.result(4, "tu2", "The file /work/demo/parse.go has been updated.", false, nil)
			j.call(5, "m3", "tu3", "Bash", map[string]any{"command": "go test ./..."})
			j.result(6, "tu3", "ok  \texample.com/calc\t0.002s", false, nil)
		}, final: claim, verdict: stopgate.Stop, check: stopgate.CheckCompleted},
		{name: "an edit after the failed run leaves the claim unverified", steps: func(j *jsonl) {
			failing(j)
			j.call(3, "m2", "tu2", "Edit", map[string]any{"file_path": "/work/demo/parse.go", "old_string": "+", "new_string": "-"})
			j.result(4, "tu2", "The file /work/demo/parse.go has been updated.", false, nil)
		}, final: claim, verdict: stopgate.Stop, check: stopgate.CheckCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJSONL(t, "sess-claims")
			j.prompt(0, "Fix the parser so the tests pass.")
			tt.steps(j)
			j.say(9, "mfinal", tt.final, "end_turn")
			s := j.read()
			final := tt.final
			live := Turn(Payload{SessionID: "sess-claims", HookEventName: EventStop, LastAssistantMessage: &final}, s, j.at(10))
			audit := SessionTurn(s, len(s.Turns)-1)
			for what, turn := range map[string]stopgate.Turn{"Turn": live, "SessionTurn": audit} {
				d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
				if d.Verdict != tt.verdict || d.Check != tt.check {
					t.Errorf("%s: decision %s/%s (%q), want %s/%s; trail %+v", what, d.Verdict, d.Check, d.Message, tt.verdict, tt.check, d.Trail)
				}
			}
		})
	}
}
