package claudecode

import (
	"encoding/json"
	"io"

	"github.com/stopgate/stopgate/harness/internal/hookio"
)

// The hook events this package answers.
const (
	// EventStop is the main agent's Stop event.
	EventStop = "Stop"
	// EventSubagentStop is a sub-agent's SubagentStop event.
	EventSubagentStop = "SubagentStop"
	// EventStopFailure is the event Claude Code (2.1.78 and later) fires instead of Stop when
	// the turn ended on an API error. Its output is ignored: the run has ended, and the hook
	// only records why (see StopFailureReason).
	EventStopFailure = "StopFailure"
)

// Payload is what Claude Code writes on a Stop or SubagentStop hook's stdin. Every field is
// optional, because the payload has grown over the versions: the 2025 payload held only
// session_id, transcript_path and stop_hook_active; hook_event_name came in 1.0.41, agent_id
// and agent_transcript_path in 2.0.42, last_assistant_message in 2.1.47, background_tasks and
// session_crons in 2.1.145.
//
// Absent is not empty: a nil LastAssistantMessage, BackgroundTasks or SessionCrons means the
// payload did not carry the field (an older Claude Code, or a task registry it could not
// reach), while a non-nil empty value means it reported none.
type Payload struct {
	// SessionID identifies the session; TranscriptPath is its JSONL transcript (the parent's,
	// on SubagentStop); CWD the session's working directory.
	SessionID      string `json:"session_id,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	CWD            string `json:"cwd,omitempty"`
	// PermissionMode is "default", "plan", "acceptEdits", "auto", "dontAsk" or
	// "bypassPermissions".
	PermissionMode string `json:"permission_mode,omitempty"`
	// HookEventName is EventStop or EventSubagentStop; see Payload.Event when it is absent.
	HookEventName string `json:"hook_event_name,omitempty"`
	// PromptID identifies the user prompt the run answers (2.1.196+).
	PromptID string `json:"prompt_id,omitempty"`
	// StopHookActive is set when the agent is already continuing because a stop hook blocked
	// an earlier stop of the same turn.
	StopHookActive bool `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is the text of the agent's final message. Claude Code writes the
	// transcript asynchronously, so this is the one reliable source of it.
	LastAssistantMessage *string `json:"last_assistant_message,omitempty"`
	// BackgroundTasks are the session's background tasks in flight; nil when not reported.
	BackgroundTasks []BackgroundTask `json:"background_tasks,omitzero"`
	// SessionCrons are the session's scheduled prompts; nil when not reported.
	SessionCrons []SessionCron `json:"session_crons,omitzero"`

	// AgentID, AgentType and AgentTranscriptPath describe the stopping sub-agent on
	// SubagentStop (and the agent under --agent on Stop).
	AgentID             string `json:"agent_id,omitempty"`
	AgentType           string `json:"agent_type,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`
	// Effort is the model's reasoning effort, where the model supports one.
	Effort *Effort `json:"effort,omitempty"`

	// Error, ErrorDetails and ErrorMessage are StopFailure's: the error type Claude Code names
	// (rate_limit, overloaded, authentication_failed, oauth_org_not_allowed, billing_error,
	// invalid_request, model_not_found, server_error, max_output_tokens, unknown; "error_type"
	// in some write-ups, read when "error" is absent), its optional details (a string, or an
	// object with a message), and an error message. Claude Code also puts the error's text in
	// LastAssistantMessage.
	Error        string          `json:"error,omitempty"`
	ErrorDetails json.RawMessage `json:"error_details,omitempty"`
	ErrorMessage string          `json:"error_message,omitempty"`

	// Ignored names the fields that were present but not of the documented JSON type (and
	// so were read as absent), in the order of this struct's fields; for a bad element of a list, the list's name
	// with the element's index. Claude Code never writes such fields; a proxy or a test
	// harness might.
	Ignored []string `json:"-"`
}

// BackgroundTask is one entry of the payload's background_tasks.
type BackgroundTask struct {
	// ID is the task id the agent's tools use (a shell's backgroundTaskId, an agent's id).
	ID string `json:"id,omitempty"`
	// Type is "shell", "subagent", "monitor", "workflow", "teammate", "cloud session" or
	// "MCP task" (or another discriminant Claude Code passes through raw).
	Type string `json:"type,omitempty"`
	// Status is the task's state: "running", "pending", "completed", "failed", "killed", ….
	Status string `json:"status,omitempty"`
	// Description is at most 1000 characters; a longer one ends in "… [+N chars]".
	Description string `json:"description,omitempty"`
	// Command is set for shells, AgentType for sub-agents, Server and Tool for monitors and
	// MCP tasks, Name for workflows.
	Command   string `json:"command,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	Server    string `json:"server,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Name      string `json:"name,omitempty"`
}

// SessionCron is one entry of the payload's session_crons: a prompt the session runs on a
// cron schedule.
type SessionCron struct {
	// ID identifies the schedule.
	ID string `json:"id,omitempty"`
	// Schedule is a five-field cron expression.
	Schedule string `json:"schedule,omitempty"`
	// Recurring is false for a schedule that fires once.
	Recurring bool `json:"recurring,omitempty"`
	// Prompt is what the session is told when it fires.
	Prompt string `json:"prompt,omitempty"`
}

// Effort is the payload's effort object.
type Effort struct {
	// Level is the effort level ("low", "medium", "high", …).
	Level string `json:"level,omitempty"`
}

// Event returns the hook event the payload is for: hook_event_name when present, else
// SubagentStop when it names an agent transcript, else Stop. (Payloads older than 1.0.41 carry
// no event name, and only the main agent had a Stop hook then.)
func (p Payload) Event() string {
	switch {
	case p.HookEventName != "":
		return p.HookEventName
	case p.AgentTranscriptPath != "":
		return EventSubagentStop
	}
	return EventStop
}

// DecodePayload reads one hook payload from r. Every field is optional and unknown fields are
// ignored. A known field whose JSON type is wrong (stop_hook_active as a string, say) is read
// as absent and named in Payload.Ignored, so one odd field does not cost the rest; JSON null
// is absent. Input that is not one JSON object, or longer than MaxPayloadBytes, is an error
// wrapping hookio.ErrPayload.
func DecodePayload(r io.Reader) (Payload, error) {
	f, err := hookio.ReadPayload(r)
	if err != nil {
		return Payload{}, err
	}
	var p Payload
	f.Field("session_id", &p.SessionID)
	f.Field("transcript_path", &p.TranscriptPath)
	f.Field("cwd", &p.CWD)
	f.Field("permission_mode", &p.PermissionMode)
	f.Field("hook_event_name", &p.HookEventName)
	f.Field("prompt_id", &p.PromptID)
	f.Field("stop_hook_active", &p.StopHookActive)
	p.LastAssistantMessage = f.Optional("last_assistant_message")
	p.BackgroundTasks = hookio.DecodeList[BackgroundTask](f.Fields, "background_tasks", &f.Ignored)
	p.SessionCrons = hookio.DecodeList[SessionCron](f.Fields, "session_crons", &f.Ignored)
	f.Field("agent_id", &p.AgentID)
	f.Field("agent_type", &p.AgentType)
	f.Field("agent_transcript_path", &p.AgentTranscriptPath)
	f.Field("error", &p.Error)
	if p.Error == "" {
		f.Field("error_type", &p.Error)
	}
	if raw, ok := f.Fields["error_details"]; ok && !hookio.IsNull(raw) {
		p.ErrorDetails = raw
	}
	f.Field("error_message", &p.ErrorMessage)
	if raw, ok := f.Fields["effort"]; ok && !hookio.IsNull(raw) {
		var e Effort
		var level string
		switch {
		case json.Unmarshal(raw, &e) == nil:
			p.Effort = &e
		case json.Unmarshal(raw, &level) == nil: // a bare level, as CLAUDE_EFFORT spells it
			p.Effort = &Effort{Level: level}
		default:
			f.Ignored = append(f.Ignored, "effort")
		}
	}
	p.Ignored = f.Ignored
	return p, nil
}
