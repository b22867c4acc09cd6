package stopgate

import (
	"fmt"

	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/termination"
)

// processRunning reports whether a process is known to be still running: its status says so
// and no exit is recorded.
func processRunning(p gate.Process) bool {
	return p.Status == gate.StatusRunning && p.ExitedAt == nil && p.ExitCode == nil && p.Signal == ""
}

// retryAdvice says whether a run that ended on r is worth retrying, and what to tell the
// harness. Posture is per category, so the site is read too: a site that exists because the
// as-is retry was already spent never gets another.
func retryAdvice(r termination.Reason) (string, bool) {
	switch r.Site {
	case termination.SiteEmptyAfterFallback, termination.SiteStreamCutRetry, termination.SiteOverflowCompactExhausted, termination.SiteOverflowCompact:
		return "", false
	}
	p := r.Posture()
	if p.RetryableAsIs && r.RetryAfter > 0 {
		return fmt.Sprintf("The run ended on %s, which is usually transient: wait %s (the provider's retry-after), then send the same request again.", r.Category, r.RetryAfter), true
	}
	if p.RetryableAsIs {
		return fmt.Sprintf("The run ended on %s, which is usually transient: send the same request again.", r.Category), true
	}
	if !p.RetryableAfterRemedy {
		return "", false
	}
	switch p.Remedy {
	case termination.BackOff:
		if r.RetryAfter > 0 {
			return fmt.Sprintf("The run ended on %s: wait %s (the provider's retry-after), then send the same request again.", r.Category, r.RetryAfter), true
		}
		return fmt.Sprintf("The run ended on %s: wait (honour any retry-after), then send the same request again.", r.Category), true
	case termination.ReduceContext:
		return fmt.Sprintf("The run ended on %s: compact or trim the conversation, then send it again.", r.Category), true
	}
	// The other remedies (change the request, the model or the credentials) need a person or
	// a configuration change, not a retry.
	return "", false
}

// truncatedMessage is the continuation asked of an answer cut off at the output limit.
func truncatedMessage(token string) string {
	return fmt.Sprintf("Your previous reply was cut off at the output limit (finish reason %q). Continue exactly where it stopped, without repeating what you already wrote.", token)
}
