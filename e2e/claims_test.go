package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	fa "github.com/stopgate/stopgate/e2e/internal/fakeanthropic"
	fg "github.com/stopgate/stopgate/e2e/internal/fakegemini"
	fo "github.com/stopgate/stopgate/e2e/internal/fakeopenai"
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

// claimNudge lists what the claims check's nudge for the failing `make test` of
// failingMakefile must contain, claim being the final message it contradicts.
func claimNudge(claim string) []string {
	return []string{`"` + claim + `"`, "`make test`", "exited with status 2", `("FAIL example.com/calc 0.003s")`, "correct the claim"}
}

// assertClaimNudge checks that nudge is the claims check's, naming the claim and the failing
// run.
func assertClaimNudge(t *testing.T, nudge, claim string) {
	t.Helper()
	for _, w := range claimNudge(claim) {
		if !strings.Contains(nudge, w) {
			t.Errorf("the nudge %q does not contain %q", nudge, w)
		}
	}
}

// TestCodexContradictedClaim: with Codex, an exec of a failing `make test` then "All tests
// pass." is blocked once, the exit code read from the exec's output, and the honest report
// after it is allowed.
func TestCodexContradictedClaim(t *testing.T) {
	t.Parallel()
	const (
		testID = "call_test"
		claim  = "All tests pass."
		honest = "The tests still fail in TestParse; I could not fix it."
	)
	s := newCodexSession(t, func(r *fo.Request) fo.Response {
		switch {
		case !isCodexAgentRequest(r):
			return fo.Reply(fo.Text("OK"))
		case len(codexPending(r)) > 0:
			return fo.Reply(fo.Text(honest))
		case hasOutput(r, testID):
			return fo.Reply(fo.Text(claim))
		default:
			return fo.Reply(fo.FunctionCall(testID, "exec_command", map[string]any{"cmd": "make test"}))
		}
	})
	writeFile(t, filepath.Join(s.project, "Makefile"), failingMakefile)
	s.useStopgate()
	final := s.run("Fix the parser so the tests pass.")

	if final != honest {
		t.Errorf("final message %q, want %q", final, honest)
	}
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (run the tests, claim, honest report)", len(reqs))
	}
	out, ok := reqs[1].FunctionOutput(testID)
	t.Logf("the test run's output: %q", out.OutputText())
	if !ok || !strings.Contains(out.OutputText(), "Process exited with code 2") || !strings.Contains(out.OutputText(), "--- FAIL: TestParse") {
		t.Errorf("the test run's output = %q (found %v), want exit code 2 and the failing test", out.OutputText(), ok)
	}
	got := codexPending(reqs[2])
	all := s.lastNudges()
	t.Logf("nudges the model received: %q", all)
	if len(got) != 1 || len(all) != 1 {
		s.dump()
		t.Fatalf("after the claim the model received nudges %q and the run held %q, want exactly one", got, all)
	}
	assertClaimNudge(t, got[0], claim)
	assertCodexPayloads(t, s, []bool{false, true}, []string{claim, honest})
	assertStopgateBlocked(t, s, 1)
}

// TestGeminiContradictedClaim: with Gemini CLI, a run_shell_command of a failing `make test`
// then "All tests pass." is denied once, the exit code read from the shell result, and the
// honest report after it is allowed.
func TestGeminiContradictedClaim(t *testing.T) {
	t.Parallel()
	const (
		prompt = "Fix the parser so the tests pass."
		claim  = "All tests pass."
		honest = "The tests still fail in TestParse; I could not fix it."
	)
	s := newGeminiSession(t, func(r *fg.Request) fg.Response {
		switch {
		case !isGeminiAgentRequest(r):
			return fg.Reply(fg.Text("OK"))
		case len(geminiPending(r)) > 0:
			return fg.Reply(fg.Text(honest))
		case hasResponse(r, "run_shell_command"):
			return fg.Reply(fg.Text(claim))
		default:
			return fg.Reply(shellCall("make test", "Run the tests"))
		}
	})
	writeFile(t, filepath.Join(s.project, "Makefile"), failingMakefile)
	s.useStopgate()
	res := s.run(prompt)

	assertGeminiCompleted(t, s, res, honest)
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (run the tests, claim, honest report)", len(reqs))
	}
	out := reqs[1].FunctionResponses("run_shell_command")
	if len(out) != 1 {
		t.Fatalf("the claim's request carries %d shell results, want 1", len(out))
	}
	t.Logf("the test run's result: %q", out[0].Output())
	if !strings.Contains(out[0].Output(), "Exit Code: 2") || !strings.Contains(out[0].Output(), "--- FAIL: TestParse") {
		t.Errorf("the test run's result = %q, want Exit Code: 2 and the failing test", out[0].Output())
	}
	got := geminiPending(reqs[2])
	all := s.lastNudges()
	t.Logf("nudges the model received: %q", all)
	if len(got) != 1 || len(all) != 1 {
		s.dump()
		t.Fatalf("after the claim the model received nudges %q and the run held %q, want exactly one", got, all)
	}
	assertClaimNudge(t, got[0], claim)
	assertGeminiPayloads(t, s, prompt, []bool{false, true}, []string{claim, honest})
	assertGeminiDecided(t, s, 0)
}
