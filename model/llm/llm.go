// Package llm defines the one-shot model call a stall classifier makes, as types only: the
// request, the response and the Client interface. It imports no I/O, so the packages that
// consume a Client (stall and the supervisor) stay pure; the clients that speak HTTP or run a
// CLI live beside it, in package model ([model.New] resolves a model string to one).
//
// [model.New]: https://pkg.go.dev/github.com/stopgate/stopgate/model#New
package llm

import (
	"context"
)

// Effort is the reasoning effort asked of a reasoning model. The zero value leaves the
// provider's default.
type Effort string

// The efforts.
const (
	EffortLow    Effort = "low"
	EffortMedium Effort = "medium"
	EffortHigh   Effort = "high"
)

// Request is one one-shot call.
type Request struct {
	// System is the system prompt; empty for none.
	System string
	// Prompt is the single user message.
	Prompt string
	// MaxTokens bounds the output, reasoning included where the provider counts it so; zero
	// leaves the provider's default.
	MaxTokens int
	// Effort is the reasoning effort; empty leaves the provider's default.
	Effort Effort
}

// Response is what a call produced.
type Response struct {
	// Text is the visible answer text (reasoning excluded).
	Text string
	// FinishReason is the provider's raw finish or stop token, lower-cased; empty when absent.
	FinishReason string
	// Provider and Model name what answered.
	Provider, Model string
}

// Client makes one-shot calls. Implementations are safe for concurrent use. The deadline is
// the context's.
type Client interface {
	Complete(ctx context.Context, req Request) (Response, error)
}
