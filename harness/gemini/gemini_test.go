package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"github.com/stopgate/stopgate/hook"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/harness/gemini/chat"
	"github.com/stopgate/stopgate/stall"
)

// The recorded fixtures of Gemini CLI 0.61.0 (see testdata/gemini/README.md).
const (
	geminiPayloadFile = "testdata/gemini/afteragent-0.61.0.json"
	geminiSessionFile = "testdata/gemini/session-0.61.0.jsonl"
)

// geminiChat builds a hand-written Gemini CLI session file in the 0.61.0 shape. Everything in
// it is made up: ids, times and text.
type geminiChat struct {
	t     *testing.T
	id    string
	base  time.Time
	lines []string
	n     int
}

func newGeminiChat(t *testing.T, id string) *geminiChat {
	c := &geminiChat{t: t, id: id, base: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	c.record(map[string]any{"sessionId": id, "projectHash": "h", "startTime": c.ts(0), "lastUpdated": c.ts(0), "kind": "main"})
	return c
}

func (c *geminiChat) ts(sec float64) string {
	return c.at(sec).Format(time.RFC3339Nano)
}

func (c *geminiChat) at(sec float64) time.Time {
	return c.base.Add(time.Duration(sec * float64(time.Second)))
}

func (c *geminiChat) record(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.lines = append(c.lines, string(b))
}

func (c *geminiChat) nextID(prefix string) string {
	c.n++
	return fmt.Sprintf("%s-%d", prefix, c.n)
}

// user writes a user message holding text (a prompt, or a hook's continuation).
func (c *geminiChat) user(sec float64, text string) {
	c.record(map[string]any{"id": c.nextID("u"), "timestamp": c.ts(sec), "type": "user", "content": []any{map[string]any{"text": text}}})
}

// typed writes a message of another type (info, error, warning).
func (c *geminiChat) typed(sec float64, typ, text string) {
	c.record(map[string]any{"id": c.nextID("x"), "timestamp": c.ts(sec), "type": typ, "content": text})
}

// geminiToolUse is one tool call: its name, arguments, status and output.
type geminiToolUse struct {
	name   string
	args   map[string]any
	status string
	output string
}

// model writes a model message with text and calls; when it has calls, the user message
// carrying their responses follows.
func (c *geminiChat) model(sec float64, text string, calls ...geminiToolUse) {
	id := c.nextID("m")
	msg := map[string]any{"id": id, "timestamp": c.ts(sec), "type": "gemini", "content": text, "model": "gemini-2.5-flash"}
	c.record(msg)
	if len(calls) == 0 {
		return
	}
	var tcs, parts []any
	for i, call := range calls {
		cid := fmt.Sprintf("%s-c%d", id, i)
		key := "output"
		if call.status == "error" {
			key = "error"
		}
		resp := map[string]any{"functionResponse": map[string]any{"id": cid, "name": call.name, "response": map[string]any{key: call.output}}}
		tcs = append(tcs, map[string]any{"id": cid, "name": call.name, "args": call.args, "result": []any{resp}, "status": call.status, "timestamp": c.ts(sec + 0.5)})
		parts = append(parts, resp)
	}
	msg["toolCalls"] = tcs
	c.record(msg)
	c.record(map[string]any{"id": c.nextID("r"), "timestamp": c.ts(sec + 0.5), "type": "user", "content": parts})
}

func (c *geminiChat) String() string { return strings.Join(c.lines, "\n") + "\n" }

func (c *geminiChat) read() *chat.GeminiSession {
	c.t.Helper()
	s, err := chat.ReadGemini(strings.NewReader(c.String()), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

func (c *geminiChat) write(dir string) string {
	c.t.Helper()
	p := filepath.Join(dir, "session-"+c.id+".jsonl")
	writeFile(c.t, p, c.String())
	return p
}

// todosArgs are write_todos arguments: pairs of description and status.
func todosArgs(items ...string) map[string]any {
	list := []any{}
	for i := 0; i+1 < len(items); i += 2 {
		list = append(list, map[string]any{"description": items[i], "status": items[i+1]})
	}
	return map[string]any{"todos": list}
}

// runGemini runs one in-process GeminiCLI invocation with payload on stdin.
func runGemini(t *testing.T, payload string, opts *Options) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = GeminiCLI(context.Background(), strings.NewReader(payload), &out, &errOut, opts)
	return out.String(), errOut.String(), code
}

// checkDeny checks stdout is exactly one {"decision":"deny","reason":...} line, and returns
// the reason.
func checkDeny(t *testing.T, stdout string) string {
	t.Helper()
	if !strings.HasPrefix(stdout, `{"decision":"deny","reason":"`) || !strings.HasSuffix(stdout, "\"}\n") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout = %q, want one {\"decision\":\"deny\",\"reason\":…} line", stdout)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	reason, _ := v["reason"].(string)
	if len(v) != 2 || v["decision"] != "deny" || reason == "" {
		t.Fatalf("stdout = %s, want exactly decision and reason", stdout)
	}
	return reason
}

func TestDecodeGeminiPayload(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Payload
	}{
		{
			name: "every field",
			in: `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"AfterAgent","timestamp":"2026-11-01T09:00:00.000Z",` +
				`"prompt":"Fix it.","prompt_response":"Fixed.","stop_hook_active":true,"extra":{"x":1}}`,
			want: Payload{SessionID: "s", TranscriptPath: "/t.jsonl", CWD: "/w", HookEventName: "AfterAgent", Timestamp: "2026-11-01T09:00:00.000Z",
				Prompt: ptr("Fix it."), PromptResponse: ptr("Fixed."), StopHookActive: true},
		},
		{name: "nothing", in: `{}`},
		{name: "nulls are absent", in: `{"prompt":null,"prompt_response":null,"stop_hook_active":null,"session_id":null}`},
		{name: "empty is not absent", in: `{"prompt":"","prompt_response":""}`, want: Payload{Prompt: ptr(""), PromptResponse: ptr("")}},
		{
			name: "wrong types are read as absent",
			in:   `{"session_id":7,"cwd":[],"timestamp":1,"prompt":{"text":"x"},"prompt_response":["x"],"stop_hook_active":"true","transcript_path":"/t"}`,
			want: Payload{TranscriptPath: "/t", Ignored: []string{"session_id", "cwd", "timestamp", "prompt", "prompt_response", "stop_hook_active"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodePayload(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
	for _, in := range []string{"", "  ", "null", "[]", `"AfterAgent"`, "{", "not json", `{"a":1}{"b":2}`, "{" + strings.Repeat(" ", hookio.MaxPayloadBytes) + "}"} {
		if _, err := DecodePayload(strings.NewReader(in)); !errors.Is(err, hookio.ErrPayload) {
			t.Errorf("DecodePayload(%.20q) = %v, want hookio.ErrPayload", in, err)
		}
	}
}

func TestGeminiPayloadMethods(t *testing.T) {
	tests := []struct {
		p     Payload
		event string
		time  time.Time
		resp  string
	}{
		{Payload{}, EventAfterAgent, time.Time{}, ""},
		{Payload{HookEventName: "BeforeAgent", Timestamp: "2026-11-01T09:00:00.250Z", PromptResponse: ptr("Done.")},
			"BeforeAgent", time.Date(2026, 11, 1, 9, 0, 0, 25e7, time.UTC), "Done."},
		{Payload{Timestamp: "yesterday", PromptResponse: ptr(NoResponse)}, EventAfterAgent, time.Time{}, ""},
	}
	for i, tt := range tests {
		if got := tt.p.Event(); got != tt.event {
			t.Errorf("%d: Event = %q, want %q", i, got, tt.event)
		}
		if got := tt.p.Time(); !got.Equal(tt.time) {
			t.Errorf("%d: Time = %v, want %v", i, got, tt.time)
		}
		if got := tt.p.Response(); got != tt.resp {
			t.Errorf("%d: Response = %q, want %q", i, got, tt.resp)
		}
	}
}

// TestDecodeGeminiRecordedPayload decodes the payload Gemini CLI 0.61.0 sent in the end-to-end
// suite: every field present, none ignored.
func TestDecodeGeminiRecordedPayload(t *testing.T) {
	f, err := os.Open(geminiPayloadFile)
	if err != nil {
		t.Fatalf("%v (record it with go test ./e2e -run 'TestGeminiTodos/an_open_item_blocks' -record-gemini)", err)
	}
	defer f.Close()
	p, err := DecodePayload(f)
	if err != nil {
		t.Fatal(err)
	}
	if p.SessionID == "" || p.TranscriptPath == "" || p.CWD == "" || p.Event() != EventAfterAgent || p.Time().IsZero() ||
		p.Prompt == nil || *p.Prompt != "Prepare the release." || p.Response() == "" || p.StopHookActive || len(p.Ignored) != 0 {
		t.Errorf("recorded payload decoded as %+v", p)
	}
}

func TestGeminiCLITurnRun(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 10, 0, 0, time.UTC)
	tests := []struct {
		name   string
		build  func(c *geminiChat)
		p      Payload
		start  float64 // -1: unknown
		text   string  // the final message's text; "-" for no message
		calls  int
		steps  int
		errMsg string
	}{
		{
			name: "the run spans the continuations a denial sent",
			build: func(c *geminiChat) {
				c.user(0, "Earlier work.")
				c.model(1, "Done earlier.")
				c.user(10, "Fix the parser.")
				c.model(11, "I read it. Let me check the tests.")
				c.user(12, "Your last message ended with …")
				c.model(13, "Running them.", geminiToolUse{"run_shell_command", map[string]any{"command": "go test"}, "success", "ok"})
				c.model(15, "The tests pass.")
			},
			p:     Payload{Prompt: ptr("Fix the parser."), PromptResponse: ptr("I read it. Let me check the tests. t the tests.\nRunning them. ng th em.\nThe tests pass. s pass.")},
			start: 10, text: "The tests pass.", steps: 3,
		},
		{
			name: "a prompt a BeforeAgent hook added context to",
			build: func(c *geminiChat) {
				c.record(map[string]any{"id": "p", "timestamp": c.ts(5), "type": "user", "content": []any{
					map[string]any{"text": "Fix the parser."}, map[string]any{"text": "<hook_context>branch main</hook_context>"}}})
				c.model(6, "Fixed.")
			},
			p:     Payload{Prompt: ptr("Fix the parser.")},
			start: 5, text: "Fixed.", steps: 1,
		},
		{
			name: "no prompt: the run start is unknown, the run the last prompt's",
			build: func(c *geminiChat) {
				c.user(0, "First.")
				c.model(1, "One.")
				c.user(2, "Second.")
				c.model(3, "Two.")
			},
			p:     Payload{PromptResponse: ptr("Two.")},
			start: -1, text: "Two.", steps: 1,
		},
		{
			name: "a prompt the session does not hold",
			build: func(c *geminiChat) {
				c.user(0, "Something else.")
				c.model(1, "Two.")
			},
			p:     Payload{Prompt: ptr("Fix the parser."), PromptResponse: ptr("Two.")},
			start: -1, text: "Two.", steps: 1,
		},
		{
			name: "a session that lags: the continuation is not answered in it yet",
			build: func(c *geminiChat) {
				c.user(0, "Fix the parser.")
				c.model(1, "Let me check the tests.")
				c.user(2, "Your last message ended with …")
			},
			p:     Payload{Prompt: ptr("Fix the parser."), PromptResponse: ptr("Let me check the tests.\nI checked: they pass.")},
			start: 0, text: "Let me check the tests.\nI checked: they pass.", steps: 2,
		},
		{
			name: "a last response with no text takes the run's last text",
			build: func(c *geminiChat) {
				c.user(0, "Fix the parser.")
				c.model(1, "Fixed it.")
				c.model(2, "")
			},
			p:     Payload{Prompt: ptr("Fix the parser."), PromptResponse: ptr(NoResponse)},
			start: 0, text: "Fixed it.", steps: 1,
		},
		{
			name: "an error after the last response",
			build: func(c *geminiChat) {
				c.user(0, "Fix the parser.")
				c.model(1, "Working on it.", geminiToolUse{"replace", map[string]any{"file_path": "p.go"}, "error", "no match"})
				c.typed(3, "error", "[API Error: 429 Resource exhausted]")
			},
			p:     Payload{Prompt: ptr("Fix the parser.")},
			start: 0, text: "Working on it.", calls: 1, steps: 1, errMsg: "[API Error: 429 Resource exhausted]",
		},
		{
			name:  "no model message, no response",
			build: func(c *geminiChat) { c.user(0, "Fix the parser.") },
			p:     Payload{Prompt: ptr("Fix the parser.")},
			start: 0, text: "-",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newGeminiChat(t, "sess-run")
			tt.build(c)
			tu := Turn(tt.p, c.read(), now)
			wantStart := time.Time{}
			if tt.start >= 0 {
				wantStart = c.at(tt.start)
			}
			if tu.Harness != Name || tu.Session != "sess-run" || !tu.Now.Equal(now) || !tu.RunStartedAt.Equal(wantStart) || tu.HostWakes != nil {
				t.Errorf("turn %s %s now %v run start %v (want %v) host wakes %v", tu.Harness, tu.Session, tu.Now, tu.RunStartedAt, wantStart, tu.HostWakes)
			}
			switch {
			case tt.text == "-" && tu.Message != nil:
				t.Errorf("message %+v, want none", tu.Message)
			case tt.text != "-" && (tu.Message == nil || tu.Message.Text != tt.text || tu.Message.ToolCalls != tt.calls || tu.Message.Provider != ProviderGoogle):
				t.Errorf("message %+v, want %q with %d calls", tu.Message, tt.text, tt.calls)
			}
			if len(tu.Steps) != tt.steps {
				t.Errorf("%d steps, want %d: %+v", len(tu.Steps), tt.steps, tu.Steps)
			}
			if got := ""; tu.Error != nil {
				got = tu.Error.Message
				if tu.Error.Provider != ProviderGoogle || got != tt.errMsg {
					t.Errorf("error %+v, want %q", tu.Error, tt.errMsg)
				}
			} else if tt.errMsg != "" {
				t.Errorf("no error, want %q", tt.errMsg)
			}
		})
	}
}

func TestGeminiCLITurnWithoutSession(t *testing.T) {
	tests := []struct {
		name string
		p    Payload
		want *stopgate.Message
	}{
		{"no response field", Payload{SessionID: "s"}, nil},
		{"the placeholder", Payload{SessionID: "s", PromptResponse: ptr(NoResponse)}, &stopgate.Message{Provider: ProviderGoogle}},
		{"a response", Payload{SessionID: "s", PromptResponse: ptr(stalled)}, &stopgate.Message{Text: stalled, Provider: ProviderGoogle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := Turn(tt.p, nil, time.Time{})
			if !reflect.DeepEqual(tu.Message, tt.want) || tu.Todos != nil || tu.Processes != nil || !tu.RunStartedAt.IsZero() || tu.Session != "s" {
				t.Errorf("turn %+v, message %+v; want message %+v and nothing from a session", tu, tu.Message, tt.want)
			}
		})
	}
	if tu := Turn(Payload{StopHookActive: true}, nil, time.Time{}); tu.Nudges.Consecutive != 1 {
		t.Errorf("stop_hook_active gave %d in a row, want 1", tu.Nudges.Consecutive)
	}
}

func TestGeminiCLITurnTodos(t *testing.T) {
	tests := []struct {
		name   string
		writes []map[string]any
		want   []stopgate.Todo
	}{
		{"never written", nil, nil},
		{"the last list, blocked items left out", []map[string]any{
			todosArgs("Old", "pending"),
			todosArgs("Tests", "completed", "Changelog", "in_progress", "Deploy", "blocked", "Docs", "pending", "Ads", "cancelled", "Odd", "someday"),
		}, []stopgate.Todo{{Content: "Tests", Status: "completed"}, {Content: "Changelog", Status: "in_progress"}, {Content: "Docs", Status: "pending"}, {Content: "Ads", Status: "cancelled"}}},
		{"an empty list", []map[string]any{todosArgs()}, []stopgate.Todo{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newGeminiChat(t, "sess-todos")
			c.user(0, "Plan.")
			for i, w := range tt.writes {
				c.model(float64(i+1), "", geminiToolUse{"write_todos", w, "success", "ok"})
			}
			tu := Turn(Payload{Prompt: ptr("Plan.")}, c.read(), time.Time{})
			if !reflect.DeepEqual(tu.Todos, tt.want) {
				t.Errorf("todos %#v, want %#v", tu.Todos, tt.want)
			}
		})
	}
}

func TestGeminiCLITurnProcesses(t *testing.T) {
	c := newGeminiChat(t, "sess-procs")
	c.user(0, "Run the suite and the server.")
	c.model(1, "", geminiToolUse{"run_shell_command", map[string]any{"command": "go test ./...", "is_background": true}, "success", "Command moved to background (PID: 11). Output hidden."},
		geminiToolUse{"run_shell_command", map[string]any{"command": "make serve", "is_background": true}, "success", "Command moved to background (PID: 12). Output hidden."})
	c.model(5, "", geminiToolUse{"list_background_processes", map[string]any{}, "success", "- [PID 11] EXITED: `go test ./...` (Exit Code: 1)\n- [PID 12] RUNNING: `make serve`"})
	c.model(6, "", geminiToolUse{"read_background_output", map[string]any{"pid": 12}, "success", "listening"})
	c.model(7, "The suite runs; the server is up.")
	tu := Turn(Payload{Prompt: ptr("Run the suite and the server.")}, c.read(), c.at(8))
	started, exited, read := c.at(1.5), c.at(5.5), c.at(6.5)
	want := []gate.Process{
		{ID: "11", Command: "go test ./...", StartedAt: started, Status: gate.StatusExited, ExitedAt: &exited, ExitCode: ptr(1)},
		{ID: "12", Command: "make serve", StartedAt: started, Status: gate.StatusRunning, LastReadAt: &read},
	}
	if !reflect.DeepEqual(tu.Processes, want) {
		g, _ := json.Marshal(tu.Processes)
		w, _ := json.Marshal(want)
		t.Errorf("processes\n%s\nwant\n%s", g, w)
	}
	// The failed suite, started this run and never read, holds the stop.
	d := stopgate.New(stopgate.Config{}).Decide(context.Background(), tu)
	if d.Verdict != stopgate.Continue || d.Check != stopgate.CheckProcesses || !strings.Contains(d.Message, "go test ./...") {
		t.Errorf("decision %s by %s: %q; want the process gate to name the suite", d.Verdict, d.Check, d.Message)
	}
}

// geminiGolden compares got with testdata/gemini/golden/name, rewriting it under -update.
func geminiGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden(t, filepath.Join("..", "gemini", "golden", name), got)
}

// TestGeminiCLITurnGolden pins the Turn built from the recorded payload and session file of
// Gemini CLI 0.61.0 (the last stop of a run that a denial kept going), and of the same session
// at its first stop, told by a payload made from the recorded one.
func TestGeminiCLITurnGolden(t *testing.T) {
	b, err := os.ReadFile(geminiPayloadFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := DecodePayload(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	s, err := chat.ReadGeminiFile(geminiSessionFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	geminiGolden(t, "turn-0.61.0-last.json", goldenTurn(t, Turn(p, s, p.Time())))

	// The session up to the first stop: the records before the continuation prompt.
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(readString(t, geminiSessionFile)), "\n") {
		if strings.Contains(l, `"type":"user"`) && strings.Contains(l, "Your todo list still has") {
			break
		}
		lines = append(lines, l)
	}
	first, err := chat.ReadGemini(strings.NewReader(strings.Join(lines, "\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.PromptResponse, p.Timestamp = ptr("I ran the tests; they pass.  tests; t hey pass."), ""
	tu := Turn(p, first, time.Date(2026, 11, 29, 22, 46, 56, 0, time.UTC))
	geminiGolden(t, "turn-0.61.0-first.json", goldenTurn(t, tu))
	d := stopgate.New(stopgate.Config{}).Decide(context.Background(), tu)
	if d.Verdict != stopgate.Continue || d.Check != stopgate.CheckTodos || !strings.Contains(d.Message, "Update the changelog") {
		t.Errorf("the first stop: %s by %s, %q; want the open item named", d.Verdict, d.Check, d.Message)
	}
}

func TestGeminiCLIDeniesAStall(t *testing.T) {
	dir := t.TempDir()
	c := newGeminiChat(t, "sess-deny")
	c.user(0, "Fix the parser.")
	c.model(1, stalled)
	p := payloadJSON(t, map[string]any{
		"session_id": "sess-deny", "transcript_path": c.write(dir), "cwd": dir, "hook_event_name": "AfterAgent",
		"prompt": "Fix the parser.", "prompt_response": stalled + " mangled chunks", "stop_hook_active": false,
	})
	rec := &recorder{}
	stdout, stderr, code := runGemini(t, p, &Options{StateDir: filepath.Join(dir, "state"), Now: fixedNow, Recorder: rec})
	if code != 0 || stderr != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	if reason := checkDeny(t, stdout); !strings.Contains(reason, `"Let me run the tests."`) {
		t.Errorf("reason %q does not quote the dangling sentence", reason)
	}
	if len(rec.turns) != 1 || rec.turns[0].Harness != Name || rec.turns[0].Message.Text != stalled || !rec.turns[0].RunStartedAt.Equal(c.at(0)) {
		t.Errorf("recorded %+v", rec.turns)
	}
	st, found, err := hook.LoadState(hook.StatePath(filepath.Join(dir, "state"), "gemini-sess-deny", ""))
	if err != nil || !found || !st.Run.Equal(c.at(0)) || st.Nudges.Consecutive != 1 || st.Nudges.Given.Count("stall") != 1 {
		t.Errorf("state %+v (found %v, %v)", st, found, err)
	}
}

func TestGeminiCLIAllowsACompletion(t *testing.T) {
	for _, resp := range []string{completed, "Shall I also update the changelog?"} {
		p := payloadJSON(t, map[string]any{"session_id": "sess-ok", "prompt_response": resp})
		stdout, stderr, code := runGemini(t, p, &Options{StateDir: t.TempDir(), Now: fixedNow})
		if code != 0 || stdout != "" || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0 and nothing", resp, code, stdout, stderr)
		}
	}
}

// TestGeminiCLIBudgets walks a run through stops as Gemini CLI 0.61.0 reports them: the model
// calls a tool after each denial, so stop_hook_active stays false. The run's stall budget (2)
// and the in-a-row count still hold, from the state file; a new prompt starts a new run.
func TestGeminiCLIBudgets(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	c := newGeminiChat(t, "sess-budget")
	c.user(0, "Find the bug.")
	promises := []string{"Let me check the logs.", "Now I will run the linter.", "I will check the build next."}
	stop := func(sec float64, prompt, final string, active bool) (string, string) {
		c.model(sec, final)
		p := payloadJSON(t, map[string]any{"session_id": "sess-budget", "transcript_path": c.write(dir), "prompt": prompt,
			"prompt_response": final, "stop_hook_active": active})
		stdout, stderr, code := runGemini(t, p, &Options{StateDir: state, Now: fixedNow})
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		return stdout, stderr
	}
	for i, promise := range promises {
		sec := float64(10 * i)
		if i > 0 {
			c.user(sec+1, "Your last message ended with …")
			c.model(sec+2, "", geminiToolUse{"run_shell_command", map[string]any{"command": fmt.Sprintf("echo %d", i)}, "success", "ok"})
		}
		stdout, stderr := stop(sec+5, "Find the bug.", "Looked. "+promise, false)
		if stderr != "" {
			t.Errorf("stop %d: stderr %q", i, stderr)
		}
		if i < 2 {
			checkDeny(t, stdout)
			continue
		}
		if stdout != "" {
			t.Errorf("stop %d was denied past the stall budget: %q", i, stdout)
		}
	}
	st, _, err := hook.LoadState(hook.StatePath(state, "gemini-sess-budget", ""))
	if err != nil || st.Nudges.Consecutive != 0 || st.Nudges.Given.Count("stall") != 2 || !st.Run.Equal(c.at(0)) {
		t.Errorf("state after the run %+v (%v)", st, err)
	}

	// A new prompt is a new run: the budget starts over.
	c.user(100, "Now fix the other bug.")
	stdout, _ := stop(101, "Now fix the other bug.", "Looked. Let me check the tests.", false)
	checkDeny(t, stdout)
}

// TestGeminiCLIInARow: after MaxConsecutive continuations in a row with no stop allowed between
// them, the stop proceeds, whatever stop_hook_active says.
func TestGeminiCLIInARow(t *testing.T) {
	dir := t.TempDir()
	sup := stopgate.New(stopgate.Config{MaxConsecutive: 2})
	c := newGeminiChat(t, "sess-row")
	c.user(0, "Plan the release.")
	c.model(1, "", geminiToolUse{"write_todos", todosArgs("Tag it", "pending", "Push it", "pending"), "success", "ok"})
	var outs []string
	for i := range 3 {
		c.model(float64(2+i), fmt.Sprintf("Working on it (%d).", i))
		p := payloadJSON(t, map[string]any{"session_id": "sess-row", "transcript_path": c.write(dir), "prompt": "Plan the release.", "stop_hook_active": false})
		stdout, _, _ := runGemini(t, p, &Options{StateDir: filepath.Join(dir, "state"), Supervisor: sup, Now: fixedNow})
		outs = append(outs, stdout)
	}
	if outs[0] == "" || outs[1] == "" || outs[2] != "" {
		t.Errorf("answers %q: want two denials, then a stop", outs)
	}
}

func TestGeminiCLIState(t *testing.T) {
	tests := []struct {
		name   string
		state  string // the state file's content; "" for none, "-" for no state directory
		active bool
		deny   bool
		note   string
	}{
		{"no state, not active", "", false, true, ""},
		{"no state, active", "", true, false, "stopgate: stop_hook_active but no nudge budget on record for this session: letting the agent stop\n"},
		{"no state directory, active", "-", true, false, "stopgate: stop_hook_active and no state kept for this session: not nudging twice in a row\n"},
		{"unreadable, active", "{", true, false, "stopgate: nudge budget unreadable ("},
		{"unreadable, not active", "{", false, true, "stopgate: nudge budget unreadable ("},
		{"a nudge in another run", `{"run":"2026-10-01T00:00:00Z","nudges":{"consecutive":3,"given":{"stall":2}}}`, false, true, ""},
		{"a nudge in this run, budget spent", `{"run":"2026-11-01T09:00:00Z","nudges":{"consecutive":1,"given":{"stall":2}}}`, false, false, ""},
		{"three in a row in this run", `{"run":"2026-11-01T09:00:00Z","nudges":{"consecutive":3,"given":{"stall":0}}}`, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := newGeminiChat(t, "sess-state")
			c.user(0, "Fix it.")
			c.model(1, stalled)
			opts := &Options{StateDir: filepath.Join(dir, "state"), Now: fixedNow}
			switch tt.state {
			case "-":
				opts.StateDir = ""
			case "":
			default:
				writeFile(t, hook.StatePath(opts.StateDir, "gemini-sess-state", ""), tt.state)
			}
			p := payloadJSON(t, map[string]any{"session_id": "sess-state", "transcript_path": c.write(dir), "prompt": "Fix it.", "stop_hook_active": tt.active})
			stdout, stderr, code := runGemini(t, p, opts)
			if code != 0 || (stdout != "") != tt.deny || !strings.HasPrefix(stderr, tt.note) || (tt.note == "") != (stderr == "") {
				t.Errorf("exit %d, stdout %q, stderr %q; want deny %v and note %q", code, stdout, stderr, tt.deny, tt.note)
			}
		})
	}
}

func TestGeminiCLIFailsOpen(t *testing.T) {
	slow := stopgate.New(stopgate.Config{Classifier: &stall.ModelClassifier{Client: blockingClient{}, Timeout: time.Hour}})
	dir := t.TempDir()
	notADir := filepath.Join(dir, "file")
	writeFile(t, notADir, "")
	tests := []struct {
		name    string
		payload string
		opts    *Options
		lines   int
		want    string
	}{
		{"not JSON", "AfterAgent says hi", nil, 1, "hook payload is not a JSON object"},
		{"empty stdin", "", nil, 1, "hook payload is not a JSON object"},
		{"a panic while deciding", `{"session_id":"s","prompt_response":"x"}`,
			&Options{Now: func() time.Time { panic("clock broke") }}, 1, "panic: clock broke"},
		{"the time budget runs out", `{"session_id":"s","prompt_response":"The parser now handles nested quotes."}`,
			&Options{Supervisor: slow, Timeout: 10 * time.Millisecond}, 1, "no decision within 10ms"},
		{"a nudge whose budget cannot be saved", `{"session_id":"s","prompt_response":"` + stalled + `"}`,
			&Options{StateDir: notADir, Now: fixedNow}, 2, "cannot save the nudge budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			opts := tt.opts
			if opts == nil {
				opts = &Options{}
			}
			opts.Recorder = rec
			stdout, stderr, code := runGemini(t, tt.payload, opts)
			checkFailOpen(t, stdout, stderr, code, tt.lines, tt.want)
			if len(rec.turns) != 0 {
				t.Errorf("the recorder was called for a decision that was not made")
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := GeminiCLI(ctx, strings.NewReader(`{"session_id":"s","prompt_response":"Done."}`), &out, &errOut, &Options{Supervisor: slow})
	checkFailOpen(t, out.String(), errOut.String(), code, 1, "interrupted before a decision")
}

func TestGeminiCLINotes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		payload string
		deny    bool
		want    string
	}{
		{"another event", `{"session_id":"s","hook_event_name":"BeforeTool","prompt_response":"` + stalled + `"}`, false,
			"stopgate: hook event \"BeforeTool\" is not AfterAgent; nothing to decide\n"},
		{"a field of the wrong type", `{"session_id":"s","cwd":7,"prompt_response":"` + completed + `"}`, false,
			"stopgate: payload fields of an unexpected type, read as absent: cwd\n"},
		{"a session file that cannot be read", `{"session_id":"s","transcript_path":"missing.jsonl","cwd":"` + dir + `","prompt_response":"` + stalled + `"}`, true,
			"stopgate: session file unreadable (chat: open " + filepath.Join(dir, "missing.jsonl") + ": no such file or directory); deciding on the payload alone\n"},
		{"a retry advised", `{"session_id":"s","transcript_path":"err.jsonl","cwd":"` + dir + `","prompt":"Go."}`, false,
			"stopgate: a retry was advised (error)"},
	}
	c := newGeminiChat(t, "s")
	c.user(0, "Go.")
	c.typed(1, "error", `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`)
	writeFile(t, filepath.Join(dir, "err.jsonl"), c.String())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runGemini(t, tt.payload, &Options{StateDir: t.TempDir(), Now: fixedNow})
			if code != 0 || (stdout != "") != tt.deny || !strings.HasPrefix(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want deny %v and %q", code, stdout, stderr, tt.deny, tt.want)
			}
		})
	}
}

func TestGeminiAnswer(t *testing.T) {
	long := strings.Repeat("é", hookio.MaxMessageBytes)
	tests := []struct {
		name string
		d    stopgate.Decision
		want string
		note string
	}{
		{"stop", stopgate.Decision{Verdict: stopgate.Stop}, "", ""},
		{"continue", stopgate.Decision{Verdict: stopgate.Continue, Message: `Say "done" <now> & stop.`},
			`{"decision":"deny","reason":"Say \"done\" <now> & stop."}` + "\n", ""},
		{"continue without a message", stopgate.Decision{Verdict: stopgate.Continue, Check: stopgate.CheckStall, Message: " "}, "", "check stall continued the run without a message"},
		{"retry", stopgate.Decision{Verdict: stopgate.Retry, Check: stopgate.CheckError}, "", "a retry was advised (error)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note := geminiAnswer(tt.d)
			if string(got) != tt.want || !strings.HasPrefix(note, tt.note) || (tt.note == "") != (note == "") {
				t.Errorf("answer %q, note %q; want %q, %q", got, note, tt.want, tt.note)
			}
		})
	}
	got, _ := geminiAnswer(stopgate.Decision{Verdict: stopgate.Continue, Message: long})
	var v struct{ Reason string }
	if err := json.Unmarshal(got, &v); err != nil || len(v.Reason) > hookio.MaxMessageBytes || !strings.HasSuffix(v.Reason, "[…]") {
		t.Errorf("a long message gave a reason of %d bytes (%v)", len(v.Reason), err)
	}
}

// BenchmarkGeminiCLI runs one whole invocation on the recorded payload and session file:
// decoding, reading the session, deciding, the state file.
func BenchmarkGeminiCLI(b *testing.B) {
	payload, err := os.ReadFile(geminiPayloadFile)
	if err != nil {
		b.Fatal(err)
	}
	abs, err := filepath.Abs(geminiSessionFile)
	if err != nil {
		b.Fatal(err)
	}
	payload = bytes.Replace(payload, []byte(`"/home/user/.gemini/tmp/project/chats/session-2026-11-29T22-46-00000000.jsonl"`), []byte(fmt.Sprintf("%q", abs)), 1)
	opts := &Options{StateDir: b.TempDir(), Now: fixedNow}
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := GeminiCLI(context.Background(), bytes.NewReader(payload), &out, &errOut, opts); code != 0 || errOut.Len() > 0 {
			b.Fatalf("exit %d, stderr %s", code, errOut.Bytes())
		}
	}
}
