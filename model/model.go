// Package model is the one way stopgate calls a language model: it resolves a configured model
// string ("openai:gpt-5-mini", "anthropic:claude-haiku-4-5", "claude-cli:haiku", …) to a
// provider and makes one-shot calls with a deadline, a reasoning effort and a token budget.
//
// Every error a call returns carries a [termination.Reason] (read it with
// termination.ReasonOf), so a caller can always say why a call produced nothing. An error
// from a provider wraps the *termination.APIError built from its raw status and body (with
// the Retry-After hint), and its Error() text keeps the provider's own message.
//
// A reasoning model that spends its whole budget thinking is not an error: Complete returns
// an empty Text with FinishReason "length" (Anthropic: "max_tokens") and a nil error, and the
// caller decides what an empty answer means.
//
// # Why thin clients
//
// The package speaks the two wire protocols itself, on net/http and encoding/json, and calls
// the Claude Code CLI with os/exec; it uses no provider SDK. Classifying why a call failed
// is the product, so the classifier must see every provider's raw HTTP status, headers and
// body the same way, and the SDKs do not keep them intact: openai-go loses the status when
// an error body is {"error":"…"} (the shape of several local servers) and leaves the
// provider's message out of Error(); anthropic-sdk-go pulls OpenTelemetry and more into the
// build; and both retry on their own by default, behind the caller that must classify. A
// one-shot call with a deadline is a few hundred lines per protocol, and OpenAI-compatible
// chat completions covers OpenAI, Groq, OpenRouter, Ollama, Gemini (through Google's
// compatibility endpoint), DeepSeek, Mistral, xAI and self-hosted servers.
package model

import (
	"github.com/stopgate/stopgate/model/llm"
)

// The call's types are llm's: they live in that leaf package, which imports no I/O, so a
// package that only consumes a Client (stall, the supervisor) does not pull in net/http and
// os/exec. These aliases are the same types under the names this package's callers use.
type (
	// Effort is [llm.Effort].
	Effort = llm.Effort
	// Request is [llm.Request].
	Request = llm.Request
	// Response is [llm.Response].
	Response = llm.Response
	// Client is [llm.Client].
	Client = llm.Client
)

// The efforts, as [llm]'s.
const (
	EffortLow    = llm.EffortLow
	EffortMedium = llm.EffortMedium
	EffortHigh   = llm.EffortHigh
)
