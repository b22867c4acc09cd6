// Package fakechat is a scripted model server for end-to-end tests: it speaks the OpenAI Chat
// Completions API on loopback, streaming its answers as server-sent events the way the real API
// does (chat.completion.chunk objects, then "data: [DONE]"), so an unmodified agent harness
// that takes an OpenAI-compatible base URL (GitHub Copilot CLI's COPILOT_PROVIDER_BASE_URL,
// opencode's @ai-sdk/openai-compatible provider) can be pointed at it.
//
// A test scripts the model with a function from the request received (its messages and tools)
// to the response to send, and asserts afterwards on every request the server recorded:
//
//	srv := fakechat.Start(func(r *fakechat.Request) fakechat.Response {
//		if _, ok := r.ToolResult("call_1"); ok {
//			return fakechat.Reply(fakechat.Text("Done."))
//		}
//		return fakechat.Reply(fakechat.ToolCall("call_1", "bash", map[string]any{"command": "echo ok"}))
//	})
//	defer srv.Close()
//
// POST /v1/chat/completions (and /chat/completions, for a client whose base URL has no /v1) is
// answered by the script: streamed when the request asks for a stream (a first chunk with the
// role, the text in a few content deltas, each tool call's name then its arguments in a few
// deltas, a chunk with the finish_reason, a usage chunk when stream_options.include_usage is
// set, then [DONE]), and as one chat.completion object otherwise. GET /v1/models lists the
// models named in Server.Models. Anything else is answered with an OpenAI-shaped 404 error;
// every request, answered or not, is recorded.
package fakechat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Script decides what the model answers to one Chat Completions request. It is called once per
// POST to the completions path, possibly from several goroutines at once when the client sends
// requests concurrently, so it must be safe for concurrent use.
type Script func(r *Request) Response

// Server is a running scripted model server on a loopback port. Its URL is the server's root
// (http://127.0.0.1:PORT); its Requests are every request recorded so far.
type Server struct {
	fakeserver.Server[*Request]

	// BaseURL is URL + "/v1", the base URL of an OpenAI-compatible provider.
	BaseURL string

	script Script
	models []string
}

// Start starts a server on 127.0.0.1 on a free port, answering with script; GET /v1/models
// lists models. Close it when done. It panics if no loopback port can be had, as
// httptest.NewServer does.
func Start(script Script, models ...string) *Server {
	s := &Server{script: script, models: models}
	s.Server.Start("fakechat", s)
	s.BaseURL = s.URL + "/v1"
	return s
}

// isCompletions reports whether a request line is a Chat Completions call.
func isCompletions(method, path string) bool {
	return method == http.MethodPost && (path == "/v1/chat/completions" || path == "/chat/completions")
}

// CompletionsRequests returns the Chat Completions requests received so far, in order, keeping
// those for which keep returns true; a nil keep keeps them all.
func (s *Server) CompletionsRequests(keep func(*Request) bool) []*Request {
	return s.Select(func(r *Request) bool {
		return isCompletions(r.Method, r.Path) && r.DecodeErr == nil && (keep == nil || keep(r))
	})
}

// ServeHTTP answers the request and records it. A request is recorded once its answer is
// settled (for a completions call, once the script has returned) and before the answer is
// written, so a Request never changes after Requests returns it.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	base, err := fakeserver.Read(hr)
	req := &Request{Request: base}
	if err == nil && req.HasBody() {
		req.DecodeErr = req.decode()
	}
	completions := isCompletions(hr.Method, hr.URL.Path)
	if err == nil && completions && req.DecodeErr == nil {
		resp := s.script(req)
		resp.fill(req, s.NextID())
		req.Response = &resp
	}
	s.Record(req)

	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "reading the body: "+err.Error())
	case hr.Method == http.MethodGet && strings.TrimPrefix(hr.URL.Path, "/v1") == "/models":
		data := []any{}
		for _, m := range s.models {
			data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "fakechat"})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	case completions && req.DecodeErr != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "decoding the body: "+req.DecodeErr.Error())
	case completions && req.Response.Status != 0:
		writeError(w, req.Response.Status, "server_error", req.Response.ErrorMessage)
	case completions && req.Stream:
		writeStream(w, req, *req.Response)
	case completions:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(req.Response.object())
	default:
		writeError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("fakechat: no handler for %s %s", hr.Method, hr.URL.Path))
	}
}

// writeError writes an error in the shape the OpenAI API uses.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{
		"error": map[string]any{"type": typ, "message": msg, "param": nil, "code": nil},
	})
	_, _ = w.Write(b)
}

// writeStream writes resp as the server-sent events of a streamed Chat Completions response.
func writeStream(w http.ResponseWriter, req *Request, resp Response) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": resp.ID, "object": "chat.completion.chunk", "created": 0, "model": resp.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, part := range fakeserver.Split(resp.Text, 3) {
		send(chunk(map[string]any{"content": part}, nil))
	}
	for i, c := range resp.ToolCalls {
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		for _, part := range fakeserver.Split(c.Arguments, 2) {
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": part},
			}}}, nil))
		}
	}
	send(chunk(map[string]any{}, resp.finishReason()))
	if req.IncludeUsage {
		u := chunk(nil, nil)
		u["choices"] = []any{}
		u["usage"] = resp.usage()
		send(u)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
