package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	fo "github.com/stopgate/stopgate/e2e/internal/fakeopenai"
	"github.com/stopgate/stopgate/harness/codex"
)

// The scenarios below run Codex CLI 0.169.0 (`codex exec`) with `stopgate hook codex` as the
// project's Stop hook, the model scripted per request by a Responses API server on loopback,
// and assert on the requests the model server received, on the Stop payloads Codex sent, and on
// the final message. Each one runs in its own CODEX_HOME, home, project and state directory and
// on its own server, so they run in parallel.
//
// How Codex is driven offline: $CODEX_HOME/config.toml names a model provider whose base_url is
// the fake server's http://127.0.0.1:PORT/v1 with wire_api = "responses" and an env_key the
// test sets; `codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox` runs
// one non-interactive turn with shell commands allowed (the machine has no usable sandbox).
// Codex runs a hooks.json hook only once it is trusted, and a project's hooks only in a trusted
// project: the config marks the project trusted ([projects."DIR"] trust_level = "trusted") and
// records each hook's trust hash under [hooks.state] (codex.Trust), which is what a user's
// review in Codex's /hooks writes. No run uses --dangerously-bypass-hook-trust.

// codexVersion is the Codex CLI release the scenarios were written against, the one
// scripts/install-harnesses.sh installs.
const codexVersion = "0.169.0"

// codexKeyVar is the environment variable the fake provider's API key is read from.
const codexKeyVar = "STOPGATE_FAKE_OPENAI_KEY"

// codexCLI is the Codex CLI.
var codexCLI = &harnessCLI{
	name: "Codex CLI", env: "STOPGATE_CODEX", bin: "codex", want: "codex-cli " + codexVersion,
	pinned: func(v string) bool { return strings.TrimSpace(v) == "codex-cli "+codexVersion },
}

// codexBinary returns the Codex CLI to drive (see harnessCLI.binary).
func codexBinary(t *testing.T) string {
	t.Helper()
	return codexCLI.binary(t)
}

// codexSession is one scenario's world: a scripted model server, a CODEX_HOME, a home and a
// project directory, and the Stop hooks Codex will run.
type codexSession struct {
	sessionDirs
	t         *testing.T
	srv       *fo.Server
	codexHome string // CODEX_HOME: config.toml, the user hooks.json, sessions/
	env       []string

	trusted map[string][]codex.HookTrust // hooks file → its trust records
	stderr  string                       // the last run's stderr
	// kept is config.toml text writeConfig keeps: what Codex's own commands wrote there (the
	// [marketplaces] and [plugins] tables `codex plugin` adds).
	kept string
}

// newCodexSession starts a model server answering with script and lays out a fresh CODEX_HOME,
// home and project directory. Every Stop payload Codex sends is captured (see payloads) by a
// trusted Stop hook in the user hooks.json, which allows every stop and so never changes an
// outcome.
func newCodexSession(t *testing.T, script fo.Script) *codexSession {
	t.Helper()
	s := &codexSession{
		sessionDirs: newSessionDirs(t, "stop-payloads"),
		t:           t,
		trusted:     map[string][]codex.HookTrust{},
	}
	s.codexHome = filepath.Join(s.base, "codex-home")
	mkdirs(t, s.codexHome)
	s.srv = fo.Start(script)
	t.Cleanup(s.srv.Close)
	s.env = append(s.baseEnv(),
		"CODEX_HOME="+s.codexHome,
		codexKeyVar+"=sk-test",
	)
	s.setUserStopHooks()
	return s
}

// codexHook is one command handler of a Stop hook.
type codexHook struct {
	command string
	timeout int // seconds; 0 leaves Codex's default (600)
}

// writeHooks writes a hooks.json at path whose Stop event runs hooks, and trusts them.
func (s *codexSession) writeHooks(path string, hooks ...codexHook) {
	s.t.Helper()
	var handlers []map[string]any
	for _, h := range hooks {
		m := map[string]any{"type": "command", "command": h.command}
		if h.timeout > 0 {
			m["timeout"] = h.timeout
		}
		handlers = append(handlers, m)
	}
	b, err := json.MarshalIndent(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": handlers}}}}, "", "  ")
	if err != nil {
		s.t.Fatal(err)
	}
	writeFile(s.t, path, string(b))
	s.trust(path)
}

// setUserStopHooks makes the capture hook, then hooks, the Stop hooks of the user hooks.json
// ($CODEX_HOME/hooks.json). The capture hook writes each payload to its own file in s.capture,
// named so the names sort in arrival order, and allows the stop.
func (s *codexSession) setUserStopHooks(hooks ...codexHook) {
	s.t.Helper()
	capture := codexHook{command: fmt.Sprintf(`cat > %s/stop-$(date +%%s%%N).json`, shellQuote(s.capture)), timeout: 30}
	s.writeHooks(filepath.Join(s.codexHome, "hooks.json"), append([]codexHook{capture}, hooks...)...)
}

// setProjectStopHooks makes hooks the project's Stop hooks (.codex/hooks.json).
func (s *codexSession) setProjectStopHooks(hooks ...codexHook) {
	s.t.Helper()
	s.writeHooks(filepath.Join(s.project, ".codex", "hooks.json"), hooks...)
}

// trust records the command hooks of the hooks file at path as trusted, as Codex's /hooks
// review does, and rewrites config.toml.
func (s *codexSession) trust(path string) {
	s.t.Helper()
	recs, err := codex.Trust(path)
	if err != nil {
		s.t.Fatal(err)
	}
	s.trusted[path] = recs
	s.writeConfig()
}

// writeConfig writes $CODEX_HOME/config.toml: the fake provider, the update_plan tool, the
// project trusted, and the trust records of every hook trusted so far.
func (s *codexSession) writeConfig() {
	s.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "model = %q\nmodel_provider = \"stopgate-fake\"\n\n", "gpt-stopgate-fake")
	fmt.Fprintf(&b, "[model_providers.stopgate-fake]\nname = \"stopgate fake\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = %q\n\n", s.srv.BaseURL, codexKeyVar)
	// Codex 0.169 offers update_plan only when it is enabled for a model it has no metadata for.
	b.WriteString("[tools.update_plan]\nenabled = true\n\n")
	fmt.Fprintf(&b, "[projects.%q]\ntrust_level = \"trusted\"\n\n", s.project)
	paths := make([]string, 0, len(s.trusted))
	for p := range s.trusted {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, r := range s.trusted[p] {
			b.WriteString(r.TOML())
			b.WriteString("\n")
		}
	}
	b.WriteString(s.kept)
	writeFile(s.t, filepath.Join(s.codexHome, "config.toml"), b.String())
}

// installStopgate runs `stopgate hook install codex --project --state-dir DIR` in the project
// directory, as a user would, checks that the project's hooks.json now runs it on Stop and
// SubagentStop, and returns what install printed.
func (s *codexSession) installStopgate(flags ...string) string {
	s.t.Helper()
	out := installHook(s.t, s.sessionDirs, s.env, "codex", flags...)
	bin := stopgateBinary(s.t)
	path := filepath.Join(s.project, ".codex", "hooks.json")
	recs, err := codex.Trust(path)
	if err != nil {
		s.t.Fatalf("the installed hooks.json: %v", err)
	}
	events := map[string]bool{}
	for _, r := range recs {
		if strings.HasPrefix(r.Command, bin+" hook codex") && strings.Contains(r.Command, s.state) {
			events[r.Event] = true
		}
	}
	if !events["Stop"] || !events["SubagentStop"] {
		b, _ := os.ReadFile(path)
		s.t.Fatalf("the installed hooks.json runs no `%s hook codex` with state in %s on Stop and SubagentStop:\n%s", bin, s.state, b)
	}
	return string(out)
}

// useStopgate installs stopgate as the project's Stop hook and trusts it.
func (s *codexSession) useStopgate(flags ...string) {
	s.t.Helper()
	s.installStopgate(flags...)
	s.trust(filepath.Join(s.project, ".codex", "hooks.json"))
}

// run runs `codex exec prompt` in the project directory against the model server and returns
// the agent's final message (the file -o writes). It fails the test if codex exits non-zero.
func (s *codexSession) run(prompt string) string {
	s.t.Helper()
	codex := codexBinary(s.t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	last := filepath.Join(s.base, "last-message.txt")
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--color", "never", "-o", last, prompt}
	cmd := exec.CommandContext(ctx, codex, args...)
	cmd.Dir, cmd.Env = s.project, s.env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	s.stderr = stderr.String()
	s.t.Logf("codex exec ran %v, %d requests to the model server", time.Since(start).Round(time.Millisecond), len(s.srv.Requests()))
	for _, r := range s.srv.Requests() {
		if r.Method != "POST" || r.Path != "/v1/responses" {
			s.t.Logf("codex also sent %s %s", r.Method, r.Path)
		}
	}
	if err != nil {
		s.dump()
		s.t.Fatalf("codex exec: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	b, err := os.ReadFile(last)
	if err != nil {
		s.dump()
		s.t.Fatalf("codex exec wrote no last message: %v\nstderr: %s", err, stderr.Bytes())
	}
	return strings.TrimSpace(string(b))
}

// dump logs what the model server saw and the Stop payloads, for a failing test.
func (s *codexSession) dump() {
	s.t.Helper()
	for _, r := range s.srv.Requests() {
		line := fmt.Sprintf("request %d: %s %s, %d input items", r.Seq, r.Method, r.Path, len(r.Input))
		if last := r.LastItem(); last.Type != "" {
			line += fmt.Sprintf("; last %s %s: %.300s%.300s", last.Type, last.Role, last.Text(), last.OutputText())
		}
		s.t.Log(line)
	}
	logPayloads(s.t, "stop payload", s.payloads())
	s.t.Logf("codex stderr:\n%s", s.stderr)
}

// agentRequests returns the agent loop's Responses requests, in order: those offering
// exec_command.
func (s *codexSession) agentRequests() []*fo.Request {
	return s.srv.ResponsesRequests(isCodexAgentRequest)
}

func isCodexAgentRequest(r *fo.Request) bool { return r.HasTool("exec_command") }

// payloads returns the Stop hook payloads Codex sent, in order, decoded.
func (s *codexSession) payloads() []map[string]any {
	s.t.Helper()
	return decodePayloads(s.t, capturedPaths(s.t, s.capture, "stop-*.json"), "stop payload")
}

// hookPromptRE finds a Stop hook's continuation in a user message. Codex 0.169 hands the
// reason of {"decision":"block","reason":R} to the model as the next user message of the
// same turn: <hook_prompt hook_run_id="stop:G:FILE">R</hook_prompt>, with <, > and & in R
// escaped as XML text.
var hookPromptRE = regexp.MustCompile(`(?s)<hook_prompt hook_run_id="[^"]*">(.*?)</hook_prompt>`)

// codexNudges returns the continuations the Stop hooks gave that the items carry, in order,
// as the model received them (unescaped).
func codexNudges(items []fo.Item) []string {
	var out []string
	for _, it := range items {
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		for _, m := range hookPromptRE.FindAllStringSubmatch(it.Text(), -1) {
			out = append(out, html.UnescapeString(m[1]))
		}
	}
	return out
}

// codexPending returns the nudges in r after the model's last message: what the Stop hooks
// said about the stop the model just attempted, if they blocked it.
func codexPending(r *fo.Request) []string {
	i := len(r.Input)
	for i > 0 && !(r.Input[i-1].Type == "message" && r.Input[i-1].Role == "assistant") {
		i--
	}
	return codexNudges(r.Input[i:])
}

// lastNudges returns the nudges carried by the last agent request: every nudge of the run,
// since each request carries the whole conversation.
func (s *codexSession) lastNudges() []string {
	reqs := s.agentRequests()
	if len(reqs) == 0 {
		return nil
	}
	return codexNudges(reqs[len(reqs)-1].Input)
}

// assertCodexPayloads checks the Stop payloads Codex sent: one per stop, all of one session
// and one turn, stop_hook_active set exactly on the stops that follow a blocked one
// (active[i]), each last_assistant_message the message that stop ended on (messages[i]), and
// each shaped like the recorded fixture.
func assertCodexPayloads(t *testing.T, s *codexSession, active []bool, messages []string) {
	t.Helper()
	ps := s.payloads()
	if len(ps) != len(active) {
		s.dump()
		t.Fatalf("Codex ran the Stop hooks %d times, want %d", len(ps), len(active))
	}
	for i, p := range ps {
		if p["hook_event_name"] != "Stop" || p["stop_hook_active"] != active[i] || p["last_assistant_message"] != messages[i] {
			t.Errorf("stop %d: hook_event_name=%v stop_hook_active=%v last_assistant_message=%q, want Stop, %v, %q",
				i, p["hook_event_name"], p["stop_hook_active"], p["last_assistant_message"], active[i], messages[i])
		}
		if p["session_id"] != ps[0]["session_id"] || p["turn_id"] != ps[0]["turn_id"] {
			t.Errorf("stop %d is of session %v turn %v, stop 0 of %v %v: a block continues the same turn", i, p["session_id"], p["turn_id"], ps[0]["session_id"], ps[0]["turn_id"])
		}
		assertCodexPayloadShape(t, p)
	}
}

// assertStopgateBlocked checks that Codex reports blocks Stop hook runs blocked and none
// failed (codex exec writes "hook: Stop Blocked", "hook: Stop Completed" or "hook: Stop
// Failed" on stderr for each handler's run; the capture hook's runs always complete), and that
// stopgate's state directory holds the session's nudge counts. Without this, an allowed stop
// could pass because the hook never ran.
func assertStopgateBlocked(t *testing.T, s *codexSession, blocks int) {
	t.Helper()
	if n := strings.Count(s.stderr, "hook: Stop Blocked\n"); n != blocks {
		t.Errorf("codex reports %d blocked Stop hook runs, want %d:\n%s", n, blocks, s.stderr)
	}
	if strings.Contains(s.stderr, "hook: Stop Failed") {
		t.Errorf("a Stop hook failed:\n%s", s.stderr)
	}
	assertStateKept(t, s.state, s.payloads())
}

// TestCodexTrailingPromise: a final message that promises an action it did not take is
// blocked once, with the promising sentence quoted in what the model receives next; the model
// then acts and sums up, and that stop is allowed.
func TestCodexTrailingPromise(t *testing.T) {
	t.Parallel()
	const (
		promise = "Let me check the tests."
		stalled = "I read the parser and found the off-by-one. " + promise
		acting  = "Right, running them now."
		summary = "I fixed the off-by-one in the parser and ran the tests: they pass."
		checkID = "call_check"
	)
	s := newCodexSession(t, func(r *fo.Request) fo.Response {
		switch {
		case !isCodexAgentRequest(r):
			return fo.Reply(fo.Text("OK"))
		case hasOutput(r, checkID):
			return fo.Reply(fo.Text(summary))
		case len(codexPending(r)) > 0:
			return fo.Reply(fo.Text(acting), fo.FunctionCall(checkID, "exec_command", map[string]any{"cmd": "echo ok"}))
		default:
			return fo.Reply(fo.Text(stalled))
		}
	})
	s.useStopgate()
	final := s.run("Fix the off-by-one in the parser.")

	if final != summary {
		t.Errorf("final message %q, want %q", final, summary)
	}
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	got := codexPending(reqs[1])
	if len(got) != 1 || !quotes(got[0], promise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, promise)
	}
	if out, ok := reqs[2].FunctionOutput(checkID); !ok || !strings.Contains(out.OutputText(), "Process exited with code 0") || !strings.Contains(out.OutputText(), "\nok\n") {
		t.Errorf("the nudged call's output = %q (found %v), want ok, exit 0", out.OutputText(), ok)
	}
	all := s.lastNudges()
	t.Logf("nudges the model received: %q", all)
	if len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertCodexPayloads(t, s, []bool{false, true}, []string{stalled, summary})
	assertStopgateBlocked(t, s, 1)
}

// hasOutput reports whether r carries the output of function call id.
func hasOutput(r *fo.Request, id string) bool {
	_, ok := r.FunctionOutput(id)
	return ok
}

// sessionIDRE reads the exec session id from a unified exec output.
var sessionIDRE = regexp.MustCompile(`Process running with session ID (\d+)`)

// TestCodexUnreadBackgroundProcess: a background exec session the run started, never polled
// and never seen exiting, blocks the stop with the process gate's message naming it; once the
// agent has polled it with write_stdin and seen it exit, the stop is allowed.
//
// Codex does not wake the agent when a background exec session ends, so unlike Claude Code's
// a stop while the command still runs is not a parked run: it is work left behind. The command
// waits for a file that a second Stop hook creates, so it is still running when the agent
// first stops whatever the machine's speed, and it ends (exit 3) right after.
func TestCodexUnreadBackgroundProcess(t *testing.T) {
	t.Parallel()
	const (
		command = "until [ -e .release ]; do sleep 0.05; done; echo done-output; exit 3"
		bgID    = "call_bg"
		pollID  = "call_poll"
		left    = "The job is running in the background."
		summary = "I polled the job: it printed done-output and exited with code 3, as this fixture expects. Done."
	)
	s := newCodexSession(t, func(r *fo.Request) fo.Response {
		switch {
		case !isCodexAgentRequest(r):
			return fo.Reply(fo.Text("OK"))
		case hasOutput(r, pollID):
			return fo.Reply(fo.Text(summary))
		case len(codexPending(r)) > 0:
			out, _ := r.FunctionOutput(bgID)
			m := sessionIDRE.FindStringSubmatch(out.OutputText())
			if m == nil {
				return fo.Reply(fo.Text("I cannot find the session id."))
			}
			return fo.Reply(fo.FunctionCall(pollID, "write_stdin", fmt.Sprintf(`{"session_id":%s,"chars":"","yield_time_ms":10000}`, m[1])))
		case hasOutput(r, bgID):
			return fo.Reply(fo.Text(left))
		default:
			return fo.Reply(fo.FunctionCall(bgID, "exec_command", map[string]any{"cmd": command, "yield_time_ms": 250}))
		}
	})
	s.setUserStopHooks(codexHook{command: "touch " + shellQuote(filepath.Join(s.project, ".release")), timeout: 30})
	s.useStopgate()
	final := s.run("Run the job in the background.")
	if *recordCodex {
		recordCodexFixtures(t, s)
	}

	if final != summary {
		t.Errorf("final message %q, want %q", final, summary)
	}
	reqs := s.agentRequests()
	if len(reqs) != 4 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 4 (start, left running, nudged poll, summary)", len(reqs))
	}
	start, _ := reqs[1].FunctionOutput(bgID)
	m := sessionIDRE.FindStringSubmatch(start.OutputText())
	if m == nil {
		t.Fatalf("the exec_command output %q names no running session", start.OutputText())
	}
	got := codexPending(reqs[2])
	if len(got) != 1 || !strings.Contains(got[0], "Background-process completion gate") || !strings.Contains(got[0], m[1]) || !strings.Contains(got[0], "echo done-output; exit 3") {
		t.Errorf("after the stop with the job running the model received nudges %q, want one naming session %s and %q", got, m[1], command)
	}
	if poll, ok := reqs[3].FunctionOutput(pollID); !ok || !strings.Contains(poll.OutputText(), "Process exited with code 3") || !strings.Contains(poll.OutputText(), "done-output") {
		t.Errorf("polling the session gave %q, want its exit and output", poll.OutputText())
	}
	all := s.lastNudges()
	t.Logf("nudges the model received: %q", all)
	if len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertCodexPayloads(t, s, []bool{false, true}, []string{left, summary})
	assertStopgateBlocked(t, s, 1)
}

// TestCodexPlan: open steps of the agent's update_plan plan block the stop, naming the open
// step; a plan whose steps are all completed does not.
func TestCodexPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []string
		// done is how many steps (from the first) are completed when the model first stops.
		done         int
		first, final string
		// open is the step a nudge must name; "" means the first stop is allowed.
		open string
	}{
		{
			name:  "an open step blocks",
			steps: []string{"Run the tests", "Update the changelog"},
			done:  1,
			first: "I ran the tests; they pass.",
			final: "Updated the changelog as well. Every step is complete.",
			open:  "Update the changelog",
		},
		{
			name:  "a completed plan does not",
			steps: []string{"Run the tests"},
			done:  1,
			first: "I ran the tests; they pass.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := func(done int) map[string]any {
				var items []map[string]string
				for i, st := range tt.steps {
					status := "pending"
					switch {
					case i < done:
						status = "completed"
					case i == done:
						status = "in_progress"
					}
					items = append(items, map[string]string{"step": st, "status": status})
				}
				return map[string]any{"plan": items}
			}
			// One update_plan call a request: the plan with nothing done, then with tt.done
			// steps done, then stop; after a nudge, the plan with every step done, then stop.
			s := newCodexSession(t, func(r *fo.Request) fo.Response {
				switch {
				case !isCodexAgentRequest(r):
					return fo.Reply(fo.Text("OK"))
				case !hasOutput(r, "call_plan0"):
					return fo.Reply(fo.Text("Planning."), fo.FunctionCall("call_plan0", "update_plan", plan(0)))
				case !hasOutput(r, "call_plan1"):
					return fo.Reply(fo.FunctionCall("call_plan1", "update_plan", plan(tt.done)))
				case len(codexNudges(r.Input)) == 0:
					return fo.Reply(fo.Text(tt.first))
				case !hasOutput(r, "call_plan2"):
					return fo.Reply(fo.FunctionCall("call_plan2", "update_plan", plan(len(tt.steps))))
				default:
					return fo.Reply(fo.Text(tt.final))
				}
			})
			s.useStopgate()
			final := s.run("Prepare the release.")

			reqs := s.agentRequests()
			if !reqs[0].HasTool("update_plan") {
				t.Fatalf("first request's tools %v: want update_plan", reqs[0].ToolNames())
			}
			all := s.lastNudges()
			t.Logf("nudges the model received: %q", all)
			if tt.open == "" {
				if final != tt.first || len(reqs) != 3 || len(all) != 0 {
					s.dump()
					t.Errorf("final %q after %d requests with nudges %q; want %q after 3 and none", final, len(reqs), all, tt.first)
				}
				assertCodexPayloads(t, s, []bool{false}, []string{tt.first})
				assertStopgateBlocked(t, s, 0)
				return
			}
			if final != tt.final || len(reqs) != 5 {
				s.dump()
				t.Fatalf("final %q after %d requests; want %q after 5", final, len(reqs), tt.final)
			}
			if len(all) != 1 || !strings.Contains(all[0], tt.open) {
				t.Errorf("the run held nudges %q, want one naming the open step %q", all, tt.open)
			}
			for _, st := range tt.steps[:tt.done] {
				if len(all) == 1 && strings.Contains(all[0], st) {
					t.Errorf("the nudge %q names %q, a step already completed", all[0], st)
				}
			}
			assertCodexPayloads(t, s, []bool{false, true}, []string{tt.first, tt.final})
			assertStopgateBlocked(t, s, 1)
		})
	}
}

// TestCodexLegitimateEnds: a plain completion summary and a question to the user are allowed
// with no block: one request for the one turn, one stop.
func TestCodexLegitimateEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, message string
	}{
		{"completion summary", "I added the --verbose flag, documented it in the README and ran the tests: they pass."},
		{"question to the user", "Shall I proceed with the migration?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newCodexSession(t, func(r *fo.Request) fo.Response { return fo.Reply(fo.Text(tt.message)) })
			s.useStopgate()
			if final := s.run("Add a --verbose flag."); final != tt.message {
				t.Errorf("final message %q, want %q", final, tt.message)
			}
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a legitimate end was nudged: %q", all)
			}
			assertCodexPayloads(t, s, []bool{false}, []string{tt.message})
			assertStopgateBlocked(t, s, 0)
		})
	}
}

// TestCodexStallBudget: an agent that keeps stalling is nudged as many times as the stall
// budget allows (2 a run by default), and then allowed to stop. Codex itself never stops a
// hook that keeps blocking, so this budget is the only bound.
func TestCodexStallBudget(t *testing.T) {
	t.Parallel()
	messages := budgetStalls.messages()
	s := newCodexSession(t, func(r *fo.Request) fo.Response {
		return fo.Reply(fo.Text(messages[min(len(codexNudges(r.Input)), len(messages)-1)]))
	})
	s.useStopgate()
	final := s.run("Find out why the test fails.")

	if final != messages[2] {
		t.Errorf("final message %q, want %q", final, messages[2])
	}
	if n := len(s.agentRequests()); n != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (a stall, then one per nudge)", n)
	}
	assertBudgetNudges(t, s.lastNudges())
	assertCodexPayloads(t, s, []bool{false, true, true}, messages)
	assertStopgateBlocked(t, s, 2)
}

// TestCodexBrokenHookFailsOpen: a Stop hook that crashes, prints garbage, cannot start or runs
// out of time lets Codex stop normally: the stalled message is the final one, the model is
// asked once, and nothing reaches it. Codex reports how the hook's run ended on stderr.
func TestCodexBrokenHookFailsOpen(t *testing.T) {
	t.Parallel()
	const stalled = "I read the parser. Let me check the tests."
	tests := []struct {
		name  string
		setup func(t *testing.T, s *codexSession)
		// want is how codex exec reports the project hook's run: "hook: Stop Completed" for a
		// run that exited 0 with nothing to say, "hook: Stop Failed" otherwise.
		want string
	}{
		{
			name: "stopgate with a config file broken after install",
			setup: func(t *testing.T, s *codexSession) {
				s.useStopgate()
				breakConfig(t, s.home)
			},
			// stopgate fails open on purpose: exit 0, nothing on stdout, why on stderr.
			want: "hook: Stop Completed",
		},
		{
			name: "script exits 1 with garbage",
			setup: func(t *testing.T, s *codexSession) {
				s.setProjectStopHooks(codexHook{command: writeScript(t, s.home, "crash", crashHook), timeout: 30})
			},
			want: "hook: Stop Failed",
		},
		{
			name: "script prints garbage and exits 0",
			setup: func(t *testing.T, s *codexSession) {
				s.setProjectStopHooks(codexHook{command: writeScript(t, s.home, "garbage", `cat >/dev/null; echo 'not JSON {"decision":"block"'`), timeout: 30})
			},
			want: "hook: Stop Failed",
		},
		{
			name: "command does not exist",
			setup: func(t *testing.T, s *codexSession) {
				s.setProjectStopHooks(codexHook{command: filepath.Join(s.home, "no-such-hook"), timeout: 30})
			},
			want: "hook: Stop Failed",
		},
		{
			name: "hook runs out of time",
			setup: func(t *testing.T, s *codexSession) {
				s.setProjectStopHooks(codexHook{command: writeScript(t, s.home, "slow", slowHook), timeout: 1})
			},
			want: "hook: Stop Failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newCodexSession(t, func(r *fo.Request) fo.Response { return fo.Reply(fo.Text(stalled)) })
			tt.setup(t, s)
			if final := s.run("Fix the parser."); final != stalled {
				t.Errorf("final message %q, want %q", final, stalled)
			}
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a broken hook's output reached the model: %q", all)
			}
			assertCodexPayloads(t, s, []bool{false}, []string{stalled})
			// Two Stop handlers ran: the capture hook (always completes) and the broken one.
			completed := strings.Count(s.stderr, "hook: Stop Completed\n")
			failed := strings.Count(s.stderr, "hook: Stop Failed\n")
			wantCompleted, wantFailed := 1, 1
			if tt.want == "hook: Stop Completed" {
				wantCompleted, wantFailed = 2, 0
			}
			if completed != wantCompleted || failed != wantFailed || strings.Contains(s.stderr, "hook: Stop Blocked") {
				t.Errorf("codex reports %d completed and %d failed Stop hook runs, want %d and %d:\n%s", completed, failed, wantCompleted, wantFailed, s.stderr)
			}
		})
	}
}

// TestCodexUntrustedHookDoesNotRun: a hook `stopgate hook install codex` added but nobody
// trusted is skipped without a word: the stall goes through, and stopgate never ran. This is
// Codex's hook trust, which install leaves to the user, and why install says so.
func TestCodexUntrustedHookDoesNotRun(t *testing.T) {
	t.Parallel()
	const stalled = "I read the parser. Let me check the tests."
	s := newCodexSession(t, func(r *fo.Request) fo.Response { return fo.Reply(fo.Text(stalled)) })
	out := s.installStopgate()
	if !strings.Contains(out, "trust") || !strings.Contains(out, "[hooks.state.") {
		t.Errorf("install did not say how to trust the hook:\n%s", out)
	}
	if final := s.run("Fix the parser."); final != stalled {
		t.Errorf("final message %q, want %q", final, stalled)
	}
	if all := s.lastNudges(); len(all) != 0 {
		t.Errorf("the untrusted hook nudged: %q", all)
	}
	if n := strings.Count(s.stderr, "hook: Stop\n"); n != 1 {
		t.Errorf("codex ran %d Stop hook handlers, want 1 (the trusted capture hook):\n%s", n, s.stderr)
	}
	if names, _ := filepath.Glob(filepath.Join(s.state, "*")); len(names) != 0 {
		t.Errorf("stopgate ran: it left state %q", names)
	}
}

var recordCodex = flag.Bool("record-codex", false, "rewrite "+codexPayloadFixture+" and "+codexRolloutFixture+" from a live Codex session")

// The recorded fixtures, regenerated with
//
//	go test ./e2e -run TestCodexUnreadBackgroundProcess -record-codex
//
// codexPayloadFixture is a real Stop payload from Codex 0.169.0, the first stop of
// TestCodexUnreadBackgroundProcess (a background exec session running), and
// codexRolloutFixture the session's whole rollout after the run; both sanitized: the session
// and turn ids and the test's directories replaced by fixed stand-ins, everything else as
// Codex wrote it. Every scenario checks each live payload against the fixture's shape, so a
// Codex that adds, drops or retypes a field fails the suite; package hook golden-tests the
// Turn built from the two.
const (
	codexPayloadFixture = "../harness/codex/testdata/codex/stop-payload-" + codexVersion + ".json"
	codexRolloutFixture = "../harness/codex/testdata/codex/rollout-" + codexVersion + ".jsonl"
)

// The stand-ins the sanitized Codex fixtures use.
const (
	codexFixtureSession = "00000000-0000-4000-8000-0000000000c1"
	codexFixtureTurn    = "00000000-0000-4000-8000-0000000000c2"
	codexFixtureHome    = "/home/user"
	codexFixtureProject = "/home/user/project"
)

// loadCodexFixture reads the recorded payload.
func loadCodexFixture(t *testing.T) map[string]any {
	t.Helper()
	return loadPayloadFixture(t, codexPayloadFixture, "Codex Stop payload", "-record-codex")
}

// assertCodexPayloadShape checks that a live payload has the recorded payload's fields with
// the same JSON types; transcript_path and last_assistant_message may also be null, which
// Codex writes for a session without a rollout or a turn without text.
func assertCodexPayloadShape(t *testing.T, p map[string]any) {
	t.Helper()
	want := loadCodexFixture(t)
	keys := map[string]bool{}
	for k := range p {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	for k := range keys {
		g, gok := p[k]
		w, wok := want[k]
		switch {
		case !gok:
			t.Errorf("the Stop payload lacks %q, which %s has", k, codexPayloadFixture)
		case !wok:
			t.Errorf("the Stop payload has %q (%s), which %s lacks", k, shape(g), codexPayloadFixture)
		case g == nil && (k == "transcript_path" || k == "last_assistant_message"):
		case shape(g) != shape(w):
			t.Errorf("the Stop payload's %q is %s, %s has %s", k, shape(g), codexPayloadFixture, shape(w))
		}
	}
}

// recordCodexFixtures writes the session's first Stop payload and its rollout, sanitized, to
// the fixtures.
func recordCodexFixtures(t *testing.T, s *codexSession) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(s.capture, "stop-*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no stop payload to record (%v)", err)
	}
	sort.Strings(names)
	payload, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	p := s.payloads()[0]
	rolloutPath, _ := p["transcript_path"].(string)
	rollout, err := os.ReadFile(rolloutPath)
	if err != nil {
		t.Fatalf("reading the rollout: %v", err)
	}
	// Longest first.
	r := strings.NewReplacer(
		p["session_id"].(string), codexFixtureSession,
		p["turn_id"].(string), codexFixtureTurn,
		s.codexHome, codexFixtureHome+"/.codex",
		s.project, codexFixtureProject,
		s.home, codexFixtureHome,
		filepath.Join(s.base, "tmp"), "/tmp",
		s.srv.URL, "http://127.0.0.1:8080",
	)
	writeSanitized(t, r, s.base, fixtureFile{codexPayloadFixture, payload}, fixtureFile{codexRolloutFixture, rollout})
}

// TestCodexPayloadFixture checks the recorded payload itself: a Stop event with every field
// Codex 0.169 documents, and nothing left of the machine it was captured on.
func TestCodexPayloadFixture(t *testing.T) {
	p := loadCodexFixture(t)
	want := map[string]any{
		"session_id":             codexFixtureSession,
		"turn_id":                codexFixtureTurn,
		"cwd":                    codexFixtureProject,
		"hook_event_name":        "Stop",
		"model":                  "gpt-stopgate-fake",
		"permission_mode":        "bypassPermissions",
		"stop_hook_active":       false,
		"last_assistant_message": "The job is running in the background.",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s: %s = %v, want %v", codexPayloadFixture, k, p[k], v)
		}
	}
	if len(p) != len(want)+1 {
		t.Errorf("%s has %d fields, want %d", codexPayloadFixture, len(p), len(want)+1)
	}
	tp, _ := p["transcript_path"].(string)
	if !strings.HasPrefix(tp, codexFixtureHome+"/.codex/sessions/") || !strings.HasSuffix(tp, "-"+codexFixtureSession+".jsonl") {
		t.Errorf("transcript_path = %q, want a rollout under %s/.codex/sessions", tp, codexFixtureHome)
	}
	for _, path := range []string{codexPayloadFixture, codexRolloutFixture} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{"/tmp/Test", os.TempDir() + "/Test", "stopgate-e2e", "codex-home"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("%s holds %q", path, leak)
			}
		}
	}
}
