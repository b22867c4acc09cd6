package fakeanthropic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// sseEvent is one server-sent event: its event name and decoded data.
type sseEvent struct {
	name string
	data map[string]any
}

// readSSE reads a text/event-stream body into its events, failing the test on any line that
// is not part of the format the Anthropic API uses (event:, data:, blank).
func readSSE(t *testing.T, body io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" || cur.data != nil {
				events = append(events, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur.name != "" || cur.data != nil {
		t.Fatalf("stream ended inside an event: %+v", cur)
	}
	return events
}

// assembled is a streamed message put back together the way an Anthropic client does.
type assembled struct {
	id, model, stopReason string
	blocks                []Block
	outputTokens          float64
}

// assemble replays events as a streaming client would, checking their order: message_start
// first, blocks opened, filled and closed by index, message_delta, then message_stop last.
func assemble(t *testing.T, events []sseEvent) assembled {
	t.Helper()
	var a assembled
	open := -1
	var input strings.Builder
	for i, ev := range events {
		if got := ev.data["type"]; got != ev.name {
			t.Fatalf("event %d: name %q but data type %v", i, ev.name, got)
		}
		switch ev.name {
		case "message_start":
			if i != 0 {
				t.Fatalf("message_start at position %d", i)
			}
			msg := ev.data["message"].(map[string]any)
			a.id, a.model = msg["id"].(string), msg["model"].(string)
		case "ping":
		case "content_block_start":
			idx := int(ev.data["index"].(float64))
			if open != -1 || idx != len(a.blocks) {
				t.Fatalf("content_block_start index %d with block %d open and %d done", idx, open, len(a.blocks))
			}
			open = idx
			cb := ev.data["content_block"].(map[string]any)
			b := Block{Type: cb["type"].(string)}
			if b.Type == "tool_use" {
				b.ID, b.Name = cb["id"].(string), cb["name"].(string)
			}
			a.blocks = append(a.blocks, b)
			input.Reset()
		case "content_block_delta":
			if idx := int(ev.data["index"].(float64)); idx != open {
				t.Fatalf("delta for block %d while %d is open", idx, open)
			}
			d := ev.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				a.blocks[open].Text += d["text"].(string)
			case "input_json_delta":
				input.WriteString(d["partial_json"].(string))
			default:
				t.Fatalf("unknown delta type %v", d["type"])
			}
		case "content_block_stop":
			if idx := int(ev.data["index"].(float64)); idx != open {
				t.Fatalf("stop for block %d while %d is open", idx, open)
			}
			if a.blocks[open].Type == "tool_use" {
				a.blocks[open].Input = json.RawMessage(input.String())
			}
			open = -1
		case "message_delta":
			a.stopReason = ev.data["delta"].(map[string]any)["stop_reason"].(string)
			a.outputTokens = ev.data["usage"].(map[string]any)["output_tokens"].(float64)
		case "message_stop":
			if i != len(events)-1 {
				t.Fatalf("message_stop at %d of %d events", i, len(events))
			}
		default:
			t.Fatalf("unknown event %q", ev.name)
		}
	}
	if open != -1 {
		t.Fatalf("block %d never closed", open)
	}
	return a
}

// post sends body to the server's path and returns the response.
func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

func TestStreamedResponses(t *testing.T) {
	tests := []struct {
		name       string
		resp       Response
		wantStop   string
		wantBlocks []Block
	}{
		{
			name:       "text ends the turn",
			resp:       Reply(Text("All done: the tests pass.")),
			wantStop:   "end_turn",
			wantBlocks: []Block{Text("All done: the tests pass.")},
		},
		{
			name:     "text then a tool call",
			resp:     Reply(Text("Let me run it."), ToolUse("toolu_1", "Bash", map[string]any{"command": "echo ok", "run_in_background": true})),
			wantStop: "tool_use",
			wantBlocks: []Block{
				Text("Let me run it."),
				{Type: "tool_use", ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"echo ok","run_in_background":true}`)},
			},
		},
		{
			name:       "tool call with no input gets {}",
			resp:       Reply(Block{Type: "tool_use", ID: "toolu_2", Name: "TaskList"}),
			wantStop:   "tool_use",
			wantBlocks: []Block{{Type: "tool_use", ID: "toolu_2", Name: "TaskList", Input: json.RawMessage(`{}`)}},
		},
		{
			name:       "explicit stop reason and non-ASCII text",
			resp:       Response{Content: []Block{Text("Schön — fertig ✓")}, StopReason: "max_tokens"},
			wantStop:   "max_tokens",
			wantBlocks: []Block{Text("Schön — fertig ✓")},
		},
		{
			name:     "empty content",
			resp:     Response{},
			wantStop: "end_turn",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := Start(func(*Request) Response { return tt.resp })
			defer srv.Close()
			resp := post(t, srv.URL+"/v1/messages?beta=true",
				`{"model":"claude-test","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			got := assemble(t, readSSE(t, resp.Body))
			if got.stopReason != tt.wantStop {
				t.Errorf("stop reason %q, want %q", got.stopReason, tt.wantStop)
			}
			if got.model != "claude-test" || !strings.HasPrefix(got.id, "msg_fake_") {
				t.Errorf("message id %q model %q", got.id, got.model)
			}
			if got.outputTokens < 0 {
				t.Errorf("output tokens %v", got.outputTokens)
			}
			if len(got.blocks) != len(tt.wantBlocks) {
				t.Fatalf("blocks %+v, want %+v", got.blocks, tt.wantBlocks)
			}
			for i, w := range tt.wantBlocks {
				g := got.blocks[i]
				if g.Type != w.Type || g.Text != w.Text || g.ID != w.ID || g.Name != w.Name {
					t.Errorf("block %d = %+v, want %+v", i, g, w)
				}
				if w.Type == "tool_use" && !jsonEqual(t, g.Input, w.Input) {
					t.Errorf("block %d input %s, want %s", i, g.Input, w.Input)
				}
			}
		})
	}
}

func TestNonStreamedResponse(t *testing.T) {
	srv := Start(func(*Request) Response {
		return Reply(Text("A title"), ToolUse("toolu_9", "Read", map[string]string{"file_path": "/tmp/x"}))
	})
	defer srv.Close()
	resp := post(t, srv.URL+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"title?"}]}`)
	var msg struct {
		Type       string  `json:"type"`
		Role       string  `json:"role"`
		Model      string  `json:"model"`
		StopReason string  `json:"stop_reason"`
		Content    []Block `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.Role != "assistant" || msg.Model != "m" || msg.StopReason != "tool_use" {
		t.Errorf("envelope %+v", msg)
	}
	if len(msg.Content) != 2 || msg.Content[0].Text != "A title" || msg.Content[1].Name != "Read" ||
		!jsonEqual(t, msg.Content[1].Input, []byte(`{"file_path":"/tmp/x"}`)) {
		t.Errorf("content %+v", msg.Content)
	}
}

func TestOtherEndpoints(t *testing.T) {
	srv := Start(func(*Request) Response {
		t.Error("the script was called for a request that is not POST /v1/messages")
		return Response{}
	})
	defer srv.Close()
	tests := []struct {
		method, path, body string
		wantStatus         int
		wantBody           string
	}{
		{"POST", "/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"twelve bytes"}]}`, 200, `"input_tokens":`},
		{"GET", "/v1/models", "", 404, `"not_found_error"`},
		{"POST", "/api/event_logging/batch", `{}`, 404, `"type":"error"`},
		{"POST", "/v1/messages", `{not json`, 400, `"invalid_request_error"`},
		{"GET", "/v1/messages", "", 404, `"not_found_error"`},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || !strings.Contains(string(b), tt.wantBody) {
			t.Errorf("%s %s = %d %s, want %d with %s", tt.method, tt.path, resp.StatusCode, b, tt.wantStatus, tt.wantBody)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != len(tests) {
		t.Fatalf("recorded %d requests, want %d", len(reqs), len(tests))
	}
	for i, r := range reqs {
		if r.Seq != i || r.Method != tests[i].method || r.Path != tests[i].path || string(r.Body) != tests[i].body {
			t.Errorf("request %d recorded as %d %s %s %q", i, r.Seq, r.Method, r.Path, r.Body)
		}
	}
	if reqs[3].DecodeErr == nil {
		t.Error("a body that is not JSON recorded no decode error")
	}
	if got := srv.MessagesRequests(nil); len(got) != 1 || got[0].Seq != 3 {
		t.Errorf("MessagesRequests = %v", got)
	}
}

// claudeLikeBody is a request in the shape Claude Code 2.1.332 sends: system blocks, a user
// message with blocks, a system-role message with a string content, an assistant tool call and
// its result, and the hook's feedback as a user string.
const claudeLikeBody = `{
  "model": "claude-opus-5-5", "max_tokens": 128000, "stream": true,
  "system": [{"type":"text","text":"You are a Claude agent."},{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],
  "tools": [{"name":"Bash","description":"Runs a command","input_schema":{"type":"object"}},{"name":"Read","input_schema":{"type":"object"}}],
  "messages": [
    {"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"run the tests"}]},
    {"role":"system","content":"# Environment"},
    {"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"echo ok"}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"ok","is_error":false}]},
    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_b","name":"Read","input":{"file_path":"/x"}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"line 1"},{"type":"text","text":"line 2"}],"is_error":true}]},
    {"role":"user","content":"<system-reminder>\nStop hook feedback:\nkeep going\n</system-reminder>"}
  ]
}`

func TestRequestDecoding(t *testing.T) {
	var seen *Request
	srv := Start(func(r *Request) Response { seen = r; return Reply(Text("ok")) })
	defer srv.Close()
	resp := post(t, srv.URL+"/v1/messages?beta=true", claudeLikeBody)
	readSSE(t, resp.Body)

	r := srv.MessagesRequests(nil)[0]
	if r != seen {
		t.Error("the script saw a different request from the one recorded")
	}
	if r.RawQuery != "beta=true" || r.Model != "claude-opus-5-5" || r.MaxTokens != 128000 || !r.Stream {
		t.Errorf("fields: %q %q %d %v", r.RawQuery, r.Model, r.MaxTokens, r.Stream)
	}
	if r.System != "You are a Claude agent.\n\nBe brief." {
		t.Errorf("System = %q", r.System)
	}
	if got := r.ToolNames(); !reflect.DeepEqual(got, []string{"Bash", "Read"}) || !r.HasTool("Read") || r.HasTool("TodoWrite") {
		t.Errorf("tools %v", got)
	}
	if len(r.Messages) != 7 || r.Messages[1].Role != "system" || r.Messages[1].Text() != "# Environment" {
		t.Fatalf("messages %+v", r.Messages)
	}
	if got := r.LastMessage().Text(); !strings.Contains(got, "Stop hook feedback:\nkeep going") {
		t.Errorf("last message text %q", got)
	}
	if res, ok := r.ToolResult("toolu_a"); !ok || res.ResultText() != "ok" || res.IsError {
		t.Errorf("toolu_a result %+v %v", res, ok)
	}
	if res, ok := r.ToolResult("toolu_b"); !ok || res.ResultText() != "line 1\nline 2" || !res.IsError {
		t.Errorf("toolu_b result %+v %v", res, ok)
	}
	if _, ok := r.ToolResult("toolu_c"); ok {
		t.Error("found a result for a call never made")
	}
	if uses := r.ToolUses(); len(uses) != 2 || uses[0].Name != "Bash" || uses[1].Name != "Read" {
		t.Errorf("tool uses %+v", uses)
	}
	tests := []struct {
		substr string
		roles  []string
		want   int
	}{
		{"Stop hook feedback", []string{"user"}, 1},
		{"Stop hook feedback", []string{"system"}, 0},
		{"Environment", nil, 1},
		{"system-reminder", []string{"user", "system"}, 2},
		{"Let me check", []string{"assistant"}, 1},
		{"line 1", nil, 0}, // tool results are not texts
	}
	for _, tt := range tests {
		if got := r.CountText(tt.substr, tt.roles...); got != tt.want {
			t.Errorf("CountText(%q, %v) = %d, want %d", tt.substr, tt.roles, got, tt.want)
		}
	}
	if r.Response == nil || r.Response.StopReason != "end_turn" || r.Response.Content[0].Text != "ok" {
		t.Errorf("recorded response %+v", r.Response)
	}
}

// TestScriptedConversation drives a three-step conversation the way the e2e scenarios do: the
// script answers from what the request carries.
func TestScriptedConversation(t *testing.T) {
	script := func(r *Request) Response {
		switch {
		case r.CountText("NUDGE") > 0:
			return Reply(Text("Done, for real."))
		case hasResult(r, "toolu_1"):
			return Reply(Text("Let me check the tests."))
		default:
			return Reply(ToolUse("toolu_1", "Bash", map[string]string{"command": "true"}))
		}
	}
	srv := Start(script)
	defer srv.Close()
	bodies := []string{
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`,
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":""}]}]}`,
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"},{"role":"system","content":"NUDGE: you said you would"}]}`,
	}
	want := []string{"tool_use", "end_turn", "end_turn"}
	wantText := []string{"", "Let me check the tests.", "Done, for real."}
	for i, body := range bodies {
		got := assemble(t, readSSE(t, post(t, srv.URL+"/v1/messages", body).Body))
		text := ""
		for _, b := range got.blocks {
			text += b.Text
		}
		if got.stopReason != want[i] || text != wantText[i] {
			t.Errorf("step %d: %s %q, want %s %q", i, got.stopReason, text, want[i], wantText[i])
		}
	}
}

func hasResult(r *Request, id string) bool {
	_, ok := r.ToolResult(id)
	return ok
}

// TestConcurrentRequests checks the recording under concurrent clients (run with -race).
func TestConcurrentRequests(t *testing.T) {
	srv := Start(func(r *Request) Response { return Reply(Text(r.Messages[0].Text())) })
	defer srv.Close()
	const n = 16
	var wg sync.WaitGroup
	bodies := make([][]byte, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"req %d"}]}`, i)
			resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(body))
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			bodies[i], errs[i] = io.ReadAll(resp.Body)
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		got := assemble(t, readSSE(t, bytes.NewReader(bodies[i])))
		if len(got.blocks) != 1 || got.blocks[0].Text != fmt.Sprintf("req %d", i) {
			t.Errorf("request %d answered %+v", i, got.blocks)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != n {
		t.Fatalf("recorded %d requests, want %d", len(reqs), n)
	}
	seen := map[string]bool{}
	for i, r := range reqs {
		if r.Seq != i {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
		seen[r.Messages[0].Text()] = true
	}
	if len(seen) != n {
		t.Errorf("recorded %d distinct requests, want %d", len(seen), n)
	}
}

func TestToolUsePanicsOnBadInput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ToolUse with an unmarshallable input did not panic")
		}
	}()
	ToolUse("toolu_x", "Bash", map[string]any{"f": func() {}})
}
