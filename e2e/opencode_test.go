package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	fc "github.com/stopgate/stopgate/e2e/internal/fakechat"
)

// The scenarios below run opencode 1.18.33 as a headless server (`opencode serve`) with
// stopgate's plugin installed by `stopgate hook install opencode --project`, the model scripted
// per request by a Chat Completions server on loopback, and assert on the requests the model
// server received, on the session's messages, and on the payloads the plugin handed the hook
// (the test wraps the plugin's command so that each payload is saved first).
//
// How opencode is driven offline: the project's opencode.json defines a provider "fake" of
// the bundled @ai-sdk/openai-compatible package whose baseURL is the fake server's /v1, and
// makes fake/fake-model the model; OPENCODE_DISABLE_MODELS_FETCH, _AUTOUPDATE, _LSP_DOWNLOAD,
// _DEFAULT_PLUGINS and _SHARE keep it off the network, and the npm and bun registries point at
// a closed loopback port, so the background install opencode starts for its config folder
// fails at once instead of reaching out. The plugin is loaded from its file:// URL, with no
// package to install. `opencode run` is not used: it exits as soon as the session first goes
// idle, before a continuation the plugin sends can run; a server lives on, as the TUI does.
//
// Two traits of opencode serve's HTTP server that a client must respect, or a request hangs for
// good: its port accepts connections a moment before it prints that it is listening, and a
// request accepted then is never answered (start waits for the line); and a request that
// declares a JSON body but sends none waits for it (call sets Content-Type only with a body).
// Every connection opencode opens in these scenarios is to 127.0.0.1 (checked with
// strace -f -e trace=connect through STOPGATE_OPENCODE).

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
	// hookTimeout is the plugin's wait for the hook (its TIMEOUT_MS): a hook run without a
	// done marker is taken as still deciding for that long.
	hookTimeout time.Duration
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

// useStopgate installs the plugin in the project's opencode.json the way a user would, and
// makes it capture each payload it hands the hook (see payloads).
func (s *opencodeSession) useStopgate() {
	s.t.Helper()
	installHook(s.t, s.sessionDirs, s.env, "opencode")
	s.setCommand("")
	src := readFileString(s.t, s.pluginPath())
	var ms int64
	if i := strings.Index(src, "const TIMEOUT_MS = "); i < 0 {
		s.t.Fatalf("no TIMEOUT_MS in the installed plugin:\n%s", src)
	} else if _, err := fmt.Sscanf(src[i+len("const TIMEOUT_MS = "):], "%d;", &ms); err != nil || ms <= 0 {
		s.t.Fatalf("the installed plugin's TIMEOUT_MS: %v", err)
	}
	s.hookTimeout = time.Duration(ms) * time.Millisecond
}

// pluginPath is the plugin the installer wrote.
func (s *opencodeSession) pluginPath() string { return filepath.Join(s.project, "stopgate-plugin.js") }

// setCommand points the installed plugin at the shell command cmd ("" keeps the installed
// one), wrapped so that the payload is first saved in the capture directory, then fed to cmd,
// and a done marker beside it is written once cmd exits (see hookRunning). cmd's output and
// exit status are the wrapper's.
func (s *opencodeSession) setCommand(cmd string) {
	s.t.Helper()
	src := readFileString(s.t, s.pluginPath())
	i := strings.Index(src, "const COMMAND = ")
	j := strings.Index(src[i:], ";\n")
	if i < 0 || j < 0 {
		s.t.Fatalf("no COMMAND in the installed plugin:\n%s", src)
	}
	if cmd == "" {
		if err := json.Unmarshal([]byte(src[i+len("const COMMAND = "):i+j]), &cmd); err != nil {
			s.t.Fatalf("the installed plugin's COMMAND: %v", err)
		}
	}
	wrapped := fmt.Sprintf(`f=%s/idle-$(date +%%s%%N).json; cat > "$f"; %s < "$f"; rc=$?; : > "$f.done"; exit $rc`, shellQuote(s.capture), cmd)
	b, _ := json.Marshal(wrapped)
	writeFile(s.t, s.pluginPath(), src[:i]+"const COMMAND = "+string(b)+src[i+j:])
}

// setTimeout sets the installed plugin's wait for the hook.
func (s *opencodeSession) setTimeout(d time.Duration) {
	s.t.Helper()
	src := readFileString(s.t, s.pluginPath())
	i := strings.Index(src, "const TIMEOUT_MS = ")
	j := strings.Index(src[i:], ";\n")
	if i < 0 || j < 0 {
		s.t.Fatalf("no TIMEOUT_MS in the installed plugin:\n%s", src)
	}
	writeFile(s.t, s.pluginPath(), src[:i]+fmt.Sprintf("const TIMEOUT_MS = %d", d.Milliseconds())+src[i+j:])
	s.hookTimeout = d
}

// hookRunning reports whether a hook run the plugin started may still be deciding: its payload
// is captured, it has no done marker, and the plugin's timeout has not passed since.
func (s *opencodeSession) hookRunning() bool {
	for _, p := range capturedPaths(s.t, s.capture, "idle-*.json") {
		if _, err := os.Stat(p + ".done"); err == nil {
			continue
		}
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) < s.hookTimeout+2*time.Second {
			return true
		}
	}
	return false
}

// payloads returns the payloads the plugin handed the hook, in order, decoded.
func (s *opencodeSession) payloads() []map[string]any {
	s.t.Helper()
	return decodePayloads(s.t, capturedPaths(s.t, s.capture, "idle-*.json"), "session.idle payload")
}

// assertPayloads checks the plugin's payloads: one per stop, stop_hook_active as active says,
// each naming the session and carrying its messages; with stateKept, stopgate kept state for
// the session.
func (s *opencodeSession) assertPayloads(active []bool, stateKept bool) {
	s.t.Helper()
	ps := s.payloads()
	if len(ps) != len(active) {
		s.dump()
		s.t.Fatalf("the plugin handed the hook %d payloads, want %d", len(ps), len(active))
	}
	for i, p := range ps {
		if ev, _ := p["hook_event_name"].(string); ev != "session.idle" {
			s.t.Errorf("payload %d: hook_event_name = %q, want session.idle", i, ev)
		}
		if id, _ := p["session_id"].(string); id != s.id {
			s.t.Errorf("payload %d: session_id = %q, want %q", i, id, s.id)
		}
		if got, _ := p["stop_hook_active"].(bool); got != active[i] {
			s.t.Errorf("payload %d: stop_hook_active = %v, want %v", i, got, active[i])
		}
		if msgs, _ := p["messages"].([]any); len(msgs) < 2 {
			s.t.Errorf("payload %d carries %d messages, want the prompt and a reply at least", i, len(msgs))
		}
	}
	if stateKept {
		if names, _ := filepath.Glob(filepath.Join(s.state, "*opencode-"+s.id+"*")); len(names) == 0 {
			entries, _ := os.ReadDir(s.state)
			var have []string
			for _, e := range entries {
				have = append(have, e.Name())
			}
			s.t.Errorf("stopgate kept no state for session %s in %s (it holds %q)", s.id, s.state, have)
		}
	}
}

// opencodeListening is what `opencode serve` prints once it answers requests. Its port accepts
// connections a moment earlier, and a request accepted then is never answered (1.18.33), so
// start waits for this line before its first request.
const opencodeListening = "opencode server listening on"

// lockedBuffer is a bytes.Buffer safe for the writes of a running command and the test's reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// tail returns the last n bytes of what was written.
func (b *lockedBuffer) tail(n int) string {
	s := b.String()
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// start starts `opencode serve` in the project directory and waits until it answers.
func (s *opencodeSession) start() {
	s.t.Helper()
	bin := opencodeCLI.binary(s.t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "--port", fmt.Sprint(port), "--hostname", "127.0.0.1", "--print-logs")
	cmd.Dir, cmd.Env = s.project, s.env
	cmd.WaitDelay = 5 * time.Second
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		cancel()
		s.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.t.Cleanup(func() {
		cancel()
		<-exited
		if s.t.Failed() {
			s.t.Logf("opencode serve output: %s", out.tail(6000))
		}
	})
	s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), opencodeListening) {
		select {
		case <-exited:
			s.t.Fatalf("opencode serve exited before it listened: %s", out.tail(3000))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("opencode serve did not print %q within a minute: %s", opencodeListening, out.tail(3000))
		}
	}
	for {
		if _, err := s.callTimeout("GET", "/session", nil, 5*time.Second); err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("opencode serve did not answer within a minute: %s", out.tail(3000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// releaseDeadLocks removes the locks that an opencode process which has exited left in the
// home's state directory. `opencode plugin` (1.18.33) exits while its background dependency
// installs still hold their locks, and opencode takes a lock as abandoned only when its
// heartbeat is a minute old (it never checks the pid), so the next `opencode serve` would wait
// that minute before it answered. A lock whose pid is still alive is left alone.
func (s *opencodeSession) releaseDeadLocks() {
	s.t.Helper()
	metas, _ := filepath.Glob(filepath.Join(s.home, ".local", "state", "opencode", "locks", "*.lock", "meta.json"))
	for _, meta := range metas {
		var m struct{ PID int }
		if err := json.Unmarshal([]byte(readFileString(s.t, meta)), &m); err != nil || m.PID <= 0 {
			s.t.Fatalf("opencode lock %s: no pid (%v)", meta, err)
		}
		if err := syscall.Kill(m.PID, 0); !errors.Is(err, syscall.ESRCH) {
			continue
		}
		if err := os.RemoveAll(filepath.Dir(meta)); err != nil {
			s.t.Fatal(err)
		}
	}
}

// call sends an API request to the opencode server and returns the body.
func (s *opencodeSession) call(method, path string, body any) ([]byte, error) {
	return s.callTimeout(method, path, body, runTimeout)
}

// callTimeout is call, giving up after timeout.
func (s *opencodeSession) callTimeout(method, path string, body any, timeout time.Duration) ([]byte, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		// Only with a body: opencode's server waits for the body of any request that declares
		// one, so a GET carrying this header is never answered.
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
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

// run creates a session, sends prompt, waits until the session has settled (idle, no hook run
// deciding, and no model request for opencodeSettle), and returns the text of its last
// assistant message.
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
		busy := bytes.Contains(st, []byte(s.id)) || s.hookRunning()
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
	for i, p := range capturedPaths(s.t, s.capture, "idle-*.json") {
		b, _ := os.ReadFile(p)
		_, err := os.Stat(p + ".done")
		s.t.Logf("payload %d (hook done: %v): %.600s", i, err == nil, b)
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
	s.assertPayloads([]bool{false, true}, true)
	if nudges, _ := s.payloads()[1]["nudges"].([]any); len(nudges) != 1 {
		t.Errorf("the second payload lists %d nudges sent, want 1: %v", len(nudges), nudges)
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
				s.assertPayloads([]bool{false}, true)
				assertOpencodeTodos(t, s.payloads()[0], len(tt.items), tt.done)
				return
			}
			if final != tt.final {
				s.dump()
				t.Fatalf("the session ended on %q, want %q", final, tt.final)
			}
			tt.assertNudge(t, all)
			s.assertPayloads([]bool{false, true}, true)
			assertOpencodeTodos(t, s.payloads()[0], len(tt.items), tt.done)
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
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a legitimate end was nudged: %q", all)
			}
			s.assertPayloads([]bool{false}, true)
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
	s.assertPayloads([]bool{false, true, true}, true)
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
		{"hook runs out of time", func(s *opencodeSession) string { return writeScript(s.t, s.home, "slow", slowHook) },
			func(t *testing.T, s *opencodeSession) { s.setTimeout(time.Second) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newOpencodeSession(t, reply(func(*fc.Request) fc.Response { return fc.Reply(stalled) }))
			s.useStopgate()
			if tt.command != nil {
				s.setCommand(tt.command(s))
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
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a broken hook's output reached the model: %q", all)
			}
			s.assertPayloads([]bool{false}, false)
		})
	}
}

// assertOpencodeTodos checks that payload carries the todo list the model wrote: n items, the
// first done of them completed.
func assertOpencodeTodos(t *testing.T, payload map[string]any, n, done int) {
	t.Helper()
	todos, _ := payload["todos"].([]any)
	if len(todos) != n {
		t.Fatalf("the payload carries %d todos, want %d: %v", len(todos), n, payload["todos"])
	}
	for i, td := range todos {
		m, _ := td.(map[string]any)
		want := "pending"
		if i < done {
			want = "completed"
		}
		if got, _ := m["status"].(string); got != want {
			t.Errorf("todo %d: status %q, want %q", i, got, want)
		}
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
