package termination

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Common values of [Observation.Path]: which of an agent's paths produced the model message.
// Path is free text; these are the three an agent runner has.
const (
	// PathInvoke: a non-streaming model call.
	PathInvoke = "invoke"
	// PathStream: a streamed model call drained as text.
	PathStream = "stream"
	// PathEvents: a streamed model call drained as typed events.
	PathEvents = "events"
)

// Observation is one record of what the provider said about why a model message stopped. One
// is made per finished model message, whether or not the provider said anything: the absence
// of a token is itself the observation, recorded as absence (Present false, JSON "token":
// null), never as a stand-in token. No observation is made for a message that was never seen,
// so an empty log means no model message, and a log of one absent token means a message whose
// provider said nothing.
//
// Its JSON form is {"at": RFC 3339 UTC instant with nanoseconds, "path": "…", "token": "stop"
// or null}.
type Observation struct {
	// At is when the message was observed. [Observe] and [ObservationLog.Record] store it in
	// UTC.
	At time.Time
	// Path is which path produced the message: [PathInvoke], [PathStream], [PathEvents], or
	// whatever else a harness calls its paths.
	Path string
	// Token is the provider's raw stop or finish token, lower-cased; empty when Present is
	// false.
	Token string
	// Present reports whether the message carried a token at all.
	Present bool
}

// Observe makes the observation of one finished model message: the token [ReadStopToken]
// finds on fragment, observed at at on path.
func Observe(at time.Time, path string, fragment any) Observation {
	tok, ok := ReadStopToken(fragment)
	return Observation{At: at.UTC(), Path: path, Token: tok, Present: ok}
}

// String renders the observation as a log line: finish_reason path=<path> token=<token>, with
// the literal <absent> for a message that carried no token.
func (o Observation) String() string {
	tok := "<absent>"
	if o.Present {
		tok = o.Token
	}
	return "finish_reason path=" + o.Path + " token=" + tok
}

// observationJSON is the wire form of an Observation.
type observationJSON struct {
	At    string  `json:"at"`
	Path  string  `json:"path"`
	Token *string `json:"token"`
}

// MarshalJSON writes the observation with its instant in UTC and an absent token as null. Like
// [time.Time.MarshalJSON], it fails for an instant whose UTC year is outside [0, 9999], which
// RFC 3339 cannot write.
func (o Observation) MarshalJSON() ([]byte, error) {
	at := o.At.UTC()
	if !observationYearOK(at) {
		return nil, fmt.Errorf("termination: observation: %w", errObservationYear)
	}
	w := observationJSON{At: at.Format(time.RFC3339Nano), Path: o.Path}
	if o.Present {
		w.Token = &o.Token
	}
	return json.Marshal(w)
}

// Errors of an observation's JSON form, returned wrapped.
var (
	errObservationAt   = errors.New(`"at" is missing`)
	errObservationYear = errors.New("instant's UTC year outside [0, 9999]")
)

// observationYearOK reports whether the UTC instant t can be written in RFC 3339.
func observationYearOK(t time.Time) bool { return t.Year() >= 0 && t.Year() <= 9999 }

// UnmarshalJSON reads an observation. "at" must be an RFC 3339 instant whose UTC year is in
// [0, 9999]; it is stored in UTC.
// A null or missing "token" is an absent token. A JSON null leaves o unchanged.
func (o *Observation) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var w observationJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("termination: observation: %w", err)
	}
	if w.At == "" {
		return fmt.Errorf("termination: observation: %w", errObservationAt)
	}
	at, err := time.Parse(time.RFC3339Nano, w.At)
	if err != nil {
		return fmt.Errorf("termination: observation: %w", err)
	}
	if at = at.UTC(); !observationYearOK(at) {
		return fmt.Errorf("termination: observation: %w", errObservationYear)
	}
	*o = Observation{At: at, Path: w.Path}
	if w.Token != nil {
		o.Token, o.Present = *w.Token, true
	}
	return nil
}

// DefaultObservationLimit is how many observations an [ObservationLog] keeps per turn when its
// Limit is not set: the origin's cap.
const DefaultObservationLimit = 1000

// ObservationLog is the finish-reason log of one turn: one [Observation] per finished model
// message, in the order they were recorded. It keeps the first Limit observations of a turn
// and counts, rather than keeps, the ones after them, so nothing is lost silently; [Reset] at
// the turn boundary starts the next turn.
//
// The zero value is an empty log with the default limit. An ObservationLog is not safe for
// concurrent use: a turn is recorded by the goroutine that runs it.
type ObservationLog struct {
	// Limit caps the observations kept per turn; zero or negative means
	// [DefaultObservationLimit].
	Limit int

	obs     []Observation
	dropped int
}

// limit returns the effective cap.
func (l *ObservationLog) limit() int {
	if l.Limit > 0 {
		return l.Limit
	}
	return DefaultObservationLimit
}

// Record appends o, with its instant in UTC, and reports whether it was kept. Once the turn
// holds Limit observations, later ones are not kept but counted in [ObservationLog.Dropped].
func (l *ObservationLog) Record(o Observation) bool {
	if len(l.obs) >= l.limit() {
		l.dropped++
		return false
	}
	o.At = o.At.UTC()
	l.obs = append(l.obs, o)
	return true
}

// Observations returns a copy of the turn's observations, oldest first; nil when there are
// none. Changing the copy does not change the log.
func (l *ObservationLog) Observations() []Observation {
	if len(l.obs) == 0 {
		return nil
	}
	return append([]Observation(nil), l.obs...)
}

// Len returns how many observations the turn kept.
func (l *ObservationLog) Len() int { return len(l.obs) }

// Dropped returns how many observations the turn recorded past the limit and did not keep.
func (l *ObservationLog) Dropped() int { return l.dropped }

// Reset empties the log for the next turn, dropped count included.
func (l *ObservationLog) Reset() {
	clear(l.obs)
	l.obs = l.obs[:0]
	l.dropped = 0
}

// TurnMessage is one finished model message of a turn, as the per-message rule (EXT-205) sees
// it. A streamed turn is folded into one TurnMessage per model message (see
// [StartsNewMessage]); every one of them is observed, but only one classifies the turn.
type TurnMessage struct {
	// Fragment is the message's decoded stop metadata, as [ClassifyStop] reads it.
	Fragment any
	// Hook reports that a middleware hook produced the message (a rating or guard model call
	// around the agent's own; see [IsHookNode]), not the agent.
	Hook bool
	// FollowedByToolResult reports that a tool result came after the message: the model
	// asked for a tool and the turn went on.
	FollowedByToolResult bool
}

// AnswerMessage returns the index of the message whose stop metadata classifies the turn: the
// last one that is neither a hook's nor followed by a tool result. Earlier answer-side messages
// are attempts a later one replaced (retries inside one model call), a hook's message says how
// the hook's call ended, not the agent's, and a message followed by a tool result did not end
// the turn. ok is false when no message qualifies.
func AnswerMessage(msgs []TurnMessage) (index int, ok bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if !msgs[i].Hook && !msgs[i].FollowedByToolResult {
			return i, true
		}
	}
	return -1, false
}

// DetectTurnStopMetadata is [DetectStopMetadata] for a whole turn: it reads the message
// [AnswerMessage] picks, and reports false when there is none.
func DetectTurnStopMetadata(provider string, msgs []TurnMessage) (Classification, bool) {
	i, ok := AnswerMessage(msgs)
	if !ok {
		return Classification{}, false
	}
	return DetectStopMetadata(provider, msgs[i].Fragment)
}

// hookNodeSuffixes are the node-name suffixes of the middleware hooks around an agent's model
// call (LangChain agent middleware: <middleware>.before_model and its kin).
var hookNodeSuffixes = [...]string{".before_agent", ".before_model", ".after_model", ".after_agent"}

// IsHookNode reports whether a graph node name is a middleware hook's (it ends in
// .before_agent, .before_model, .after_model or .after_agent), whose model messages are
// recorded but never classify the turn.
func IsHookNode(node string) bool {
	for _, s := range hookNodeSuffixes {
		if strings.HasSuffix(node, s) {
			return true
		}
	}
	return false
}

// MessageKey is what tells one streamed model message from the next: the message id and the
// graph node that produced it, either empty when unknown.
type MessageKey struct {
	ID   string
	Node string
}

// StartsNewMessage reports whether a streamed chunk keyed chunk starts a new model message
// rather than continuing the one keyed current: its id differs, or its node differs, each
// compared only when both sides know it. A chunk that knows neither joins the current message.
// (A tool result, which closes the current message, and the first chunk of a turn, which
// always opens one, are the caller's to handle.)
//
// Folding chunk by chunk this way, rather than concatenating a turn's chunks, is what keeps two
// messages' tokens from running together (stopstop, max_tokensstop).
func StartsNewMessage(current, chunk MessageKey) bool {
	differs := func(a, b string) bool { return a != "" && b != "" && a != b }
	return differs(current.ID, chunk.ID) || differs(current.Node, chunk.Node)
}
