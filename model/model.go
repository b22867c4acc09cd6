// Package model is the one way stopgate calls a language model: it resolves a configured model
// string ("openai:gpt-5-mini", "anthropic:claude-haiku-4-5", "claude-cli:haiku", …) to a
// provider and makes one-shot calls with a deadline, a reasoning effort and a token budget.
//
// Every error a call returns carries a [termination.Reason] (read it with
// termination.ReasonOf), so a caller can always say why a call produced nothing.
package model

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
