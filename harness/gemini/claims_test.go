package gemini

import (
	"context"
	"strconv"
	"testing"

	"github.com/stopgate/stopgate"
)

// shellResult is run_shell_command's output as Gemini CLI 0.61.0 records it in the session
// file (seen in e2e TestGeminiContradictedClaim): the call's status is "success" whatever the
// command's exit, and the exit is the "Exit Code: N" line.
func shellResult(output string, exit int) string {
	s := "<untrusted_context>\nOutput: " + output + "\n"
	if exit != 0 {
		s += "Exit Code: " + strconv.Itoa(exit) + "\n"
	}
	return s + "Process Group PGID: 21250\n</untrusted_context>"
}

// TestClaimsEvidence: the Turn a Gemini CLI stop builds carries what the claims check reads —
// run_shell_command's "Exit Code: N" line, and a background process's outcome read through
// read_background_output or list_background_processes — so a claim the run's own results
// contradict is answered continue/claims at a live stop (Turn) and in an audit (SessionTurn)
// alike, while a hedged claim and a passing run let the agent stop.
func TestClaimsEvidence(t *testing.T) {
	const (
		failOut = "--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.003s\nmake: *** [Makefile:6: test] Error 1"
		claim   = "All tests pass."
	)
	failing := func(c *geminiChat) {
		c.model(1, "", geminiToolUse{"run_shell_command", map[string]any{"command": "make test", "description": "Run the tests"}, "success", shellResult(failOut, 2)})
	}
	moved := geminiToolUse{"run_shell_command", map[string]any{"command": "npm test", "is_background": true}, "success", "Command moved to background (PID: 4242). Output hidden. Press Ctrl+B to view."}
	tests := []struct {
		name    string
		steps   func(c *geminiChat)
		final   string
		verdict stopgate.Verdict
		check   stopgate.Check
	}{
		{name: "failed shell command, then the claim", steps: failing, final: claim,
			verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "background process read with read_background_output", steps: func(c *geminiChat) {
			c.model(1, "", moved)
			c.model(2, "", geminiToolUse{"list_background_processes", map[string]any{}, "success", "- [PID 4242] EXITED: `npm test` (Exit Code: 1)"})
			c.model(3, "", geminiToolUse{"read_background_output", map[string]any{"pid": 4242}, "success", "Full Log Output:\nTests:       2 failed, 30 passed, 32 total"})
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "background process whose listing gives its exit code", steps: func(c *geminiChat) {
			c.model(1, "", moved)
			c.model(2, "", geminiToolUse{"list_background_processes", map[string]any{}, "success", "- [PID 4242] EXITED: `npm test` (Exit Code: 1)"})
			c.model(3, "", geminiToolUse{"read_background_output", map[string]any{"pid": 4242}, "success", "Full Log Output:\n> calc@1.0.0 test\n> jest"})
		}, final: claim, verdict: stopgate.Continue, check: stopgate.CheckClaims},
		{name: "hedged claim", steps: failing, final: "All tests pass apart from TestParse, which I could not fix.",
			verdict: stopgate.Stop, check: stopgate.CheckCompleted},
		{name: "a passing run", steps: func(c *geminiChat) {
			c.model(1, "", geminiToolUse{"run_shell_command", map[string]any{"command": "make test"}, "success", shellResult("ok  \texample.com/calc\t0.002s", 0)})
		}, final: claim, verdict: stopgate.Stop, check: stopgate.CheckCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newGeminiChat(t, "00000000-0000-4000-8000-0000000000c1")
			prompt := "Fix the parser so the tests pass."
			c.user(0, prompt)
			tt.steps(c)
			c.model(9, tt.final)
			s := c.read()
			final := tt.final
			live := Turn(Payload{SessionID: c.id, HookEventName: "AfterAgent", Prompt: &prompt, PromptResponse: &final}, s, c.at(10))
			audit := SessionTurn(s, len(Turns(s))-1)
			for what, turn := range map[string]stopgate.Turn{"Turn": live, "SessionTurn": audit} {
				d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
				if d.Verdict != tt.verdict || d.Check != tt.check {
					t.Errorf("%s: decision %s/%s (%q), want %s/%s; steps %+v; trail %+v", what, d.Verdict, d.Check, d.Message, tt.verdict, tt.check, turn.Steps, d.Trail)
				}
			}
		})
	}
}
