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
	"strings"
	"sync"
	"testing"
	"time"

	fc "github.com/stopgate/stopgate/e2e/internal/fakechat"
)

// The scenarios below run GitHub Copilot CLI 1.0.102 (`copilot -p`) with `stopgate hook
// copilot` as the repository's agentStop hook, the model scripted per request by a Chat
// Completions server on loopback, and assert on the requests the model server received, on
// the agentStop payloads Copilot CLI sent, and on the run's events. Each one runs in its own
// home, project and state directory and on its own server, so they run in parallel.
//
// How Copilot CLI is driven offline: COPILOT_PROVIDER_BASE_URL names the fake server's
// http://127.0.0.1:PORT/v1 (an OpenAI-compatible provider, wire API "completions", the
// default), COPILOT_MODEL the model, and COPILOT_OFFLINE=true turns off GitHub sign-in,
// telemetry, the GitHub MCP server and updates. `-p --allow-all-tools` runs one prompt with
// every tool allowed; --trust-folder trusts the project for that run, which is what makes
// Copilot CLI load the repository's .github/hooks. The native binary unpacks its JavaScript
// into $XDG_CACHE_HOME/copilot the first time it runs; the tests share one cache under
// .cache/harnesses so that happens once.

// copilotVersion is the Copilot CLI release the scenarios were written against, the one
// scripts/install-harnesses.sh installs.
const copilotVersion = "1.0.102"

// copilotModel is the model the runs name; the fake server answers for any.
const copilotModel = "gpt-4.1"

// copilotCLI is the GitHub Copilot CLI.
var copilotCLI = &harnessCLI{
	name: "GitHub Copilot CLI", env: "STOPGATE_COPILOT", bin: "copilot", want: copilotVersion,
	pinned: func(v string) bool { return strings.HasPrefix(v, "GitHub Copilot CLI "+copilotVersion+".") },
}

var (
	copilotCacheOnce sync.Once
	copilotCacheDir  string
)

// copilotBinary returns the Copilot CLI to drive (see harnessCLI.binary), and the cache
// directory its runs share.
func copilotBinary(t *testing.T) (string, string) {
	t.Helper()
	bin := copilotCLI.binary(t)
	copilotCacheOnce.Do(func() {
		copilotCacheDir = filepath.Join(repoRoot(t), ".cache", "harnesses", "xdg-cache")
		_ = os.MkdirAll(copilotCacheDir, 0o755)
		// Unpack once, before the parallel runs.
		cmd := exec.Command(bin, "--version")
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+copilotCacheDir)
		_ = cmd.Run()
	})
	return bin, copilotCacheDir
}

// copilotSession is one scenario's world: a scripted model server, a home and a project
// directory, and the agentStop hooks Copilot CLI will run.
type copilotSession struct {
	sessionDirs
	t      *testing.T
	srv    *fc.Server
	env    []string
	stdout string
	stderr string
}

// newCopilotSession starts a model server answering with script and lays out a fresh home and
// project directory. Every agentStop payload is captured (see payloads) by a user hook
// (~/.copilot/hooks/capture.json) that allows every stop and so never changes an outcome.
func newCopilotSession(t *testing.T, script fc.Script) *copilotSession {
	t.Helper()
	s := &copilotSession{sessionDirs: newSessionDirs(t, "stop-payloads"), t: t}
	s.srv = fc.Start(script, copilotModel)
	t.Cleanup(s.srv.Close)
	_, cache := copilotBinary(t)
	s.env = append(s.baseEnv(),
		"XDG_CACHE_HOME="+cache,
		"COPILOT_PROVIDER_BASE_URL="+s.srv.BaseURL,
		"COPILOT_MODEL="+copilotModel,
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
		"NO_COLOR=1",
	)
	capture := fmt.Sprintf(`cat > %s/stop-$(date +%%s%%N).json`, shellQuote(s.capture))
	s.writeHooks(filepath.Join(s.home, ".copilot", "hooks", "capture.json"), copilotHook{command: capture, timeout: 30})
	return s
}

// copilotHook is one command hook of agentStop.
type copilotHook struct {
	command string
	timeout int // seconds; 0 leaves Copilot CLI's default
}

// writeHooks writes a hooks file at path whose agentStop runs hooks.
func (s *copilotSession) writeHooks(path string, hooks ...copilotHook) {
	s.t.Helper()
	var handlers []map[string]any
	for _, h := range hooks {
		m := map[string]any{"type": "command", "bash": h.command}
		if h.timeout > 0 {
			m["timeoutSec"] = h.timeout
		}
		handlers = append(handlers, m)
	}
	b, err := json.MarshalIndent(map[string]any{"version": 1, "hooks": map[string]any{"agentStop": handlers}}, "", "  ")
	if err != nil {
		s.t.Fatal(err)
	}
	writeFile(s.t, path, string(b))
}

// setProjectHooks makes hooks the repository's agentStop hooks (.github/hooks/broken.json).
func (s *copilotSession) setProjectHooks(hooks ...copilotHook) {
	s.t.Helper()
	s.writeHooks(filepath.Join(s.project, ".github", "hooks", "broken.json"), hooks...)
}

// useStopgate installs the stopgate hook in the repository the way a user would, with
// `stopgate hook install copilot --project --state-dir DIR`, and checks that
// .github/hooks/stopgate.json now runs `stopgate hook copilot` on agentStop.
func (s *copilotSession) useStopgate(flags ...string) {
	s.t.Helper()
	out := installHook(s.t, s.sessionDirs, s.env, "copilot", flags...)
	bin := stopgateBinary(s.t)
	path := filepath.Join(s.project, ".github", "hooks", "stopgate.json")
	b, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatalf("stopgate hook install wrote no %s: %v\n%s", path, err, out)
	}
	var f struct {
		Version int
		Hooks   map[string][]struct {
			Type, Bash string
			TimeoutSec int
		}
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		s.t.Fatalf("the installed hooks file is not a version 1 hooks file (%v):\n%s", err, b)
	}
	for _, ev := range []string{"agentStop", "subagentStop"} {
		found := false
		for _, h := range f.Hooks[ev] {
			found = found || h.Type == "command" && strings.HasPrefix(h.Bash, bin+" hook copilot") && strings.Contains(h.Bash, s.state)
		}
		if !found {
			s.t.Fatalf("the installed hooks file runs no `%s hook copilot` with state in %s on %s:\n%s", bin, s.state, ev, b)
		}
	}
}

// run runs `copilot -p prompt` in the project directory against the model server and returns
// the text of the last assistant.message its JSONL output reports. It fails the test if
// copilot exits non-zero.
func (s *copilotSession) run(prompt string) string {
	s.t.Helper()
	bin, _ := copilotBinary(s.t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--allow-all-tools", "--no-auto-update",
		"--output-format", "json", "--trust-folder", "--no-ask-user", "--disable-builtin-mcps")
	cmd.Dir, cmd.Env = s.project, s.env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	s.stdout, s.stderr = stdout.String(), stderr.String()
	s.t.Logf("copilot -p ran %v, %d requests to the model server", time.Since(start).Round(time.Millisecond), len(s.srv.Requests()))
	if err != nil {
		s.dump()
		s.t.Fatalf("copilot -p: %v\nstdout: %.4000s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	var last string
	for _, line := range strings.Split(s.stdout, "\n") {
		var e struct {
			Type string `json:"type"`
			Data struct {
				Content      string            `json:"content"`
				ToolRequests []json.RawMessage `json:"toolRequests"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "assistant.message" && len(e.Data.ToolRequests) == 0 {
			last = e.Data.Content
		}
	}
	return last
}

// dump logs what the model server saw and the payloads, for a failing test.
func (s *copilotSession) dump() {
	s.t.Helper()
	for _, r := range s.srv.Requests() {
		line := fmt.Sprintf("request %d: %s %s, %d messages", r.Seq, r.Method, r.Path, len(r.Messages))
		if last := r.LastMessage(); last.Role != "" {
			line += fmt.Sprintf("; last %s: %.300q", last.Role, last.Content)
		}
		if r.Response != nil {
			line += fmt.Sprintf("; answered %.200q %d calls", r.Response.Text, len(r.Response.ToolCalls))
		}
		s.t.Log(line)
	}
	ps := s.payloads()
	logPayloads(s.t, "agentStop payload", ps)
	if len(ps) > 0 {
		path, _ := ps[0]["transcriptPath"].(string)
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, `"type":"hook.`) {
				s.t.Logf("event: %.600s", line)
			}
		}
	}
	logs, _ := filepath.Glob(filepath.Join(s.home, ".copilot", "logs", "*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(strings.ToLower(line), "hook") {
				s.t.Logf("log: %.400s", line)
			}
		}
	}
	s.t.Logf("copilot stderr: %.2000s", s.stderr)
}

// agentRequests returns the agent loop's Chat Completions requests, in order: those offering
// the bash tool.
func (s *copilotSession) agentRequests() []*fc.Request {
	return s.srv.CompletionsRequests(func(r *fc.Request) bool { return r.HasTool("bash") })
}

// payloads returns the agentStop payloads Copilot CLI sent, in order, decoded.
func (s *copilotSession) payloads() []map[string]any {
	s.t.Helper()
	return decodePayloads(s.t, capturedPaths(s.t, s.capture, "stop-*.json"), "agentStop payload")
}

// copilotDatetimeRE is the preamble Copilot CLI 1.0.102 puts before every user message it
// sends the model: <current_datetime>…</current_datetime> and a blank line.
var copilotDatetimeRE = regexp.MustCompile(`^<current_datetime>[^<]*</current_datetime>\n\n`)

// copilotUserText returns a user message's text as the user (or a hook) wrote it, without the
// datetime preamble.
func copilotUserText(m fc.Message) string {
	return copilotDatetimeRE.ReplaceAllString(m.Content, "")
}

// copilotNudges returns the stop hooks' continuations r carries, in order: every user message
// after the prompt that is not a system notification. Copilot CLI queues a block's reason as
// the next user message, whole.
func copilotNudges(msgs []fc.Message) []string {
	var out []string
	seen := false
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		text := copilotUserText(m)
		if !seen {
			seen = true
			continue
		}
		if strings.HasPrefix(text, "<system_notification>") {
			continue
		}
		out = append(out, text)
	}
	return out
}

// lastNudges returns the nudges carried by the last agent request: every nudge of the run.
func (s *copilotSession) lastNudges() []string {
	reqs := s.agentRequests()
	if len(reqs) == 0 {
		return nil
	}
	return copilotNudges(reqs[len(reqs)-1].Messages)
}

// copilotPending returns the nudges in r after the model's last message.
func copilotPending(r *fc.Request) []string {
	since := r.Since()
	if len(since) == len(r.Messages) {
		return nil // no reply yet: the prompt itself
	}
	var out []string
	for _, m := range since {
		if m.Role == "user" {
			if text := copilotUserText(m); !strings.HasPrefix(text, "<system_notification>") {
				out = append(out, text)
			}
		}
	}
	return out
}

// hasToolResult reports whether r carries the result of a call of that tool.
func hasToolResult(r *fc.Request, tool string) bool {
	names := map[string]string{}
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
		if m.Role == "tool" && names[m.ToolCallID] == tool {
			return true
		}
	}
	return false
}

// assertCopilotPayloads checks the agentStop payloads: one per stop, stop_hook_active as
// active says, all naming one session whose events.jsonl exists.
func assertCopilotPayloads(t *testing.T, s *copilotSession, active []bool, stateKept bool) {
	t.Helper()
	ps := s.payloads()
	if len(ps) != len(active) {
		s.dump()
		t.Fatalf("Copilot CLI sent %d agentStop payloads, want %d", len(ps), len(active))
	}
	for i, p := range ps {
		if got, _ := p["stop_hook_active"].(bool); got != active[i] {
			t.Errorf("payload %d: stop_hook_active = %v, want %v", i, got, active[i])
		}
		if r, _ := p["stopReason"].(string); r != "end_turn" {
			t.Errorf("payload %d: stopReason = %q, want end_turn", i, r)
		}
		path, _ := p["transcriptPath"].(string)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("payload %d: transcriptPath %q: %v", i, path, err)
		}
	}
	if len(ps) > 0 && stateKept {
		session, _ := ps[0]["sessionId"].(string)
		if names, _ := filepath.Glob(filepath.Join(s.state, "copilot-"+session+"*")); len(names) == 0 {
			t.Errorf("stopgate kept no state for session %s in %s", session, s.state)
		}
	}
}

// bashCall is a sync bash tool call running command.
func bashCall(id, command string) fc.Call {
	return fc.ToolCall(id, "bash", map[string]any{"command": command, "description": "Run " + command})
}

// TestCopilotTrailingPromise: a final message that promises an action it did not take is
// blocked once, the promising sentence quoted in the user message the model receives next; the
// model then acts (a shell command) and sums up, and that stop is allowed.
func TestCopilotTrailingPromise(t *testing.T) {
	t.Parallel()
	const (
		promise = "Let me check the tests."
		stalled = "I read the parser and found the off-by-one. " + promise
		acting  = "Right, running them now."
		summary = "I fixed the off-by-one in the parser and ran the tests: they pass."
	)
	s := newCopilotSession(t, func(r *fc.Request) fc.Response {
		switch {
		case !r.HasTool("bash"):
			return fc.Reply("OK")
		case hasToolResult(r, "bash"):
			return fc.Reply(summary)
		case len(copilotPending(r)) > 0:
			return fc.Reply(acting, bashCall("call_run", "echo ok"))
		default:
			return fc.Reply(stalled)
		}
	})
	s.useStopgate()
	final := s.run("Fix the off-by-one in the parser.")
	if final != summary {
		s.dump()
		t.Fatalf("the run ended on %q, want the summary %q", final, summary)
	}
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	got := copilotPending(reqs[1])
	if len(got) != 1 || !quotes(got[0], promise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, promise)
	}
	if m, ok := reqs[2].ToolResult("call_run"); !ok || !strings.Contains(m.Content, "ok") {
		t.Errorf("the nudged command's result = %+v, want its output", m)
	}
	if all := s.lastNudges(); len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	// The stop after the nudge follows a block: stop_hook_active, though the model ran a tool.
	assertCopilotPayloads(t, s, []bool{false, true}, true)
}

// sqlTodos is the sql tool call that writes the todo list items, the first done of them done.
func sqlTodos(id string, items []string, done int) fc.Call {
	var values, ids []string
	for i, it := range items {
		key := fmt.Sprintf("item-%d", i)
		values = append(values, fmt.Sprintf("('%s', '%s', '')", key, strings.ReplaceAll(it, "'", "''")))
		if i < done {
			ids = append(ids, "'"+key+"'")
		}
	}
	q := "INSERT OR REPLACE INTO todos (id, title, description) VALUES " + strings.Join(values, ", ") + ";"
	if len(ids) > 0 {
		q += " UPDATE todos SET status = 'done' WHERE id IN (" + strings.Join(ids, ", ") + ");"
	}
	return fc.ToolCall(id, "sql", map[string]any{"description": "Track the todos", "query": q})
}

// TestCopilotTodos: open items in the session database's todos table block the stop, naming
// the open item; a list whose items are all done does not.
func TestCopilotTodos(t *testing.T) {
	t.Parallel()
	for _, tt := range todoCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newCopilotSession(t, func(r *fc.Request) fc.Response {
				_, wrote := r.ToolResult("call_todos")
				_, closed := r.ToolResult("call_close")
				switch {
				case !r.HasTool("sql"):
					return fc.Reply("OK")
				case !wrote:
					return fc.Reply("", sqlTodos("call_todos", tt.items, tt.done))
				case len(copilotNudges(r.Messages)) > 0 && !closed:
					return fc.Reply("", sqlTodos("call_close", tt.items, len(tt.items)))
				case closed:
					return fc.Reply(tt.final)
				default:
					return fc.Reply(tt.first)
				}
			})
			s.useStopgate()
			final := s.run("Prepare the release.")
			all := s.lastNudges()
			t.Logf("nudges the model received: %q", all)
			if tt.open == "" {
				if final != tt.first || len(all) != 0 {
					s.dump()
					t.Fatalf("a run with every item done ended on %q with nudges %q, want %q and none", final, all, tt.first)
				}
				assertCopilotPayloads(t, s, []bool{false}, true)
				return
			}
			if final != tt.final {
				s.dump()
				t.Fatalf("the run ended on %q, want %q", final, tt.final)
			}
			tt.assertNudge(t, all)
			assertCopilotPayloads(t, s, []bool{false, true}, true)
		})
	}
}

// TestCopilotLegitimateEnds: a plain completion summary and a question or a choice for the
// user are allowed with no block: one request, one stop.
func TestCopilotLegitimateEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range legitimateEnds {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newCopilotSession(t, func(r *fc.Request) fc.Response { return fc.Reply(tt.message) })
			s.useStopgate()
			final := s.run("Add a --verbose flag.")
			if final != tt.message {
				s.dump()
				t.Fatalf("the run ended on %q, want %q", final, tt.message)
			}
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a legitimate end was nudged: %q", all)
			}
			assertCopilotPayloads(t, s, []bool{false}, true)
		})
	}
}

// TestCopilotStallBudget: an agent that keeps stalling is nudged as many times as the stall
// budget allows (2 a run by default), and then allowed to stop, long before Copilot CLI's own
// cap of 8 blocks in a row.
func TestCopilotStallBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		act  bool // run a command after each nudge before stalling again
	}{
		{"answering directly", false},
		{"acting between stalls", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			messages := budgetStalls.messages()
			s := newCopilotSession(t, func(r *fc.Request) fc.Response {
				n := len(copilotNudges(r.Messages))
				if tt.act && len(copilotPending(r)) > 0 {
					return fc.Reply("", bashCall(fmt.Sprintf("call_step_%d", n), fmt.Sprintf("echo step %d", n)))
				}
				return fc.Reply(messages[min(n, len(messages)-1)])
			})
			s.useStopgate()
			final := s.run("Find out why the test fails.")
			if final != messages[2] {
				s.dump()
				t.Fatalf("the run ended on %q, want %q", final, messages[2])
			}
			want := 3
			if tt.act {
				want = 5
			}
			if n := len(s.agentRequests()); n != want {
				s.dump()
				t.Fatalf("the model was asked %d times, want %d", n, want)
			}
			assertBudgetNudges(t, s.lastNudges())
			assertCopilotPayloads(t, s, []bool{false, true, true}, true)
		})
	}
}

// TestCopilotBrokenHookFailsOpen: an agentStop hook that crashes, prints garbage or runs out of
// time lets Copilot CLI stop normally: the stalled message is the final one, the model is asked
// once, and nothing reaches it.
func TestCopilotBrokenHookFailsOpen(t *testing.T) {
	t.Parallel()
	const stalled = "I read the parser. Let me check the tests."
	tests := []struct {
		name  string
		setup func(t *testing.T, s *copilotSession)
	}{
		{"stopgate with a config file broken after install", func(t *testing.T, s *copilotSession) {
			s.useStopgate()
			breakConfig(t, s.home)
		}},
		{"script exits 1 with garbage", func(t *testing.T, s *copilotSession) {
			s.setProjectHooks(copilotHook{command: writeScript(t, s.home, "crash", crashHook)})
		}},
		{"script prints garbage and exits 0", func(t *testing.T, s *copilotSession) {
			s.setProjectHooks(copilotHook{command: writeScript(t, s.home, "garbage", `cat >/dev/null; echo 'not JSON {"decision":"block"'`)})
		}},
		{"hook runs out of time", func(t *testing.T, s *copilotSession) {
			s.setProjectHooks(copilotHook{command: writeScript(t, s.home, "slow", slowHook), timeout: 1})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newCopilotSession(t, func(r *fc.Request) fc.Response { return fc.Reply(stalled) })
			tt.setup(t, s)
			final := s.run("Fix the parser.")
			if final != stalled {
				s.dump()
				t.Fatalf("the run ended on %q, want the stalled message %q", final, stalled)
			}
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a broken hook's output reached the model: %q", all)
			}
			assertCopilotPayloads(t, s, []bool{false}, false)
		})
	}
}
