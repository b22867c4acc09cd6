package termination

// Posture is the retry posture of a category: two facts, plus the remedy the second refers to.
//
// Posture is per category, so anything acting on a [Reason] must read its [Site] as well: the
// table cannot know how far a given site already got.
type Posture struct {
	// RetryableAsIs: is sending the identical request again a sane thing to do?
	RetryableAsIs bool
	// RetryableAfterRemedy: is sending it again worthwhile once Remedy has been applied?
	RetryableAfterRemedy bool
	// Remedy is the change that makes RetryableAfterRemedy true; empty when it is false.
	Remedy Remedy
}

// postures is the one posture table. Every reason's posture is read from here, so no site can
// invent its own. A remedy is present exactly when RetryableAfterRemedy is true, and only
// ContextOverflow names ReduceContext (so a truncated answer is never compacted).
var postures = map[Category]Posture{
	Completed:           {},
	EmptyResponse:       {RetryableAsIs: true, RetryableAfterRemedy: true, Remedy: ChangeModel},
	StreamCut:           {RetryableAsIs: true, RetryableAfterRemedy: true, Remedy: BackOff},
	ContentRefusal:      {RetryableAfterRemedy: true, Remedy: ChangeRequest},
	OutputTruncated:     {RetryableAfterRemedy: true, Remedy: ChangeRequest},
	ContextOverflow:     {RetryableAfterRemedy: true, Remedy: ReduceContext},
	RateLimited:         {RetryableAfterRemedy: true, Remedy: BackOff},
	AuthFailed:          {RetryableAfterRemedy: true, Remedy: FixCredentials},
	InvalidRequest:      {},
	ProviderError:       {RetryableAsIs: true, RetryableAfterRemedy: true, Remedy: BackOff},
	NetworkError:        {RetryableAsIs: true, RetryableAfterRemedy: true, Remedy: BackOff},
	Timeout:             {RetryableAsIs: true, RetryableAfterRemedy: true, Remedy: BackOff},
	Cancelled:           {},
	ApprovalStop:        {},
	ToolErrorBudget:     {RetryableAfterRemedy: true, Remedy: ChangeRequest},
	ToolLoopGuard:       {RetryableAfterRemedy: true, Remedy: ChangeRequest},
	InterruptDrainGuard: {RetryableAfterRemedy: true, Remedy: ChangeRequest},
	ToolError:           {RetryableAfterRemedy: true, Remedy: ChangeRequest},
	Suspended:           {RetryableAfterRemedy: true, Remedy: Resume},
	RecursionLimit:      {RetryableAfterRemedy: true, Remedy: ChangeRequest},
	Abandoned:           {},
	Unknown:             {},
}

// PostureOf returns the retry posture of c. A string outside the vocabulary gets the posture of
// [Unknown]: retry nothing.
func PostureOf(c Category) Posture {
	if p, ok := postures[c]; ok {
		return p
	}
	return postures[Unknown]
}
