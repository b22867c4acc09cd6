package store

import (
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// PathFinalMessage is the observation path of a turn's final message, as a stop hook, the
// decide command and the HTTP API see it: one message, not a stream of them.
const PathFinalMessage = "final-message"

// FinalMessageObservation returns the finish-reason observation of turn t's final message,
// observed at at: the message's finish_reason, else the token its payload carries, else the
// absence of one, recorded as absence. ok is false when the turn has no final message, so
// there is nothing to observe.
func FinalMessageObservation(t stopgate.Turn, at time.Time) (e Event, ok bool, err error) {
	m := t.Message
	if m == nil {
		return Event{}, false, nil
	}
	obs := termination.Observation{At: at.UTC(), Path: PathFinalMessage}
	switch {
	case m.FinishReason != "":
		obs.Token, obs.Present = strings.ToLower(m.FinishReason), true
	case m.Payload != nil:
		obs = termination.Observe(at.UTC(), PathFinalMessage, m.Payload)
	}
	e, err = ObservationEvent(OriginOf(t), m.Provider, obs)
	if err != nil {
		return Event{}, false, err
	}
	return e, true, nil
}
