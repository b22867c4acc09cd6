package copilot

import (
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"io"
	"time"
)

// The hook events stopgate answers: Copilot CLI's names for them in a hooks file.
const (
	// EventAgentStop fires when the main agent reaches a natural stop: it went idle with no
	// tool call pending and was not aborted.
	EventAgentStop = "agentStop"
	// EventSubagentStop fires when a sub-agent (the task tool's) completes a turn.
	EventSubagentStop = "subagentStop"
)

// MaxPayloadBytes bounds the payload read from stdin; a longer one is an error.
const MaxPayloadBytes = hookio.MaxPayloadBytes

// ErrPayload is returned (wrapped) for a payload that is not one JSON object, or is longer
// than MaxPayloadBytes: the hook driver's hookio.ErrPayload.
var ErrPayload = hookio.ErrPayload

// Payload is what Copilot CLI writes on an agentStop or subagentStop command hook's stdin. In
// 1.0.102 an agentStop payload is {"sessionId","timestamp","cwd","transcriptPath",
// "stopReason","stop_hook_active"}: camelCase fields, but stop_hook_active in snake case
// (added in 1.0.72), and the timestamp in Unix milliseconds. A subagentStop payload adds the
// sub-agent's fields (agentName, agentId, agentType, response). The payload names no event;
// Event tells them apart by the sub-agent fields. Every field is optional; the camelCase
// stopHookActive of Copilot's SDK is read too.
type Payload struct {
	// SessionID is the session; CWD its working directory; TranscriptPath its events.jsonl.
	SessionID      string
	CWD            string
	TranscriptPath string
	// Timestamp is when Copilot CLI ran the hook, in Unix milliseconds; see Time.
	Timestamp int64
	// StopReason is why the agent stopped ("end_turn").
	StopReason string
	// StopHookActive is set when this stop follows a stop a hook blocked.
	StopHookActive bool
	// AgentName, AgentID, AgentType and Response are a subagentStop's: the sub-agent, and its
	// last message before any hook rewrote it (Response, nil when absent).
	AgentName, AgentID, AgentType string
	Response                      *string

	// Ignored names the fields that were present but not of the expected JSON type (and so
	// were read as absent).
	Ignored []string
}

// Event returns the hook event the payload is for: EventSubagentStop when it carries a
// sub-agent's fields, else EventAgentStop.
func (p Payload) Event() string {
	if p.AgentName != "" || p.AgentID != "" || p.AgentType != "" || p.Response != nil {
		return EventSubagentStop
	}
	return EventAgentStop
}

// Time returns Timestamp as a time; the zero time when it is absent.
func (p Payload) Time() time.Time {
	if p.Timestamp <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(p.Timestamp)
}

// DecodePayload reads one agentStop or subagentStop payload from r: every field optional,
// unknown fields ignored, a known field of the wrong JSON type read as absent and named in
// Payload.Ignored, JSON null absent. Input that is not one JSON object, or longer than
// MaxPayloadBytes, is an error wrapping ErrPayload.
func DecodePayload(r io.Reader) (Payload, error) {
	f, err := hookio.ReadPayload(r)
	if err != nil {
		return Payload{}, err
	}
	var p Payload
	field := f.Field
	field("sessionId", &p.SessionID)
	field("cwd", &p.CWD)
	field("transcriptPath", &p.TranscriptPath)
	var ts float64
	field("timestamp", &ts)
	p.Timestamp = int64(ts)
	field("stopReason", &p.StopReason)
	field("stop_hook_active", &p.StopHookActive)
	if !p.StopHookActive {
		field("stopHookActive", &p.StopHookActive)
	}
	field("agentName", &p.AgentName)
	field("agentId", &p.AgentID)
	field("agentType", &p.AgentType)
	p.Response = f.Optional("response")
	p.Ignored = f.Ignored
	return p, nil
}
