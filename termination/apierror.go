package termination

import (
	"strconv"
	"strings"
	"time"
)

// APIError describes a provider's error as data: what a harness in any language knows about a
// failed model call. It is also an error, so a Go client can return it and [Classify] reads it
// as the provider's word. Every field is optional.
type APIError struct {
	// Provider is the provider family or name ("openai", "anthropic", "groq", …).
	Provider string
	// Status is the HTTP status; zero when unknown.
	Status int
	// Type and Code are the provider's error type and code, where its body has them
	// (OpenAI error.type and error.code, Anthropic error.type, Google status and reason).
	Type, Code string
	// Message is the provider's human-readable message.
	Message string
	// Body is the raw response body, kept as received.
	Body string
	// Name is an error class name, where the caller had one ("RateLimitError").
	Name string
	// RetryAfter is the provider's retry-after hint (header or body); zero when absent.
	RetryAfter time.Duration

	parsed     *ErrorBody // what ReadErrorBody made of parsedFrom
	parsedFrom string
}

// body returns what the error body says: what ParseErrorBody read, or a fresh reading when
// the error was built otherwise (or its Body changed since). It never writes to e, so one
// error can be classified from several goroutines.
func (e *APIError) body() ErrorBody {
	if e.parsed != nil && e.parsedFrom == e.Body {
		return *e.parsed
	}
	return ReadErrorBody(e.Body)
}

// Error renders the provider, status and message. A body is shown only when it is not JSON:
// a JSON body is data for the classifier, and can hold the model's own output (Groq's
// failed_generation), which must not reach the text a reader sees as the error's message.
// A nil *APIError renders as "<nil>".
func (e *APIError) Error() string {
	if e == nil {
		return "<nil>"
	}
	msg := e.Message
	if b := strings.TrimSpace(e.Body); msg == "" && b != "" && b[0] != '{' && b[0] != '[' {
		msg = b
	}
	prefix := e.Provider
	if prefix == "" {
		prefix = "provider"
	}
	if e.Status != 0 {
		prefix += " " + strconv.Itoa(e.Status)
	}
	if msg == "" {
		return prefix + ": error"
	}
	return prefix + ": " + msg
}
