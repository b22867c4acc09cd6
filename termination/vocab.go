package termination

import (
	"errors"
	"fmt"
)

// Category is what ended a run: a cause, not a message. Two sites that stop for the same cause
// report the same Category and are told apart by their [Site].
//
// The string form of each constant is stable and is what JSON carries.
type Category string

// The closed vocabulary of categories. The list is append-only.
const (
	// Completed: the model finished of its own accord, the ordinary end of a turn.
	Completed Category = "completed"
	// EmptyResponse: the turn produced no content at all (no refusal, no error, nothing).
	EmptyResponse Category = "empty_response"
	// StreamCut: the reply was cut off before it finished (no answer text, no tool call, no
	// finish reason), and the one retry was cut off too.
	StreamCut Category = "stream_cut"
	// ContentRefusal: the model or the provider's safety system declined to answer.
	ContentRefusal Category = "content_refusal"
	// OutputTruncated: the answer was cut off against the output cap rather than finished.
	OutputTruncated Category = "output_truncated"
	// ContextOverflow: prompt plus history exceeded the model's input window.
	ContextOverflow Category = "context_overflow"
	// RateLimited: the provider refused for rate or quota reasons (HTTP 429 and kin).
	RateLimited Category = "rate_limited"
	// AuthFailed: credentials were missing, wrong or unauthorised (HTTP 401/403 and kin).
	AuthFailed Category = "auth_failed"
	// InvalidRequest: the provider rejected the request itself (HTTP 400) for a reason retrying
	// cannot change.
	InvalidRequest Category = "invalid_request"
	// ProviderError: a fault on the provider's side (HTTP 5xx, an overloaded model).
	ProviderError Category = "provider_error"
	// NetworkError: the request never completed at the transport level.
	NetworkError Category = "network_error"
	// Timeout: a deadline elapsed before the run finished.
	Timeout Category = "timeout"
	// Cancelled: the user stopped it (Esc, a cancelled context, a closed client).
	Cancelled Category = "cancelled"
	// ApprovalStop: the approvals gate deliberately ended the run.
	ApprovalStop Category = "approval_stop"
	// ToolErrorBudget: the tool-error budget ended the run rather than spend another model call.
	ToolErrorBudget Category = "tool_error_budget"
	// ToolLoopGuard: the loop guard ended a no-progress loop.
	ToolLoopGuard Category = "tool_loop_guard"
	// InterruptDrainGuard: the runtime ended the turn because it re-suspended on a gated tool
	// call more times than it is willing to resume. Distinct from RecursionLimit, which is the
	// graph's own bound.
	InterruptDrainGuard Category = "interrupt_drain_guard"
	// ToolError: a tool failed, and the failure ended the turn.
	ToolError Category = "tool_error"
	// Suspended: the run is parked waiting to be resumed.
	Suspended Category = "suspended"
	// RecursionLimit: the agent graph hit its recursion or step limit.
	RecursionLimit Category = "recursion_limit"
	// Abandoned: the consumer stopped consuming the turn before it ended.
	Abandoned Category = "abandoned"
	// Unknown: nothing in the taxonomy matched. Recorded as such rather than guessed at.
	Unknown Category = "unknown"
)

// Categories lists every Category in declaration order.
func Categories() []Category {
	return []Category{
		Completed, EmptyResponse, StreamCut, ContentRefusal, OutputTruncated, ContextOverflow,
		RateLimited, AuthFailed, InvalidRequest, ProviderError, NetworkError, Timeout, Cancelled,
		ApprovalStop, ToolErrorBudget, ToolLoopGuard, InterruptDrainGuard, ToolError, Suspended,
		RecursionLimit, Abandoned, Unknown,
	}
}

// Valid reports whether c is a member of the vocabulary.
func (c Category) Valid() bool {
	_, ok := postures[c]
	return ok
}

// Source is which feeder produced a classification.
type Source string

// The sources.
const (
	// SourceMetadata: read off a message's stop or finish reason.
	SourceMetadata Source = "metadata"
	// SourceException: classified from an error.
	SourceException Source = "exception"
	// SourceControl: the runtime itself decided to end the run (a gate, a guard, a
	// cancellation, an ordinary completion), so there was nothing to classify.
	SourceControl Source = "control"
)

// Valid reports whether s is one of the three sources.
func (s Source) Valid() bool {
	switch s {
	case SourceMetadata, SourceException, SourceControl:
		return true
	}
	return false
}

// Remedy is what would have to change before a retry is worth making.
type Remedy string

// The remedies. The empty Remedy means there is none.
const (
	// ReduceContext: send less (compact the history, drop context, summarise).
	ReduceContext Remedy = "reduce-context"
	// BackOff: wait, then send the same thing again.
	BackOff Remedy = "back-off"
	// ChangeRequest: send something different (rephrase, narrow, change approach).
	ChangeRequest Remedy = "change-request"
	// ChangeModel: send it to a different model.
	ChangeModel Remedy = "change-model"
	// FixCredentials: repair credentials or configuration first.
	FixCredentials Remedy = "fix-credentials"
	// Resume: nothing is wrong; the run is parked and can be continued where it stopped.
	Resume Remedy = "resume"
)

// Remedies lists every Remedy in declaration order.
func Remedies() []Remedy {
	return []Remedy{ReduceContext, BackOff, ChangeRequest, ChangeModel, FixCredentials, Resume}
}

// Site is where a classification was made, as a stable identifier. The site is a distinct fact
// from the category: several sites report the same category, and one site can report several.
// Posture is per category, so anything acting on a reason must read its site as well (an empty
// response at [SiteEmptyAfterFallback] has already spent its as-is retry).
//
// The first group are the places a Go agent runner has (the seed's runner sites with a
// counterpart in a Go harness); the rest are stopgate's own.
type Site string

// Sites in an agent runner that embeds stopgate.
const (
	// SiteRunnerCompleted: the runner's turn returned an answer.
	SiteRunnerCompleted Site = "runner.completed"
	// SiteEmptyAfterFallback: the streamed turn was empty and the non-streaming fallback was
	// empty too (the as-is retry is spent).
	SiteEmptyAfterFallback Site = "runner.empty-after-fallback"
	// SiteTurnError: the turn failed.
	SiteTurnError Site = "runner.turn-error"
	// SiteOverflowCompact: the turn overflowed and compaction had nothing left to give.
	SiteOverflowCompact Site = "runner.overflow-compact"
	// SiteOverflowCompactExhausted: the turn overflowed again on the retry after a compaction.
	SiteOverflowCompactExhausted Site = "runner.overflow-compact-exhausted"
	// SiteCancelled: the turn ended on a cancelled context.
	SiteCancelled Site = "agent.cancelled"
	// SiteStreamCutRetry: the reply was cut off, retried once, and cut off again.
	SiteStreamCutRetry Site = "middleware.stream-cut-retry"
)

// Sites that belong to stopgate itself.
const (
	// SiteToolErrorBudget: the loop guard's tool-error budget ended the run.
	SiteToolErrorBudget Site = "loopguard.tool-error-budget"
	// SiteToolLoopGuard: the loop guard halted a no-progress loop.
	SiteToolLoopGuard Site = "loopguard.halt"
	// SiteSupervisor: the supervisor decided the run ends (a completed turn, a classified
	// error or stop token handed to it in a Turn).
	SiteSupervisor Site = "supervisor.decide"
	// SiteHookClaudeCode: the Claude Code stop hook.
	SiteHookClaudeCode Site = "hook.claude-code"
	// SiteHookCodex: the Codex CLI stop hook.
	SiteHookCodex Site = "hook.codex"
	// SiteHookClaudeCodeStopFailure: Claude Code's StopFailure hook, which fires instead of Stop
	// when the turn ended on an API error.
	SiteHookClaudeCodeStopFailure Site = "hook.claude-code.stop-failure"
	// SiteHookGeminiCLI: the Gemini CLI after-agent hook.
	SiteHookGeminiCLI Site = "hook.gemini-cli"
	// SiteHookCopilot: the GitHub Copilot CLI agentStop and subagentStop hook.
	SiteHookCopilot Site = "hook.copilot"
	// SiteHookOpencode: the opencode plugin's session.idle hook.
	SiteHookOpencode Site = "hook.opencode"
	// SiteModelCall: a one-shot model call made through stopgate's model package.
	SiteModelCall Site = "model.call"
	// SiteStallClassifier: the model stall classifier's call said nothing usable.
	SiteStallClassifier Site = "stall.model-classifier"
	// SiteToolCallSalvage: a rejected tool call that ended the run.
	SiteToolCallSalvage Site = "toolcall.salvage"
	// SiteClassifyError: a caller asked stopgate to classify an error description
	// (the CLI's `classify error`, the HTTP API).
	SiteClassifyError Site = "classify.error"
	// SiteClassifyStop: a caller asked stopgate to classify a stop-metadata fragment.
	SiteClassifyStop Site = "classify.stop"
)

// Sites lists every Site in declaration order.
func Sites() []Site {
	return []Site{
		SiteRunnerCompleted, SiteEmptyAfterFallback,
		SiteTurnError, SiteOverflowCompact, SiteOverflowCompactExhausted,
		SiteCancelled, SiteStreamCutRetry,
		SiteToolErrorBudget, SiteToolLoopGuard, SiteSupervisor, SiteHookClaudeCode, SiteHookCodex,
		SiteHookClaudeCodeStopFailure, SiteHookGeminiCLI, SiteHookCopilot, SiteHookOpencode, SiteModelCall, SiteStallClassifier, SiteToolCallSalvage,
		SiteClassifyError, SiteClassifyStop,
	}
}

// ErrUnknownValue is returned (wrapped) when a string names no member of a vocabulary.
var ErrUnknownValue = errors.New("not a member of the vocabulary")

// ParseCategory returns the Category spelled s, or an error wrapping [ErrUnknownValue].
func ParseCategory(s string) (Category, error) {
	if c := Category(s); c.Valid() {
		return c, nil
	}
	return "", fmt.Errorf("termination: category %q: %w", s, ErrUnknownValue)
}

// UnmarshalText implements [encoding.TextUnmarshaler], refusing strings outside the vocabulary.
func (c *Category) UnmarshalText(b []byte) error {
	v, err := ParseCategory(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// UnmarshalText implements [encoding.TextUnmarshaler], refusing strings outside the vocabulary.
func (s *Source) UnmarshalText(b []byte) error {
	if v := Source(b); v.Valid() {
		*s = v
		return nil
	}
	return fmt.Errorf("termination: source %q: %w", b, ErrUnknownValue)
}
