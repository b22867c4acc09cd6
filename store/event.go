package store

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/termination"
)

// Kind says what an event records, and so what its payload holds.
type Kind string

// The kinds of event.
const (
	// KindDecision: one [stopgate.Decision], trail included; the payload is the decision's
	// JSON.
	KindDecision Kind = "decision"
	// KindTermination: one [termination.Reason]; the payload is the reason's JSON.
	KindTermination Kind = "termination"
	// KindObservation: one finish-reason [termination.Observation]; the payload is the
	// observation's JSON.
	KindObservation Kind = "observation"
)

// Valid reports whether k is one of the kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindDecision, KindTermination, KindObservation:
		return true
	}
	return false
}

// MaxIDLen is the longest event ID, in bytes.
const MaxIDLen = 128

// Event is one record of the event log. The columns besides Payload are what the log is
// filtered and grouped by; Payload holds the record itself. Build events with
// [DecisionEvents], [TerminationEvent] and [ObservationEvent], or by hand for a record that
// comes from elsewhere (a harness speaking the HTTP API).
type Event struct {
	// ID identifies the event, uniquely within a store. The constructors fill it with
	// [NewID]; a caller that makes its own (to append idempotently, say) may use any string
	// of at most [MaxIDLen] bytes.
	ID string `json:"id"`
	// Ref is the ID of the event this one belongs to: the decision event, for the
	// termination events [DecisionEvents] makes; empty otherwise.
	Ref string `json:"ref,omitempty"`
	// Kind says what the event records; it is required.
	Kind Kind `json:"kind"`
	// Time is when it happened; it is required. The stores keep it to the nanosecond and
	// return it in UTC; it must lie within the years 1678 to 2261 (int64 nanoseconds since
	// the Unix epoch).
	Time time.Time `json:"time"`

	// Harness names the agent harness ("claude-code", "codex", …).
	Harness string `json:"harness,omitempty"`
	// Session identifies the session.
	Session string `json:"session,omitempty"`
	// Agent is the sub-agent's id when the event concerns a child agent; empty for the main
	// agent.
	Agent string `json:"agent,omitempty"`

	// Check is the check that decided, for a decision (required), or whose trail entry
	// carried the reason, for a termination event made from a decision.
	Check stopgate.Check `json:"check,omitempty"`
	// Verdict is the decision's verdict, for a decision (required) and for the termination
	// events made from it.
	Verdict stopgate.Verdict `json:"verdict,omitempty"`
	// Category is the termination category: the reason's, for a termination event
	// (required); the decision's reason's, for a decision that has one; the one the stop
	// token classifies as, for an observation whose token does.
	Category termination.Category `json:"category,omitempty"`
	// Provider is the provider family the event concerns, where known.
	Provider string `json:"provider,omitempty"`
	// Pending reports, for a decision, that work was pending when it was made: a job,
	// process or sub-agent still running, or a one-shot schedule still to fire. It is what
	// the share of nudges given while work was pending counts.
	Pending bool `json:"pending,omitempty"`

	// Payload is the record as JSON (see [Kind]); it is required and is stored and returned
	// byte for byte.
	Payload json.RawMessage `json:"payload"`

	// encoded is the payload as this package's constructors encoded it. While Payload is
	// still those very bytes, Validate takes it as the valid JSON it was made as and does not
	// parse it again: of an append's checks, that parse is the one that costs.
	encoded []byte
}

// encodedHere reports whether e's payload is still the one its constructor encoded.
func (e *Event) encodedHere() bool {
	return len(e.encoded) > 0 && len(e.Payload) == len(e.encoded) && unsafe.SliceData(e.Payload) == unsafe.SliceData(e.encoded)
}

// The int64-nanosecond range an event's time must lie in.
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// Validate reports the first thing that makes e unfit to store, as an error wrapping
// [ErrInvalidEvent] that names the field.
func (e Event) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidEvent}, args...)...)
	}
	switch {
	case e.ID == "":
		return bad("id is empty")
	case len(e.ID) > MaxIDLen:
		return bad("id is %d bytes long, more than %d", len(e.ID), MaxIDLen)
	case e.Kind == "":
		return bad("kind is empty")
	case !e.Kind.Valid():
		return bad("unknown kind %q", e.Kind)
	case e.Time.IsZero():
		return bad("time is zero")
	case e.Time.Before(minTime) || e.Time.After(maxTime):
		return bad("time %s is outside the years 1678 to 2261", e.Time.UTC().Format(time.RFC3339))
	case e.Kind == KindDecision && e.Verdict == "":
		return bad("a decision has no verdict")
	case e.Kind == KindDecision && e.Check == "":
		return bad("a decision has no check")
	case e.Kind == KindTermination && e.Category == "":
		return bad("a termination has no category")
	case len(e.Payload) == 0:
		return bad("payload is empty")
	}
	for _, f := range [...]struct{ name, v string }{
		{"id", e.ID}, {"ref", e.Ref}, {"harness", e.Harness}, {"session", e.Session}, {"agent", e.Agent},
		{"check", string(e.Check)}, {"verdict", string(e.Verdict)}, {"category", string(e.Category)},
		{"provider", e.Provider},
	} {
		if err := textOK(f.v); err != "" {
			return bad("%s %s", f.name, err)
		}
	}
	// The payload is checked where it lies, without a copy: it is most of an event's bytes.
	// JSON cannot hold a raw NUL (in a string it is a control character, which must be
	// escaped), so json.Valid rules that out too; it does not check the UTF-8 of strings. A
	// payload a constructor encoded, and nobody replaced since, is valid UTF-8 JSON already.
	switch {
	case e.encodedHere():
	case !utf8.Valid(e.Payload):
		return bad("payload is not valid UTF-8")
	case !json.Valid(e.Payload):
		if bytes.IndexByte(e.Payload, 0) >= 0 {
			return bad("payload contains a NUL byte")
		}
		return bad("payload is not valid JSON")
	}
	return nil
}

// textOK says what is wrong with s as stored text ("" when nothing): both databases need
// valid UTF-8, and PostgreSQL's text cannot hold NUL.
func textOK(s string) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "contains a NUL byte"
	}
	return ""
}

// NewID returns a fresh event ID: 26 characters of base32, the first 10 the current time in
// milliseconds, the other 16 a random 80 bits from crypto/rand. The time comes first, in
// digits whose ASCII order is their value's, so that IDs made later sort later: the log's
// unique index on IDs then grows at its end, as the table does, instead of taking each new
// ID on a page of its own, which on a large log made each append write about one more page
// per event.
func NewID() string {
	id := []byte(rand.Text()) // 26 random characters; the last 16 are kept
	ms := uint64(time.Now().UnixMilli())
	for i := 9; i >= 0; i-- {
		id[i] = idDigits[ms&31]
		ms >>= 5
	}
	return string(id)
}

// idDigits are the base32 digits of NewID's time, in ASCII order: the characters of
// rand.Text's alphabet, sorted.
const idDigits = "234567ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// Origin is who an event concerns: the harness, the session and, for a child agent, its id.
type Origin struct {
	Harness, Session, Agent string
}

// OriginOf returns the turn's origin.
func OriginOf(t stopgate.Turn) Origin {
	return Origin{Harness: t.Harness, Session: t.Session, Agent: t.Agent}
}

// DecisionEvents returns the events that record decision d, made for turn t at time at: first
// the decision event, then a termination event for each distinct termination reason the
// decision carries, in trail order: the reason each trail entry recorded (an error, a stop
// token, the loop guard's halt, a parked run, what the model classifier lacked), then the
// decision's own reason when no entry carried it (a run that ended completed). Each
// termination event names the check that produced its reason and the decision's verdict, and
// refers to the decision event by Ref. The provider column is the reason's provider, or the
// turn's (its final message's, else its error's) when the reason has none.
//
// The error is json.Marshal's, should a decision ever fail to encode.
func DecisionEvents(t stopgate.Turn, d stopgate.Decision, at time.Time) ([]Event, error) {
	payload, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("store: encode decision: %w", err)
	}
	return DecisionEventsJSON(t, d, payload, at)
}

// DecisionEventsJSON is [DecisionEvents] for a caller that has encoded d already (stopgate
// serve, which answers with that JSON): payload is d's JSON, which the decision event holds
// as it is, so that the decision is not encoded twice. payload must be JSON this process
// encoded from d (as json.Marshal writes it), never bytes from outside: like the payloads
// the package encodes itself, it is taken as valid JSON and not parsed again.
func DecisionEventsJSON(t stopgate.Turn, d stopgate.Decision, payload json.RawMessage, at time.Time) ([]Event, error) {
	at = at.UTC()
	o := OriginOf(t)
	turnProvider := ""
	switch {
	case t.Message != nil && t.Message.Provider != "":
		turnProvider = t.Message.Provider
	case t.Error != nil:
		turnProvider = t.Error.Provider
	}
	dec := Event{
		ID: NewID(), Kind: KindDecision, Time: at,
		Harness: o.Harness, Session: o.Session, Agent: o.Agent,
		Check: d.Check, Verdict: d.Verdict, Provider: turnProvider,
		Pending: pendingWork(t),
		Payload: payload, encoded: payload,
	}
	if d.Reason != nil {
		dec.Category = d.Reason.Category
		if dec.Provider == "" {
			dec.Provider = d.Reason.Provider
		}
	}
	events := make([]Event, 1, 3) // the decision, mostly one reason, the caller's observation
	events[0] = dec
	var seen []termination.Reason
	add := func(c stopgate.Check, r termination.Reason) error {
		for _, s := range seen {
			if s == r {
				return nil
			}
		}
		seen = append(seen, r)
		e, err := TerminationEvent(o, r, at)
		if err != nil {
			return err
		}
		e.Ref, e.Check, e.Verdict = dec.ID, c, d.Verdict
		if e.Provider == "" {
			e.Provider = turnProvider
		}
		events = append(events, e)
		return nil
	}
	for _, te := range d.Trail {
		if te.Reason != nil {
			if err := add(te.Check, *te.Reason); err != nil {
				return nil, err
			}
		}
	}
	if d.Reason != nil {
		if err := add(d.Check, *d.Reason); err != nil {
			return nil, err
		}
	}
	return events, nil
}

// TerminationEvent returns the event that records reason r, for origin o, at time at.
func TerminationEvent(o Origin, r termination.Reason, at time.Time) (Event, error) {
	payload, err := r.MarshalJSON() // what json.Marshal(r) writes, without compacting it again
	if err != nil {
		return Event{}, fmt.Errorf("store: encode reason: %w", err)
	}
	return Event{
		ID: NewID(), Kind: KindTermination, Time: at.UTC(),
		Harness: o.Harness, Session: o.Session, Agent: o.Agent,
		Category: r.Category, Provider: r.Provider,
		Payload: payload, encoded: payload,
	}, nil
}

// ObservationEvent returns the event that records observation obs, for origin o, of a message
// from provider (empty when unknown). Its time is the observation's; its category is what
// the token classifies as for that provider, and empty when the message carried no token or
// one no provider's vocabulary knows. It fails when the observation cannot be encoded (an
// instant outside the years 0 to 9999).
func ObservationEvent(o Origin, provider string, obs termination.Observation) (Event, error) {
	payload, err := obs.MarshalJSON() // what json.Marshal(obs) writes, without compacting it again
	if err != nil {
		return Event{}, fmt.Errorf("store: encode observation: %w", err)
	}
	e := Event{
		ID: NewID(), Kind: KindObservation, Time: obs.At.UTC(),
		Harness: o.Harness, Session: o.Session, Agent: o.Agent,
		Provider: provider,
		Payload:  payload, encoded: payload,
	}
	if obs.Present {
		if c, ok := termination.ClassifyStop(provider, obs.Token); ok && c.Category != termination.Unknown {
			e.Category = c.Category
		}
	}
	return e, nil
}

// pendingWork reports whether the turn shows work still to come back: a running job that is
// not a service, a running process or sub-agent, or a one-shot schedule still to fire (any
// armed one when the turn's time is unknown). Whether the host wakes the agent does not
// matter here: the question is whether a nudge landed while the agent was waiting on work.
func pendingWork(t stopgate.Turn) bool {
	for _, j := range t.Jobs {
		if j.Status == "running" && !j.Service {
			return true
		}
	}
	for _, p := range t.Processes {
		if p.Status == gate.StatusRunning && p.ExitedAt == nil && p.ExitCode == nil && p.Signal == "" {
			return true
		}
	}
	for _, s := range t.Subagents {
		if s.Status == gate.StatusRunning {
			return true
		}
	}
	for _, s := range t.Schedules {
		if s.Trigger == stall.TriggerOnce && !s.At.IsZero() && (t.Now.IsZero() || s.At.After(t.Now)) {
			return true
		}
	}
	return false
}
