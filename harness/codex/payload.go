package codex

import (
	"io"

	"github.com/stopgate/stopgate/harness/internal/hookio"
)

// Payload is what Codex CLI writes on a Stop or SubagentStop hook's stdin
// (codex-rs/hooks schema stop.command.input and subagent-stop.command.input). Codex writes
// every field; every one is still optional here, because the schema has grown over releases
// and a proxy or a test may send less.
//
// Absent is not empty: a nil LastAssistantMessage means the payload did not carry the message
// (Codex writes null when the turn produced no assistant text), not that it was "".
type Payload struct {
	// SessionID is the thread id; TurnID the turn the stop ends. A Stop hook's block continues
	// the same turn, so every stop of one user turn carries the same TurnID.
	SessionID string `json:"session_id,omitempty"`
	TurnID    string `json:"turn_id,omitempty"`
	// TranscriptPath is the session's rollout file; "" when Codex wrote null (an ephemeral
	// session keeps none). On SubagentStop it is the parent's.
	TranscriptPath string `json:"transcript_path,omitempty"`
	CWD            string `json:"cwd,omitempty"`
	// HookEventName is EventStop or EventSubagentStop; see Payload.Event.
	HookEventName string `json:"hook_event_name,omitempty"`
	// Model is the model of the turn; PermissionMode Codex's mapping of its approval and
	// sandbox settings onto Claude Code's names ("default", "bypassPermissions", …).
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	// StopHookActive is set when the turn is already continuing because a Stop hook blocked
	// an earlier stop of it.
	StopHookActive bool `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is the text of the agent's final message; nil when null or absent.
	LastAssistantMessage *string `json:"last_assistant_message,omitempty"`
	// AgentID, AgentType and AgentTranscriptPath describe the stopping sub-agent on
	// SubagentStop; AgentTranscriptPath is its own rollout.
	AgentID             string `json:"agent_id,omitempty"`
	AgentType           string `json:"agent_type,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`

	// Ignored names the fields that were present but not of the documented JSON type (and so
	// were read as absent), in the order of this struct's fields.
	Ignored []string `json:"-"`
}

// Event returns the hook event the payload is for: hook_event_name when present, else
// SubagentStop when it names an agent, else Stop.
func (p Payload) Event() string {
	switch {
	case p.HookEventName != "":
		return p.HookEventName
	case p.AgentID != "" || p.AgentTranscriptPath != "":
		return EventSubagentStop
	}
	return EventStop
}

// DecodePayload reads one Codex hook payload from r, as DecodePayload reads Claude
// Code's: every field optional, unknown fields ignored, JSON null absent, a known field of
// the wrong JSON type read as absent and named in Payload.Ignored. Input that is not one
// JSON object, or longer than MaxPayloadBytes, is an error wrapping ErrPayload.
func DecodePayload(r io.Reader) (Payload, error) {
	f, err := hookio.ReadPayload(r)
	if err != nil {
		return Payload{}, err
	}
	var p Payload
	f.Field("session_id", &p.SessionID)
	f.Field("turn_id", &p.TurnID)
	f.Field("transcript_path", &p.TranscriptPath)
	f.Field("cwd", &p.CWD)
	f.Field("hook_event_name", &p.HookEventName)
	f.Field("model", &p.Model)
	f.Field("permission_mode", &p.PermissionMode)
	f.Field("stop_hook_active", &p.StopHookActive)
	p.LastAssistantMessage = f.Optional("last_assistant_message")
	f.Field("agent_id", &p.AgentID)
	f.Field("agent_type", &p.AgentType)
	f.Field("agent_transcript_path", &p.AgentTranscriptPath)
	p.Ignored = f.Ignored
	return p, nil
}
