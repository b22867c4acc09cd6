package fakeopenai

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// requestBody is a Responses API request in the shape Codex 0.169 sends.
const requestBody = `{
  "model": "gpt-test", "stream": %s, "instructions": "Be brief.",
  "input": [
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Run it."}]},
    {"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"ls\"}", "call_id": "call_1"},
    {"type": "function_call_output", "call_id": "call_1", "output": "Process exited with code 0\nOutput:\nfile\n"},
    {"type": "reasoning", "summary": [], "encrypted_content": "x"},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<hook_prompt hook_run_id=\"stop:0:/h.json\">Go on.</hook_prompt>"}]}
  ],
  "tools": [
    {"type": "function", "name": "exec_command", "description": "Run", "parameters": {"type": "object"}},
    {"type": "web_search"}
  ]
}`

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data map[string]any
}

func readEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("event %s: %v", name, err)
			}
			if d["type"] != name {
				t.Errorf("event %s carries type %v", name, d["type"])
			}
			out = append(out, sseEvent{name, d})
		}
	}
	return out
}

func TestStream(t *testing.T) {
	var seen *Request
	srv := Start(func(r *Request) Response {
		seen = r
		return Reply(Text("Running it now."), FunctionCall("call_2", "exec_command", map[string]any{"cmd": "make test"}))
	})
	defer srv.Close()
	resp := post(t, srv.URL, strings.Replace(requestBody, "%s", "true", 1))
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, ct)
	}
	events := readEvents(t, resp.Body)
	var names []string
	text, args := "", ""
	for i, e := range events {
		names = append(names, e.name)
		if e.data["sequence_number"] != float64(i) {
			t.Errorf("event %d has sequence_number %v", i, e.data["sequence_number"])
		}
		switch e.name {
		case "response.output_text.delta":
			text += e.data["delta"].(string)
		case "response.function_call_arguments.delta":
			args += e.data["delta"].(string)
		}
	}
	want := "response.created response.output_item.added response.output_text.delta response.output_text.delta response.output_text.delta response.output_item.done " +
		"response.output_item.added response.function_call_arguments.delta response.function_call_arguments.delta response.output_item.done response.completed"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	if text != "Running it now." || args != `{"cmd":"make test"}` {
		t.Errorf("deltas: text %q, arguments %q", text, args)
	}
	done := events[len(events)-2].data["item"].(map[string]any)
	if done["type"] != "function_call" || done["call_id"] != "call_2" || done["name"] != "exec_command" || done["arguments"] != args || done["status"] != "completed" {
		t.Errorf("function call done %v", done)
	}
	completed := events[len(events)-1].data["response"].(map[string]any)
	if completed["status"] != "completed" || len(completed["output"].([]any)) != 2 || completed["usage"] == nil || completed["model"] != "gpt-test" {
		t.Errorf("completed %v", completed)
	}

	if seen == nil || seen.Model != "gpt-test" || !seen.Stream || seen.Instructions != "Be brief." || len(seen.Input) != 6 {
		t.Fatalf("decoded %+v", seen)
	}
	if out, ok := seen.FunctionOutput("call_1"); !ok || !strings.Contains(out.OutputText(), "file") {
		t.Errorf("function output %+v", out)
	}
	if calls := seen.FunctionCalls(); len(calls) != 1 || calls[0].Arguments != `{"cmd":"ls"}` {
		t.Errorf("calls %+v", calls)
	}
	if got := seen.Texts("user"); len(got) != 2 || got[0] != "Run it." {
		t.Errorf("user texts %q", got)
	}
	if !seen.HasTool("exec_command") || seen.HasTool("web_search") || len(seen.Tools) != 2 {
		t.Errorf("tools %+v", seen.Tools)
	}
	if last := seen.LastItem(); last.Role != "user" || !strings.Contains(last.Text(), "hook_prompt") || len(last.Raw) == 0 {
		t.Errorf("last item %+v", last)
	}
	if reqs := srv.ResponsesRequests(nil); len(reqs) != 1 || reqs[0].Response == nil || reqs[0].Response.ID != "resp_fake_1" || reqs[0].Response.Output[1].ID != "fc_fake_1_1" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestNotStreamed(t *testing.T) {
	srv := Start(func(r *Request) Response {
		return Response{Output: []OutputItem{Text("Hi.")}, ID: "resp_x", InputTokens: 5, OutputTokens: 1}
	})
	defer srv.Close()
	resp := post(t, srv.URL, strings.Replace(requestBody, "%s", "false", 1))
	var obj struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Output []struct {
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"output"`
		Usage struct {
			Total int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&obj); err != nil {
		t.Fatal(err)
	}
	if obj.ID != "resp_x" || obj.Status != "completed" || len(obj.Output) != 1 || obj.Output[0].Content[0].Text != "Hi." || obj.Usage.Total != 6 {
		t.Errorf("response %+v", obj)
	}
}

func TestOtherRequests(t *testing.T) {
	srv := Start(func(*Request) Response {
		t.Error("the script was called for a request it does not answer")
		return Response{}
	})
	defer srv.Close()
	tests := []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/v1/models", "", 200, `"data":[]`},
		{"POST", "/v1/chat/completions", `{}`, 404, `"not_found_error"`},
		{"POST", "/v1/responses", `{"input": 7}`, 400, `"invalid_request_error"`},
		{"POST", "/v1/responses", `not json`, 400, `decoding the body`},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s %s: %d %s, want %d with %s", tt.method, tt.path, resp.StatusCode, b, tt.status, tt.want)
		}
	}
	if n := len(srv.Requests()); n != len(tests) {
		t.Errorf("%d requests recorded, want %d", n, len(tests))
	}
	if n := len(srv.ResponsesRequests(nil)); n != 2 {
		t.Errorf("%d Responses requests, want 2", n)
	}
}

func TestConcurrentRequests(t *testing.T) {
	srv := Start(func(r *Request) Response { return Reply(Text(r.LastItem().Text())) })
	defer srv.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			resp, err := http.Post(srv.BaseURL+"/responses", "application/json", strings.NewReader(`{"model":"m","input":"hello"}`))
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	reqs := srv.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Seq != i || r.Response == nil || r.Response.Output[0].Text != "hello" {
			t.Errorf("request %d: seq %d, response %+v", i, r.Seq, r.Response)
		}
	}
}

func TestFunctionCallArguments(t *testing.T) {
	for _, tt := range []struct {
		args any
		want string
	}{
		{map[string]any{"a": 1}, `{"a":1}`},
		{json.RawMessage(`{"b":2}`), `{"b":2}`},
		{`{"session_id":3}`, `{"session_id":3}`},
	} {
		if got := FunctionCall("c", "f", tt.args).Arguments; got != tt.want {
			t.Errorf("FunctionCall(%v).Arguments = %s, want %s", tt.args, got, tt.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("unmarshallable arguments did not panic")
		}
	}()
	FunctionCall("c", "f", func() {})
}
