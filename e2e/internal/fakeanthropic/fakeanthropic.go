// Package fakeanthropic is a scripted model server for end-to-end tests: it speaks the
// Anthropic Messages API on loopback, streaming its answers as server-sent events the way the
// real API does, so an unmodified agent harness (Claude Code) can be pointed at it with
// ANTHROPIC_BASE_URL.
//
// A test scripts the model with a function from the request received (its messages, tools and
// system prompt) to the response to send, and asserts afterwards on every request the server
// recorded:
//
//	srv := fakeanthropic.Start(func(r *fakeanthropic.Request) fakeanthropic.Response {
//		if _, ok := r.ToolResult("toolu_1"); ok {
//			return fakeanthropic.Reply(fakeanthropic.Text("Done."))
//		}
//		return fakeanthropic.Reply(fakeanthropic.ToolUse("toolu_1", "Bash", map[string]any{"command": "echo ok"}))
//	})
//	defer srv.Close()
//
// POST /v1/messages is answered by the script, streamed when the request asks for it and as
// one JSON message otherwise. POST /v1/messages/count_tokens is answered with a token estimate.
// Anything else is answered with an Anthropic-shaped 404 error; every request, answered or
// not, is recorded.
package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Script decides what the model answers to one Messages API request. It is called once per
// POST /v1/messages, possibly from several goroutines at once when the client sends requests
// concurrently, so it must be safe for concurrent use.
type Script func(r *Request) Response

// Server is a running scripted model server on a loopback port. Its URL (http://127.0.0.1:PORT)
// is for ANTHROPIC_BASE_URL; its Requests are every request recorded so far.
type Server struct {
	fakeserver.Server[*Request]

	script Script
}

// Start starts a server on 127.0.0.1 on a free port, answering with script. Close it when done.
// It panics if no loopback port can be had, as httptest.NewServer does.
func Start(script Script) *Server {
	s := &Server{script: script}
	s.Server.Start("fakeanthropic", s)
	return s
}

// MessagesRequests returns the POST /v1/messages requests received so far, in order,
// keeping those for which keep returns true; a nil keep keeps them all.
func (s *Server) MessagesRequests(keep func(*Request) bool) []*Request {
	return s.Select(func(r *Request) bool {
		return r.Method == http.MethodPost && r.Path == "/v1/messages" && (keep == nil || keep(r))
	})
}

// ServeHTTP answers the request and records it. A request is recorded once its answer is
// settled (for POST /v1/messages, once the script has returned) and before the answer is
// written, so a Request never changes after Requests returns it.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	base, err := fakeserver.Read(hr)
	req := &Request{Request: base}
	body := req.Body
	if err == nil && req.HasBody() {
		req.DecodeErr = req.decode()
	}
	messages := hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages"
	if err == nil && messages && req.DecodeErr == nil {
		resp := s.script(req)
		resp.fill(req, s.NextID())
		req.Response = &resp
	}
	s.Record(req)

	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "reading the body: "+err.Error())
	case hr.Method == http.MethodPost && hr.URL.Path == "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		// Roughly four bytes a token, as good as any estimate a test needs.
		fmt.Fprintf(w, `{"input_tokens":%d}`, max(1, len(body)/4))
	case messages && req.DecodeErr != nil:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "decoding the body: "+req.DecodeErr.Error())
	case messages && req.Stream:
		writeStream(w, *req.Response)
	case messages:
		writeMessage(w, *req.Response)
	default:
		writeError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("fakeanthropic: no handler for %s %s", hr.Method, hr.URL.Path))
	}
}

// writeError writes an error in the shape the Anthropic API uses.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{
		"type":  "error",
		"error": map[string]string{"type": typ, "message": msg},
	})
	_, _ = w.Write(b)
}

// writeMessage writes resp as one non-streamed Messages API response.
func writeMessage(w http.ResponseWriter, resp Response) {
	content := make([]map[string]any, 0, len(resp.Content))
	for _, b := range resp.Content {
		content = append(content, b.wire(true))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":            resp.ID,
		"type":          "message",
		"role":          "assistant",
		"model":         resp.Model,
		"content":       content,
		"stop_reason":   resp.StopReason,
		"stop_sequence": nil,
		"usage":         map[string]int{"input_tokens": resp.InputTokens, "output_tokens": resp.OutputTokens},
	})
}

// writeStream writes resp as the server-sent events of a streamed Messages API response:
// message_start, then for each block content_block_start, its deltas and content_block_stop,
// then message_delta with the stop reason and message_stop. Text is sent in a few deltas and
// tool input as input_json_delta fragments, as the real API does.
func writeStream(w http.ResponseWriter, resp Response) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": resp.ID, "type": "message", "role": "assistant", "model": resp.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": resp.InputTokens, "output_tokens": 1},
		},
	})
	event("ping", map[string]string{"type": "ping"})
	for i, b := range resp.Content {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b.wire(false)})
		switch b.Type {
		case "text":
			for _, part := range fakeserver.Split(b.Text, 3) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]string{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			for _, part := range fakeserver.Split(string(b.Input), 2) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]string{"type": "input_json_delta", "partial_json": part}})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": resp.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": resp.OutputTokens},
	})
	event("message_stop", map[string]string{"type": "message_stop"})
}
