package claudecode

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// StopFailureMessage is a StopFailure payload's error text: its details (a string, or an
// object's message or error.message), else its error message, else the last assistant
// message (where Claude Code puts the error text it shows).
func StopFailureMessage(p Payload) string {
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
		if m := strings.TrimSpace(o.Message); m != "" {
			return m
		}
		if m := strings.TrimSpace(o.Error.Message); m != "" {
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

// StopFailureReason is the termination reason of a StopFailure, at its own site
// (termination.SiteHookClaudeCodeStopFailure): the error type and message classified as an
// Anthropic error (termination.Classify of a termination.APIError whose Type is the error
// type), the error type as its Detail. max_output_tokens is the output cap,
// termination.OutputTruncated.
func StopFailureReason(errorType, message string) termination.Reason {
	site := termination.SiteHookClaudeCodeStopFailure
	if strings.EqualFold(errorType, "max_output_tokens") {
		return termination.New(site, termination.SourceException,
			termination.Classification{Category: termination.OutputTruncated, Provider: Provider, Detail: errorType})
	}
	c := termination.Classify(&termination.APIError{Provider: Provider, Type: errorType, Message: message})
	if errorType != "" {
		c.Detail = errorType
	}
	return termination.New(site, termination.SourceException, c)
}

// stopFailure completes st for a StopFailure payload: the run has ended, st.Ended says why,
// and the Turn records the session, the agent and the error.
func stopFailure(st *harness.Stop, p Payload, now time.Time) *harness.Stop {
	msg := StopFailureMessage(p)
	r := StopFailureReason(p.Error, msg)
	st.Ended = &r
	st.Turn = stopgate.Turn{Harness: Name, Session: p.SessionID, Agent: p.AgentID, Now: now,
		Error: &stopgate.ErrorInfo{Provider: Provider, Type: p.Error, Message: msg}}
	return st
}
