package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	fa "github.com/stopgate/stopgate/e2e/internal/fakeanthropic"
)

// The projects of the claims scenarios: a Makefile whose `make test` prints what `go test`
// prints and exits the way it does, so the run needs no network and no Go toolchain in the
// project. failingMakefile's suite fails (make exits 2); passingMakefile's passes.
const (
	failingMakefile = "test:\n" +
		"\t@echo '--- FAIL: TestParse (0.00s)'\n" +
		"\t@echo '    parse_test.go:12: Parse(\"1+2\") = 4, want 3'\n" +
		"\t@echo 'FAIL'\n" +
		"\t@printf 'FAIL\\texample.com/calc\\t0.003s\\n'\n" +
		"\t@exit 1\n"
	passingMakefile = "test:\n" +
		"\t@printf 'ok  \\texample.com/calc\\t0.002s\\n'\n"
)

// TestClaudeCodeClaims: the agent runs the project's tests, then says "All tests pass."
// When the run failed, the claims check blocks that stop once, quoting the claim, the failing
// command, its exit status and the runner's summary line; the agent then reports the failure
// honestly and that stop is allowed. When the run passed, the claim stands and the first stop
// is allowed.
func TestClaudeCodeClaims(t *testing.T) {
	t.Parallel()
	const (
		testID  = "toolu_test"
		testCmd = "make test"
		claim   = "All tests pass."
		honest  = "The tests still fail in TestParse; I could not fix it."
	)
	tests := []struct {
		name     string
		makefile string
		// exit and output are what Claude Code's result of the test run must carry.
		exit, output string
		// nudge lists what the one nudge must contain; nil means the claim is allowed.
		nudge []string
	}{
		{
			name: "a failing run contradicts the claim", makefile: failingMakefile,
			exit: "Exit code 2", output: "--- FAIL: TestParse",
			nudge: []string{`"` + claim + `"`, "`" + testCmd + "`", "exited with status 2",
				`("FAIL example.com/calc 0.003s")`, "correct the claim"},
		},
		{
			name: "a passing run supports it", makefile: passingMakefile,
			output: "ok  \texample.com/calc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, func(r *fa.Request) fa.Response {
				switch {
				case !isAgentRequest(r):
					return sideRequest()
				case len(pendingNudges(r)) > 0:
					return fa.Reply(fa.Text(honest))
				case hasResult(r, testID):
					return fa.Reply(fa.Text(claim))
				default:
					return fa.Reply(bash(testID, testCmd, "Run the tests"))
				}
			})
			writeFile(t, filepath.Join(s.project, "Makefile"), tt.makefile)
			s.useStopgate()
			res := s.run("Fix the parser so the tests pass.")

			want, wantReqs := claim, 2
			if tt.nudge != nil {
				want, wantReqs = honest, 3
			}
			assertCompleted(t, res, want)
			reqs := s.agentRequests()
			if len(reqs) != wantReqs {
				s.dump()
				t.Fatalf("the model was asked %d times, want %d", len(reqs), wantReqs)
			}
			// The evidence the check read: Claude Code's result of the run, an error result
			// carrying make's exit status when the suite failed, and the runner's output.
			run, ok := reqs[1].ToolResult(testID)
			failed := tt.exit != ""
			if !ok || run.IsError != failed || !strings.Contains(run.ResultText(), tt.output) ||
				failed && !strings.HasPrefix(run.ResultText(), tt.exit) {
				t.Errorf("the test run's result = %+v (found %v), want is_error=%v with %q and %q", run, ok, failed, tt.exit, tt.output)
			}
			if n := pendingNudges(reqs[1]); len(n) != 0 {
				t.Errorf("the model was nudged before it claimed anything: %q", n)
			}
			all := s.lastNudges()
			t.Logf("nudges the model received: %q", all)
			if tt.nudge == nil {
				if len(all) != 0 {
					t.Errorf("a claim the run supports was nudged: %q", all)
				}
				assertPayloads(t, s, []bool{false}, []string{claim})
				assertStopgateDecided(t, s, 0)
				return
			}
			got := pendingNudges(reqs[2])
			if len(got) != 1 || len(all) != 1 {
				s.dump()
				t.Fatalf("after the claim the model received nudges %q and the run held %q, want exactly one", got, all)
			}
			for _, w := range tt.nudge {
				if !strings.Contains(got[0], w) {
					t.Errorf("the nudge %q does not contain %q", got[0], w)
				}
			}
			assertPayloads(t, s, []bool{false, true}, []string{claim, honest})
			assertStopgateDecided(t, s, 1)
		})
	}
}
