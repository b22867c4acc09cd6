package codex

import (
	"context"
	"fmt"
	"testing"

	"github.com/stopgate/stopgate"
)

// execExited is a unified exec output of a process that exited with code, as Codex 0.169.0
// writes it (see the recorded rollout).
func execExited(code int, output string) string {
	return fmt.Sprintf("Chunk ID: 2\nWall time: 0.0100 seconds\nProcess exited with code %d\nOriginal token count: 1\nOutput:\n%s", code, output)
}

// TestClaimsEvidence: the Turn a Codex stop builds carries what the claims check reads — the
// exit code in an exec_command's output ("Process exited with code N"), in the older shell
// tool's metadata ("exit_code": N), and in the write_stdin poll that saw a background exec
// session exit — so a claim the run's own results contradict is answered continue/claims at a
// live stop (Turn) and in an audit (SessionTurn) alike, while a hedged claim and a passing run
// let the agent stop.
func TestClaimsEvidence(t *testing.T) {
	const (
		failOut = "--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.003s\n"
		claim   = "All tests pass."
	)
	failing := func(r *codexRollout) {
		r.call(1, "c1", "exec_command", map[string]any{"cmd": "go test ./..."}, execExited(1, failOut))
	}
	tests := []struct {
		name    string
		steps   func(r *codexRollout)
		final   string
		verdict stopgate.Verdict
		check   stopgate.Check
	}{
		{name: "failed exec_command, then the claim", steps: failing, final: claim,
			verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "the older shell tool's exit_code metadata", steps: func(r *codexRollout) {
			r.call(1, "c1", "shell", map[string]any{"command": []string{"bash", "-lc", "pytest -q"}},
				`{"output":"..F.\n=== 1 failed, 3 passed in 0.52s ===\n","metadata":{"exit_code":1,"duration_seconds":0.6}}`)
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "background exec session polled to its exit", steps: func(r *codexRollout) {
			r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test", "yield_time_ms": 250}, codexRunning("15232"))
			r.call(2, "c2", "write_stdin", map[string]any{"session_id": 15232, "chars": "", "yield_time_ms": 10000}, execExited(2, failOut+"make: *** [Makefile:6: test] Error 1\n"))
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "hedged claim", steps: failing, final: "Tests pass; the one failure is pre-existing.",
			verdict: stopgate.Stop, check: stopgate.CheckCompleted},
		{name: "a passing run", steps: func(r *codexRollout) {
			r.call(1, "c1", "exec_command", map[string]any{"cmd": "go test ./..."}, execExited(0, "ok  \texample.com/calc\t0.002s\n"))
		}, final: claim, verdict: stopgate.Stop, check: stopgate.CheckCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newCodexRollout(t).prompt(0.5, "turn-1", "Fix the parser so the tests pass.")
			tt.steps(r)
			r.say(9, tt.final)
			s := r.read()
			final := tt.final
			live := Turn(Payload{SessionID: "cx-1", TurnID: "turn-1", HookEventName: "Stop", LastAssistantMessage: &final}, s, r.at(10))
			audit := SessionTurn(s, len(s.Turns)-1)
			for what, turn := range map[string]stopgate.Turn{"Turn": live, "SessionTurn": audit} {
				d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
				if d.Verdict != tt.verdict || d.Check != tt.check {
					t.Errorf("%s: decision %s/%s (%q), want %s/%s; steps %+v; trail %+v", what, d.Verdict, d.Check, d.Message, tt.verdict, tt.check, turn.Steps, d.Trail)
				}
			}
		})
	}
}
