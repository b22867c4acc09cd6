package toolcall

import (
	"regexp"
	"strings"

	"github.com/stopgate/stopgate/termination"
)

// Failure is the kind of tool-calling failure an error body reports: one typed answer, so a
// caller switches on it instead of on prose. The string form of each constant is stable and is
// what JSON carries.
type Failure string

// The failure kinds.
const (
	// ToolUseFailed: the model can call tools but emitted a call the provider rejected (Groq's
	// code "tool_use_failed", "Failed to call a function"). The body often keeps the model's
	// output in failed_generation: salvage it, else fail over to another model.
	ToolUseFailed Failure = "tool_use_failed"
	// ToolsUnsupported: the model or the server does not take tools at all (Ollama's
	// "<model> does not support tools", "tools is not supported", vLLM's "\"auto\" tool choice
	// requires --enable-auto-tool-choice"). Switch to the JSON fallback transport.
	ToolsUnsupported Failure = "tools_unsupported"
	// SchemaValidation: the call was well-formed but its arguments failed validation against
	// the tool's schema ("tool call validation failed: parameters for tool X did not match
	// schema"). Feed the validation error back to the model.
	SchemaValidation Failure = "schema_validation"
	// JSONValidation: generated JSON failed to parse or validate (Groq's json_validate_failed,
	// arguments that are not valid JSON). Feed the error back to the model.
	JSONValidation Failure = "json_validation"
	// Other: not a tool-calling failure this package recognises; classify it as an ordinary
	// error (termination.Classify).
	Other Failure = "other"
)

// Failures lists every Failure in declaration order.
func Failures() []Failure {
	return []Failure{ToolUseFailed, ToolsUnsupported, SchemaValidation, JSONValidation, Other}
}

// Recovery is what a caller does next about a [Failure].
type Recovery string

// The recoveries.
const (
	// SalvageOrFailOver: try [Salvage]; when it recovers nothing, send the turn to the next
	// model.
	SalvageOrFailOver Recovery = "salvage_or_fail_over"
	// UseJSONFallback: send the turn again without native tools, built with [FallbackPrompt],
	// and read the reply with [ParseFallbackReply].
	UseJSONFallback Recovery = "json_fallback"
	// FeedBackError: give the model the provider's error text ([ErrorMessage]) as the call's
	// result, so it can correct its arguments.
	FeedBackError Recovery = "feed_back_error"
	// NoRecovery: nothing tool-specific applies; handle it as any other error.
	NoRecovery Recovery = "none"
)

// Recovery returns what to do about f.
func (f Failure) Recovery() Recovery {
	switch f {
	case ToolUseFailed:
		return SalvageOrFailOver
	case ToolsUnsupported:
		return UseJSONFallback
	case SchemaValidation, JSONValidation:
		return FeedBackError
	}
	return NoRecovery
}

// Category returns the termination category a run ends with when f ends it, chosen on the
// evidence of how each failure behaves:
//
//   - [ToolUseFailed], [SchemaValidation], [JSONValidation]: [termination.ToolError]. The
//     request was sound and the model's call was not; it is intermittent (the same request
//     later succeeds) and yields to a changed request (few-shot examples, tool_choice "auto",
//     the validation error fed back) or another model. The provider labels it
//     invalid_request_error, but [termination.InvalidRequest]'s "nothing will help" posture
//     would be wrong.
//   - [ToolsUnsupported]: [termination.InvalidRequest]. Sending tools to that model fails every
//     time; the same body fed to termination.Classify reads the same way.
//   - [Other]: [termination.Unknown]; classify the error itself instead.
func (f Failure) Category() termination.Category {
	switch f {
	case ToolUseFailed, SchemaValidation, JSONValidation:
		return termination.ToolError
	case ToolsUnsupported:
		return termination.InvalidRequest
	}
	return termination.Unknown
}

// Reason returns the termination reason a run carries when f ends it: classified from an
// exception at [termination.SiteToolCallSalvage], with the failure kind as its detail.
// provider is the provider family when known, else empty.
func (f Failure) Reason(provider string) termination.Reason {
	return termination.New(termination.SiteToolCallSalvage, termination.SourceException,
		termination.Classification{Category: f.Category(), Provider: provider, Detail: string(f)})
}

// The fixed wordings, matched in the lower-cased message.
var (
	// toolUseFailedWords: the provider's wording for a rejected call.
	toolUseFailedWords = []string{"failed to call a function", "tool use failed"}
	// schemaValidationWords: Groq's argument-validation wording; "attempted to call tool 'x'
	// which was not in request.tools" arrives under the same prefix.
	schemaValidationWords = []string{"tool call validation failed", "did not match schema", "parameters for tool "}
	// jsonGeneratedWords: JSON mode's wording.
	jsonGeneratedWords = []string{"failed to generate json", "generated json does not match"}
)

var (
	// reBadJSON, reArguments: arguments that are not JSON, when both occur on one line within
	// 60 characters of each other ("Invalid JSON in tool call arguments").
	reBadJSON   = regexp.MustCompile(`\b(?:invalid|malformed|not valid)\s+json\b`)
	reArguments = regexp.MustCompile(`\barguments?\b`)
	// reUnsupported, reToolNoun: the model or server does not take tools, when both occur in one
	// sentence within 40 characters of each other, in either order. "tool_calls" (a malformed
	// message in the history) is deliberately not a tool noun.
	reUnsupported = regexp.MustCompile(`not\s+(?:fully\s+|yet\s+)?supported|unsupported|not\s+enabled|(?:does|do)(?:n['’]t|\s+not)\s+support`)
	reToolNoun    = regexp.MustCompile(`\b(?:tools?|tool_choice|parallel_tool_calls|functions?)\b`)
)

// ClassifyFailure says which kind of tool-calling failure an error response reports. status is
// the HTTP status (0 when unknown; a streamed error can arrive under 200) and body is the raw
// response body in any shape ([Salvage] lists them).
//
// Rate-limit and credential statuses (401, 403, 407, 429) are [Other] whatever the body says:
// retrying them is a matter of waiting or fixing keys, never of tools. Otherwise the body's
// own code is trusted first (tool_use_failed, json_validate_failed), then its wording. A body
// whose message cannot be read (cut off, or not an error object at all) is read as text.
func ClassifyFailure(status int, body string) Failure {
	return classify(status, body, parseErrorBody(body))
}

var (
	// toolsUnsupportedWords: fixed wordings that say the model, route or server does not take
	// tools (or the tool-calling option sent) at all: a router with no endpoint that supports
	// tool use (OpenRouter's 404), an API version that does not know the argument (Azure),
	// llama-server started without --jinja, vLLM without the named-or-auto tool_choice.
	toolsUnsupportedWords = []string{
		"--enable-auto-tool-choice", "support tool use", "support the provided 'tool_choice'",
		"tools param requires", "tool_choice must either be", "function calling is not supported",
	}
	// reUnknownArgument: a request argument the server does not know, when it is tools.
	reUnknownArgument = regexp.MustCompile(`(?:unrecognized|unknown|unsupported) (?:request )?(?:argument|param(?:eter)?)s?(?: supplied)?: ['"]?(?:tools|functions|tool_choice)\b`)
	// malformedCallWords: Gemini's finish reason for a call it could not parse, in its own
	// spelling and in the messages harnesses print for it; and Cerebras's wording for a call
	// it could not generate.
	malformedCallWords = []string{"malformed_function_call", "malformed function call", "failed to generate tool_calls", "failed to generate tool call"}
	// cutCallWords: the JSON parser of a server that read the model's forced tool call (vLLM
	// and TGI under tool_choice "required" or a named tool) met its end early, mostly because
	// max_tokens ran out. Rust's serde and pydantic-core say "EOF while parsing" only of a
	// document cut short; a request body the server could not parse reads "JSON decode error".
	cutCallWords = []string{"eof while parsing"}
)

func classify(status int, body string, e errorBody) Failure {
	switch status {
	case 401, 403, 407, 429:
		return Other
	}
	code := strings.ToLower(e.code)
	msg := strings.ToLower(e.message)
	if msg == "" {
		msg = strings.ToLower(strings.TrimSpace(body))
	}
	switch {
	case code == "json_validate_failed" || containsAny(msg, jsonGeneratedWords):
		return JSONValidation
	case code == "tool_use_failed" || code == "output_parse_failed" || e.hasGeneration || containsAny(msg, toolUseFailedWords):
		if containsAny(msg, schemaValidationWords) {
			return SchemaValidation
		}
		return ToolUseFailed
	case containsAny(msg, schemaValidationWords):
		return SchemaValidation
	case containsAny(msg, malformedCallWords) || containsAny(msg, cutCallWords):
		return ToolUseFailed
	case strings.Contains(msg, "json") && near(msg, reBadJSON, reArguments, 60, "\n"):
		return JSONValidation
	case containsAny(msg, toolsUnsupportedWords) || reUnknownArgument.MatchString(msg):
		return ToolsUnsupported
	case (strings.Contains(msg, "tool") || strings.Contains(msg, "function")) && near(msg, reUnsupported, reToolNoun, 40, ".\n"):
		return ToolsUnsupported
	}
	return Other
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// near reports whether a match of a and a match of b occur in s, in either order, with at most
// gap bytes and none of the bytes in stop between them.
func near(s string, a, b *regexp.Regexp, gap int, stop string) bool {
	as := a.FindAllStringIndex(s, -1)
	if as == nil {
		return false
	}
	bs := b.FindAllStringIndex(s, -1)
	for _, x := range as {
		for _, y := range bs {
			lo, hi := x[1], y[0]
			if y[1] <= x[0] {
				lo, hi = y[1], x[0]
			} else if y[0] < x[1] {
				continue // overlapping matches are one phrase, not two
			}
			if hi-lo <= gap && !strings.ContainsAny(s[lo:hi], stop) {
				return true
			}
		}
	}
	return false
}

// ErrorMessage returns the provider's error message from body, unwrapped from whatever
// envelope, proxy prefix or string literal it arrived in: the text to hand the model for
// [FeedBackError]. A body that is not an error object is returned trimmed.
func ErrorMessage(body string) string {
	return parseErrorBody(body).message
}
