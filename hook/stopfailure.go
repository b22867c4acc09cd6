package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// EventStopFailure is the hook event Claude Code (2.1.78 and later) fires instead of Stop when
// the turn ended on an API error; the Codex CLI lists the same event. Its output is ignored:
// the run has ended, and the hook only records why.
const EventStopFailure = "StopFailure"

// StopFailurePayload is the input of a StopFailure hook: the common fields, the error type
// Claude Code names (rate_limit, overloaded, authentication_failed, oauth_org_not_allowed,
// billing_error, invalid_request, model_not_found, server_error, max_output_tokens, unknown),
// its optional details, and the error text it shows as the last assistant message.
type StopFailurePayload struct {
	SessionID            string          `json:"session_id"`
	TranscriptPath       string          `json:"transcript_path"`
	CWD                  string          `json:"cwd"`
	HookEventName        string          `json:"hook_event_name"`
	AgentID              string          `json:"agent_id"`
	Error                string          `json:"error"`
	ErrorType            string          `json:"error_type"` // an alias some write-ups use
	ErrorDetails         json.RawMessage `json:"error_details"`
	ErrorMessage         string          `json:"error_message"`
	LastAssistantMessage *string         `json:"last_assistant_message"`
}

// Message is the error's text: its details (a string, or an object's message), else the error
// message, else the last assistant message (where Claude Code puts the error text).
func (p StopFailurePayload) Message() string {
	var s string
	if json.Unmarshal(p.ErrorDetails, &s) == nil && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	var o struct {
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(p.ErrorDetails, &o) == nil {
		if m := strings.TrimSpace(firstNonEmpty(o.Message, o.Error.Message)); m != "" {
			return m
		}
	}
	if m := strings.TrimSpace(p.ErrorMessage); m != "" {
		return m
	}
	if p.LastAssistantMessage != nil {
		return strings.TrimSpace(*p.LastAssistantMessage)
	}
	return ""
}

// StopFailureReason is the termination reason of a StopFailure: its error type and message
// classified as a provider's error ([termination.Classify] of an [termination.APIError] whose
// Type is the error type), at site. max_output_tokens is the output cap, [termination.OutputTruncated].
func StopFailureReason(errorType, message, provider string, site termination.Site) termination.Reason {
	if strings.EqualFold(errorType, "max_output_tokens") {
		return termination.New(site, termination.SourceException,
			termination.Classification{Category: termination.OutputTruncated, Provider: provider, Detail: errorType})
	}
	c := termination.Classify(&termination.APIError{Provider: provider, Type: errorType, Message: message})
	if errorType != "" {
		c.Detail = errorType
	}
	return termination.New(site, termination.SourceException, c)
}

// isStopFailure reports whether the payload is a StopFailure one.
func isStopFailure(data []byte) bool {
	var p struct {
		Event string `json:"hook_event_name"`
	}
	return json.Unmarshal(data, &p) == nil && p.Event == EventStopFailure
}

// peekStopFailure reads stdin and, when it is a StopFailure payload, returns the outcome that
// records it; otherwise it returns a reader over the same bytes for the Stop path.
func (o *Options) peekStopFailure(stdin io.Reader, harness, provider string, site termination.Site) (io.Reader, outcome, bool) {
	data, err := io.ReadAll(io.LimitReader(stdin, MaxPayloadBytes+1))
	if err != nil {
		return nil, outcome{err: fmt.Errorf("reading the payload: %w", err)}, true
	}
	if !isStopFailure(data) {
		return bytes.NewReader(data), outcome{}, false
	}
	var p StopFailurePayload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, outcome{err: fmt.Errorf("%w: %w", ErrPayload, err)}, true
	}
	r := StopFailureReason(firstNonEmpty(p.Error, p.ErrorType), p.Message(), provider, site)
	t := stopgate.Turn{Harness: harness, Session: p.SessionID, Agent: p.AgentID, Now: o.now(),
		Error: &stopgate.ErrorInfo{Provider: provider, Type: firstNonEmpty(p.Error, p.ErrorType), Message: p.Message()}}
	why := "the run ended on an API error: " + string(r.Category)
	d := stopgate.Decision{Verdict: stopgate.Stop, Check: stopgate.CheckError, Reason: &r,
		Trail: []stopgate.TrailEntry{{Check: stopgate.CheckError, Outcome: stopgate.Ended, Why: why, Reason: &r}}}
	return nil, outcome{decided: true, event: EventStopFailure, turn: t, decision: d}, true
}

// withStopFailure wraps a Stop decide function so that a StopFailure payload is recorded, never
// blocked, and every other payload is decided as before.
func (o *Options) withStopFailure(harness, provider string, site termination.Site,
	decide func(context.Context, io.Reader) outcome) func(context.Context, io.Reader) outcome {
	return func(ctx context.Context, stdin io.Reader) outcome {
		rest, out, done := o.peekStopFailure(stdin, harness, provider, site)
		if done {
			return out
		}
		return decide(ctx, rest)
	}
}
