package claims

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/stopgate/stopgate/loopguard"
)

// Run is one run of a verification command found in the run's steps.
type Run struct {
	// Kind is what the command verifies.
	Kind Kind `json:"kind"`
	// Command is the command line as the agent gave it.
	Command string `json:"command"`
	// Step is the index, in the steps given to [Runs], of the step whose result is the run's
	// evidence (the call itself, or the later read of a background run's output).
	Step int `json:"step"`
	// Exit is the exit status the result reports; nil when it reports none.
	Exit *int `json:"exit,omitempty"`
	// Failed says the run failed: a non-zero exit, the harness's error flag, or a failing
	// summary line.
	Failed bool `json:"failed"`
	// Summary is the runner's own summary line, when one was found.
	Summary string `json:"summary,omitempty"`
	// Passed, FailedCount and Total are the counts the summary gives; -1 when it gives none.
	Passed      int `json:"passed"`
	FailedCount int `json:"failed_count"`
	Total       int `json:"total"`
}

// Runs returns the verification runs in steps, in order. A shell step whose command is a test,
// build, lint or type-check runner is a run; so is a later read of a background run's output
// that carries its outcome: Claude Code's BashOutput and TaskOutput of the shell's id, or a
// Read of the file its output is written to; Codex's write_stdin poll of the exec session;
// Gemini CLI's read_background_output of the process, and its list_background_processes line
// giving the process's exit code; Copilot CLI's read_bash of the shell.
func Runs(steps []loopguard.Step) []Run {
	var out []Run
	background := map[string]string{} // shell id or output file -> command
	for i, st := range steps {
		cmd := command(st)
		if cmd != "" {
			kind, ok := classify(cmd)
			if !ok {
				if kind, ok = byOutput(cmd, st.Result+"\n"+st.Error); !ok {
					continue
				}
			}
			text := st.Result + "\n" + st.Error
			if id := backgroundID(text); id != "" {
				background[id] = cmd
				if m := outputFileRe.FindStringSubmatch(text); m != nil {
					background[m[1]] = cmd
				}
				continue // started in the background: its evidence is read later
			}
			out = append(out, evidence(kind, cmd, i, st))
			continue
		}
		if st.Tool == "list_background_processes" {
			for _, m := range listedExitRe.FindAllStringSubmatch(st.Result, -1) {
				if cmd, ok := background[m[1]]; ok {
					r := evidence(mustKind(cmd), cmd, i, loopguard.Step{Result: "Exit Code: " + m[2]})
					out = append(out, r)
				}
			}
			continue
		}
		if id := readsShell(st); id != "" {
			if cmd, ok := background[id]; ok {
				if st.Tool == "Read" {
					st.Result = lineNumbers.ReplaceAllString(st.Result, "")
				}
				r := evidence(mustKind(cmd), cmd, i, st)
				if r.Exit == nil && !r.Failed && r.Summary == "" {
					continue // still running, or nothing to judge yet
				}
				out = append(out, r)
			}
		}
	}
	return out
}

func mustKind(cmd string) Kind { k, _ := classify(cmd); return k }

// evidence reads a step's result as the outcome of a run of cmd.
func evidence(kind Kind, cmd string, i int, st loopguard.Step) Run {
	text := st.Result
	if st.Error != "" {
		text = st.Error + "\n" + st.Result
	}
	r := Run{Kind: kind, Command: cmd, Step: i, Passed: -1, FailedCount: -1, Total: -1}
	r.Exit = exitStatus(text)
	sum := summarise(text)
	r.Summary, r.Passed, r.FailedCount, r.Total = sum.line, sum.passed, sum.failed, sum.total
	switch {
	case r.Exit != nil:
		r.Failed = *r.Exit != 0
	case st.Error != "":
		r.Failed = true
	}
	if sum.failing {
		r.Failed = true
	}
	return r
}

// command returns the shell command a step ran, or "" when the step is not a shell call.
func command(st loopguard.Step) string {
	if st.Tool == "" || st.Args == "" {
		return ""
	}
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(st.Args), &args) != nil {
		return ""
	}
	for _, key := range []string{"command", "cmd", "script"} {
		raw, ok := args[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strings.TrimSpace(s)
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
			// ["bash", "-lc", "go test ./..."]: the script is the last word.
			if len(argv) >= 3 && (argv[1] == "-lc" || argv[1] == "-c") {
				return strings.TrimSpace(argv[len(argv)-1])
			}
			return strings.TrimSpace(strings.Join(argv, " "))
		}
	}
	return ""
}

// readsShell returns the id of the background shell whose output st reads (or the path of
// the output file a Read reads), or "".
func readsShell(st loopguard.Step) string {
	keys := []string{"bash_id", "shell_id", "task_id", "id"}
	switch st.Tool {
	case "BashOutput", "TaskOutput", "bash_output", "read_output":
	case "write_stdin": // Codex polls an exec session by writing to it, often nothing
		keys = []string{"session_id"}
	case "read_background_output": // Gemini CLI
		keys = []string{"pid"}
	case "read_bash": // Copilot CLI
		keys = []string{"shellId"}
	case "Read":
		keys = []string{"file_path"}
	default:
		return ""
	}
	var args map[string]any
	if json.Unmarshal([]byte(st.Args), &args) != nil {
		return ""
	}
	for _, key := range keys {
		switch v := args[key].(type) {
		case string:
			if v != "" {
				return v
			}
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ""
}

// backgroundRe finds the id of a run started in the background: Claude Code's "Command
// running in background with ID: b1x2", Codex's "Process running with session ID 15232",
// Gemini CLI's "Command moved to background (PID: 4242)", Copilot CLI's "<command started in
// background with shellId: 0>".
var backgroundRe = regexp.MustCompile(`(?i)running in (?:the )?background with id:?\s*([A-Za-z0-9_\-]+)|process running with session id\s*(\d+)|command moved to background \(pid:\s*(\d+)\)|started in background with shellid:\s*([^\s>]+)`)

// listedExitRe reads a Gemini CLI list_background_processes line of a process that exited:
// "- [PID 4242] EXITED: `make test` (Exit Code: 2)".
var listedExitRe = regexp.MustCompile("(?m)^- \\[PID (\\d+)\\] [A-Za-z_]+: `.*` \\(Exit Code: (\\d+)\\)")

// outputFileRe finds the file a Claude Code background run writes its output to.
var outputFileRe = regexp.MustCompile(`Output is being written to:\s*(\S+\.output)`)

// lineNumbers are the line numbers Claude Code's Read puts before each line of a file
// ("     1→text", or a tab in older builds): a runner's summary line starts after them.
var lineNumbers = regexp.MustCompile(`(?m)^ *\d+(?:→|\t)`)

func backgroundID(text string) string {
	if m := backgroundRe.FindStringSubmatch(text); m != nil {
		return m[1] + m[2] + m[3] + m[4]
	}
	return ""
}

// exitRe finds the exit status harnesses write into a shell result: Claude Code's "Exit code
// 1", Codex's "Process exited with code 1" and "exit_code": 1, Gemini CLI's "Exit Code: 1",
// Claude Code's background <exit_code>1</exit_code>, Copilot CLI's "<shellId: 0 completed with
// exit code 1>", and Go's "exit status 1".
var exitRe = regexp.MustCompile(`(?im)(?:^exit code:?\s*|process exited with code\s*|"exit_code"\s*:\s*|<exit_code>\s*|^exit status\s*|\(exit code:?\s*|completed with exit code\s*)(\d+)`)

func exitStatus(text string) *int {
	if m := exitRe.FindStringSubmatch(text); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil {
			return &n
		}
	}
	return nil
}

// classify tells what a shell command verifies. A command line with several commands
// (&&, ;, |) takes the kind of its last verification command.
func classify(cmd string) (Kind, bool) {
	var kind Kind
	found := false
	for _, part := range splitCommands(cmd) {
		if k, ok := classifyOne(part); ok {
			kind, found = k, true
		}
	}
	return kind, found
}

var splitRe = regexp.MustCompile(`&&|\|\||;|\n`)

func splitCommands(cmd string) []string {
	var out []string
	for _, p := range splitRe.Split(cmd, -1) {
		// A pipe into a filter (| tail, | grep) keeps the runner on its left.
		if i := strings.Index(p, "|"); i >= 0 {
			p = p[:i]
		}
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// runnerRules map a command's words to the kind it verifies; the first rule that matches wins.
var runnerRules = []struct {
	kind Kind
	re   *regexp.Regexp
}{
	{TypeCheck, regexp.MustCompile(`\b(tsc\b.*--noemit|vue-tsc|svelte-check|astro check|mypy|pyright|npm run (type-?check|tsc|check-types)|yarn (type-?check|tsc)|pnpm (run )?(type-?check|tsc)|bun run (type-?check|tsc))\b`)},
	{Lint, regexp.MustCompile(`\b(golangci-lint|go vet|staticcheck|eslint|ruff( check)?|flake8|pylint|cargo clippy|rubocop|mix credo|ktlint|detekt|npm run lint|yarn lint|pnpm (run )?lint|bun run lint|make lint|biome (check|lint))\b`)},
	{Tests, regexp.MustCompile(`\b(go test|gotestsum|pytest|py\.test|python3? -m (pytest|unittest)|tox|nox|npm (run )?test|npm t\b|yarn (run )?test|pnpm (run )?test|bun (run )?test|npx (jest|vitest|mocha)|jest|vitest|mocha|cargo (test|nextest)|mvn\b.*\b(test|verify|install)\b|gradlew?\b.*\b(test|check)\b|rspec|rake (test|spec)|rails test|bin/rails test|make (test|check)|mix test|dotnet test|ctest|phpunit|deno test|swift test|zig build test|bundle exec (rspec|rake))\b`)},
	// A project's own test script, run by its name: ./run_tests.sh, bash scripts/test.sh,
	// sh run_unit_tests.sh, .\\run_tests.ps1, docker exec app bash run_tests.sh. The script is in
	// command position (first, or after a shell or a container exec), so chmod, cat or an
	// editor naming it runs nothing.
	{Tests, testScript},
	{TypeCheck, regexp.MustCompile(`\btsc\b`)},
	{Build, regexp.MustCompile(`\b(go build|cargo (build|check)|npm run build|yarn build|pnpm (run )?build|bun run build|mvnw?\b.*\b(compile|package|spring-boot:run)\b|gradlew?\b.*\b(build|assemble)\b|dotnet build|mix compile|swift build|zig build|cmake --build|next build|vite build|nix build|py_compile|compileall)\b`)},
	// make with any target but the non-building ones (make test and make lint are read above).
	{Build, regexp.MustCompile(`^make\b(\s+(-\S+|\w+=\S+))*(\s+(all|build|install|[\w./-]*\.(o|a|so|bin|elf|exe)))?\s*(\d?>.*)?$|^make\b(\s+(-\S+|\w+=\S+))+\s*$`)},
}

// testScript matches a command that runs a test script by its file name: a basename that is
// "test" or "tests", or has it as a _ or - separated word (run_tests.sh, test.sh,
// run-unit-tests.sh, full_coverage_test.sh, run_tests.ps1), but not a word that merely
// contains it (latest.sh, attest.sh).
var testScript = regexp.MustCompile(`^(?:(?:docker|podman)\s.*?\s)?(?:(?:bash|sh|zsh|pwsh|powershell(?:\.exe)?)(?:\s+-\S+)*\s+)?["']?(?:[\w.:~-]*[/\\])*(?:[\w-]*[_-])?tests?(?:[_-][\w-]*)?\.(?:sh|bash|ps1)["']?(?:\s|$)`)

// containerRun matches a command that runs something inside a container (docker run, docker
// exec, docker compose run or exec, podman likewise); what runs there is the image's or the
// arguments' business, so [byOutput] reads its output instead.
var containerRun = regexp.MustCompile(`\b(?:docker|podman)(?:\s+compose|-compose)?\s(?:.*\s)?(?:run|exec)\s`)

// byOutput recognises a test run that its command does not name: a command run in a
// container (docker run --rm app-tests verify, whose entrypoint is the test runner) whose
// output ends with a test runner's own summary line (Maven's "Tests run: N, Failures: F",
// pytest's "=== N passed in ...", Jest's "Tests: N passed, N total", and the rest
// [summarise] reads). A command that only prints text (cat, grep, docker logs) is not a run.
func byOutput(cmd, out string) (Kind, bool) {
	for _, part := range splitCommands(cmd) {
		c := strings.ToLower(part)
		f := strings.Fields(c)
		if len(f) == 0 || notRunner[f[0]] || !containerRun.MatchString(c) {
			continue
		}
		if s := summarise(out); s.line != "" && (s.passed >= 0 || s.failed >= 0) {
			return Tests, true
		}
	}
	return "", false
}

// notRunner are commands that search, print or record text: a runner's name in their
// arguments ("grep -n 'npm test' README.md", "echo cargo build", "git commit -m 'fix go test'")
// runs nothing.
var notRunner = map[string]bool{
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true,
	"echo": true, "printf": true, "cat": true, "head": true, "tail": true, "less": true,
	"more": true, "ls": true, "find": true, "sed": true, "awk": true, "wc": true, "git": true,
	"gh": true, "jq": true, "which": true, "type": true, "man": true, "history": true,
}

// shells are commands whose quoted argument is itself a command line (bash -c "go test").
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "eval": true, "nix": true, "docker": true, "npx": true, "xargs": true}

// quoted matches a single- or double-quoted argument.
var quoted = regexp.MustCompile(`'[^']*'|"(?:[^"\\]|\\.)*"`)

func classifyOne(cmd string) (Kind, bool) {
	c := strings.ToLower(strings.TrimSpace(cmd))
	// Leading environment assignments (FOO=bar go test) do not change what runs.
	for {
		f := strings.Fields(c)
		if len(f) < 2 || !strings.Contains(f[0], "=") || strings.HasPrefix(f[0], "-") {
			break
		}
		c = strings.TrimSpace(c[len(f[0]):])
	}
	f := strings.Fields(c)
	if len(f) == 0 || notRunner[f[0]] {
		return "", false
	}
	if !shells[f[0]] {
		// A runner named inside a quoted argument ("grep 'go test' ci.yml", a commit
		// message) is text, not a run.
		c = quoted.ReplaceAllString(c, "''")
	}
	for _, r := range runnerRules {
		if r.re.MatchString(c) {
			return r.kind, true
		}
	}
	return "", false
}

type summary struct {
	line                  string
	passed, failed, total int
	failing               bool
}

// summaryRules read the summary lines of common runners. Each gives a line pattern and how to
// read its counts; the last matching line of the output wins (the final summary).
var (
	pytestRe  = regexp.MustCompile(`(?m)^=+ (.*\b(?:passed|failed|error|errors)\b.*) in [\d.]+s.*=+\s*$`)
	jestRe    = regexp.MustCompile(`(?m)^Tests:\s+(.*\btotal)\s*$`)
	vitestRe  = regexp.MustCompile(`(?m)^\s*Tests\s+(.*\bpassed\b.*|.*\bfailed\b.*)\((\d+)\)\s*$`)
	cargoRe   = regexp.MustCompile(`(?m)^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed`)
	mavenRe   = regexp.MustCompile(`(?m)Tests run: (\d+), Failures: (\d+), Errors: (\d+)`)
	rspecRe   = regexp.MustCompile(`(?m)^(\d+) examples?, (\d+) failures?`)
	exunitRe  = regexp.MustCompile(`(?m)^((?:\d+ (?:doctests?|propert(?:y|ies)), )*)(\d+) tests?, (\d+) failures?`)
	leadRe    = regexp.MustCompile(`(\d+) (?:doctests?|propert(?:y|ies))`)
	miniRe    = regexp.MustCompile(`(?m)^(\d+) (?:runs|tests), \d+ assertions, (\d+) failures, (\d+) errors`)
	mochaPass = regexp.MustCompile(`(?m)^\s*(\d+) passing\b`)
	mochaFail = regexp.MustCompile(`(?m)^\s*(\d+) failing\s*$`)
	nodePass  = regexp.MustCompile(`(?m)^# pass (\d+)\s*$`)
	nodeFail  = regexp.MustCompile(`(?m)^# fail (\d+)\s*$`)
	goFail    = regexp.MustCompile(`(?m)^(FAIL[ \t].*|FAIL$|--- FAIL: .*|.*\[build failed\]|.*\[setup failed\])$`)
	buildFail = regexp.MustCompile(`(?m)^(BUILD FAILURE|BUILD FAILED|FAILURE: Build failed.*|error: could not compile .*|make: \*\*\* .*Error \d+|npm ERR! .*|Found [1-9]\d* errors?.*|✖ [1-9]\d* problems?.*|Error: Process completed with exit code [1-9].*)$`)
	countRe   = regexp.MustCompile(`(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed|total|pending|todo)`)
)

func summarise(out string) summary {
	s := summary{passed: -1, failed: -1, total: -1}
	counts := func(line string) {
		s.line = strings.TrimSpace(line)
		s.passed, s.failed, s.total = 0, 0, -1
		for _, m := range countRe.FindAllStringSubmatch(line, -1) {
			n, _ := strconv.Atoi(m[1])
			switch m[2] {
			case "passed":
				s.passed += n
			case "failed", "error", "errors":
				s.failed += n
			case "total":
				s.total = n
			}
		}
		if s.total < 0 {
			s.total = s.passed + s.failed
		}
		s.failing = s.failed > 0
	}
	switch {
	case last(cargoRe, out) != nil:
		m := last(cargoRe, out)
		s.line = m[0]
		s.passed, _ = strconv.Atoi(m[2])
		s.failed, _ = strconv.Atoi(m[3])
		s.total, s.failing = s.passed+s.failed, m[1] == "FAILED" || s.failed > 0
		// A workspace prints one line per crate: sum them.
		p, f := 0, 0
		for _, m := range cargoRe.FindAllStringSubmatch(out, -1) {
			a, _ := strconv.Atoi(m[2])
			b, _ := strconv.Atoi(m[3])
			p, f = p+a, f+b
			if m[1] == "FAILED" {
				s.failing = true
			}
		}
		s.passed, s.failed, s.total = p, f, p+f
	case last(pytestRe, out) != nil:
		counts(last(pytestRe, out)[1])
	case last(jestRe, out) != nil:
		counts(last(jestRe, out)[0])
	case last(vitestRe, out) != nil:
		m := last(vitestRe, out)
		counts(m[1])
		s.line = strings.TrimSpace(m[0])
		s.total, _ = strconv.Atoi(m[2])
	case last(mavenRe, out) != nil:
		m := last(mavenRe, out)
		run, _ := strconv.Atoi(m[1])
		f, _ := strconv.Atoi(m[2])
		e, _ := strconv.Atoi(m[3])
		s.line, s.total, s.failed, s.passed = m[0], run, f+e, run-f-e
		s.failing = f+e > 0
	case last(rspecRe, out) != nil:
		m := last(rspecRe, out)
		s.total, _ = strconv.Atoi(m[1])
		s.failed, _ = strconv.Atoi(m[2])
		s.line, s.passed, s.failing = m[0], s.total-s.failed, s.failed > 0
	case last(miniRe, out) != nil:
		m := last(miniRe, out)
		s.total, _ = strconv.Atoi(m[1])
		f, _ := strconv.Atoi(m[2])
		e, _ := strconv.Atoi(m[3])
		s.line, s.failed, s.passed, s.failing = m[0], f+e, s.total-f-e, f+e > 0
	case last(exunitRe, out) != nil:
		// An umbrella project prints one line per app: sum them.
		t, f := 0, 0
		// Doctests and properties count as tests: "14 doctests, 127 tests" ran 141.
		for _, m := range exunitRe.FindAllStringSubmatch(out, -1) {
			a, _ := strconv.Atoi(m[2])
			b, _ := strconv.Atoi(m[3])
			for _, d := range leadRe.FindAllStringSubmatch(m[1], -1) {
				n, _ := strconv.Atoi(d[1])
				a += n
			}
			t, f = t+a, f+b
			s.line = m[0]
		}
		s.total, s.failed, s.passed, s.failing = t, f, t-f, f > 0
	case last(mochaPass, out) != nil || last(mochaFail, out) != nil:
		s.passed, s.failed = 0, 0
		if m := last(mochaPass, out); m != nil {
			s.passed, _ = strconv.Atoi(m[1])
			s.line = strings.TrimSpace(m[0])
		}
		if m := last(mochaFail, out); m != nil {
			s.failed, _ = strconv.Atoi(m[1])
			s.line = strings.TrimSpace(m[0])
		}
		s.total, s.failing = s.passed+s.failed, s.failed > 0
	case last(nodePass, out) != nil:
		s.passed, _ = strconv.Atoi(last(nodePass, out)[1])
		s.failed = 0
		s.line = strings.TrimSpace(last(nodePass, out)[0])
		if m := last(nodeFail, out); m != nil {
			s.failed, _ = strconv.Atoi(m[1])
			s.line += ", " + strings.TrimSpace(m[0])
		}
		s.total, s.failing = s.passed+s.failed, s.failed > 0
	}
	if m := last(goFail, out); m != nil && !s.failing {
		s.failing = true
		if s.line == "" {
			s.line = strings.TrimSpace(m[0])
		}
	}
	if m := last(buildFail, out); m != nil && !s.failing {
		s.failing = true
		if s.line == "" {
			s.line = strings.TrimSpace(m[0])
		}
	}
	return s
}

func last(re *regexp.Regexp, s string) []string {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return nil
	}
	return all[len(all)-1]
}
