package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stopgate/stopgate/store"
)

// TestGracefulShutdown ends Serve's context while two requests are in flight, a decision among
// them: both are answered in full, the decision is recorded, Serve returns nil, and then the
// listener is gone.
func TestGracefulShutdown(t *testing.T) {
	st := openStore(t)
	s, err := New(Options{Store: st, ShutdownTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan string, 2)
	release := make(chan struct{})
	began := make(chan struct{})
	s.onShutdown = func() { close(began) }
	// Hooks: routes that wait for the test before answering, one of them a decision.
	s.route("POST", "/v1/slow", func(w http.ResponseWriter, r *http.Request) error {
		entered <- "slow"
		<-release
		return writeJSON(w, http.StatusOK, map[string]string{"slow": "done"})
	})
	s.route("POST", "/v1/slow-decide", func(w http.ResponseWriter, r *http.Request) error {
		entered <- "decide"
		<-release
		return s.decide(w, r)
	})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()

	type answer struct {
		resp *http.Response
		body string
		err  error
	}
	answers := make(chan answer, 2)
	for _, path := range []string{"/v1/slow", "/v1/slow-decide"} {
		go func() {
			resp, err := http.Post(base+path, "application/json", strings.NewReader(`{"session":"in-flight"}`))
			if err != nil {
				answers <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			answers <- answer{resp: resp, body: mustRead(t, resp)}
		}()
	}
	<-entered
	<-entered
	cancel()
	<-began // shutdown has begun, with both requests in flight
	close(release)

	var eventID string
	for range 2 {
		a := <-answers
		if a.err != nil {
			t.Fatalf("an in-flight request failed: %v", a.err)
		}
		if a.resp.StatusCode != http.StatusOK {
			t.Errorf("in-flight answer: %d %s", a.resp.StatusCode, a.body)
		}
		if id := a.resp.Header.Get(HeaderEventID); id != "" {
			eventID = id
		}
	}
	if err := <-served; err != nil {
		t.Errorf("Serve after a graceful shutdown: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if eventID == "" {
		t.Fatal("the in-flight decision was not recorded")
	}
	evs, err := st.Query(context.Background(), store.Filter{Session: "in-flight"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) == 0 || evs[0].ID != eventID {
		t.Errorf("the in-flight decision is not in the store: %+v", evs)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialling after shutdown: %v, want connection refused", err)
	}
	// After Close, a decision is still answered, unrecorded.
	rec := serveLocal(s, "POST", "/v1/decide", `{"session":"late"}`)
	if rec.Code != http.StatusOK || rec.Header().Get(HeaderRecorded) != RecordedFailed {
		t.Errorf("a decision after Close: %d %q", rec.Code, rec.Header().Get(HeaderRecorded))
	}
}

// TestShutdownTimeout: a request that outlasts the timeout makes Serve report it.
func TestShutdownTimeout(t *testing.T) {
	s, err := New(Options{ShutdownTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	s.route("POST", "/v1/stuck", func(w http.ResponseWriter, r *http.Request) error {
		close(entered)
		<-release
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	go func() {
		resp, err := http.Post(fmt.Sprintf("http://%s/v1/stuck", ln.Addr()), "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	cancel()
	if err := <-served; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Serve: %v, want the shutdown deadline", err)
	}
}
