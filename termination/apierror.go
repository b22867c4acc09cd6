package termination

import (
	"fmt"
	"strconv"
	"time"
)

// APIError describes a provider's error as data: what a harness in any language knows about a
// failed model call. It is also an error, so a Go client can return it and [Classify] reads it
// as an HTTP status carrier. Every field is optional.
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
	// RetryAfter is the provider's retry-after hint; zero when absent.
	RetryAfter time.Duration
}

// Error renders the provider, status and message.
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = e.Body
	}
	prefix := e.Provider
	if prefix == "" {
		prefix = "provider"
	}
	if e.Status != 0 {
		prefix += " " + strconv.Itoa(e.Status)
	}
	if msg == "" {
		return fmt.Sprintf("%s: error", prefix)
	}
	return fmt.Sprintf("%s: %s", prefix, msg)
}

// HTTPStatus returns the HTTP status; it makes APIError a status carrier for [Classify].
func (e *APIError) HTTPStatus() int { return e.Status }
