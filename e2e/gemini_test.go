package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fg "github.com/stopgate/stopgate/e2e/internal/fakegemini"
	"github.com/stopgate/stopgate/harness/gemini"
)

// The scenarios below run Gemini CLI 0.61.0 (`gemini -p`) with `stopgate hook gemini-cli` as
// the project's AfterAgent hook, the model scripted per request by a Gemini API server on
// loopback, and assert on the requests the model server received, on the AfterAgent payloads
// Gemini CLI sent, on its session file, and on what it printed. Each one runs in its own home,
// project and state directory and on its own server, so they run in parallel.
//
// How Gemini CLI is driven offline: GOOGLE_GEMINI_BASE_URL points its Gemini API client at the
// fake server (http://127.0.0.1:PORT; requests go to /v1beta/models/MODEL:streamGenerateContent
// ?alt=sse), with GEMINI_API_KEY=test. That variable alone would select the "gateway" auth type,
// which 0.61.0's non-interactive auth check rejects ("Invalid auth method selected."), so the
// user settings select "gemini-api-key" (security.auth.selectedType), whose client honours the
// base URL too. Gemini CLI runs no hooks at all, user hooks included, in a folder it does not
// trust (folder trust is on by default), so ~/.gemini/trustedFolders.json trusts the project,
// as a user's "trust this folder" does. `-m gemini-2.5-flash` keeps the model router from
// asking a classifier model and is a model that gets the write_todos tool; --yolo runs every
// tool call without asking.

// geminiVersion is the Gemini CLI release the scenarios were written against, the one
// scripts/install-harnesses.sh installs.
const geminiVersion = "0.61.0"

// geminiModel is the model the scenarios ask for.
const geminiModel = "gemini-2.5-flash"

// geminiCLI is the Gemini CLI; its --version runs in a throwaway home, as the CLI writes there.
var geminiCLI = &harnessCLI{
	name: "Gemini CLI", env: "STOPGATE_GEMINI", bin: "gemini", want: geminiVersion, isolate: true,
	pinned: func(v string) bool { return strings.TrimSpace(v) == geminiVersion },
}

// geminiBinary returns the Gemini CLI to drive (see harnessCLI.binary).
func geminiBinary(t *testing.T) string {
	t.Helper()
	return geminiCLI.binary(t)
}

// geminiSession is one scenario's world: a scripted model server, a temporary home and
// project directory, and the AfterAgent hooks Gemini CLI will run.
type geminiSession struct {
	sessionDirs
	t      *testing.T
	srv    *fg.Server
	env    []string
	stderr string // what the last run printed on stderr
}

// geminiHook is one command handler of an AfterAgent hook.
type geminiHook struct {
	command string
	timeout time.Duration // 0 leaves Gemini CLI's default (60 s)
}

// newGeminiSession starts a model server answering with script and lays out a fresh home and
// project directory. Every AfterAgent payload Gemini CLI sends is captured (see payloads) by an
// AfterAgent hook in the user settings, which prints nothing and so allows every stop.
func newGeminiSession(t *testing.T, script fg.Script) *geminiSession {
	t.Helper()
	s := &geminiSession{sessionDirs: newSessionDirs(t, "payloads"), t: t}
	s.srv = fg.Start(script)
	t.Cleanup(s.srv.Close)
	s.setUserHooks()
	trusted, err := json.Marshal(map[string]string{s.project: "TRUST_FOLDER"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.home, ".gemini", "trustedFolders.json"), string(trusted))
	s.env = append(s.baseEnv(),
		"GOOGLE_GEMINI_BASE_URL="+s.srv.URL,
		"GEMINI_API_KEY=test",
		"NO_COLOR=1",
		// Gemini CLI relaunches itself in a child node process to raise the heap limit; skipping
		// that saves a second start (about a second a run) and changes nothing the hooks see.
		"GEMINI_CLI_NO_RELAUNCH=true",
	)
	return s
}

// geminiSettings is a settings.json whose AfterAgent event runs hooks; user settings also
// select the API-key auth and turn off what would reach the network.
func geminiSettings(user bool, hooks ...geminiHook) map[string]any {
	var handlers []map[string]any
	for _, h := range hooks {
		m := map[string]any{"type": "command", "command": h.command}
		if h.timeout > 0 {
			m["timeout"] = h.timeout.Milliseconds()
		}
		handlers = append(handlers, m)
	}
	settings := map[string]any{"hooks": map[string]any{gemini.EventAfterAgent: []any{map[string]any{"hooks": handlers}}}}
	if user {
		settings["security"] = map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}
		settings["privacy"] = map[string]any{"usageStatisticsEnabled": false}
		settings["general"] = map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
	}
	return settings
}

// writeSettings writes settings as JSON to path.
func (s *geminiSession) writeSettings(path string, settings map[string]any) {
	s.t.Helper()
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		s.t.Fatal(err)
	}
	writeFile(s.t, path, string(b))
}

// setUserHooks makes the capture hook, then hooks, the AfterAgent hooks of the user settings
// (~/.gemini/settings.json). The capture hook writes each payload to its own file in s.capture,
// named so the names sort in arrival order.
func (s *geminiSession) setUserHooks(hooks ...geminiHook) {
	s.t.Helper()
	capture := geminiHook{command: fmt.Sprintf(`cat > %s/after-$(date +%%s%%N).json`, shellQuote(s.capture)), timeout: 30 * time.Second}
	s.writeSettings(filepath.Join(s.home, ".gemini", "settings.json"), geminiSettings(true, append([]geminiHook{capture}, hooks...)...))
}

// setProjectHooks makes hooks the project's AfterAgent hooks (.gemini/settings.json).
func (s *geminiSession) setProjectHooks(hooks ...geminiHook) {
	s.t.Helper()
	s.writeSettings(filepath.Join(s.project, ".gemini", "settings.json"), geminiSettings(false, hooks...))
}

// useStopgate installs the stopgate hook in the project's settings the way a user would, with
// `stopgate hook install gemini-cli --project --state-dir DIR` run in the project directory;
// flags are more hook flags for the installed command. It checks that the settings now run
// `stopgate hook gemini-cli` on AfterAgent, with the timeout in milliseconds.
func (s *geminiSession) useStopgate(flags ...string) {
	s.t.Helper()
	out := installHook(s.t, s.sessionDirs, s.env, "gemini-cli", flags...)
	bin := stopgateBinary(s.t)
	b, err := os.ReadFile(filepath.Join(s.project, ".gemini", "settings.json"))
	if err != nil {
		s.t.Fatalf("stopgate hook install wrote no project settings: %v\n%s", err, out)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Name, Type, Command string
				Timeout             int
			}
		}
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		s.t.Fatalf("the installed settings are not JSON: %v\n%s", err, b)
	}
	for _, group := range settings.Hooks[gemini.EventAfterAgent] {
		for _, h := range group.Hooks {
			if h.Type == "command" && h.Name == "stopgate" && h.Timeout == 60000 &&
				strings.HasPrefix(h.Command, bin+" hook gemini-cli") && strings.Contains(h.Command, s.state) {
				return
			}
		}
	}
	s.t.Fatalf("the installed settings run no `%s hook gemini-cli` with state in %s on AfterAgent:\n%s", bin, s.state, b)
}

// geminiResult is Gemini CLI's JSON output (`gemini -p … -o json`), the fields the scenarios
// read. Response is the text of every model response of the run, concatenated.
type geminiResult struct {
	SessionID string          `json:"session_id"`
	Response  string          `json:"response"`
	Error     json.RawMessage `json:"error"`
}

// run runs `gemini -p prompt` in the project directory against the model server and returns
// its JSON output. It fails the test if gemini exits non-zero or prints no JSON.
func (s *geminiSession) run(prompt string) geminiResult {
	s.t.Helper()
	gemini := geminiBinary(s.t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, gemini, "-p", prompt, "-m", geminiModel, "--yolo", "-o", "json")
	cmd.Dir = s.project
	cmd.Env = s.env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	s.stderr = stderr.String()
	s.t.Logf("gemini -p ran %v, %d requests to the model server", time.Since(start).Round(time.Millisecond), len(s.srv.Requests()))
	for _, r := range s.srv.Requests() {
		if !r.Generate() {
			s.t.Logf("gemini also sent %s %s?%s", r.Method, r.Path, r.RawQuery)
		}
	}
	if err != nil {
		s.dump()
		s.t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	var r geminiResult
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r); err != nil || r.SessionID == "" {
		s.dump()
		s.t.Fatalf("gemini -p printed no JSON result (%v):\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	return r
}

// dump logs what the model server saw and what the hooks were given, for a failing test.
func (s *geminiSession) dump() {
	s.t.Helper()
	for _, r := range s.srv.Requests() {
		line := fmt.Sprintf("request %d: %s %s?%s, %d contents", r.Seq, r.Method, r.Path, r.RawQuery, len(r.Contents))
		if last := r.LastContent(); last.Role != "" {
			b, _ := json.Marshal(last.Parts)
			line += fmt.Sprintf("; last %s: %.400s", last.Role, b)
		}
		if r.Response != nil {
			b, _ := json.Marshal(r.Response.Parts)
			line += fmt.Sprintf("; answered %.300s", b)
		}
		s.t.Log(line)
	}
	logPayloads(s.t, "AfterAgent payload", s.payloads())
	s.t.Logf("gemini stderr:\n%s", s.stderr)
}

// agentRequests returns the agent loop's generate requests, in order: those offering
// run_shell_command. (Gemini CLI 0.61.0 sends no other requests in these runs; a side request,
// for a next-speaker check or a loop check, would offer no tools.)
func (s *geminiSession) agentRequests() []*fg.Request {
	return s.srv.GenerateRequests(isGeminiAgentRequest)
}

func isGeminiAgentRequest(r *fg.Request) bool { return r.HasTool("run_shell_command") }

// payloadPaths returns the captured AfterAgent payload files, in arrival order.
func (s *geminiSession) payloadPaths() []string {
	s.t.Helper()
	return capturedPaths(s.t, s.capture, "after-*.json")
}

// payloads returns the AfterAgent payloads Gemini CLI sent, in order, decoded.
func (s *geminiSession) payloads() []map[string]any {
	s.t.Helper()
	return decodePayloads(s.t, s.payloadPaths(), "AfterAgent payload")
}

// sessionRecords returns the message records of the session file the first payload names, as
// the last record of each message id wrote them, in order.
func (s *geminiSession) sessionRecords() []map[string]any {
	s.t.Helper()
	ps := s.payloads()
	if len(ps) == 0 {
		s.t.Fatal("no AfterAgent payload names the session file")
	}
	path, _ := ps[0]["transcript_path"].(string)
	b, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatalf("reading the session file: %v", err)
	}
	var ids []string
	byID := map[string]map[string]any{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		id, ok := m["id"].(string)
		if !ok {
			continue
		}
		if _, seen := byID[id]; !seen {
			ids = append(ids, id)
		}
		byID[id] = m
	}
	out := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	return out
}

// geminiNudges returns the continuation prompts r carries, in order: the user contents after
// the first that hold text and no function response, other than Gemini CLI's own loop
// warnings ("System: Potential loop detected…"). An AfterAgent hook's denial reaches the model
// as exactly such a content: the reason alone, as a user message.
func geminiNudges(r *fg.Request) []string {
	var out []string
	for i, c := range r.Contents {
		if i == 0 || c.Role != "user" || len(c.Responses()) > 0 {
			continue
		}
		if text := c.Text(); text != "" && !strings.HasPrefix(text, "System: ") {
			out = append(out, text)
		}
	}
	return out
}

// geminiPending returns the nudges in r after the model's last content: what the AfterAgent
// hooks said about the response the model just gave, if they denied it.
func geminiPending(r *fg.Request) []string {
	i := len(r.Contents)
	for i > 0 && r.Contents[i-1].Role != "model" {
		i--
	}
	if i == 0 {
		return nil // the model has not answered yet
	}
	// A placeholder first content, which geminiNudges passes over as the prompt's.
	return geminiNudges(&fg.Request{Contents: append([]fg.Content{{}}, r.Contents[i:]...)})
}

// lastNudges returns the nudges carried by the last agent request: every nudge of the run,
// since each request carries the whole conversation.
func (s *geminiSession) lastNudges() []string {
	reqs := s.agentRequests()
	if len(reqs) == 0 {
		return nil
	}
	return geminiNudges(reqs[len(reqs)-1])
}

// hasResponse reports whether r carries a response of the function name.
func hasResponse(r *fg.Request, name string) bool { return len(r.FunctionResponses(name)) > 0 }

// shellCall is a run_shell_command call.
func shellCall(command, description string) fg.Part {
	return fg.Call("run_shell_command", map[string]any{"command": command, "description": description})
}

// todosCall is a write_todos call setting the list to items with their statuses.
func todosCall(items []string, done int) fg.Part {
	var todos []map[string]string
	for i, it := range items {
		status := "pending"
		if i < done {
			status = "completed"
		}
		todos = append(todos, map[string]string{"description": it, "status": status})
	}
	return fg.Call("write_todos", map[string]any{"todos": todos})
}

// assertGeminiCompleted checks that the run ended normally with text as its final response:
// no error in the JSON output, the output's concatenated response ending with text, and the
// session file's last model message being text.
func assertGeminiCompleted(t *testing.T, s *geminiSession, res geminiResult, text string) {
	t.Helper()
	if len(res.Error) > 0 && string(res.Error) != "null" {
		t.Errorf("the run ended with error %s", res.Error)
	}
	if !strings.HasSuffix(res.Response, text) {
		t.Errorf("the response %q does not end with %q", res.Response, text)
	}
	var last string
	for _, m := range s.sessionRecords() {
		if m["type"] == "gemini" {
			last, _ = m["content"].(string)
		}
	}
	if last != text {
		t.Errorf("the session's last model message is %q, want %q", last, text)
	}
}

// assertGeminiPayloads checks the AfterAgent payloads Gemini CLI sent: one per stop, with
// stop_hook_active as active[i], prompt_response holding the message that stop ended on
// (messages[i]), prompt the run's prompt, and each shaped like the recorded fixture.
//
// prompt_response does not end with the message: Gemini CLI 0.61.0 joins a response's streamed
// chunks with spaces, and the first chunk's entry holds the whole text (merged into it), so a
// response streamed as "I ran the", " tests; t", "hey pass." reads "I ran the tests; they
// pass.  tests; t hey pass.". Each response's full text is in it, though.
func assertGeminiPayloads(t *testing.T, s *geminiSession, prompt string, active []bool, messages []string) {
	t.Helper()
	ps := s.payloads()
	if len(ps) != len(active) {
		s.dump()
		t.Fatalf("Gemini CLI ran the AfterAgent hooks %d times, want %d", len(ps), len(active))
	}
	for i, p := range ps {
		resp, _ := p["prompt_response"].(string)
		if p["hook_event_name"] != gemini.EventAfterAgent || p["stop_hook_active"] != active[i] || p["prompt"] != prompt || !strings.Contains(resp, messages[i]) {
			t.Errorf("stop %d: hook_event_name=%v stop_hook_active=%v prompt=%q prompt_response=%q, want AfterAgent, %v, %q, …%q…",
				i, p["hook_event_name"], p["stop_hook_active"], p["prompt"], resp, active[i], prompt, messages[i])
		}
		assertGeminiPayloadShape(t, p)
	}
}

// assertGeminiDecided checks that stopgate ran cleanly at every stop and kept the session's
// nudge count: Gemini CLI shows a hook's stderr as a "Hook system message" when its stdout is
// empty and reports a hook that failed or timed out, so a stopgate that failed open, noted
// anything, or crashed would show on gemini's stderr; and the state file records consecutive
// continuations as the last decision left them.
func assertGeminiDecided(t *testing.T, s *geminiSession, lastConsecutive int) {
	t.Helper()
	for _, bad := range []string{"Hook system message: stopgate", "stopgate:", "Hook execution error"} {
		if strings.Contains(s.stderr, bad) {
			t.Errorf("gemini's stderr shows %q: stopgate did not decide cleanly:\n%s", bad, s.stderr)
		}
	}
	ps := s.payloads()
	if len(ps) == 0 {
		return
	}
	session, _ := ps[0]["session_id"].(string)
	b, err := os.ReadFile(filepath.Join(s.state, "gemini-"+session+".json"))
	if err != nil {
		t.Fatalf("stopgate kept no state for session %s: %v", session, err)
	}
	var st struct {
		Run    time.Time `json:"run"`
		Nudges struct {
			Consecutive int `json:"consecutive"`
		} `json:"nudges"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("state file: %v\n%s", err, b)
	}
	if st.Run.IsZero() || st.Nudges.Consecutive != lastConsecutive {
		t.Errorf("state %s: want a known run and %d continuations in a row at the last stop", b, lastConsecutive)
	}
}

// TestGeminiTrailingPromise: a final response that promises an action it did not take is
// denied once, with the promising sentence quoted in the prompt the model receives next; the
// model then acts (a shell command) and sums up, and that stop is allowed.
//
// Observed in 0.61.0: the second AfterAgent payload has stop_hook_active false, because the
// model called a tool after the denial (Gemini CLI sends the tool result as a new request, which
// it does not count as part of the retry), and its prompt_response holds every response of the
// prompt, the stalled one included, each followed by its streamed chunks.
func TestGeminiTrailingPromise(t *testing.T) {
	t.Parallel()
	const (
		prompt  = "Fix the off-by-one in the parser."
		promise = "Let me check the tests."
		stalled = "I read the parser and found the off-by-one. " + promise
		acting  = "Right, running them now."
		summary = "I fixed the off-by-one in the parser and ran the tests: they pass."
	)
	s := newGeminiSession(t, func(r *fg.Request) fg.Response {
		switch {
		case !isGeminiAgentRequest(r):
			return fg.Reply(fg.Text("OK"))
		case hasResponse(r, "run_shell_command"):
			return fg.Reply(fg.Text(summary))
		case len(geminiPending(r)) > 0:
			return fg.Reply(fg.Text(acting), shellCall("echo ok", "Run the tests"))
		default:
			return fg.Reply(fg.Text(stalled))
		}
	})
	s.useStopgate()
	res := s.run(prompt)

	assertGeminiCompleted(t, s, res, summary)
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	got := geminiPending(reqs[1])
	if len(got) != 1 || !quotes(got[0], promise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, promise)
	}
	if last := reqs[1].LastContent(); last.Role != "user" || len(last.Parts) != 1 || last.Parts[0].Text != got[0] {
		t.Errorf("the nudge did not arrive as a user message holding the reason alone: %+v", last)
	}
	if out := reqs[2].FunctionResponses("run_shell_command"); len(out) != 1 || !strings.Contains(out[0].Output(), "Output: ok") {
		t.Errorf("the nudged command's result = %+v, want its output", out)
	}
	all := s.lastNudges()
	t.Logf("nudges the model received: %q", all)
	if len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertGeminiPayloads(t, s, prompt, []bool{false, false}, []string{stalled, summary})
	resp, _ := s.payloads()[1]["prompt_response"].(string)
	t.Logf("second prompt_response: %q", resp)
	if i, j, k := strings.Index(resp, stalled), strings.Index(resp, acting), strings.LastIndex(resp, summary); i < 0 || j < i || k < j || strings.HasSuffix(resp, summary) {
		t.Errorf("second prompt_response = %q, want every response of the prompt in order, the last not at the end (its chunks follow it)", resp)
	}
	assertGeminiDecided(t, s, 0)
}

// TestGeminiTodos: open items on the agent's write_todos list block the stop, naming the open
// item; a list whose items are all completed does not.
func TestGeminiTodos(t *testing.T) {
	t.Parallel()
	for _, tt := range todoCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const prompt = "Prepare the release."
			// The script walks a fixed plan: write the list with tt.done items completed, stop;
			// after a nudge, write it again with every item completed, and stop again.
			s := newGeminiSession(t, func(r *fg.Request) fg.Response {
				switch writes := len(r.FunctionResponses("write_todos")); {
				case !isGeminiAgentRequest(r):
					return fg.Reply(fg.Text("OK"))
				case writes == 0:
					return fg.Reply(todosCall(tt.items, tt.done))
				case len(geminiNudges(r)) > 0 && writes == 1:
					return fg.Reply(todosCall(tt.items, len(tt.items)))
				case len(geminiNudges(r)) > 0:
					return fg.Reply(fg.Text(tt.final))
				default:
					return fg.Reply(fg.Text(tt.first))
				}
			})
			s.useStopgate()
			want := tt.first
			if tt.open != "" {
				want = tt.final
			}
			res := s.run(prompt)
			if *recordGemini && tt.open != "" {
				recordGeminiFixtures(t, s)
			}
			assertGeminiCompleted(t, s, res, want)

			reqs := s.agentRequests()
			if !reqs[0].HasTool("write_todos") {
				t.Fatalf("the first request's tools %v offer no write_todos", reqs[0].ToolNames())
			}
			// One request a step: the list, the stop; after a nudge, the list again, the stop.
			wantReqs := 2
			if tt.open != "" {
				wantReqs = 4
			}
			if len(reqs) != wantReqs {
				s.dump()
				t.Fatalf("the model was asked %d times, want %d", len(reqs), wantReqs)
			}
			all := s.lastNudges()
			t.Logf("nudges the model received: %q", all)
			if tt.open == "" {
				if len(all) != 0 {
					t.Errorf("a run with every item completed was nudged: %q", all)
				}
				assertGeminiPayloads(t, s, prompt, []bool{false}, []string{tt.first})
				assertGeminiDecided(t, s, 0)
				return
			}
			tt.assertNudge(t, all)
			assertGeminiPayloads(t, s, prompt, []bool{false, false}, []string{tt.first, tt.final})
			assertGeminiDecided(t, s, 0)
		})
	}
}

// TestGeminiLegitimateEnds: a plain completion summary, and a question to the user in
// interactive mode (the default), are allowed with no denial: one request, one stop.
func TestGeminiLegitimateEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range legitimateEnds {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const prompt = "Add a --verbose flag."
			s := newGeminiSession(t, func(r *fg.Request) fg.Response {
				if !isGeminiAgentRequest(r) {
					return fg.Reply(fg.Text("OK"))
				}
				return fg.Reply(fg.Text(tt.message))
			})
			s.useStopgate()
			res := s.run(prompt)
			assertGeminiCompleted(t, s, res, tt.message)
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a legitimate end was nudged: %q", all)
			}
			assertGeminiPayloads(t, s, prompt, []bool{false}, []string{tt.message})
			assertGeminiDecided(t, s, 0)
		})
	}
}

// TestGeminiStallBudget: an agent that keeps stalling is nudged as many times as the stall
// budget allows (2 a run by default), and then allowed to stop. When the model answers each
// denial directly, stop_hook_active is set on every stop after the first; when it runs a
// command first, Gemini CLI 0.61.0 clears the flag, and it is stopgate's state file (the run,
// the count) that holds the budget.
func TestGeminiStallBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		act  bool // run a command after each nudge before stalling again
		// active is stop_hook_active at each of the three stops.
		active []bool
	}{
		{"answering directly", false, []bool{false, true, true}},
		{"acting between stalls", true, []bool{false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const prompt = "Find out why the test fails."
			messages := budgetStalls.messages()
			s := newGeminiSession(t, func(r *fg.Request) fg.Response {
				if !isGeminiAgentRequest(r) {
					return fg.Reply(fg.Text("OK"))
				}
				n := len(geminiNudges(r))
				if tt.act && len(geminiPending(r)) > 0 {
					return fg.Reply(shellCall(fmt.Sprintf("echo step %d", n), "Look into it"))
				}
				return fg.Reply(fg.Text(messages[min(n, len(messages)-1)]))
			})
			s.useStopgate()
			res := s.run(prompt)

			assertGeminiCompleted(t, s, res, messages[2])
			reqs := s.agentRequests()
			want := 3 // a stall, then one per nudge
			if tt.act {
				want = 5 // and a command after each nudge
			}
			if len(reqs) != want {
				s.dump()
				t.Fatalf("the model was asked %d times, want %d", len(reqs), want)
			}
			assertBudgetNudges(t, s.lastNudges())
			assertGeminiPayloads(t, s, prompt, tt.active, messages)
			assertGeminiDecided(t, s, 0)
		})
	}
}

// TestGeminiBrokenHookFailsOpen: an AfterAgent hook that crashes, prints garbage or runs out of
// time lets Gemini CLI stop normally: the stalled response is the final one, the model is asked
// once, and nothing reaches it. What gemini printed on stderr shows the hook did run, and
// failed the way the case means it to.
//
// The last case pins why stopgate never exits non-zero: Gemini CLI 0.61.0 reads any exit
// status but 0 and 1 (here 127, a shell's "command not found") as a denial, with stderr as the
// retry prompt. A hook that cannot be found on every stop loops the run until Gemini CLI's loop
// detector or turn limit ends it; this one fails only once.
func TestGeminiBrokenHookFailsOpen(t *testing.T) {
	t.Parallel()
	const (
		prompt   = "Fix the parser."
		stalled  = "I read the parser. Let me check the tests."
		notFound = "sh: 1: stopgate: not found"
	)
	tests := []struct {
		name string
		// setup installs the broken hook in s.
		setup func(t *testing.T, s *geminiSession)
		// stderr is what gemini's stderr must show about the hook's run.
		stderr []string
		// denied is set when the hook's stderr reaches the model as a retry prompt.
		denied bool
	}{
		{
			name: "stopgate with a config file broken after install",
			setup: func(t *testing.T, s *geminiSession) {
				// install checks the configuration, so break it afterwards, as an edit would.
				s.useStopgate()
				breakConfig(t, s.home)
			},
			// stopgate fails open on purpose: exit 0, nothing on stdout, why on stderr, which
			// Gemini CLI shows as the hook's system message.
			stderr: []string{"Hook system message: stopgate: config "},
		},
		{
			name: "script exits 1 with garbage",
			setup: func(t *testing.T, s *geminiSession) {
				s.setProjectHooks(geminiHook{command: writeScript(t, s.home, "crash", crashHook)})
			},
			stderr: []string{`Hook system message: Warning: panic: {"decision": oops`, "1 failed"},
		},
		{
			name: "script prints garbage and exits 0",
			setup: func(t *testing.T, s *geminiSession) {
				s.setProjectHooks(geminiHook{command: writeScript(t, s.home, "garbage", `cat >/dev/null; echo 'not JSON {"decision":"deny"'`)})
			},
			// Stdout that is not JSON is a system message, not a decision.
			stderr: []string{`Hook system message: not JSON {"decision":"deny"`},
		},
		{
			name: "hook runs out of time",
			setup: func(t *testing.T, s *geminiSession) {
				// exec, so the kill at the 1 s timeout reaches the sleep itself and nothing
				// outlives the run.
				s.setProjectHooks(geminiHook{command: writeScript(t, s.home, "slow", slowHook), timeout: time.Second})
			},
			stderr: []string{"Hook timed out after 1000ms"},
		},
		{
			name: "exit 127 is read as a denial",
			setup: func(t *testing.T, s *geminiSession) {
				marker := shellQuote(filepath.Join(s.home, "failed-once"))
				body := fmt.Sprintf(`cat >/dev/null; [ -e %s ] && exit 0; touch %s; echo %s >&2; exit 127`, marker, marker, shellQuote(notFound))
				s.setProjectHooks(geminiHook{command: writeScript(t, s.home, "missing", body)})
			},
			denied: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newGeminiSession(t, func(r *fg.Request) fg.Response {
				if !isGeminiAgentRequest(r) {
					return fg.Reply(fg.Text("OK"))
				}
				return fg.Reply(fg.Text(stalled))
			})
			tt.setup(t, s)
			res := s.run(prompt)
			assertGeminiCompleted(t, s, res, stalled)
			for _, want := range tt.stderr {
				if !strings.Contains(s.stderr, want) {
					t.Errorf("gemini's stderr lacks %q:\n%s", want, s.stderr)
				}
			}
			all := s.lastNudges()
			if !tt.denied {
				if n := len(s.agentRequests()); n != 1 {
					s.dump()
					t.Errorf("the model was asked %d times, want 1", n)
				}
				if len(all) != 0 {
					t.Errorf("a broken hook's output reached the model: %q", all)
				}
				assertGeminiPayloads(t, s, prompt, []bool{false}, []string{stalled})
				return
			}
			if len(all) != 1 || all[0] != notFound {
				s.dump()
				t.Errorf("the model received %q, want the hook's stderr %q as a retry prompt", all, notFound)
			}
			assertGeminiPayloads(t, s, prompt, []bool{false, true}, []string{stalled, stalled})
		})
	}
}

var recordGemini = flag.Bool("record-gemini", false, "rewrite "+geminiPayloadFixture+" and "+geminiSessionFixture+" from a live run")

// The recorded fixtures: the last AfterAgent payload of TestGeminiTodos's "an open item
// blocks" run (Gemini CLI 0.61.0) and the session file it names, sanitized: the session id, the
// temporary home and project paths replaced by fixed stand-ins (and the project hash by the
// stand-in path's), every key order and value type kept. Regenerate them with
//
//	go test ./e2e -run 'TestGeminiTodos/an_open_item_blocks' -record-gemini
//
// Every scenario checks each live payload against the recorded one's shape (see
// assertGeminiPayloadShape), so a Gemini CLI that adds, drops or retypes a field fails the
// suite. The hook package's tests decode the payload and build a Turn from the session file.
const (
	geminiPayloadFixture = "../harness/gemini/testdata/gemini/afteragent-0.61.0.json"
	geminiSessionFixture = "../harness/gemini/testdata/gemini/session-0.61.0.jsonl"
)

// The stand-ins the sanitized fixtures use.
const (
	geminiFixtureSession = "00000000-0000-4000-8000-0000000000a1"
	geminiFixtureHome    = "/home/user"
	geminiFixtureProject = "/home/user/project"
)

// loadGeminiFixture reads the recorded payload.
func loadGeminiFixture(t *testing.T) map[string]any {
	t.Helper()
	return loadPayloadFixture(t, geminiPayloadFixture, "AfterAgent payload", "-record-gemini")
}

// assertGeminiPayloadShape checks that a live payload has the recorded payload's fields with
// the same JSON types.
func assertGeminiPayloadShape(t *testing.T, p map[string]any) {
	t.Helper()
	if got, want := shape(p), shape(loadGeminiFixture(t)); got != want {
		t.Errorf("the AfterAgent payload is shaped %s, %s is %s", got, geminiPayloadFixture, want)
	}
}

// recordGeminiFixtures writes the session's last AfterAgent payload and its session file,
// sanitized, to the fixture paths.
func recordGeminiFixtures(t *testing.T, s *geminiSession) {
	t.Helper()
	names := s.payloadPaths()
	if len(names) == 0 {
		t.Fatal("no AfterAgent payload to record")
	}
	rawPayload, err := os.ReadFile(names[len(names)-1])
	if err != nil {
		t.Fatal(err)
	}
	p := s.payloads()[len(names)-1]
	id, _ := p["session_id"].(string)
	path, _ := p["transcript_path"].(string)
	rawSession, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		ProjectHash string `json:"projectHash"`
	}
	first, _, _ := bytes.Cut(rawSession, []byte("\n"))
	if err := json.Unmarshal(first, &meta); err != nil || meta.ProjectHash == "" || len(id) < 8 {
		t.Fatalf("the session file's first record %s has no project hash, or the session id %q is short (%v)", first, id, err)
	}
	sum := sha256.Sum256([]byte(geminiFixtureProject))
	base := filepath.Dir(s.home)
	// Longest first: the ids, then the paths.
	r := strings.NewReplacer(
		id, geminiFixtureSession,
		"-"+id[:8]+".jsonl", "-"+geminiFixtureSession[:8]+".jsonl",
		meta.ProjectHash, hex.EncodeToString(sum[:]),
		s.project, geminiFixtureProject,
		s.home, geminiFixtureHome,
		filepath.Join(base, "tmp"), "/tmp",
	)
	writeSanitized(t, r, base, fixtureFile{geminiPayloadFixture, rawPayload}, fixtureFile{geminiSessionFixture, rawSession})
}

// TestGeminiPayloadFixture checks the recorded payload itself: an AfterAgent event with every
// field the hook package reads, naming the recorded session file, and nothing left of the
// machine it was captured on.
func TestGeminiPayloadFixture(t *testing.T) {
	p := loadGeminiFixture(t)
	want := map[string]any{
		"session_id":       geminiFixtureSession,
		"cwd":              geminiFixtureProject,
		"hook_event_name":  gemini.EventAfterAgent,
		"prompt":           "Prepare the release.",
		"stop_hook_active": false,
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s: %s = %v, want %v", geminiPayloadFixture, k, p[k], v)
		}
	}
	resp, _ := p["prompt_response"].(string)
	first, final := "I ran the tests; they pass.", "Updated the changelog as well. All tasks are complete."
	if i, j := strings.Index(resp, first), strings.Index(resp, final); i != 0 || j <= i {
		t.Errorf("%s: prompt_response = %q, want both responses of the run, in order", geminiPayloadFixture, resp)
	}
	tp, _ := p["transcript_path"].(string)
	if dir := geminiFixtureHome + "/.gemini/tmp/project/chats/session-"; !strings.HasPrefix(tp, dir) || !strings.HasSuffix(tp, "-"+geminiFixtureSession[:8]+".jsonl") {
		t.Errorf("transcript_path = %q, want %s…-%s.jsonl", tp, dir, geminiFixtureSession[:8])
	}
	if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(p["timestamp"])); err != nil {
		t.Errorf("timestamp %v is not ISO 8601: %v", p["timestamp"], err)
	}
	for _, f := range []string{geminiPayloadFixture, geminiSessionFixture} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%v (record it with -record-gemini)", err)
		}
		for _, leak := range []string{"/tmp/Test", os.TempDir() + "/Test", "stopgate-e2e"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("%s holds %q", f, leak)
			}
		}
	}
}
