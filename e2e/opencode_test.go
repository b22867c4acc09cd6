package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fc "github.com/stopgate/stopgate/e2e/internal/fakechat"
)

// The scenarios below run opencode 1.18.33 as a headless server (`opencode serve`) with
// stopgate's plugin installed by `stopgate hook install opencode --project`, the model scripted
// per request by a Chat Completions server on loopback, and assert on the requests the model
// server received and on the session's messages.
//
// How opencode is driven offline: the project's opencode.json defines a provider "fake" of
// the bundled @ai-sdk/openai-compatible package whose baseURL is the fake server's /v1, and
// makes fake/fake-model the model; OPENCODE_DISABLE_MODELS_FETCH, _AUTOUPDATE, _LSP_DOWNLOAD,
// _DEFAULT_PLUGINS and _SHARE keep it off the network, and the npm and bun registries point at
// a closed loopback port, so the background install opencode starts for its config folder
// fails at once instead of reaching out. The plugin is loaded from its file:// URL, with no
// package to install. `opencode run` is not used: it exits as soon as the session first goes
// idle, before a continuation the plugin sends can run; a server lives on, as the TUI does.

// opencodeVersion is the opencode release the scenarios were written against.
const opencodeVersion = "1.18.33"

// opencodeCLI is opencode.
var opencodeCLI = &harnessCLI{
	name: "opencode", env: "STOPGATE_OPENCODE", bin: "opencode", want: opencodeVersion, isolate: true,
	pinned: func(v string) bool { return strings.TrimSpace(v) == opencodeVersion },
}

// opencodeSettle is how long a session must stay idle, with no new model request, before a
// scenario takes it as stopped for good.
const opencodeSettle = 3 * time.Second

// opencodeSession is one scenario's world.
type opencodeSession struct {
	sessionDirs
	t   *testing.T
	srv *fc.Server
	env []string
	url string // the opencode server's root
	id  string // the session
}

// newOpencodeSession starts a model server answering with script, lays out the directories,
// and writes the project's opencode.json with the fake provider.
func newOpencodeSession(t *testing.T, script fc.Script) *opencodeSession {
	t.Helper()
	s := &opencodeSession{sessionDirs: newSessionDirs(t, "payloads"), t: t}
	s.srv = fc.Start(script, "fake-model")
	t.Cleanup(s.srv.Close)
	s.env = append(s.baseEnv(),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1",
		"NPM_CONFIG_REGISTRY=http://127.0.0.1:9/", "BUN_CONFIG_REGISTRY=http://127.0.0.1:9/", "npm_config_offline=true",
	)
	cfg := map[string]any{
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": s.srv.BaseURL, "apiKey": "sk-test"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake", "tool_call": true}},
		}},
		"model":      "fake/fake-model",
		"autoupdate": false,
		"share":      "disabled",
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	writeFile(t, filepath.Join(s.project, "opencode.json"), string(b))
	return s
}

// useStopgate installs the plugin in the project's opencode.json the way a user would.
func (s *opencodeSession) useStopgate() {
	s.t.Helper()
	installHook(s.t, s.sessionDirs, s.env, "opencode")
}

// opencodeE2EVar enables the opencode suite. It is off by default: on the machine this suite
// was written on, `opencode serve` 1.18.33, offline, accepts connections but answers no request
// (its instance bootstrap does not finish within a minute, with or without a plugin), so the
// suite cannot pass here yet. `opencode run` does start offline and loads the plugin, which
// sees session.idle and prompts the session, but run exits at the first idle, before the
// continuation is answered.
const opencodeE2EVar = "STOPGATE_OPENCODE_E2E"

// start starts `opencode serve` in the project directory and waits until it answers.
func (s *opencodeSession) start() {
	s.t.Helper()
	if os.Getenv(opencodeE2EVar) == "" {
		s.t.Skipf("set %s=1 to run the opencode suite (opencode serve does not answer offline here; see %s)", opencodeE2EVar, "e2e/opencode_test.go")
	}
	bin := opencodeCLI.binary(s.t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "--port", fmt.Sprint(port), "--hostname", "127.0.0.1")
	cmd.Dir, cmd.Env = s.project, s.env
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if s.t.Failed() {
			s.t.Logf("opencode serve output: %.3000s", out.String())
		}
	})
	s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := s.call("GET", "/session", nil); err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("opencode serve did not answer within a minute: %.2000s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// call sends an API request to the opencode server and returns the body.
func (s *opencodeSession) call(method, path string, body any) ([]byte, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: runTimeout}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return b, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	return b, err
}

// run creates a session, sends prompt, waits until the session has settled (idle, and no model
// request for opencodeSettle), and returns the text of its last assistant message.
func (s *opencodeSession) run(prompt string) string {
	s.t.Helper()
	s.start()
	b, err := s.call("POST", "/session", map[string]any{})
	if err != nil {
		s.t.Fatal(err)
	}
	var sess struct{ ID string }
	if err := json.Unmarshal(b, &sess); err != nil || sess.ID == "" {
		s.t.Fatalf("POST /session: %v %s", err, b)
	}
	s.id = sess.ID
	if _, err := s.call("POST", "/session/"+s.id+"/message", map[string]any{"parts": []any{map[string]any{"type": "text", "text": prompt}}}); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(runTimeout)
	seen, quiet := -1, time.Now()
	for time.Now().Before(deadline) {
		n := len(s.srv.Requests())
		st, _ := s.call("GET", "/session/status", nil)
		busy := bytes.Contains(st, []byte(s.id))
		if n != seen || busy {
			seen, quiet = n, time.Now()
		} else if time.Since(quiet) > opencodeSettle {
			return s.lastAssistant()
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.dump()
	s.t.Fatalf("the session did not settle within %v", runTimeout)
	return ""
}

// lastAssistant returns the text of the session's last assistant message.
func (s *opencodeSession) lastAssistant() string {
	s.t.Helper()
	b, err := s.call("GET", "/session/"+s.id+"/message", nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var msgs []struct {
		Info  struct{ Role string }
		Parts []struct{ Type, Text string }
	}
	if err := json.Unmarshal(b, &msgs); err != nil {
		s.t.Fatalf("the session's messages: %v", err)
	}
	last := ""
	for _, m := range msgs {
		if m.Info.Role != "assistant" {
			continue
		}
		var texts []string
		for _, p := range m.Parts {
			if p.Type == "text" && p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 {
			last = strings.Join(texts, "\n")
		}
	}
	return last
}

// agentRequests returns the agent loop's requests: those offering the bash tool.
func (s *opencodeSession) agentRequests() []*fc.Request {
	return s.srv.CompletionsRequests(func(r *fc.Request) bool { return r.HasTool("bash") })
}

// opencodeNudges returns the user messages after the first of msgs: the plugin's continuations.
func opencodeNudges(msgs []fc.Message) []string {
	var out []string
	seen := false
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		if seen {
			out = append(out, m.Content)
		}
		seen = true
	}
	return out
}

// pending returns the user messages after the model's last reply; nil before its first.
func opencodePending(r *fc.Request) []string {
	since := r.Since()
	if len(since) == len(r.Messages) {
		return nil
	}
	var out []string
	for _, m := range since {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// lastNudges returns the nudges carried by the last agent request.
func (s *opencodeSession) lastNudges() []string {
	reqs := s.agentRequests()
	if len(reqs) == 0 {
		return nil
	}
	return opencodeNudges(reqs[len(reqs)-1].Messages)
}

func (s *opencodeSession) dump() {
	s.t.Helper()
	for _, r := range s.srv.Requests() {
		line := fmt.Sprintf("request %d: %s %s, %d messages, tools %d", r.Seq, r.Method, r.Path, len(r.Messages), len(r.Tools))
		if last := r.LastMessage(); last.Role != "" {
			line += fmt.Sprintf("; last %s: %.300q", last.Role, last.Content)
		}
		if r.Response != nil {
			line += fmt.Sprintf("; answered %.200q %d calls", r.Response.Text, len(r.Response.ToolCalls))
		}
		s.t.Log(line)
	}
}

// reply answers a request that offers no tools (a title) with a title, and calls agent for the
// agent loop's.
func reply(agent func(r *fc.Request) fc.Response) fc.Script {
	return func(r *fc.Request) fc.Response {
		if !r.HasTool("bash") {
			return fc.Reply("A title")
		}
		return agent(r)
	}
}

// TestOpencodeTrailingPromise: a promise at the end of the message is nudged once, through the
// plugin's prompt; the model acts and sums up, and that stop is let through.
func TestOpencodeTrailingPromise(t *testing.T) {
	t.Parallel()
	const (
		promise = "Let me check the tests."
		stalled = "I read the parser and found the off-by-one. " + promise
		summary = "I fixed the off-by-one in the parser and ran the tests: they pass."
	)
	s := newOpencodeSession(t, reply(func(r *fc.Request) fc.Response {
		switch {
		case hasToolResult(r, "bash"):
			return fc.Reply(summary)
		case len(opencodePending(r)) > 0:
			return fc.Reply("Running them now.", fc.ToolCall("call_run", "bash", map[string]any{"command": "echo ok", "description": "Run the tests"}))
		default:
			return fc.Reply(stalled)
		}
	}))
	s.useStopgate()
	if final := s.run("Fix the off-by-one in the parser."); final != summary {
		s.dump()
		t.Fatalf("the session ended on %q, want %q", final, summary)
	}
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	if got := opencodePending(reqs[1]); len(got) != 1 || !quotes(got[0], promise) {
		t.Errorf("after the stalled stop the model received %q, want one nudge quoting %q", got, promise)
	}
	if all := s.lastNudges(); len(all) != 1 {
		t.Errorf("the session held %d nudges, want 1: %q", len(all), all)
	}
}

// todowrite is a todowrite call with items, the first done of them completed.
func todowrite(id string, items []string, done int) fc.Call {
	var todos []map[string]any
	for i, it := range items {
		status := "pending"
		if i < done {
			status = "completed"
		}
		todos = append(todos, map[string]any{"content": it, "status": status, "priority": "medium"})
	}
	return fc.ToolCall(id, "todowrite", map[string]any{"todos": todos})
}

// TestOpencodeTodos: an open todowrite item blocks the stop, naming it; a completed list does
// not.
func TestOpencodeTodos(t *testing.T) {
	t.Parallel()
	for _, tt := range todoCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newOpencodeSession(t, reply(func(r *fc.Request) fc.Response {
				_, wrote := r.ToolResult("call_todos")
				_, closed := r.ToolResult("call_close")
				switch {
				case !wrote:
					return fc.Reply("", todowrite("call_todos", tt.items, tt.done))
				case len(opencodeNudges(r.Messages)) > 0 && !closed:
					return fc.Reply("", todowrite("call_close", tt.items, len(tt.items)))
				case closed:
					return fc.Reply(tt.final)
				default:
					return fc.Reply(tt.first)
				}
			}))
			s.useStopgate()
			final := s.run("Prepare the release.")
			all := s.lastNudges()
			t.Logf("nudges the model received: %q", all)
			if tt.open == "" {
				if final != tt.first || len(all) != 0 {
					s.dump()
					t.Fatalf("a completed list ended on %q with nudges %q, want %q and none", final, all, tt.first)
				}
				return
			}
			if final != tt.final {
				s.dump()
				t.Fatalf("the session ended on %q, want %q", final, tt.final)
			}
			tt.assertNudge(t, all)
		})
	}
}

// TestOpencodeLegitimateEnds: a summary, a question and a choice are let through: one request.
func TestOpencodeLegitimateEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range legitimateEnds {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newOpencodeSession(t, reply(func(*fc.Request) fc.Response { return fc.Reply(tt.message) }))
			s.useStopgate()
			if final := s.run("Add a --verbose flag."); final != tt.message {
				s.dump()
				t.Fatalf("the session ended on %q, want %q", final, tt.message)
			}
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
		})
	}
}

// TestOpencodeStallBudget: a model that keeps stalling is nudged twice (the default stall
// budget), then let stop.
func TestOpencodeStallBudget(t *testing.T) {
	t.Parallel()
	messages := budgetStalls.messages()
	s := newOpencodeSession(t, reply(func(r *fc.Request) fc.Response {
		return fc.Reply(messages[min(len(opencodeNudges(r.Messages)), len(messages)-1)])
	}))
	s.useStopgate()
	if final := s.run("Find out why the test fails."); final != messages[2] {
		s.dump()
		t.Fatalf("the session ended on %q, want %q", final, messages[2])
	}
	if n := len(s.agentRequests()); n != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3", n)
	}
	assertBudgetNudges(t, s.lastNudges())
}

// TestOpencodeBrokenHookFailsOpen: the plugin with a broken stopgate configuration, or a hook
// command that crashes, prints garbage or is not there, lets the session stop: one request,
// nothing reaches the model.
func TestOpencodeBrokenHookFailsOpen(t *testing.T) {
	t.Parallel()
	const stalled = "I read the parser. Let me check the tests."
	tests := []struct {
		name    string
		command func(s *opencodeSession) string // "" keeps the installed stopgate
		setup   func(t *testing.T, s *opencodeSession)
	}{
		{"stopgate with a config file broken after install", nil, func(t *testing.T, s *opencodeSession) { breakConfig(t, s.home) }},
		{"script exits 1 with garbage", func(s *opencodeSession) string { return writeScript(s.t, s.home, "crash", crashHook) }, nil},
		{"script prints garbage and exits 0", func(s *opencodeSession) string {
			return writeScript(s.t, s.home, "garbage", `cat >/dev/null; echo 'not JSON {"decision":"block"'`)
		}, nil},
		{"command not found", func(s *opencodeSession) string { return filepath.Join(s.home, "no-such-stopgate") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newOpencodeSession(t, reply(func(*fc.Request) fc.Response { return fc.Reply(stalled) }))
			s.useStopgate()
			if tt.command != nil {
				plugin := filepath.Join(s.project, "stopgate-plugin.js")
				src := readFileString(t, plugin)
				i := strings.Index(src, "const COMMAND = ")
				j := strings.Index(src[i:], ";\n")
				cmd, _ := json.Marshal(tt.command(s))
				writeFile(t, plugin, src[:i]+"const COMMAND = "+string(cmd)+src[i+j:])
			}
			if tt.setup != nil {
				tt.setup(t, s)
			}
			if final := s.run("Fix the parser."); final != stalled {
				s.dump()
				t.Fatalf("the session ended on %q, want the stalled message %q", final, stalled)
			}
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
		})
	}
}

// readFileString reads path, failing the test when it cannot.
func readFileString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
