package opencode

import (
	"encoding/json"
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"io"
	"time"
)

// EventIdle is the opencode event the plugin answers: the session went idle.
const EventIdle = "session.idle"

// MaxPayloadBytes bounds the payload read from stdin; a longer one is an error.
const MaxPayloadBytes = 64 << 20

// ErrPayload is returned (wrapped) for a payload that is not one JSON object, or is longer
// than MaxPayloadBytes: the hook driver's hookio.ErrPayload.
var ErrPayload = hookio.ErrPayload

// Payload is what stopgate's opencode plugin (plugin.js) writes on the hook's stdin on
// session.idle: {"hook_event_name","session_id","cwd","timestamp","stop_hook_active",
// "nudges","messages","todos"}. Messages and todos are what opencode's SDK client returns for
// the session (session.messages, session.todo); nudges are the continuations the plugin sent
// the session, and stop_hook_active says the last user message is one of them. Every field is
// optional.
type Payload struct {
	HookEventName  string
	SessionID      string
	CWD            string
	Timestamp      int64
	StopHookActive bool
	Nudges         []string
	Messages       []Message
	// Todos is nil when the plugin could not read the list.
	Todos []Todo

	// Ignored names the fields that were present but not of the expected JSON type (and so
	// were read as absent).
	Ignored []string
}

// Event returns the payload's hook event: hook_event_name, or EventIdle when absent.
func (p Payload) Event() string {
	if p.HookEventName != "" {
		return p.HookEventName
	}
	return EventIdle
}

// Time returns Timestamp as a time; the zero time when absent.
func (p Payload) Time() time.Time { return millis(p.Timestamp) }

// DecodePayload reads one payload from r: every field optional, unknown fields ignored, a
// known field of the wrong JSON type read as absent and named in Payload.Ignored, JSON null
// absent. Input that is not one JSON object, or longer than MaxPayloadBytes, is an error
// wrapping ErrPayload.
func DecodePayload(r io.Reader) (Payload, error) {
	f, err := hookio.ReadPayloadMax(r, MaxPayloadBytes)
	if err != nil {
		return Payload{}, err
	}
	var p Payload
	field := f.Field
	field("hook_event_name", &p.HookEventName)
	field("session_id", &p.SessionID)
	field("cwd", &p.CWD)
	var ts float64
	field("timestamp", &ts)
	p.Timestamp = int64(ts)
	field("stop_hook_active", &p.StopHookActive)
	field("nudges", &p.Nudges)
	// One message that does not decode is left out, not the whole list.
	var raws []json.RawMessage
	field("messages", &raws)
	bad := false
	for _, raw := range raws {
		var m Message
		if json.Unmarshal(raw, &m) != nil {
			bad = true
			continue
		}
		p.Messages = append(p.Messages, m)
	}
	if bad {
		f.Ignored = append(f.Ignored, "messages[…]")
	}
	field("todos", &p.Todos)
	p.Ignored = f.Ignored
	return p, nil
}
