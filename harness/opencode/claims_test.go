package opencode

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
)

// TestClaimsEvidence: the Turn an opencode stop builds carries what the claims check reads — a
// bash part's output, with the exit status opencode keeps in the part's metadata (state.metadata
// .exit) carried into the step — so a claim the run's own results contradict is answered
// continue/claims, while a hedged claim and a passing run let the agent stop.
func TestClaimsEvidence(t *testing.T) {
	const failOut = "--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.003s\n"
	bashPart := func(cmd, output string, exit int) string {
		b, _ := json.Marshal(map[string]any{"type": "tool", "tool": "bash", "callID": "call_2",
			"state": map[string]any{"status": "completed", "input": map[string]any{"command": cmd, "description": "Run the tests"},
				"output": output, "metadata": map[string]any{"output": output, "exit": exit, "description": "Run the tests"},
				"title": "Run the tests", "time": map[string]any{"start": 1796165609000, "end": 1796165612000}}})
		return string(b)
	}
	// An exit status the output does not show (make's summary is in stderr the model saw, not
	// in a runner line): only the metadata says the run failed.
	quiet := bashPart("make test", "make: *** [Makefile:6: test] Error 2\n", 2)
	tests := []struct {
		name    string
		part    string
		final   string
		verdict stopgate.Verdict
		check   stopgate.Check
	}{
		{"failed run, then the claim", bashPart("go test ./...", failOut, 1), "All tests pass.", stopgate.Continue, stopgate.CheckClaims},
		{"exit status only in metadata", bashPart("npm test", "\n> calc@1.0.0 test\n> node --test\n", 1), "All tests pass.", stopgate.Continue, stopgate.CheckClaims},
		{"make's own error line", quiet, "The build succeeds and all tests pass.", stopgate.Continue, stopgate.CheckClaims},
		{"hedged claim", bashPart("go test ./...", failOut, 1), "All tests pass except TestParse, which still fails.", stopgate.Stop, stopgate.CheckCompleted},
		{"a passing run", bashPart("go test ./...", "ok  \texample.com/calc\t0.002s\n", 0), "All tests pass.", stopgate.Stop, stopgate.CheckCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			final, _ := json.Marshal(tt.final)
			raw := `[
 {"info":{"id":"m1","role":"user","time":{"created":1796165603161}},"parts":[{"type":"text","text":"Fix the parser so the tests pass."}]},
 {"info":{"id":"m2","role":"assistant","finish":"tool-calls","time":{"created":1796165608783}},"parts":[{"type":"step-start"},{"type":"tool","tool":"edit","callID":"call_1","state":{"status":"completed","input":{"filePath":"/p/calc.go","oldString":"a","newString":"b"},"output":""}}]},
 {"info":{"id":"m3","role":"assistant","finish":"tool-calls","time":{"created":1796165609000}},"parts":[{"type":"step-start"},` + tt.part + `]},
 {"info":{"id":"m4","role":"assistant","finish":"stop","time":{"created":1796165619403}},"parts":[{"type":"text","text":` + string(final) + `}]}
]`
			var msgs []Message
			if err := json.Unmarshal([]byte(raw), &msgs); err != nil {
				t.Fatal(err)
			}
			turn := Turn("ses_claims", msgs, nil, nil, time.UnixMilli(1796165620500))
			d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
			if d.Verdict != tt.verdict || d.Check != tt.check {
				t.Errorf("decision %s/%s (%q), want %s/%s; steps %+v", d.Verdict, d.Check, d.Message, tt.verdict, tt.check, turn.Steps)
			}
		})
	}
}
