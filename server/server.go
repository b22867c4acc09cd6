// Package server is stopgate's HTTP API: the operations of the command line as JSON
// endpoints, an event log to query, statistics for the dashboard, and Prometheus metrics.
//
//	POST /v1/decide           a Turn in, a Decision out, recorded in the event log
//	POST /v1/classify/error   an error description in, a termination reason out
//	POST /v1/classify/stop    a provider response fragment in, a stop-metadata reason out
//	POST /v1/stall            a final message in, a stall verdict out
//	POST /v1/gate             a snapshot of background work in, a completion-gate verdict out
//	POST /v1/salvage          a rejected tool call's error body in, the salvaged answer out
//	GET  /v1/events           recorded events, newest first (filters in the query)
//	GET  /v1/stats            decisions over time, termination categories, pending nudges
//	GET  /healthz             {"status": "ok"}
//	GET  /metrics             Prometheus text format
//
// Every POST takes one JSON object (Content-Type application/json, or none) and answers with
// one, in exactly the shapes of the matching `stopgate` command's input and output lines
// (package internal/wire holds them for both). Unknown fields are ignored; a batch is not
// accepted (send one request per object). The GETs take their filters as query parameters,
// and an unknown parameter is an error, because a misspelt filter would otherwise select
// everything. Anything the server cannot do is answered with a 4xx or 5xx status and
// {"error": "what is wrong"}.
//
// # Recording
//
// A decision's events are appended to the event log before the decision is answered, so a
// decision the client has seen is durable. They are dated by the turn's "now", as `stopgate
// decide` dates them, or by the server's clock when the turn has none. Concurrent decisions are
// committed together (group commit): one writer appends whatever is queued in one transaction
// and then answers each of them; under load it waits up to a millisecond for the decisions
// still being made, so that a commit carries more of them. When the log fails, or takes
// longer than Options.RecordTimeout, the decision is still answered, because withholding it
// would stop the harness for a bookkeeping fault: the failure is logged, counted in
// stopgate_decisions_unrecorded_total (and stopgate_store_errors_total when an append
// failed), and the answer's Stopgate-Recorded header says "false" instead of "true".
//
// # Security
//
// With no token, the server answers only requests addressed to a loopback host (Host:
// localhost, 127.0.0.1, [::1]), which defeats DNS rebinding, and [Server.Serve] refuses a
// listener that is not on a loopback address. With a token, every request but GET /healthz
// must carry it, as "Authorization: Bearer TOKEN" (or, for a browser on the dashboard, as the
// password of HTTP basic authentication). Cross-origin browser requests that change state are
// refused ([http.CrossOriginProtection]) either way. Bodies are limited in size; a panic in a
// handler fails only its own request.
package server

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/store"
)

// DefaultMaxBodyBytes is the largest request body the server reads when Options.MaxBodyBytes
// is zero: 1 MiB.
const DefaultMaxBodyBytes = 1 << 20

// DefaultRecordTimeout is how long a decision waits for the event log when
// Options.RecordTimeout is zero.
const DefaultRecordTimeout = 5 * time.Second

// DefaultShutdownTimeout is how long Serve waits for requests in flight to finish when
// Options.ShutdownTimeout is zero.
const DefaultShutdownTimeout = 30 * time.Second

// HeaderRecorded is the response header of POST /v1/decide that says whether the decision was
// recorded in the event log: RecordedYes, RecordedFailed or RecordedOff. HeaderEventID, set
// when it was, is the ID of its decision event.
const (
	HeaderRecorded = "Stopgate-Recorded"
	HeaderEventID  = "Stopgate-Event-Id"
)

// The values of HeaderRecorded.
const (
	// RecordedYes: the decision's events are durable in the event log.
	RecordedYes = "true"
	// RecordedFailed: appending failed; the decision stands, but the log does not have it.
	RecordedFailed = "false"
	// RecordedOff: the server does not record decisions (no store, or Options.NoRecord).
	RecordedOff = "off"
)

// ErrTokenRequired is returned, wrapped, by [CheckAddr] and [Server.Serve] for a listener
// that is not on a loopback address when the server has no token.
var ErrTokenRequired = errors.New("a non-loopback address requires a token")

// Options configures a Server. The zero value serves on loopback with the default
// supervisor, no model classifier, no event log and no dashboard.
type Options struct {
	// Supervisor decides POST /v1/decide; nil means stopgate.New(stopgate.Config{}).
	Supervisor *stopgate.Supervisor
	// Classifier is the model stall classifier POST /v1/stall consults after the lexical one;
	// nil leaves it off. (The Supervisor carries its own, for decisions.)
	Classifier *stall.ModelClassifier

	// Store is the event log: decisions are recorded in it, and GET /v1/events and
	// GET /v1/stats read it. Nil means none: decisions are not recorded, and those two
	// endpoints answer 503. The caller owns the Store and closes it after the Server.
	Store store.Store
	// NoRecord leaves decisions out of Store, which is still read.
	NoRecord bool
	// AppendEach appends each decision's events in its own Store.Append, one transaction per
	// decision, instead of committing concurrent decisions together. Group commit is faster
	// on every store measured; this is for comparison.
	AppendEach bool
	// RecordTimeout bounds how long a decision waits for the event log before it is answered
	// anyway, with Stopgate-Recorded: false; zero means DefaultRecordTimeout. The request's
	// own context (a client that goes away) bounds the wait too. The events are still
	// appended when the store comes back in time for the append's own timeout.
	RecordTimeout time.Duration
	// Writers is how many group commits may run at once; zero means one, which suits SQLite
	// (its writes take turns anyway). A PostgreSQL log gains from a few: each commit waits
	// on a round trip and a WAL flush, during which the others gather and commit.
	Writers int

	// Token, when set, must accompany every request but GET /healthz, as a bearer token. It is
	// required for a listener that is not on a loopback address.
	Token string
	// MaxBodyBytes bounds a request body; zero means DefaultMaxBodyBytes. A larger body is
	// answered 413.
	MaxBodyBytes int64
	// Dashboard, when set, serves every path the API does not, mounted at "/".
	Dashboard http.Handler

	// Logger receives the server's logs (panics, store failures, shutdown; every request at
	// debug level); nil discards them.
	Logger *slog.Logger
	// ShutdownTimeout bounds how long Serve waits for requests in flight once its context
	// ends; zero means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
}

// Server is the HTTP API. It is an http.Handler; [Server.Serve] runs it on a listener with
// graceful shutdown. Its methods are safe for concurrent use.
type Server struct {
	opts    Options
	sup     *stopgate.Supervisor
	rec     recorder // nil when decisions are not recorded
	log     *slog.Logger
	metrics *metrics
	mux     *http.ServeMux
	cop     *http.CrossOriginProtection
	maxBody int64
	now     func() time.Time

	recordTimeout time.Duration

	// onShutdown, when set, is called as graceful shutdown begins (a test hook).
	onShutdown func()
}

// New returns a Server with the given options. It fails when an option is out of range.
func New(opts Options) (*Server, error) {
	if opts.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("server: MaxBodyBytes %d is negative", opts.MaxBodyBytes)
	}
	if opts.Writers < 0 {
		return nil, fmt.Errorf("server: Writers %d is negative", opts.Writers)
	}
	if opts.RecordTimeout < 0 {
		return nil, fmt.Errorf("server: RecordTimeout %s is negative", opts.RecordTimeout)
	}
	if opts.ShutdownTimeout < 0 {
		return nil, fmt.Errorf("server: ShutdownTimeout %s is negative", opts.ShutdownTimeout)
	}
	if strings.ContainsFunc(opts.Token, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, errors.New("server: the token contains white space or control characters, which an Authorization header cannot carry")
	}
	s := &Server{
		opts:    opts,
		sup:     opts.Supervisor,
		log:     opts.Logger,
		metrics: newMetrics(),
		mux:     http.NewServeMux(),
		cop:     http.NewCrossOriginProtection(),
		maxBody: opts.MaxBodyBytes,
		now:     time.Now,
	}
	if s.sup == nil {
		s.sup = stopgate.New(stopgate.Config{})
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody == 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	s.recordTimeout = opts.RecordTimeout
	if s.recordTimeout == 0 {
		s.recordTimeout = DefaultRecordTimeout
	}
	if opts.Store != nil && !opts.NoRecord {
		if opts.AppendEach {
			s.rec = &directRecorder{st: opts.Store, m: s.metrics}
		} else {
			s.rec = newGroupRecorder(opts.Store, s.metrics, s.log, opts.Writers)
		}
	}
	s.routes()
	return s, nil
}

// routes registers the endpoints.
func (s *Server) routes() {
	s.route("POST", "/v1/decide", s.decide)
	s.route("POST", "/v1/classify/error", operation(s, s.classifyError))
	s.route("POST", "/v1/classify/stop", operation(s, s.classifyStop))
	s.route("POST", "/v1/stall", operation(s, s.stall))
	s.route("POST", "/v1/gate", operation(s, s.gate))
	s.route("POST", "/v1/salvage", operation(s, s.salvage))
	s.route("GET", "/v1/events", s.events)
	s.route("GET", "/v1/stats", s.stats)
	s.route("GET", "/healthz", s.healthz)
	s.route("GET", "/metrics", s.metricsText)
	s.mux.Handle("/v1/", s.wrap("unmatched", routeAPI, func(_ http.ResponseWriter, r *http.Request) error {
		return errorf(codeNotFound, "no endpoint %s", r.URL.Path)
	}))
	if s.opts.Dashboard != nil {
		s.mux.Handle("/", s.wrap("dashboard", routeBrowser, func(w http.ResponseWriter, r *http.Request) error {
			s.opts.Dashboard.ServeHTTP(w, r)
			return nil
		}))
	} else {
		s.mux.Handle("/", s.wrap("unmatched", routeAPI, func(_ http.ResponseWriter, r *http.Request) error {
			return errorf(codeNotFound, "no endpoint %s (the server has no dashboard)", r.URL.Path)
		}))
	}
}

// route registers h for method on path, and a 405 for the path's other methods. The path is
// the endpoint's name in the metrics.
func (s *Server) route(method, path string, h handlerFunc) {
	kind := routeAPI
	if path == "/healthz" {
		kind = routePublic
	}
	s.mux.Handle(method+" "+path, s.wrap(path, kind, h))
	s.mux.Handle(path, s.wrap(path, kind, func(w http.ResponseWriter, r *http.Request) error {
		allow := method
		if method == http.MethodGet {
			allow = "GET, HEAD"
		}
		w.Header().Set("Allow", allow)
		return errorf(codeMethod, "%s %s: the endpoint takes %s", r.Method, path, method)
	}))
	s.metrics.latency(path)
}

// routeKind says how a route is authenticated.
type routeKind int

const (
	routeAPI     routeKind = iota // the token, as a bearer token
	routeBrowser                  // the token, as a bearer token or a basic-auth password
	routePublic                   // no token
)

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// wrap makes h a route: it checks the request may be made, answers h's error, survives h's
// panic, and measures the request under endpoint.
func (s *Server) wrap(endpoint string, kind routeKind, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					// net/http's way to abort an answer on purpose: not a failure, and
					// net/http handles it.
					s.metrics.observe(endpoint, rw.statusCode(), time.Since(start))
					panic(v)
				}
				s.metrics.panics.Add(1)
				s.log.Error("panic in handler", "endpoint", endpoint, "method", r.Method, "path", r.URL.Path,
					"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if !rw.wrote {
					s.fail(rw, r, kind, errors.New("panic"))
				}
			}
			elapsed := time.Since(start)
			s.metrics.observe(endpoint, rw.statusCode(), elapsed)
			if s.log.Enabled(r.Context(), slog.LevelDebug) {
				s.log.LogAttrs(r.Context(), slog.LevelDebug, "request", slog.String("method", r.Method),
					slog.String("path", r.URL.Path), slog.Int("status", rw.statusCode()), slog.Duration("took", elapsed))
			}
		}()
		err := s.authorize(r, kind)
		if err == nil {
			err = h(rw, r)
		}
		if err != nil {
			if rw.wrote {
				s.log.Debug("answer cut short", "endpoint", endpoint, "err", err)
				return
			}
			s.fail(rw, r, kind, err)
		}
	})
}

// fail answers err, logging what the client is not told.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, kind routeKind, err error) {
	status, msg := errorResponse(err)
	switch {
	case status >= 500:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	case status == http.StatusUnauthorized:
		challenge := `Bearer realm="stopgate"`
		if kind == routeBrowser {
			challenge = `Basic realm="stopgate", charset="UTF-8"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
	}
	_ = writeJSON(w, status, map[string]string{"error": msg})
}

// authorize checks that r may be made: from a browser, only from the same origin; with no
// token, only to a loopback host; with a token, only with it.
func (s *Server) authorize(r *http.Request, kind routeKind) error {
	if err := s.cop.Check(r); err != nil {
		return errorf(codeForbidden, "cross-origin request refused: %w", err)
	}
	if s.opts.Token == "" {
		if !loopbackHost(r.Host) {
			return errorf(codeForbidden, "host %q is not a loopback name: without a token the server answers only requests addressed to localhost or a loopback IP", r.Host)
		}
		return nil
	}
	if kind == routePublic {
		return nil
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return errorf(codeUnauthorized, "missing token: send Authorization: Bearer TOKEN")
	}
	if !s.tokenOK(auth, kind) {
		return errorf(codeUnauthorized, "wrong token")
	}
	return nil
}

// tokenOK reports whether the Authorization header value carries the token.
func (s *Server) tokenOK(auth string, kind routeKind) bool {
	scheme, cred, _ := strings.Cut(auth, " ")
	cred = strings.TrimSpace(cred)
	switch {
	case strings.EqualFold(scheme, "Bearer"):
	case strings.EqualFold(scheme, "Basic") && kind == routeBrowser:
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return false
		}
		_, cred, _ = strings.Cut(string(raw), ":")
	default:
		return false
	}
	return subtle.ConstantTimeCompare([]byte(cred), []byte(s.opts.Token)) == 1
}

// loopbackHost reports whether a Host header names a loopback host: localhost (or a name
// under .localhost), or a loopback IP. An empty Host (HTTP/1.0) is let through: it cannot
// come from a browser.
func loopbackHost(hostport string) bool {
	if hostport == "" {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	lower := strings.ToLower(strings.TrimSuffix(host, "."))
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// CheckAddr reports whether a server with token may listen on addr: ErrTokenRequired
// (wrapped, naming the address) when token is empty and addr is a TCP address that is not
// loopback. Unix sockets are local and need no token.
func CheckAddr(addr net.Addr, token string) error {
	if token != "" {
		return nil
	}
	if ta, ok := addr.(*net.TCPAddr); ok {
		ip, ok := netip.AddrFromSlice(ta.IP)
		if !ok || !ip.Unmap().IsLoopback() {
			return fmt.Errorf("server: refusing to listen on %s: %w", addr, ErrTokenRequired)
		}
	}
	return nil
}

// Serve answers requests on ln until ctx ends, then shuts down gracefully: it stops
// accepting, waits up to Options.ShutdownTimeout for the requests in flight to be answered
// (and so for their decisions to be recorded), and returns nil. It refuses, with
// ErrTokenRequired, a listener that is not on a loopback address when the server has no
// token. It does not close the Server: call [Server.Close] after it returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := CheckAddr(ln.Addr(), s.opts.Token); err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	if s.onShutdown != nil {
		hs.RegisterOnShutdown(s.onShutdown)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	timeout := s.opts.ShutdownTimeout
	if timeout == 0 {
		timeout = DefaultShutdownTimeout
	}
	s.log.Info("shutting down: answering the requests in flight", "timeout", timeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-errc // http.ErrServerClosed, now that Shutdown has begun
	if err != nil {
		_ = hs.Close()
		return fmt.Errorf("server: shutdown: %w", err)
	}
	return nil
}

// Close stops the server's event writer once it has appended what is queued. Call it after
// the requests in flight are answered (after Serve returns); a decision made later is answered
// unrecorded. It does not close the Store.
func (s *Server) Close() error {
	if s.rec != nil {
		s.rec.close()
	}
	return nil
}

// statusWriter records the status of the answer.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush sends what is buffered to the client, for a handler that streams.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if !w.wrote {
			w.status, w.wrote = http.StatusOK, true
		}
		f.Flush()
	}
}

func (w *statusWriter) statusCode() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}
