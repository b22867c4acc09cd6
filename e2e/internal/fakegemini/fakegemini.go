// Package fakegemini is a scripted model server for end-to-end tests: it speaks the Gemini API
// (generativelanguage v1beta) on loopback, streaming its answers as server-sent events the way
// the real API does, so an unmodified Gemini CLI can be pointed at it with
// GOOGLE_GEMINI_BASE_URL.
//
// A test scripts the model with a function from the request received (its contents, tools and
// system instruction) to the response to send, and asserts afterwards on every request the
// server recorded:
//
//	srv := fakegemini.Start(func(r *fakegemini.Request) fakegemini.Response {
//		if len(r.FunctionResponses("run_shell_command")) > 0 {
//			return fakegemini.Reply(fakegemini.Text("Done."))
//		}
//		return fakegemini.Reply(fakegemini.Call("run_shell_command", map[string]any{"command": "echo ok"}))
//	})
//	defer srv.Close()
//
// POST /v1beta/models/{model}:streamGenerateContent is answered by the script as a stream of
// GenerateContentResponse chunks (data: lines; text in a few chunks, each function call in one,
// the finish reason and usage in the last); POST …:generateContent by the script as one JSON
// response; POST …:countTokens with an estimate. Anything else is answered with a
// Google-shaped 404 error. Every request, answered or not, is recorded.
package fakegemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Script decides what the model answers to one generate request. It is called once per
// streamGenerateContent or generateContent request, possibly from several goroutines at once
// when the client sends requests concurrently, so it must be safe for concurrent use.
type Script func(r *Request) Response

// Server is a running scripted model server on a loopback port. Its URL (http://127.0.0.1:PORT)
// is for GOOGLE_GEMINI_BASE_URL; its Requests are every request recorded so far.
type Server struct {
	fakeserver.Server[*Request]

	script Script
}

// Start starts a server on 127.0.0.1 on a free port, answering with script. Close it when done.
// It panics if no loopback port can be had, as httptest.NewServer does.
func Start(script Script) *Server {
	s := &Server{script: script}
	s.Server.Start("fakegemini", s)
	return s
}

// GenerateRequests returns the generate requests received so far, in order, keeping those for
// which keep returns true; a nil keep keeps them all.
func (s *Server) GenerateRequests(keep func(*Request) bool) []*Request {
	return s.Select(func(r *Request) bool {
		return r.Generate() && r.Response != nil && (keep == nil || keep(r))
	})
}

// modelPath splits /v1beta/models/{model}:{action}; ok is false for another path.
func modelPath(path string) (model, action string, ok bool) {
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 || i == len(rest)-1 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// ServeHTTP answers the request and records it. A request is recorded once its answer is
// settled (for a generate request, once the script has returned) and before the answer is
// written, so a Request never changes after Requests returns it.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	base, err := fakeserver.Read(hr)
	req := &Request{Request: base}
	body := req.Body
	req.Model, req.Action, _ = modelPath(hr.URL.Path)
	if err == nil && req.HasBody() {
		req.DecodeErr = req.decode()
	}
	if err == nil && req.Generate() && req.DecodeErr == nil {
		resp := s.script(req)
		resp.fill(req, s.NextID())
		req.Response = &resp
	}
	s.Record(req)

	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "reading the body: "+err.Error())
	case hr.Method == http.MethodPost && req.Action == "countTokens":
		w.Header().Set("Content-Type", "application/json")
		// Roughly four bytes a token, as good as any estimate a test needs.
		fmt.Fprintf(w, `{"totalTokens":%d}`, max(1, len(body)/4))
	case req.Generate() && req.DecodeErr != nil:
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "decoding the body: "+req.DecodeErr.Error())
	case req.Generate() && req.Action == "streamGenerateContent":
		writeStream(w, *req.Response)
	case req.Generate():
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(chunk(*req.Response, req.Response.Parts, true))
	default:
		writeError(w, http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("fakegemini: no handler for %s %s", hr.Method, hr.URL.Path))
	}
}

// writeError writes an error in the shape the Google APIs use.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{
		"error": map[string]any{"code": status, "message": msg, "status": code},
	})
	_, _ = w.Write(b)
}

// chunk is one GenerateContentResponse holding parts; last adds the finish reason and the
// usage, as the real API sends them in its final chunk.
func chunk(resp Response, parts []Part, last bool) map[string]any {
	cand := map[string]any{
		"content": map[string]any{"role": "model", "parts": parts},
		"index":   0,
	}
	out := map[string]any{"candidates": []any{cand}, "modelVersion": resp.ModelVersion, "responseId": resp.ResponseID}
	if last {
		cand["finishReason"] = resp.FinishReason
		out["usageMetadata"] = map[string]int{
			"promptTokenCount":     resp.PromptTokens,
			"candidatesTokenCount": resp.OutputTokens,
			"totalTokenCount":      resp.PromptTokens + resp.OutputTokens,
		}
	}
	return out
}

// writeStream writes resp as the server-sent events of streamGenerateContent?alt=sse: one
// "data:" event per chunk, text parts split over a few chunks, each other part in a chunk of
// its own, and the finish reason and usage in a final chunk.
func writeStream(w http.ResponseWriter, resp Response) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	var chunks [][]Part
	for _, p := range resp.Parts {
		if p.Text == "" || p.FunctionCall != nil {
			chunks = append(chunks, []Part{p})
			continue
		}
		for _, piece := range fakeserver.Split(p.Text, 3) {
			q := p
			q.Text = piece
			chunks = append(chunks, []Part{q})
		}
	}
	if len(chunks) == 0 {
		chunks = [][]Part{{}}
	}
	for i, parts := range chunks {
		b, _ := json.Marshal(chunk(resp, parts, i == len(chunks)-1))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
}
