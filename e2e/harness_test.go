package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	fa "github.com/stopgate/stopgate/e2e/internal/fakeanthropic"
)

// claudeVersion is the Claude Code release the scenarios were written against, the one
// scripts/install-harnesses.sh installs. Its request shapes and hook behaviours are what the
// assertions encode.
const claudeVersion = "2.1.332"

// runTimeout bounds one `claude -p` run. Runs take about a second; the bound only keeps a
// wedged harness from hanging the suite.
const runTimeout = 2 * time.Minute

// binDir holds the stopgate binary built for this test binary; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stopgate-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot returns the repository root: the parent of this package's directory, where go.mod
// declares the stopgate module.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.Contains(mod, []byte("module github.com/stopgate/stopgate\n")) {
		t.Fatalf("%s is not the stopgate repository root (go.mod: %v)", root, err)
	}
	return root
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// stopgateBinary builds ./cmd/stopgate once per test binary and returns its path.
func stopgateBinary(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	buildOnce.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("the go command is not on PATH: %w", err)
			return
		}
		buildPath = filepath.Join(binDir, "stopgate")
		cmd := exec.Command(goCmd, "build", "-o", buildPath, "./cmd/stopgate")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/stopgate: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// harnessCLI is one agent harness's CLI, located and version-checked once per test binary.
type harnessCLI struct {
	name string // what the messages call it: "Claude Code CLI"
	env  string // the variable naming another binary: STOPGATE_CLAUDE
	bin  string // the binary's name under .cache/harnesses/node_modules/.bin: claude
	// want is the pinned version as the messages give it; pinned reports whether the output of
	// --version is that version's.
	want   string
	pinned func(version string) bool
	// isolate runs --version with only PATH and a throwaway HOME in the environment.
	isolate bool

	once sync.Once
	path string
	err  error
}

// binary returns the CLI to drive: $env, else the one scripts/install-harnesses.sh installs
// under .cache/harnesses. It fails the test, saying how to install it, when the CLI is missing
// or (at the default path) is not the pinned version.
func (c *harnessCLI) binary(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	c.once.Do(func() { c.path, c.err = c.locate(root) })
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.path
}

// locate finds and checks the CLI, for binary.
func (c *harnessCLI) locate(root string) (string, error) {
	path, pinned := os.Getenv(c.env), false
	if path == "" {
		path, pinned = filepath.Join(root, ".cache", "harnesses", "node_modules", ".bin", c.bin), true
	}
	if _, err := os.Stat(path); err != nil {
		return path, fmt.Errorf("%s not found at %s (%v): run scripts/install-harnesses.sh, or set %s to a %s binary", c.name, path, err, c.env, c.bin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	if c.isolate {
		home, err := os.MkdirTemp("", "stopgate-e2e-"+c.bin+"-")
		if err != nil {
			return path, err
		}
		defer os.RemoveAll(home)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	}
	out, err := cmd.Output()
	switch {
	case err != nil:
		return path, fmt.Errorf("%s --version: %v: run scripts/install-harnesses.sh", path, err)
	case pinned && !c.pinned(string(out)):
		return path, fmt.Errorf("%s is %q, want %s: run scripts/install-harnesses.sh", path, bytes.TrimSpace(out), c.want)
	}
	return path, nil
}

// claudeCLI is the Claude Code CLI.
var claudeCLI = &harnessCLI{
	name: "Claude Code CLI", env: "STOPGATE_CLAUDE", bin: "claude", want: claudeVersion,
	pinned: func(v string) bool { return strings.HasPrefix(v, claudeVersion+" ") },
}

// claudeBinary returns the Claude Code CLI to drive (see harnessCLI.binary).
func claudeBinary(t *testing.T) string {
	t.Helper()
	return claudeCLI.binary(t)
}

// sessionDirs are the temporary directories every harness's session lays out.
type sessionDirs struct {
	base    string // the test's temporary directory, holding the others
	home    string // HOME for the harness and its hooks
	project string // the working directory the harness runs in
	state   string // stopgate's state directory
	capture string // where the capture hook writes each payload
	tmp     string // TMPDIR
}

// newSessionDirs makes a session's directories in a fresh temporary directory, the capture
// directory named capture.
func newSessionDirs(t *testing.T, capture string) sessionDirs {
	t.Helper()
	base := t.TempDir()
	d := sessionDirs{
		base:    base,
		home:    filepath.Join(base, "home"),
		project: filepath.Join(base, "project"),
		state:   filepath.Join(base, "state"),
		capture: filepath.Join(base, capture),
		tmp:     filepath.Join(base, "tmp"),
	}
	mkdirs(t, d.home, d.project, d.state, d.capture, d.tmp)
	return d
}

// mkdirs makes each of dirs, with any missing parents.
func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// baseEnv is the environment every harness runs in before its own variables: HOME, PATH and
// TMPDIR.
func (d sessionDirs) baseEnv() []string {
	return []string{"HOME=" + d.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + d.tmp}
}

// session is one scenario's world: a scripted model server, a temporary home and project
// directory, and the Stop hooks Claude Code will run.
type session struct {
	sessionDirs
	t   *testing.T
	srv *fa.Server
	env []string
}

// newSession starts a model server answering with script and lays out a fresh home and
// project directory. Every Stop payload Claude Code sends is captured (see payloads) by a
// Stop hook in the user settings, which allows every stop and so never changes an outcome.
func newSession(t *testing.T, script fa.Script, env ...string) *session {
	t.Helper()
	s := &session{sessionDirs: newSessionDirs(t, "stop-payloads"), t: t}
	s.srv = fa.Start(script)
	t.Cleanup(s.srv.Close)

	s.setUserStopHooks()

	s.env = append(s.baseEnv(),
		"CLAUDE_CODE_TMPDIR="+s.tmp,
		"ANTHROPIC_BASE_URL="+s.srv.URL,
		"ANTHROPIC_API_KEY=sk-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		// Claude Code refuses --dangerously-skip-permissions as root unless it is told it runs
		// in a sandbox; these tests run as root in CI.
		"IS_SANDBOX=1",
	)
	s.env = append(s.env, env...)
	return s
}

// stopHook is one command handler of a Stop hook.
type stopHook struct {
	command string
	timeout int // seconds; 0 leaves Claude Code's default (600)
}

// writeSettings writes a settings.json at path whose Stop event runs hooks.
func (s *session) writeSettings(path string, hooks ...stopHook) {
	s.t.Helper()
	var handlers []map[string]any
	for _, h := range hooks {
		m := map[string]any{"type": "command", "command": h.command}
		if h.timeout > 0 {
			m["timeout"] = h.timeout
		}
		handlers = append(handlers, m)
	}
	settings := map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": handlers}}}}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		s.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// setUserStopHooks makes the capture hook, then hooks, the Stop hooks of the user settings
// (~/.claude/settings.json). The capture hook writes each payload to its own file in
// s.capture, named so the names sort in arrival order, and allows the stop.
func (s *session) setUserStopHooks(hooks ...stopHook) {
	s.t.Helper()
	capture := stopHook{command: fmt.Sprintf(`cat > %s/stop-$(date +%%s%%N).json`, shellQuote(s.capture)), timeout: 30}
	s.writeSettings(filepath.Join(s.home, ".claude", "settings.json"), append([]stopHook{capture}, hooks...)...)
}

// setProjectStopHook makes hooks the project's Stop hooks (.claude/settings.json).
func (s *session) setProjectStopHook(hooks ...stopHook) {
	s.t.Helper()
	s.writeSettings(filepath.Join(s.project, ".claude", "settings.json"), hooks...)
}

// useStopgate installs the stopgate hook in the project's settings the way a user would, with
// `stopgate hook install claude-code --project --state-dir DIR` run in the project directory,
// keeping its state in the session's state directory; flags are more hook flags for the
// installed command. It checks that the settings now run `stopgate hook claude-code` on Stop.
func (s *session) useStopgate(flags ...string) {
	s.t.Helper()
	out := installHook(s.t, s.sessionDirs, s.env, "claude-code", flags...)
	bin := stopgateBinary(s.t)
	b, err := os.ReadFile(filepath.Join(s.project, ".claude", "settings.json"))
	if err != nil {
		s.t.Fatalf("stopgate hook install wrote no project settings: %v\n%s", err, out)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		s.t.Fatalf("the installed settings are not JSON: %v\n%s", err, b)
	}
	for _, group := range settings.Hooks["Stop"] {
		for _, h := range group.Hooks {
			if h.Type == "command" && strings.HasPrefix(h.Command, bin+" hook claude-code") && strings.Contains(h.Command, s.state) {
				return
			}
		}
	}
	s.t.Fatalf("the installed settings run no `%s hook claude-code` with state in %s on Stop:\n%s", bin, s.state, b)
}

// result is Claude Code's final JSON (`claude -p --output-format json`), the fields the
// scenarios read.
type result struct {
	Type           string `json:"type"`
	Subtype        string `json:"subtype"`
	IsError        bool   `json:"is_error"`
	Result         string `json:"result"`
	StopReason     string `json:"stop_reason"`
	TerminalReason string `json:"terminal_reason"`
	NumTurns       int    `json:"num_turns"`
	SessionID      string `json:"session_id"`
}

// run runs `claude -p prompt` in the project directory against the model server and returns
// its final result. extraArgs go after the standard flags. It fails the test if claude exits
// non-zero or does not print one JSON result.
func (s *session) run(prompt string, extraArgs ...string) result {
	s.t.Helper()
	claude := claudeBinary(s.t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	args := append([]string{"-p", prompt, "--output-format", "json", "--dangerously-skip-permissions"}, extraArgs...)
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir = s.project
	cmd.Env = s.env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	s.t.Logf("claude -p ran %v, %d requests to the model server", time.Since(start).Round(time.Millisecond), len(s.srv.Requests()))
	for _, r := range s.srv.Requests() {
		if r.Method != "POST" || r.Path != "/v1/messages" {
			s.t.Logf("claude also sent %s %s?%s (answered %s)", r.Method, r.Path, r.RawQuery, answerOf(r))
		}
	}
	if err != nil {
		s.dump()
		s.t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	var r result
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r); err != nil || r.Type != "result" {
		s.dump()
		s.t.Fatalf("claude -p printed no JSON result (%v):\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	return r
}

// answerOf says how the server answered a request other than POST /v1/messages.
func answerOf(r *fa.Request) string {
	if r.Method == "POST" && r.Path == "/v1/messages/count_tokens" {
		return "with a token count"
	}
	return "404"
}

// dump logs what the model server saw, for a failing test.
func (s *session) dump() {
	s.t.Helper()
	for _, r := range s.srv.Requests() {
		line := fmt.Sprintf("request %d: %s %s?%s, %d messages", r.Seq, r.Method, r.Path, r.RawQuery, len(r.Messages))
		if last := r.LastMessage(); last.Role != "" {
			b, _ := json.Marshal(last.Content)
			line += fmt.Sprintf("; last %s: %.400s", last.Role, b)
		}
		if r.Response != nil {
			b, _ := json.Marshal(r.Response.Content)
			line += fmt.Sprintf("; answered %.300s", b)
		}
		s.t.Log(line)
	}
	logPayloads(s.t, "stop payload", s.payloads())
}

// agentRequests returns the agent loop's Messages API requests, in order: those offering the
// Bash tool. (Claude Code 2.1.332 sends no other Messages requests in these runs; a side
// request for a title or a summary would carry no tools and is left out.)
func (s *session) agentRequests() []*fa.Request {
	return s.srv.MessagesRequests(isAgentRequest)
}

func isAgentRequest(r *fa.Request) bool { return r.HasTool("Bash") }

// payloads returns the Stop hook payloads Claude Code sent, in order, decoded.
func (s *session) payloads() []map[string]any {
	s.t.Helper()
	return decodePayloads(s.t, capturedPaths(s.t, s.capture, "stop-*.json"), "stop payload")
}

// hookOutcome is how the transcript records one run of a Stop hook: an attachment entry of
// type hook_success (exit 0), hook_blocking_error, hook_non_blocking_error (another exit
// status, or a command that cannot start) or hook_cancelled (timed out), with what it printed.
type hookOutcome struct {
	kind           string
	command        string
	exitCode       int // -1 when not recorded
	stdout, stderr string
	timedOut       bool
}

// hookOutcomes returns the transcript's records of the Stop hook runs other than the capture
// hook's, in order. Claude Code writes the transcript as it goes; it is complete once claude
// has exited.
func (s *session) hookOutcomes() []hookOutcome {
	s.t.Helper()
	ps := s.payloads()
	if len(ps) == 0 {
		return nil
	}
	path, _ := ps[0]["transcript_path"].(string)
	b, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatalf("reading the transcript: %v", err)
	}
	var out []hookOutcome
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e struct {
			Type       string `json:"type"`
			Attachment struct {
				Type      string `json:"type"`
				HookEvent string `json:"hookEvent"`
				Command   string `json:"command"`
				ExitCode  *int   `json:"exitCode"`
				Stdout    string `json:"stdout"`
				Stderr    string `json:"stderr"`
				TimedOut  bool   `json:"timedOut"`
			} `json:"attachment"`
		}
		if json.Unmarshal(line, &e) != nil || e.Type != "attachment" || e.Attachment.HookEvent != "Stop" ||
			!strings.HasPrefix(e.Attachment.Type, "hook_") || strings.HasPrefix(e.Attachment.Command, "cat > ") {
			continue
		}
		a := e.Attachment
		o := hookOutcome{kind: a.Type, command: a.Command, exitCode: -1, stdout: a.Stdout, stderr: a.Stderr, timedOut: a.TimedOut}
		if a.ExitCode != nil {
			o.exitCode = *a.ExitCode
		}
		out = append(out, o)
	}
	return out
}

// The ways Claude Code 2.1.332 hands a Stop hook's continuation to the model, each a text
// block of a user message wrapped in <system-reminder>:
//
//   - exit 0 with {"decision":"block","reason":R}: a preamble saying the text is a hook's
//     output, then "Stop hook feedback:\nR" (and, in a separate system-role message,
//     `Stop hook blocking error from command: "CMD": R`);
//   - exit 2 with R on stderr: the same preamble, then "Stop hook feedback:\n[CMD]: R";
//   - exit 0 with hookSpecificOutput.additionalContext R: "Stop hook additional context: R".
const (
	feedbackMarker = "Stop hook feedback:\n"
	contextMarker  = "Stop hook additional context: "
	reminderEnd    = "\n</system-reminder>"
)

// nudges returns the continuation messages the Stop hooks gave that r carries, in order: the
// reason (or additional context) of each block, as the model received it.
func nudges(r *fa.Request) []string {
	var out []string
	for _, text := range r.Texts("user") {
		for _, marker := range []string{feedbackMarker, contextMarker} {
			_, after, ok := strings.Cut(text, marker)
			if !ok {
				continue
			}
			body, _, _ := strings.Cut(after, reminderEnd)
			out = append(out, strings.TrimSpace(body))
		}
	}
	return out
}

// lastNudges returns the nudges carried by the last agent request: every nudge of the run,
// since each request carries the whole conversation.
func (s *session) lastNudges() []string {
	reqs := s.agentRequests()
	if len(reqs) == 0 {
		return nil
	}
	return nudges(reqs[len(reqs)-1])
}

// pendingNudges returns the nudges in r after the model's last message: what the Stop hooks
// said about the stop the model just attempted, if they blocked it.
func pendingNudges(r *fa.Request) []string {
	i := len(r.Messages)
	for i > 0 && r.Messages[i-1].Role != "assistant" {
		i--
	}
	return nudges(&fa.Request{Messages: r.Messages[i:]})
}

// outputFileRE finds the output file in a background Bash's tool result: "Command running in
// background with ID: ID. Output is being written to: PATH.output. …".
var outputFileRE = regexp.MustCompile(`Output is being written to: (\S+\.output)`)

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// stalls are stalled messages, each a lead sentence and a promise.
type stalls []struct{ lead, promise string }

// budgetStalls are the stall-budget scenarios' stalls: a different promise each time, so it is
// the stall budget that stops the nudges, not the loop guard's repetition check.
var budgetStalls = stalls{
	{"I looked at the failing test.", "Let me check the logs."},
	{"Good point.", "Now I will run the linter."},
	{"Understood.", "I will check the build next."},
}

// messages returns each stall's message: its lead and its promise.
func (ss stalls) messages() []string {
	messages := make([]string, len(ss))
	for i, st := range ss {
		messages[i] = st.lead + " " + st.promise
	}
	return messages
}

// assertBudgetNudges checks a stall-budget run's nudges, all: two (the default stall budget),
// the i-th quoting the promise of budgetStalls[i].
func assertBudgetNudges(t *testing.T, all []string) {
	t.Helper()
	t.Logf("nudges the model received: %q", all)
	if len(all) != 2 {
		t.Fatalf("the run held %d nudges, want 2 (the default stall budget): %q", len(all), all)
	}
	for i, n := range all {
		if !quotes(n, budgetStalls[i].promise) {
			t.Errorf("nudge %d %q does not quote %q", i, n, budgetStalls[i].promise)
		}
	}
}

// todoCase is a scenario of the todo-list tests: the agent writes a list, completes some of it
// and stops.
type todoCase struct {
	name string
	// items are the list's items; done how many of them (from the first) the model completes
	// before it first tries to stop.
	items []string
	done  int
	// first is the message the model first stops with, final the one after any nudge.
	first, final string
	// open is the item a nudge must name; "" means the first stop is allowed.
	open string
}

// todoCases are the todo-list scenarios of Claude Code's task tools and Gemini CLI's
// write_todos: an open item blocks the stop, naming it; a completed list does not.
var todoCases = []todoCase{
	{
		name:  "an open item blocks",
		items: []string{"Run the tests", "Update the changelog"},
		done:  1,
		first: "I ran the tests; they pass.",
		final: "Updated the changelog as well. All tasks are complete.",
		open:  "Update the changelog",
	},
	{
		name:  "a completed list does not",
		items: []string{"Run the tests"},
		done:  1,
		first: "I ran the tests; they pass.",
	},
}

// assertNudge checks an open-item run's nudges, all: one, naming the open item and none of
// the items completed before it.
func (tc todoCase) assertNudge(t *testing.T, all []string) {
	t.Helper()
	if len(all) != 1 || !strings.Contains(all[0], tc.open) {
		t.Errorf("the run held nudges %q, want one naming the open item %q", all, tc.open)
	}
	for _, item := range tc.items[:tc.done] {
		if len(all) == 1 && strings.Contains(all[0], item) {
			t.Errorf("the nudge %q names %q, an item already completed", all[0], item)
		}
	}
}

// legitimateEnds are the final messages the legitimate-end scenarios of Claude Code and Gemini
// CLI stop with, each allowed with no nudge: a completion summary, and a question or a choice
// for the user in interactive mode (the default).
var legitimateEnds = []struct {
	name, message string
}{
	{"completion summary", "I added the --verbose flag, documented it in the README and ran the tests: they pass."},
	{"question to the user", "Shall I proceed with the migration?"},
	{"choice for the user", "Should the cache live in Redis or in memory? Both work; tell me which you prefer."},
}

// quotes reports whether text quotes sentence, in straight or typographic double quotes.
func quotes(text, sentence string) bool {
	return strings.Contains(text, `"`+sentence+`"`) || strings.Contains(text, "“"+sentence+"”")
}

// writeFile writes content to path, creating its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeScript writes an executable sh script with body into dir (a session's home) and returns
// its path.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name+".sh")
	writeFile(t, path, "#!/bin/sh\n"+body+"\n")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// assertStateKept checks that stopgate's state directory holds state for the session of the
// payloads ps, when there are any.
func assertStateKept(t *testing.T, state string, ps []map[string]any) {
	t.Helper()
	if len(ps) == 0 {
		return
	}
	session, _ := ps[0]["session_id"].(string)
	if names, _ := filepath.Glob(filepath.Join(state, session+"*")); len(names) == 0 {
		t.Errorf("stopgate kept no state for session %s in %s", session, state)
	}
}

// capturedPaths returns the files in dir (a capture hook's) that match pattern, sorted: in
// the order the hook wrote them.
func capturedPaths(t *testing.T, dir, pattern string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// decodePayloads reads and decodes each of the hook payload files names, in order; what names
// a payload in a failure.
func decodePayloads(t *testing.T, names []string, what string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s %s is not a JSON object: %v\n%s", what, n, err, b)
		}
		out = append(out, m)
	}
	return out
}

// loadPayloadFixture reads the recorded payload at path, a JSON object; what names it and
// record is the flag that records it, for the failure when it is missing.
func loadPayloadFixture(t *testing.T, path, what, record string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the recorded %s: %v (record it with %s)", what, err, record)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// fixtureFile is a recorded fixture to write: its path, and what a live run produced.
type fixtureFile struct {
	path string
	data []byte
}

// writeSanitized writes each file's data to its path with r's replacements made, ending it with
// a newline; it fails the test, writing nothing more, when a sanitized file still holds base,
// the test's temporary directory.
func writeSanitized(t *testing.T, r *strings.Replacer, base string, files ...fixtureFile) {
	t.Helper()
	for _, f := range files {
		text := r.Replace(string(f.data))
		if strings.Contains(text, base) {
			t.Fatalf("the sanitized %s still holds the test's directory %s", f.path, base)
		}
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if err := os.WriteFile(f.path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s", f.path)
	}
}

// The bodies of the broken hook scripts the fail-open scenarios install: crashHook prints
// garbage and exits 1; slowHook outlives any hook timeout, exec'ing the sleep so that the kill
// at the timeout reaches it and nothing outlives the run.
const (
	crashHook = `cat >/dev/null; echo 'panic: {"decision": oops'; exit 1`
	slowHook  = `cat >/dev/null; exec sleep 30`
)

// breakConfig overwrites the stopgate configuration under home with one that does not parse,
// as an edit after install would.
func breakConfig(t *testing.T, home string) {
	t.Helper()
	writeFile(t, filepath.Join(home, ".config", "stopgate", "config.toml"), "mode = \"autonomous\nbudgets = [[[\n\x00")
}

// installHook runs `stopgate hook install HARNESS --project --state-dir STATE FLAGS…` in the
// session's project directory with its environment env, failing the test if it fails, and
// returns what it printed.
func installHook(t *testing.T, d sessionDirs, env []string, harness string, flags ...string) []byte {
	t.Helper()
	bin := stopgateBinary(t)
	args := append([]string{"hook", "install", harness, "--project", "--state-dir", d.state}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = d.project, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stopgate %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// logPayloads logs each of the hook payloads ps, which what names, for a failing test's dump.
func logPayloads(t *testing.T, what string, ps []map[string]any) {
	t.Helper()
	for i, p := range ps {
		b, _ := json.Marshal(p)
		t.Logf("%s %d: %s", what, i, b)
	}
}
