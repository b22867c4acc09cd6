package fakegemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// request is a GenerateContentRequest as Gemini CLI sends one: the conversation, a system
// instruction, function declarations with parametersJsonSchema, and a generation config.
const request = `{
  "contents": [
    {"role": "user", "parts": [{"text": "<session_context>…</session_context>"}, {"text": "Fix the parser."}]},
    {"role": "model", "parts": [{"text": "thinking", "thought": true}, {"text": "Running the tests."},
      {"functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "go test"}}, "thoughtSignature": "skip"}]},
    {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": "ok"}}}]}
  ],
  "systemInstruction": {"role": "user", "parts": [{"text": "You are an agent."}, {"text": "Be brief."}]},
  "tools": [{"functionDeclarations": [
    {"name": "run_shell_command", "description": "Runs a command.", "parametersJsonSchema": {"type": "object"}},
    {"name": "write_todos", "parameters": {"type": "OBJECT"}}
  ]}],
  "generationConfig": {"temperature": 1}
}`

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// chunkWire is the part of a GenerateContentResponse the tests read.
type chunkWire struct {
	Candidates []struct {
		Content      Content `json:"content"`
		FinishReason string  `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		TotalTokenCount      int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
	ResponseID   string `json:"responseId"`
}

// events reads a server-sent event stream's data lines as chunks.
func events(t *testing.T, r io.Reader) []chunkWire {
	t.Helper()
	var out []chunkWire
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			if line != "" {
				t.Errorf("stream line %q is neither data nor blank", line)
			}
			continue
		}
		var c chunkWire
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		out = append(out, c)
	}
	return out
}

func TestRequestDecoding(t *testing.T) {
	var seen *Request
	srv := Start(func(r *Request) Response {
		seen = r
		return Reply(Text("ok"))
	})
	defer srv.Close()
	post(t, srv.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", request)
	r := seen
	if r == nil || r.Model != "gemini-2.5-flash" || r.Action != "streamGenerateContent" || r.RawQuery != "alt=sse" || !r.Generate() {
		t.Fatalf("request %+v", r)
	}
	if r.System != "You are an agent.\n\nBe brief." {
		t.Errorf("system %q", r.System)
	}
	if got := r.ToolNames(); !reflect.DeepEqual(got, []string{"run_shell_command", "write_todos"}) || !r.HasTool("write_todos") || r.HasTool("read_file") {
		t.Errorf("tools %v", got)
	}
	if string(r.Tools[0].Parameters) != `{"type": "object"}` || string(r.Tools[1].Parameters) != `{"type": "OBJECT"}` {
		t.Errorf("parameters %s, %s", r.Tools[0].Parameters, r.Tools[1].Parameters)
	}
	if len(r.Contents) != 3 || r.LastContent().Role != "user" {
		t.Fatalf("contents %+v", r.Contents)
	}
	if got := r.Texts("user"); !reflect.DeepEqual(got, []string{"<session_context>…</session_context>\nFix the parser."}) {
		t.Errorf("user texts %q", got)
	}
	if got := r.Texts("model"); !reflect.DeepEqual(got, []string{"Running the tests."}) {
		t.Errorf("model texts %q (thoughts must be left out)", got)
	}
	calls := r.Contents[1].Calls()
	if len(calls) != 1 || calls[0].ID != "c1" || calls[0].Name != "run_shell_command" || string(calls[0].Args) != `{"command": "go test"}` {
		t.Errorf("calls %+v", calls)
	}
	fr := r.FunctionResponses("run_shell_command")
	if len(fr) != 1 || fr[0].Output() != "ok" || len(r.FunctionResponses("write_todos")) != 0 {
		t.Errorf("function responses %+v", fr)
	}
	if string(r.GenerationConfig) != `{"temperature": 1}` || r.JSON["generationConfig"] == nil {
		t.Errorf("generation config %s", r.GenerationConfig)
	}
}

func TestStream(t *testing.T) {
	tests := []struct {
		name  string
		resp  Response
		texts []string // each chunk's text
		calls int
	}{
		{"text in three chunks", Reply(Text("I ran the tests; they pass.")), []string{"I ran the", " tests; t", "hey pass."}, 0},
		{"text and a call", Reply(Text("Go"), Call("run_shell_command", map[string]any{"command": "ls"})), []string{"G", "o", ""}, 1},
		{"nothing", Response{}, []string{""}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := Start(func(*Request) Response { return tt.resp })
			defer srv.Close()
			resp := post(t, srv.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", request)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			chunks := events(t, resp.Body)
			if len(chunks) != len(tt.texts) {
				t.Fatalf("%d chunks, want %d", len(chunks), len(tt.texts))
			}
			calls := 0
			for i, c := range chunks {
				cand := c.Candidates[0]
				if cand.Content.Role != "model" || cand.Content.Text() != tt.texts[i] {
					t.Errorf("chunk %d: role %q text %q, want %q", i, cand.Content.Role, cand.Content.Text(), tt.texts[i])
				}
				calls += len(cand.Content.Calls())
				last := i == len(chunks)-1
				if (cand.FinishReason == "STOP") != last || (c.UsageMetadata != nil) != last {
					t.Errorf("chunk %d: finish %q usage %v", i, cand.FinishReason, c.UsageMetadata)
				}
				if c.ModelVersion != "gemini-2.5-pro" || c.ResponseID != "fakegemini-1" {
					t.Errorf("chunk %d: model %q id %q", i, c.ModelVersion, c.ResponseID)
				}
			}
			if calls != tt.calls {
				t.Errorf("%d calls, want %d", calls, tt.calls)
			}
			u := chunks[len(chunks)-1].UsageMetadata
			if u == nil || u.PromptTokenCount < 1 || u.CandidatesTokenCount < 1 || u.TotalTokenCount != u.PromptTokenCount+u.CandidatesTokenCount {
				t.Errorf("usage %+v", u)
			}
		})
	}
}

func TestOtherEndpoints(t *testing.T) {
	srv := Start(func(r *Request) Response {
		return Response{Parts: []Part{Text(`{"next_speaker":"user"}`)}, FinishReason: "MAX_TOKENS", ModelVersion: "v", PromptTokens: 3, OutputTokens: 4}
	})
	defer srv.Close()

	resp := post(t, srv.URL+"/v1beta/models/gemini-2.5-flash:generateContent", request)
	var c chunkWire
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("generateContent: status %d, %v", resp.StatusCode, err)
	}
	if c.Candidates[0].Content.Text() != `{"next_speaker":"user"}` || c.Candidates[0].FinishReason != "MAX_TOKENS" || c.ModelVersion != "v" || c.UsageMetadata.TotalTokenCount != 7 {
		t.Errorf("generateContent answered %+v", c)
	}

	resp = post(t, srv.URL+"/v1beta/models/gemini-2.5-flash:countTokens", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	var n struct{ TotalTokens int }
	if err := json.NewDecoder(resp.Body).Decode(&n); err != nil || n.TotalTokens < 1 {
		t.Errorf("countTokens: %+v, %v", n, err)
	}

	for _, path := range []string{"/v1beta/models", "/v1beta/models/x:", "/v1/messages", "/v1beta/models/gemini-2.5-flash:embedContent"} {
		resp := post(t, srv.URL+path, `{}`)
		var e struct {
			Error struct {
				Code   int
				Status string
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != http.StatusNotFound || e.Error.Code != 404 || e.Error.Status != "NOT_FOUND" {
			t.Errorf("%s: status %d, error %+v (%v)", path, resp.StatusCode, e, err)
		}
	}
	resp = post(t, srv.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent", `{"contents":`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a body that is not JSON: status %d, want 400", resp.StatusCode)
	}

	reqs := srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("recorded %d requests, want 7", len(reqs))
	}
	for i, r := range reqs {
		if r.Seq != i {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
	}
	if got := srv.GenerateRequests(nil); len(got) != 1 || got[0].Action != "generateContent" {
		t.Errorf("generate requests %+v", got)
	}
	if bad := reqs[6]; bad.DecodeErr == nil || bad.Response != nil {
		t.Errorf("the bad request decoded: %+v", bad)
	}
}

func TestConcurrentRequests(t *testing.T) {
	srv := Start(func(r *Request) Response { return Reply(Text(r.Contents[0].Text())) })
	defer srv.Close()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := `{"contents":[{"role":"user","parts":[{"text":"n` + string(rune('0'+i)) + `"}]}]}`
			resp, err := http.Post(srv.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if !bytes.Contains(b, []byte(`"n`)) {
				t.Errorf("answer %s", b)
			}
		}()
	}
	wg.Wait()
	if got := len(srv.GenerateRequests(func(r *Request) bool { return r.Model == "m" })); got != 8 {
		t.Errorf("%d requests recorded, want 8", got)
	}
}
