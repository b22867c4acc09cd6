package termination

import (
	"encoding/json"
	"errors"
	"fmt"
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
	// At is when the message was observed. [Observe] stores it in UTC.
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

// Observe makes the observation of one finished model message: the stop or finish token it
// carries (the token [ClassifyStop] decides on), observed at at on path.
func Observe(at time.Time, path string, fragment any) Observation {
	tok, ok := readStopToken(fragment)
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
