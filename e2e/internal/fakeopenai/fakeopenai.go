// Package fakeopenai is a scripted model server for end-to-end tests: it speaks the OpenAI
// Responses API on loopback, streaming its answers as server-sent events the way the real API
// does, so an unmodified agent harness (Codex CLI) can be pointed at it with a custom model
// provider whose base_url is Server.BaseURL and whose wire_api is "responses".
//
// A test scripts the model with a function from the request received (its input items, tools
// and instructions) to the response to send, and asserts afterwards on every request the
// server recorded:
//
//	srv := fakeopenai.Start(func(r *fakeopenai.Request) fakeopenai.Response {
//		if _, ok := r.FunctionOutput("call_1"); ok {
//			return fakeopenai.Reply(fakeopenai.Text("Done."))
//		}
//		return fakeopenai.Reply(fakeopenai.FunctionCall("call_1", "exec_command", map[string]any{"cmd": "echo ok"}))
//	})
//	defer srv.Close()
//
// POST /v1/responses is answered by the script: streamed (response.created, then per output
// item response.output_item.added, its response.output_text.delta or
// response.function_call_arguments.delta fragments and response.output_item.done, then
// response.completed with the usage) when the request asks for a stream, and as one response
// object otherwise. GET /v1/models is answered with an empty list. Anything else is answered
// with an OpenAI-shaped 404 error; every request, answered or not, is recorded.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Script decides what the model answers to one Responses API request. It is called once per
// POST /v1/responses, possibly from several goroutines at once when the client sends requests
// concurrently, so it must be safe for concurrent use.
type Script func(r *Request) Response

// Server is a running scripted model server on a loopback port. Its URL is the server's root
// (http://127.0.0.1:PORT); its Requests are every request recorded so far.
type Server struct {
	fakeserver.Server[*Request]

	// BaseURL is URL + "/v1", the base_url of an OpenAI-compatible provider.
	BaseURL string

	script Script
}

// Start starts a server on 127.0.0.1 on a free port, answering with script. Close it when done.
// It panics if no loopback port can be had, as httptest.NewServer does.
func Start(script Script) *Server {
	s := &Server{script: script}
	s.Server.Start("fakeopenai", s)
	s.BaseURL = s.URL + "/v1"
	return s
}

// ResponsesRequests returns the POST /v1/responses requests received so far, in order,
// keeping those for which keep returns true; a nil keep keeps them all.
func (s *Server) ResponsesRequests(keep func(*Request) bool) []*Request {
	return s.Select(func(r *Request) bool {
		return r.Method == http.MethodPost && r.Path == "/v1/responses" && (keep == nil || keep(r))
	})
}

// ServeHTTP answers the request and records it. A request is recorded once its answer is
// settled (for POST /v1/responses, once the script has returned) and before the answer is
// written, so a Request never changes after Requests returns it.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	base, err := fakeserver.Read(hr)
	req := &Request{Request: base}
	if err == nil && req.HasBody() {
		req.DecodeErr = req.decode()
	}
	responses := hr.Method == http.MethodPost && hr.URL.Path == "/v1/responses"
	if err == nil && responses && req.DecodeErr == nil {
		resp := s.script(req)
		resp.fill(req, s.NextID())
		req.Response = &resp
	}
	s.Record(req)

	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "reading the body: "+err.Error())
	case hr.Method == http.MethodGet && hr.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[]}`)
	case responses && req.DecodeErr != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "decoding the body: "+req.DecodeErr.Error())
	case responses && req.Stream:
		writeStream(w, *req.Response)
	case responses:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(req.Response.object("completed", true))
	default:
		writeError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("fakeopenai: no handler for %s %s", hr.Method, hr.URL.Path))
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

// writeStream writes resp as the server-sent events of a streamed Responses API response.
// Text is sent in a few output_text deltas and call arguments in a few
// function_call_arguments deltas, as the real API does.
func writeStream(w http.ResponseWriter, resp Response) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	seq := 0
	event := func(name string, data map[string]any) {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	event("response.created", map[string]any{"response": resp.object("in_progress", false)})
	for i, it := range resp.Output {
		event("response.output_item.added", map[string]any{"output_index": i, "item": it.wire(false)})
		switch it.Type {
		case "message":
			for _, part := range fakeserver.Split(it.Text, 3) {
				event("response.output_text.delta", map[string]any{"output_index": i, "content_index": 0, "item_id": it.ID, "delta": part})
			}
		case "function_call":
			for _, part := range fakeserver.Split(it.Arguments, 2) {
				event("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": it.ID, "delta": part})
			}
		}
		event("response.output_item.done", map[string]any{"output_index": i, "item": it.wire(true)})
	}
	event("response.completed", map[string]any{"response": resp.object("completed", true)})
}
