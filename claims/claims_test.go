package claims

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/loopguard"
)

func bash(cmd, result string, isErr bool) loopguard.Step {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	st := loopguard.Step{Tool: "Bash", Args: string(args)}
	if isErr {
		st.Error = result
	} else {
		st.Result = result
	}
	return st
}

func edit(path string) loopguard.Step {
	return loopguard.Step{Tool: "Edit", Args: `{"file_path":"` + path + `"}`, Result: "ok"}
}

func TestFind(t *testing.T) {
	tests := []struct {
		text   string
		kinds  []Kind
		hedged bool
		passed int
		total  int
	}{
		{"All tests pass.", []Kind{Tests}, false, 0, 0},
		{"Done. **All 86 tests pass** and the build is clean.", []Kind{Tests}, false, 86, 86},
		{"86/86 pass.", []Kind{Tests}, false, 86, 86},
		{"The test suite is green.", []Kind{Tests}, false, 0, 0},
		{"✅ 42 tests passed, 0 failed", []Kind{Tests}, false, 42, 0},
		{"**447 total tests** (284 unit + 163 API integration) all pass", []Kind{Tests}, false, 447, 447},
		{"12 test suites, 125 tests, all passing.", []Kind{Tests}, false, 125, 125},
		{"The build succeeds and lint is clean.", []Kind{Build}, false, 0, 0},
		{"Lint is clean.", []Kind{Lint}, false, 0, 0},
		{"No type errors.", []Kind{TypeCheck}, false, 0, 0},
		{"All tests pass except the flaky TestNetwork.", []Kind{Tests}, true, 0, 0},
		{"Tests pass; the two failures are pre-existing.", []Kind{Tests}, true, 0, 0},
		{"Most tests pass.", []Kind{Tests}, true, 0, 0},
		// Status lines: a label, a colon, the outcome.
		{"**Build status:** ✅ Passed", []Kind{Build}, false, 0, 0},
		{"Tests: passing", []Kind{Tests}, false, 0, 0},
		{"Type check: 0 errors", []Kind{TypeCheck}, false, 0, 0},
		{"Clean builds: both packages rebuild successfully", []Kind{Build}, false, 0, 0},
		{"Type check passes (only pre-existing warnings)", []Kind{TypeCheck}, false, 0, 0},
		{"Type check: passed (no new errors introduced)", []Kind{TypeCheck}, true, 0, 0},
		{"Type check passes; the same 2 pre-existing errors remain", []Kind{TypeCheck}, true, 0, 0},
		{"Build: not run", nil, false, 0, 0},
		// Not assertions.
		{"I could not run the tests.", nil, false, 0, 0},
		{"Let me check that the tests pass.", nil, false, 0, 0},
		{"Do the tests pass?", nil, false, 0, 0},
		{"Once the tests pass, I'll open the PR.", nil, false, 0, 0},
		{"The tests should pass now.", nil, false, 0, 0},
		{"Run `go test ./...` to make sure everything passes.", nil, false, 0, 0},
		{"The tests don't pass yet.", nil, false, 0, 0},
		{"I updated the README and refactored the parser.", nil, false, 0, 0},
		{"```\nok  all tests pass\n```", nil, false, 0, 0},
	}
	for _, tt := range tests {
		got := Find(tt.text)
		var kinds []Kind
		for _, c := range got {
			kinds = append(kinds, c.Kind)
		}
		if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(tt.kinds), ",") {
			t.Errorf("Find(%q) kinds = %v, want %v", tt.text, kinds, tt.kinds)
			continue
		}
		if len(got) == 0 {
			continue
		}
		if got[0].Hedged != tt.hedged || got[0].Passed != tt.passed || got[0].Total != tt.total {
			t.Errorf("Find(%q)[0] = %+v, want hedged=%v passed=%d total=%d", tt.text, got[0], tt.hedged, tt.passed, tt.total)
		}
	}
}

func kindStrings(ks []Kind) []string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return s
}

func TestClassify(t *testing.T) {
	tests := []struct {
		cmd  string
		kind Kind
		ok   bool
	}{
		{"go test ./...", Tests, true},
		{"cd app && npm test 2>&1 | tail -20", Tests, true},
		{"python -m pytest -q tests/", Tests, true},
		{"uv run pytest", Tests, true},
		{"cargo test --workspace", Tests, true},
		{"./gradlew test", Tests, true},
		{"mvn -q verify", Tests, true},
		{"bundle exec rspec spec/models", Tests, true},
		{"mix test test/foo_test.exs", Tests, true},
		{"make test", Tests, true},
		{"npx tsc --noEmit", TypeCheck, true},
		{"mypy src", TypeCheck, true},
		{"golangci-lint run", Lint, true},
		{"npm run lint", Lint, true},
		{"cargo clippy -- -D warnings", Lint, true},
		{"go build ./...", Build, true},
		{"npm run build", Build, true},
		{"make", Build, true},
		{"pnpm astro check", TypeCheck, true},
		{"npx svelte-check", TypeCheck, true},
		{`grep -q "nix build\\|verify_update" update.sh && echo ok`, "", false},
		{`git commit -m "fix: make go test pass"`, "", false},
		{`echo "run npm test next"`, "", false},
		{`bash -c "go test ./..."`, Tests, true},
		{"ls -la", "", false},
		{"git status", "", false},
		{"cat test_output.log", "", false},
		// A project's test script, run by name, here or in a container.
		{"./run_tests.sh", Tests, true},
		{`bash "fullstack/unit_tests/run_unit_tests.sh"`, Tests, true},
		{"sh run_tests.sh 2>&1 | tail -20", Tests, true},
		{`.\run_tests.ps1`, Tests, true},
		{"docker exec app bash run_tests.sh", Tests, true},
		{"bash scripts/test.sh --ci", Tests, true},
		{"chmod +x run_tests.sh", "", false},
		{"cat run_tests.sh", "", false},
		{"vim run_tests.sh", "", false},
		{"./latest.sh", "", false},
		{"bash deploy.sh", "", false},
	}
	for _, tt := range tests {
		k, ok := classify(tt.cmd)
		if k != tt.kind || ok != tt.ok {
			t.Errorf("classify(%q) = %q, %v; want %q, %v", tt.cmd, k, ok, tt.kind, tt.ok)
		}
	}
}

// TestSummaryLine: the summary quoted to the agent is the runner's one last summary line, never
// two lines run together ("FAIL" then "FAIL\tpkg").
func TestSummaryLine(t *testing.T) {
	tests := []struct{ name, out, line string }{
		{"go fail", "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\texample.com/x\t0.01s\n", "FAIL\texample.com/x\t0.01s"},
		{"go fail, bare FAIL last", "--- FAIL: TestX (0.00s)\nFAIL\n", "FAIL"},
		{"go build failed", "FAIL\texample.com/x [build failed]\nFAIL\n", "FAIL"},
		{"pytest", "....F\n=== 1 failed, 4 passed in 0.12s ===\n", "1 failed, 4 passed"},
	}
	for _, tt := range tests {
		if got := summarise(tt.out).line; got != tt.line {
			t.Errorf("%s: summary line %q, want %q", tt.name, got, tt.line)
		}
	}
}

func TestSummarise(t *testing.T) {
	tests := []struct {
		name                  string
		out                   string
		failing               bool
		passed, failed, total int
	}{
		{"pytest fail", "....F\n=========== 1 failed, 4 passed in 0.12s ===========", true, 4, 1, 5},
		{"pytest pass", "=== 12 passed, 1 skipped in 3.40s ===", false, 12, 0, 12},
		{"jest", "Test Suites: 1 failed, 3 passed, 4 total\nTests:       2 failed, 30 passed, 32 total", true, 30, 2, 32},
		{"cargo", "test result: FAILED. 5 passed; 1 failed; 0 ignored; 0 measured", true, 5, 1, 6},
		{"cargo ok", "test result: ok. 7 passed; 0 failed; 0 ignored\n", false, 7, 0, 7},
		{"maven", "Tests run: 10, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE", true, 9, 1, 10},
		{"rspec", "Finished in 1.2 seconds\n20 examples, 2 failures", true, 18, 2, 20},
		{"exunit", "Finished in 0.5 seconds\n1 doctest, 12 tests, 0 failures", false, 13, 0, 13},
		{"go fail", "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\texample.com/x\t0.01s", true, -1, -1, -1},
		{"go ok", "ok  \texample.com/x\t0.01s", false, -1, -1, -1},
		{"mocha", "  14 passing (20ms)\n  1 failing\n", true, 14, 1, 15},
		{"tsc", "src/a.ts(1,1): error TS2322\nFound 2 errors in the same file.", true, -1, -1, -1},
		{"vitest", " Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 9 passed (10)", true, 9, 1, 10},
	}
	for _, tt := range tests {
		s := summarise(tt.out)
		if s.failing != tt.failing || s.passed != tt.passed || s.failed != tt.failed || s.total != tt.total {
			t.Errorf("%s: summarise = %+v, want failing=%v %d/%d/%d", tt.name, s, tt.failing, tt.passed, tt.failed, tt.total)
		}
	}
}

func TestCheck(t *testing.T) {
	failGo := bash("go test ./...", "Exit code 1\n--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\texample.com/p\t0.01s", true)
	passGo := bash("go test ./...", "ok  \texample.com/p\t0.01s", false)
	tests := []struct {
		name    string
		text    string
		steps   []loopguard.Step
		cfg     Config
		outcome Outcome
		block   bool
	}{
		{"failed run then claim", "All tests pass.", []loopguard.Step{edit("a.go"), failGo}, Config{}, Contradicted, true},
		{"passing run", "All tests pass.", []loopguard.Step{edit("a.go"), failGo, edit("a.go"), passGo}, Config{}, Supported, false},
		{"failed run before the last edit", "All tests pass.", []loopguard.Step{failGo, edit("a.go")}, Config{}, Unverified, false},
		{"unverified, rule on", "All tests pass.", []loopguard.Step{edit("a.go")}, Config{RequireEvidence: true}, Unverified, true},
		{"hedged", "All tests pass except the flaky TestNet.", []loopguard.Step{failGo}, Config{}, Hedged, false},
		{"pre-existing", "Tests pass; the two failures are pre-existing.", []loopguard.Step{failGo}, Config{}, Hedged, false},
		{"no claim (docs)", "I rewrote the README's install section.", []loopguard.Step{failGo}, Config{}, NoClaim, false},
		{"could not run", "I could not run the tests.", []loopguard.Step{failGo}, Config{}, NoClaim, false},
		{"counts disagree", "All 86 tests pass.", []loopguard.Step{bash("pytest", "=== 80 passed in 1.0s ===", false)}, Config{}, Contradicted, true},
		{"test run in a container, read by its output", "All 447 tests pass (284 unit + 163 API).", []loopguard.Step{
			edit("README.md"),
			bash("docker build -f Dockerfile.test -t app-tests . 2>&1 | tail -3 && docker run --rm app-tests verify -B 2>&1 | grep 'Tests run:' | tail -2", "[INFO] Tests run: 20, Failures: 0, Errors: 0, Skipped: 0 -- in com.example.ApiIT\n[INFO] Tests run: 163, Failures: 0, Errors: 0, Skipped: 0", false),
		}, Config{}, Contradicted, true},
		{"failing test run in a container", "All tests pass.", []loopguard.Step{
			edit("a.py"),
			bash("docker compose run --rm api", "===== 2 failed, 40 passed in 3.1s =====", false),
		}, Config{}, Contradicted, true},
		{"container output with no runner summary is no run", "All tests pass.", []loopguard.Step{
			edit("a.py"),
			bash("docker compose run --rm api ./migrate", "Error: 1 failed migration", false),
		}, Config{}, Unverified, false},
		{"docker logs print an old run, not a new one", "All tests pass.", []loopguard.Step{
			edit("a.py"),
			bash("docker logs test-runner", "===== 2 failed, 40 passed in 3.1s =====", false),
		}, Config{}, Unverified, false},
		{"test script run by name", "All tests pass.", []loopguard.Step{
			edit("a.py"), bash("./run_tests.sh", "2 failed, 33 passed, 2 warnings in 12.45s", true),
		}, Config{}, Contradicted, true},
		{"test script passing", "All tests pass (35 passed).", []loopguard.Step{
			edit("a.py"), bash("./run_tests.sh", "35 passed, 2 warnings in 11.43s\nAll quality gates passed.", false),
		}, Config{}, Supported, false},
		{"failure reported elsewhere in the message", "Summary:\n- 40 tests pass in the container\n- 40 passed, 1 failed: the only remaining failure is TestRace, a known race.", []loopguard.Step{
			edit("a.py"), bash("pytest", "===== 1 failed, 40 passed in 3.1s =====", false),
		}, Config{}, Hedged, false},
		{"failures reported as fixed still contradicted", "All tests pass. I fixed the 2 failing tests.", []loopguard.Step{
			edit("a.py"), bash("pytest", "===== 1 failed, 40 passed in 3.1s =====", false),
		}, Config{}, Contradicted, true},
		{"log files restored after a failing run", "All tests pass.", []loopguard.Step{
			edit("a.go"), failGo, bash("git restore logs/ internal/monitoring/metrics.log && git status", "nothing to commit", false),
		}, Config{}, Contradicted, true},
		{"code restored after a failing run is an edit", "All tests pass.", []loopguard.Step{
			edit("a.go"), failGo, bash("git restore logs/ src/main.go", "", false),
		}, Config{}, Unverified, false},
		{"counts agree", "86/86 pass.", []loopguard.Step{bash("pytest", "=== 86 passed in 1.0s ===", false)}, Config{}, Supported, false},
		{"counts agree with an earlier run", "All 86 tests pass.", []loopguard.Step{bash("pytest", "=== 86 passed in 1.0s ===", false), bash("pytest tests/test_a.py", "=== 3 passed in 0.1s ===", false)}, Config{}, Supported, false},
		{"failing summary, exit unknown", "All tests pass.", []loopguard.Step{bash("npm test", "Tests:       1 failed, 3 passed, 4 total", false)}, Config{}, Contradicted, true},
		{"exit 0 wins over error text", "The build succeeds.", []loopguard.Step{bash("go build ./...", "", false)}, Config{}, Supported, false},
		{"background run read", "All tests pass.", []loopguard.Step{
			{Tool: "Bash", Args: `{"command":"go test ./...","run_in_background":true}`, Result: "Command running in background with ID: bash_1"},
			{Tool: "BashOutput", Args: `{"bash_id":"bash_1"}`, Result: "<status>completed</status>\n<exit_code>1</exit_code>\n<stdout>FAIL\texample.com/p</stdout>"},
		}, Config{}, Contradicted, true},
		{"background run read through its output file", "All tests pass.", []loopguard.Step{
			{Tool: "Bash", Args: `{"command":"go test ./...","run_in_background":true}`, Result: "Command running in background with ID: b7x. Output is being written to: /tmp/claude/tasks/b7x.output"},
			{Tool: "Read", Args: `{"file_path":"/tmp/claude/tasks/b7x.output"}`, Result: "     1→--- FAIL: TestParse (0.00s)\n     2→FAIL\n     3→FAIL\texample.com/p\t0.01s\n"},
		}, Config{}, Contradicted, true},
		{"background run whose output file was read while it ran", "All tests pass.", []loopguard.Step{
			{Tool: "Bash", Args: `{"command":"go test ./...","run_in_background":true}`, Result: "Command running in background with ID: b7x. Output is being written to: /tmp/claude/tasks/b7x.output"},
			{Tool: "Read", Args: `{"file_path":"/tmp/claude/tasks/b7x.output"}`, Result: "     1→=== RUN   TestParse\n"},
		}, Config{}, Unverified, false},
		{"codex exec session polled to its exit", "All tests pass.", []loopguard.Step{
			{Tool: "exec_command", Args: `{"cmd":"make test","yield_time_ms":250}`, Result: "Chunk ID: b3504d\nWall time: 0.2508 seconds\nProcess running with session ID 15232\nOriginal token count: 0\nOutput:\n"},
			{Tool: "write_stdin", Args: `{"session_id":15232,"chars":"","yield_time_ms":10000}`, Result: "Chunk ID: eb3d6f\nWall time: 0.0000 seconds\nProcess exited with code 2\nOriginal token count: 3\nOutput:\nFAIL\n"},
		}, Config{}, Contradicted, true},
		{"codex exec session still running is no evidence", "All tests pass.", []loopguard.Step{
			{Tool: "exec_command", Args: `{"cmd":"make test","yield_time_ms":250}`, Result: "Chunk ID: b3504d\nWall time: 0.2508 seconds\nProcess running with session ID 15232\nOriginal token count: 0\nOutput:\n"},
		}, Config{}, Unverified, false},
		{"gemini background process listed with its exit code", "All tests pass.", []loopguard.Step{
			{Tool: "run_shell_command", Args: `{"command":"npm test","is_background":true}`, Result: "Command moved to background (PID: 4242). Output hidden."},
			{Tool: "list_background_processes", Args: `{}`, Result: "- [PID 4242] EXITED: `npm test` (Exit Code: 1)\n- [PID 7] RUNNING: `npm run dev`"},
		}, Config{}, Contradicted, true},
		{"gemini background process read", "All tests pass.", []loopguard.Step{
			{Tool: "run_shell_command", Args: `{"command":"npm test","is_background":true}`, Result: "Command moved to background (PID: 4242). Output hidden."},
			{Tool: "read_background_output", Args: `{"pid":4242}`, Result: "Full Log Output:\nTests:       2 failed, 30 passed, 32 total"},
		}, Config{}, Contradicted, true},
		{"gemini background process listed clean", "All tests pass.", []loopguard.Step{
			{Tool: "run_shell_command", Args: `{"command":"npm test","is_background":true}`, Result: "Command moved to background (PID: 4242). Output hidden."},
			{Tool: "list_background_processes", Args: `{}`, Result: "- [PID 4242] EXITED: `npm test` (Exit Code: 0)"},
		}, Config{}, Supported, false},
		{"build claim judged by the build, not a later type-check", "The build completes successfully.", []loopguard.Step{
			edit("a.vue"), bash("pnpm run build", "[build] Complete!", false),
			bash("pnpm run typecheck", "Result (273 files):\n- 105 errors\n ELIFECYCLE  Command failed with exit code 1.", true),
		}, Config{}, Supported, false},
		{"build claim read from a type-check when no build ran", "It compiles cleanly.", []loopguard.Step{
			edit("a.ts"), bash("npx tsc --noEmit", "src/a.ts(1,1): error TS2322\nExit code 2", true),
		}, Config{}, Contradicted, true},
		{"warnings aside do not hedge", "No TypeScript errors - type check passes (only pre-existing warnings).", []loopguard.Step{
			edit("a.vue"), bash("pnpm astro check", "Result (274 files):\n- 61 errors\n ELIFECYCLE  Command failed with exit code 1.", true),
		}, Config{}, Contradicted, true},
		{"no new errors is a hedge", "Type check: passed (no new errors introduced).", []loopguard.Step{
			edit("a.vue"), bash("npm run typecheck", "Result (297 files):\n- 7 errors", true),
		}, Config{}, Hedged, false},
		{"a runner named in a grep pattern is no run", "Clean builds: both packages rebuild successfully.", []loopguard.Step{
			bash("nix build .#formatter", "error: builder failed\nExit code 1", true),
			bash(`grep -q "nix build" update.sh && echo "validates builds"`, "validates builds", false),
		}, Config{}, Contradicted, true},
		{"codex exec", "All tests pass.", []loopguard.Step{
			{Tool: "shell", Args: `{"command":["bash","-lc","cargo test"]}`, Result: "Exit code: 101\ntest result: FAILED. 3 passed; 1 failed;"},
		}, Config{}, Contradicted, true},
	}
	for _, tt := range tests {
		v := Check(tt.text, tt.steps, tt.cfg)
		if v.Outcome != tt.outcome || v.Block != tt.block {
			t.Errorf("%s: Check = %s block=%v (%s), want %s block=%v", tt.name, v.Outcome, v.Block, v.Why, tt.outcome, tt.block)
		}
		if v.Block && v.Outcome == Contradicted && (!strings.Contains(v.Message, tt.text[:10]) || !strings.Contains(v.Message, v.Run.Command)) {
			t.Errorf("%s: message %q does not quote the claim and the command", tt.name, v.Message)
		}
	}
}

func TestCheckCountsSubset(t *testing.T) {
	steps := []loopguard.Step{bash("mix test", "14 doctests, 373 tests, 0 failures", false)}
	if v := Check("That was the earlier run — all 31 tests passed.", steps, Config{}); v.Block {
		t.Errorf("a claim about fewer tests than the suite ran is blocked: %+v", v)
	}
	if v := Check("84/86 pass.", steps, Config{}); v.Outcome != Hedged {
		t.Errorf("84/86 = %s, want hedged", v.Outcome)
	}
	if v := Check("All 400 tests pass.", steps, Config{}); v.Outcome != Contradicted {
		t.Errorf("400 claimed, 373 run: %s, want contradicted", v.Outcome)
	}
}

// TestClaimWords checks that skipping text without a claim word changes nothing: on every
// labelled ending and every sentence of TestFind's, Find returns what the patterns alone find.
func TestClaimWords(t *testing.T) {
	texts := []string{
		"All tests pass.", "Done. **All 86 tests pass** and the build is clean.", "86/86 pass.",
		"The te**st** suite is gr`een`.", "✅ 42 tests passed, 0 failed", "Compiles cleanly; go vet is clean.",
		"No type errors.", "mypy passes", "Looks good to me.", "I updated the README.",
		"Zero failures", "The build is OK", "12 examples, 0 failures", "pyright: no errors",
	}
	for _, r := range readLabelled(t) {
		texts = append(texts, r.Text)
	}
	found := 0
	for _, text := range texts {
		got, want := Find(text), find(text, false)
		found += len(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Find(%.80q) = %+v, want %+v (the patterns alone)", text, got, want)
		}
	}
	if found < 20 {
		t.Errorf("only %d claims in the texts: the test checks too little", found)
	}
}

// FuzzFindClaimWords: Find with the claim-word precondition finds what the patterns alone do.
func FuzzFindClaimWords(f *testing.F) {
	for _, s := range []string{"All tests pass.", "86/86 pass.", "The b*uild* succeeds.", "no tsc errors", "lint: clean"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := Find(text), find(text, false); !reflect.DeepEqual(got, want) {
			t.Errorf("Find(%q) = %+v, want %+v", text, got, want)
		}
	})
}

// BenchmarkFind runs Find over the labelled endings; /patterns-only is without the claim-word
// precondition, what Find did before it.
func BenchmarkFind(b *testing.B) {
	var texts []string
	for _, r := range readLabelled(&testing.T{}) {
		texts = append(texts, r.Text)
	}
	texts = append(texts, "Done: I renamed the handler and updated the README.", "Here is the summary of the changes you asked for.")
	for _, c := range []struct {
		name string
		fn   func(string) []Claim
	}{{"Find", Find}, {"patterns-only", func(s string) []Claim { return find(s, false) }}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, s := range texts {
					c.fn(s)
				}
			}
		})
	}
}
