package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/internal/wire"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// handlerFunc is an endpoint: it writes a successful answer itself and returns an error for
// everything else, which the route's wrapper answers (see errorResponse).
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// operation is an endpoint that reads one JSON value and answers with another.
func operation[In, Out any](s *Server, op func(ctx context.Context, in In) (Out, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in In
		if err := s.decode(w, r, &in); err != nil {
			return err
		}
		out, err := op(r.Context(), in)
		if err != nil {
			return errorf(codeInvalid, "%w", err)
		}
		return writeJSON(w, http.StatusOK, out)
	}
}

func (s *Server) classifyError(_ context.Context, in wire.ErrorInput) (wire.Reason, error) {
	return wire.ClassifyError(in)
}

func (s *Server) classifyStop(_ context.Context, in wire.StopInput) (wire.Reason, error) {
	return wire.ClassifyStop(in), nil
}

func (s *Server) stall(ctx context.Context, in wire.StallInput) (wire.StallVerdict, error) {
	return wire.Stall(ctx, in, s.opts.Classifier)
}

func (s *Server) gate(_ context.Context, in gate.Input) (gate.Result, error) {
	return gate.Check(in), nil
}

func (s *Server) salvage(_ context.Context, in wire.SalvageInput) (wire.Salvaged, error) {
	return wire.Salvage(in)
}

// decide answers POST /v1/decide: a Turn in, a Decision out, recorded in the event log before
// the answer is written. A decision the log could not take is still answered; the
// Stopgate-Recorded header says so.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) error {
	// Announce the decision to the group commit, which waits a moment for decisions on their
	// way; the announcement is withdrawn when its events are queued, or when it fails first.
	announced := s.rec != nil
	if announced {
		s.rec.announce()
		defer func() {
			if announced {
				s.rec.withdraw()
			}
		}()
	}
	var t stopgate.Turn
	if err := s.decode(w, r, &t); err != nil {
		return err
	}
	if err := wire.CheckTurn(t); err != nil {
		return errorf(codeInvalid, "%w", err)
	}
	d := s.sup.Decide(r.Context(), t)
	s.metrics.decisions.inc(string(d.Check), string(d.Verdict))
	if d.Verdict == stopgate.Stop && d.Reason != nil {
		s.metrics.terminated.inc(string(d.Reason.Category))
	}
	// The answer is encoded once: the decision event's payload is the same JSON.
	buf := getBuffer()
	if err := encodeDecision(buf, d); err != nil {
		putBuffer(buf)
		return fmt.Errorf("encode answer: %w", err)
	}
	answer := buf.Bytes()
	if s.rec == nil {
		w.Header().Set(HeaderRecorded, RecordedOff)
	} else {
		announced = false
		if !s.record(r.Context(), w.Header(), t, d, answer[:len(answer)-1]) {
			// The writer may still hold the payload, which is the buffer's: leave it to
			// the garbage collector.
			buf = nil
		}
	}
	err := writeBytes(w, http.StatusOK, answer)
	if buf != nil {
		putBuffer(buf)
	}
	return err
}

// record appends decision d's events, with payload (d's JSON) as the decision event's, and
// says in h whether it did. The events' time is the turn's now, as the command line records
// it, or the server's clock when the turn has none. It waits for the log at most as long as
// ctx allows and Options.RecordTimeout: a decision the log could not take in time is
// answered as not recorded. It withdraws the decision's announcement to the recorder, and
// reports whether the recorder is done with the events (false when it gave up waiting for
// them while the writer may still hold them).
func (s *Server) record(ctx context.Context, h http.Header, t stopgate.Turn, d stopgate.Decision, payload []byte) (released bool) {
	at := t.Now
	if at.IsZero() {
		at = s.now()
	}
	events, err := store.DecisionEventsJSON(t, d, payload, at)
	if err == nil {
		var obs store.Event
		var ok bool
		if obs, ok, err = store.FinalMessageObservation(t, at); ok {
			events = append(events, obs)
		}
	}
	released = true
	if err == nil {
		ctx, cancel := context.WithTimeoutCause(ctx, s.recordTimeout, errRecordTimeout)
		s.rec.withdraw()
		err = s.rec.record(ctx, events)
		released = ctx.Err() == nil
		cancel()
	} else {
		s.rec.withdraw()
	}
	switch {
	case err == nil:
		h.Set(HeaderRecorded, RecordedYes)
		h.Set(HeaderEventID, events[0].ID)
		return released
	case errors.Is(err, store.ErrInvalidEvent):
		// The turn itself cannot be stored (a NUL byte in its session, say): not the store's
		// fault, and not a reason to withhold the decision.
		s.log.Warn("decision not recorded: it cannot be stored", "harness", t.Harness, "session", t.Session, "err", err)
	default:
		s.log.Error("decision not recorded: appending to the event log failed", "harness", t.Harness, "session", t.Session, "err", err)
	}
	s.metrics.unrecorded.Add(1)
	h.Set(HeaderRecorded, RecordedFailed)
	return released
}

// errRecordTimeout is the cause of a record that outlasted Options.RecordTimeout.
var errRecordTimeout = errors.New("the event log took longer than the record timeout")

// DefaultEventsLimit is how many events GET /v1/events returns when the request sets no limit;
// MaxEventsLimit is the most it returns at once.
const (
	DefaultEventsLimit = 100
	MaxEventsLimit     = 1000
)

// eventsResponse is the answer of GET /v1/events.
type eventsResponse struct {
	Events []store.Event `json:"events"`
}

// events answers GET /v1/events: the newest events the query's filters select.
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	st, err := s.reader()
	if err != nil {
		return err
	}
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		return err
	}
	evs, err := st.Query(r.Context(), f)
	if err != nil {
		s.metrics.storeErrors.inc("query")
		return fmt.Errorf("query events: %w", err)
	}
	if evs == nil {
		evs = []store.Event{}
	}
	return writeJSON(w, http.StatusOK, eventsResponse{Events: evs})
}

// statsResponse is the answer of GET /v1/stats: the store's Stats and the share of nudges
// given while work was pending.
type statsResponse struct {
	store.Stats
	PendingShare float64 `json:"pending_share"`
}

// stats answers GET /v1/stats: what the dashboard shows.
func (s *Server) stats(w http.ResponseWriter, r *http.Request) error {
	st, err := s.reader()
	if err != nil {
		return err
	}
	f, err := parseStatsFilter(r.URL.Query())
	if err != nil {
		return err
	}
	stats, err := st.Stats(r.Context(), f)
	if err != nil {
		s.metrics.storeErrors.inc("stats")
		return fmt.Errorf("stats: %w", err)
	}
	if stats.Decisions == nil {
		stats.Decisions = []store.DecisionCount{}
	}
	if stats.Terminations == nil {
		stats.Terminations = []store.TerminationCount{}
	}
	return writeJSON(w, http.StatusOK, statsResponse{Stats: stats, PendingShare: stats.PendingShare()})
}

func (s *Server) reader() (store.Store, error) {
	if s.opts.Store == nil {
		return nil, errorf(codeUnavailable, "no event log: the server runs without a store")
	}
	return s.opts.Store, nil
}

// healthz answers GET /healthz.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// metricsText answers GET /metrics in the Prometheus text format.
func (s *Server) metricsText(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	return s.metrics.write(w)
}

// decode reads the request's JSON body into v: application/json (or no Content-Type), at
// most MaxBodyBytes, one JSON value whose fields have the right types.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return errorf(codeMediaType, "Content-Type %q: send the body as application/json", ct)
		}
	}
	if r.ContentLength > s.maxBody {
		return errorf(codeTooLarge, "request body of %d bytes is larger than %d bytes", r.ContentLength, s.maxBody)
	}
	if err := wire.Decode(http.MaxBytesReader(w, r.Body, s.maxBody), v); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return errorf(codeTooLarge, "request body larger than %d bytes", s.maxBody)
		}
		return errorf(codeInvalid, "%w", err)
	}
	return nil
}

// writeJSON writes v as the JSON answer, HTML characters unescaped as the CLI writes them.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeLine(buf, v); err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return writeBytes(w, status, buf.Bytes())
}

// writeBytes writes b, one line of JSON, as the answer.
func writeBytes(w http.ResponseWriter, status int, b []byte) error {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}

// contentTypeJSON is the Content-Type header of every JSON answer, shared (handlers never
// change a header's values in place).
var contentTypeJSON = []string{"application/json"}

// encodeLine appends v to buf as one line of JSON, as the CLI writes it.
func encodeLine(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// The answers' buffers are reused; one that grew past maxPooledBuffer (a large event list)
// is left to the garbage collector rather than kept.
const maxPooledBuffer = 64 << 10

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return bufferPool.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	bufferPool.Put(b)
}

// The query parameters of GET /v1/events and GET /v1/stats.
var (
	eventParams = []string{"kind", "harness", "session", "agent", "check", "verdict", "category", "provider", "since", "until", "limit"}
	statsParams = []string{"harness", "since", "until", "bucket"}
)

// query reads q's parameters, each given at most once; a parameter not in known is an error,
// because a misspelt filter would otherwise silently select everything.
func query(q url.Values, known []string) (map[string]string, error) {
	out := make(map[string]string, len(q))
	for k, vs := range q {
		if !slices.Contains(known, k) {
			return nil, errorf(codeInvalid, "unknown query parameter %q (want %s)", k, strings.Join(known, ", "))
		}
		if len(vs) > 1 {
			return nil, errorf(codeInvalid, "query parameter %q given %d times", k, len(vs))
		}
		out[k] = vs[0]
	}
	return out, nil
}

// parseFilter reads the query of GET /v1/events.
func parseFilter(q url.Values) (store.Filter, error) {
	p, err := query(q, eventParams)
	if err != nil {
		return store.Filter{}, err
	}
	f := store.Filter{
		Kind: store.Kind(p["kind"]), Harness: p["harness"], Session: p["session"], Agent: p["agent"],
		Check: stopgate.Check(p["check"]), Verdict: stopgate.Verdict(p["verdict"]),
		Category: termination.Category(p["category"]), Provider: p["provider"],
		Limit: DefaultEventsLimit, Newest: true,
	}
	if f.Kind != "" && !f.Kind.Valid() {
		return f, errorf(codeInvalid, "kind %q: want decision, termination or observation", f.Kind)
	}
	if f.Check != "" && f.Check != stopgate.CheckCompleted && !slices.Contains(stopgate.Checks(), f.Check) {
		return f, errorf(codeInvalid, "check %q: want one of %s", f.Check, checkNames())
	}
	switch f.Verdict {
	case "", stopgate.Stop, stopgate.Continue, stopgate.Retry, stopgate.Shadow:
	default:
		return f, errorf(codeInvalid, "verdict %q: want stop, continue, retry or shadow", f.Verdict)
	}
	if f.Category != "" && !f.Category.Valid() {
		return f, errorf(codeInvalid, "category %q is not a termination category", f.Category)
	}
	if f.Since, f.Until, err = timeRange(p); err != nil {
		return f, err
	}
	if v, ok := p["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxEventsLimit {
			return f, errorf(codeInvalid, "limit %q: want a whole number from 1 to %d", v, MaxEventsLimit)
		}
		f.Limit = n
	}
	return f, nil
}

// parseStatsFilter reads the query of GET /v1/stats.
func parseStatsFilter(q url.Values) (store.StatsFilter, error) {
	p, err := query(q, statsParams)
	if err != nil {
		return store.StatsFilter{}, err
	}
	f := store.StatsFilter{Harness: p["harness"]}
	if f.Since, f.Until, err = timeRange(p); err != nil {
		return f, err
	}
	if v, ok := p["bucket"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return f, errorf(codeInvalid, "bucket %q: want a duration of at least 1s, such as 1h or 15m", v)
		}
		f.Bucket = d
	}
	return f, nil
}

// timeRange reads the since and until parameters, RFC 3339 times.
func timeRange(p map[string]string) (since, until time.Time, err error) {
	for _, b := range []struct {
		name string
		t    *time.Time
	}{{"since", &since}, {"until", &until}} {
		v, ok := p[b.name]
		if !ok {
			continue
		}
		// A "+" of a zone offset that was not percent-encoded arrives as a space.
		if *b.t, err = time.Parse(time.RFC3339Nano, strings.ReplaceAll(v, " ", "+")); err != nil {
			return since, until, errorf(codeInvalid, "%s %q: want an RFC 3339 time such as 2026-08-23T10:00:00Z", b.name, v)
		}
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return since, until, errorf(codeInvalid, "since (%s) is not before until (%s)", p["since"], p["until"])
	}
	return since, until, nil
}

func checkNames() string {
	names := make([]string, 0, len(stopgate.Checks())+1)
	for _, c := range stopgate.Checks() {
		names = append(names, string(c))
	}
	return strings.Join(append(names, string(stopgate.CheckCompleted)), ", ")
}
