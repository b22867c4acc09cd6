// Package fakeserver is the skeleton the scripted model servers of the end-to-end tests
// (fakeanthropic, fakeopenai, fakegemini) share: a loopback HTTP server that records every
// request it receives, and the HTTP side of a recorded request. Each fake embeds a Server and a
// Request and adds only its wire format: how a body decodes, which paths the script answers and
// how an answer is written.
package fakeserver

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// Request is the HTTP side of one request a server received, embedded in each fake's request
// type, which adds the body's fields decoded in its wire format.
type Request struct {
	// Seq is the request's position among all requests recorded, from 0; it is set when the
	// request is recorded, after the script has seen it.
	Seq int
	// Method, Path and RawQuery are the request line's.
	Method, Path, RawQuery string
	// Header is the request's header.
	Header http.Header
	// Body is the raw body.
	Body []byte
	// JSON is the body decoded as a generic JSON object; nil when the body was empty or not an
	// object.
	JSON map[string]any
	// DecodeErr is why the body could not be decoded, if it could not.
	DecodeErr error
}

// http returns r itself, for Recorded.
func (r *Request) http() *Request { return r }

// HasBody reports whether the body holds anything but white space, that is whether there is a
// body to decode.
func (r *Request) HasBody() bool { return len(bytes.TrimSpace(r.Body)) > 0 }

// Read reads hr's body and returns hr as a Request, with err the error reading the body, if
// any (the Request then holds what was read).
func Read(hr *http.Request) (Request, error) {
	body, err := io.ReadAll(hr.Body)
	return Request{
		Method:   hr.Method,
		Path:     hr.URL.Path,
		RawQuery: hr.URL.RawQuery,
		Header:   hr.Header.Clone(),
		Body:     body,
	}, err
}

// Recorded is a pointer to a fake's request type, which embeds Request.
type Recorded interface {
	http() *Request
}

// Server is a recording HTTP server on a loopback port, whose requests are of type R; its zero
// value is ready to Start.
type Server[R Recorded] struct {
	// URL is the server's root (http://127.0.0.1:PORT).
	URL string

	srv  *http.Server
	done chan struct{}
	ids  atomic.Int64

	mu   sync.Mutex
	reqs []R
}

// Start starts s on 127.0.0.1 on a free port, answering with h, which is to Record each
// request it answers. Close it when done. It panics, naming the server name, if no loopback
// port can be had, as httptest.NewServer does. A fake embeds a Server by value and starts it
// with itself as h, once the fake is otherwise set up.
func (s *Server[R]) Start(name string, h http.Handler) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("%s: listen on loopback: %v", name, err))
	}
	s.URL = "http://" + ln.Addr().String()
	s.done = make(chan struct{})
	s.srv = &http.Server{Handler: h}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed on Close
	}()
}

// Close stops the server, closing open connections, and waits for it to finish.
func (s *Server[R]) Close() {
	_ = s.srv.Close()
	<-s.done
}

// NextID returns the next of the numbers 1, 2, 3, … from which the fakes make response IDs.
func (s *Server[R]) NextID() int64 { return s.ids.Add(1) }

// Record records r, setting its Seq. A fake records a request once its answer is settled and
// before the answer is written, so a request never changes after Requests returns it.
func (s *Server[R]) Record(r R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.http().Seq = len(s.reqs)
	s.reqs = append(s.reqs, r)
}

// Requests returns every request recorded so far, in the order they were answered (for a
// client that waits for each answer before its next request, the order they were sent).
func (s *Server[R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]R(nil), s.reqs...)
}

// Select returns the requests recorded so far, in order, keeping those for which keep returns
// true.
func (s *Server[R]) Select(keep func(R) bool) []R {
	var out []R
	for _, r := range s.Requests() {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Split splits s into at most n pieces of roughly equal length, on rune boundaries, as a fake
// streams a text in a few deltas. An empty s gives no pieces.
func Split(s string, n int) []string {
	r := []rune(s)
	size := max(1, (len(r)+n-1)/n)
	var out []string
	for len(r) > 0 {
		k := min(size, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

// EstimateTokens is a rough token count of s, for usage figures.
func EstimateTokens(s string) int {
	return max(1, len(strings.Fields(s)))
}
