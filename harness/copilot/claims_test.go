package copilot

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
)

// TestClaimsEvidence: the Turn a Copilot CLI stop builds carries what the claims check reads — a
// sync bash call's "<shellId: N completed with exit code N>" line, and an async shell's outcome
// read with read_bash — so a claim the run's own results contradict is answered
// continue/claims, while a hedged claim and a passing run let the agent stop.
func TestClaimsEvidence(t *testing.T) {
	const failOut = "--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.003s\nmake: *** [Makefile:6: test] Error 1"
	type call struct {
		name   string
		args   map[string]any
		result string
	}
	sync := func(cmd, out string, exit int) call {
		return call{"bash", map[string]any{"command": cmd, "description": "Run the tests", "mode": "sync", "initial_wait": 60},
			out + "\n<shellId: 0 completed with exit code " + strconv.Itoa(exit) + ">"}
	}
	tests := []struct {
		name    string
		calls   []call
		final   string
		verdict stopgate.Verdict
		check   stopgate.Check
	}{
		{"failed sync run, then the claim", []call{sync("make test", failOut, 2)}, "All tests pass.", stopgate.Continue, stopgate.CheckClaims},
		{"exit status only in the shell line", []call{sync("npm test", "\n> calc@1.0.0 test\n> node --test", 1)}, "All tests pass.", stopgate.Continue, stopgate.CheckClaims},
		{"async shell read to its end", []call{
			{"bash", map[string]any{"command": "npm test", "description": "Run the tests", "mode": "async"}, "<command started in background with shellId: 1>"},
			{"read_bash", map[string]any{"shellId": "1", "delay": 30}, "Tests:       2 failed, 30 passed, 32 total\n<shellId: 1 completed with exit code 1>"},
		}, "All tests pass.", stopgate.Continue, stopgate.CheckClaims},
		{"hedged claim", []call{sync("make test", failOut, 2)}, "All tests pass apart from TestParse, which I could not fix.", stopgate.Stop, stopgate.CheckCompleted},
		{"a passing run", []call{sync("make test", "ok  \texample.com/calc\t0.002s", 0)}, "All tests pass.", stopgate.Stop, stopgate.CheckCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			at := time.Date(2026, 12, 1, 22, 46, 23, 0, time.UTC)
			n := 0
			ev := func(typ string, data map[string]any) {
				n++
				at = at.Add(time.Second)
				line, _ := json.Marshal(map[string]any{"type": typ, "data": data, "id": "e" + strconv.Itoa(n), "timestamp": at.Format(time.RFC3339Nano)})
				b.Write(line)
				b.WriteByte('\n')
			}
			ev("session.start", map[string]any{"sessionId": "c2d59555-8b86-4154-a3b2-40dc20907cfc", "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102", "context": map[string]any{"cwd": "/HOME/project"}})
			ev("user.message", map[string]any{"content": "Fix the parser so the tests pass.", "messageId": "u1", "interactionId": "i1", "turnId": "0"})
			ev("assistant.turn_start", map[string]any{"turnId": "0"})
			edit := []map[string]any{{"toolCallId": "t0", "name": "edit", "arguments": map[string]any{"path": "/HOME/project/calc.go", "old_str": "a", "new_str": "b"}}}
			ev("assistant.message", map[string]any{"messageId": "a0", "content": "", "toolRequests": edit, "interactionId": "i1", "turnId": "0"})
			ev("tool.execution_start", map[string]any{"toolCallId": "t0", "toolName": "edit"})
			ev("tool.execution_complete", map[string]any{"toolCallId": "t0", "success": true, "result": map[string]any{"content": "File /HOME/project/calc.go updated with changes."}})
			for i, c := range tt.calls {
				id := "t" + strconv.Itoa(i+1)
				ev("assistant.message", map[string]any{"messageId": "a" + strconv.Itoa(i+1), "content": "", "toolRequests": []map[string]any{{"toolCallId": id, "name": c.name, "arguments": c.args}}, "interactionId": "i1", "turnId": "0"})
				ev("tool.execution_start", map[string]any{"toolCallId": id, "toolName": c.name})
				ev("tool.execution_complete", map[string]any{"toolCallId": id, "success": true, "result": map[string]any{"content": c.result}})
			}
			ev("assistant.message", map[string]any{"messageId": "a9", "content": tt.final, "toolRequests": []any{}, "interactionId": "i1", "turnId": "0"})
			ev("assistant.turn_end", map[string]any{"turnId": "0"})
			s, err := Read(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			turn := Turn(Payload{SessionID: s.ID}, s, nil, at.Add(time.Second))
			d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
			if d.Verdict != tt.verdict || d.Check != tt.check {
				t.Errorf("decision %s/%s (%q), want %s/%s; steps %+v; trail %+v", d.Verdict, d.Check, d.Message, tt.verdict, tt.check, turn.Steps, d.Trail)
			}
		})
	}
}
