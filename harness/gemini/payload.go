package gemini

import (
	"io"
	"time"

	"github.com/stopgate/stopgate/harness/internal/hookio"
)

// EventAfterAgent is Gemini CLI's AfterAgent event: the agent loop answered a prompt and is
// about to hand the turn back.
const EventAfterAgent = "AfterAgent"

// NoResponse is what Gemini CLI 0.61.0 puts in prompt_response when the model produced
// no text: a placeholder, read as no text.
const NoResponse = "[no response text]"

// Payload is what Gemini CLI writes on an AfterAgent hook's stdin: the base fields every
// hook gets (session_id, transcript_path, cwd, hook_event_name, timestamp) and AfterAgent's
// own (prompt, prompt_response, stop_hook_active). Every field is optional.
//
// Absent is not empty: a nil Prompt or PromptResponse means the payload did not carry the
// field.
type Payload struct {
	// SessionID identifies the session; TranscriptPath is its session file; CWD the session's
	// working directory.
	SessionID      string `json:"session_id,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	CWD            string `json:"cwd,omitempty"`
	// HookEventName is EventAfterAgent; see Payload.Event when it is absent.
	HookEventName string `json:"hook_event_name,omitempty"`
	// Timestamp is when Gemini CLI ran the hook, as it wrote it (ISO 8601); see Time.
	Timestamp string `json:"timestamp,omitempty"`
	// Prompt is the prompt the run answers: the user's, unchanged by the continuations hooks
	// asked for since.
	Prompt *string `json:"prompt,omitempty"`
	// PromptResponse is the text the model wrote while answering Prompt. In Gemini CLI 0.61.0
	// it is the text of every model response of the prompt (continuations included) joined by
	// newlines, each response's streamed chunks joined by spaces (which splits words, and
	// repeats the first chunk's text whole); NoResponse stands for none. The session
	// file holds the clean text.
	PromptResponse *string `json:"prompt_response,omitempty"`
	// StopHookActive is set when the response answers a hook's continuation directly. It is
	// not set once the model has called a tool since: Gemini CLI sends tool results as a new
	// request, which it does not count as part of the retry.
	StopHookActive bool `json:"stop_hook_active,omitempty"`

	// Ignored names the fields that were present but not of the documented JSON type (and so
	// were read as absent), in the order of this struct's fields.
	Ignored []string `json:"-"`
}

// Event returns the hook event the payload is for: hook_event_name, or EventAfterAgent when
// it is absent.
func (p Payload) Event() string {
	if p.HookEventName != "" {
		return p.HookEventName
	}
	return EventAfterAgent
}

// Time returns Timestamp as a time; the zero time when it is absent or not ISO 8601.
func (p Payload) Time() time.Time {
	t, err := time.Parse(time.RFC3339Nano, p.Timestamp)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Response returns the model's text from prompt_response: "" when the payload has none or
// only NoResponse.
func (p Payload) Response() string {
	if p.PromptResponse == nil || *p.PromptResponse == NoResponse {
		return ""
	}
	return *p.PromptResponse
}

// DecodePayload reads one AfterAgent payload from r, as DecodePayload reads Claude
// Code's: every field optional, unknown fields ignored, a known field of the wrong JSON type
// read as absent and named in Payload.Ignored, JSON null absent. Input that is not one
// JSON object, or longer than MaxPayloadBytes, is an error wrapping ErrPayload.
func DecodePayload(r io.Reader) (Payload, error) {
	f, err := hookio.ReadPayload(r)
	if err != nil {
		return Payload{}, err
	}
	var p Payload
	f.Field("session_id", &p.SessionID)
	f.Field("transcript_path", &p.TranscriptPath)
	f.Field("cwd", &p.CWD)
	f.Field("hook_event_name", &p.HookEventName)
	f.Field("timestamp", &p.Timestamp)
	p.Prompt = f.Optional("prompt")
	p.PromptResponse = f.Optional("prompt_response")
	f.Field("stop_hook_active", &p.StopHookActive)
	p.Ignored = f.Ignored
	return p, nil
}
