package stopgate

import (
	"time"

	"github.com/stopgate/stopgate/termination"
)

// Verdict is what the harness should do.
type Verdict string

// The verdicts.
const (
	// Stop: let the agent stop. The Decision's Reason says why the run ended.
	Stop Verdict = "stop"
	// Continue: do not stop; hand the Decision's Message to the agent as its next input.
	Continue Verdict = "continue"
	// Retry: the run ended on an error worth retrying; apply the Reason's remedy (none, for
	// a retry as is) and send the request again.
	Retry Verdict = "retry"
	// Shadow is never returned by Decide. It is the verdict the event log records for a
	// Continue made in shadow mode (a hook installed with --shadow, or shadow = true in the
	// configuration): the decision was made and recorded, with the Message that would have
	// been handed on, and the agent was let stop.
	Shadow Verdict = "shadow"
)

// Check names one of the supervisor's checks. Its string form is stable and is what JSON, the
// event log and the per-check budgets use.
type Check string

// The checks, in the order they run.
const (
	CheckError        Check = "error"
	CheckStopMetadata Check = "stop_metadata"
	CheckLivelock     Check = "livelock"
	CheckSubagents    Check = "subagents"
	CheckProcesses    Check = "processes"
	CheckClaims       Check = "claims"
	CheckPendingWake  Check = "pending_wake"
	CheckTodos        Check = "todos"
	CheckStall        Check = "stall"
	// CheckCompleted is the Check of a Decision no check decided: the run ended, completed.
	CheckCompleted Check = "completed"
)

// Checks lists the checks in the order they run.
func Checks() []Check {
	return []Check{CheckError, CheckStopMetadata, CheckLivelock, CheckSubagents, CheckProcesses,
		CheckClaims, CheckPendingWake, CheckTodos, CheckStall}
}

// Outcome is what one check found.
type Outcome string

// The outcomes.
const (
	// Pass: the check ran and found nothing that holds the run back.
	Pass Outcome = "pass"
	// Unknown: the turn lacked what the check reads, so it found nothing.
	Unknown Outcome = "unknown"
	// Off: the check is turned off in the configuration.
	Off Outcome = "off"
	// Skipped: an earlier check decided, or silenced this one (a pending wake silences the
	// prose checks).
	Skipped Outcome = "skipped"
	// Blocked: the check holds the run back; the Decision continues or retries.
	Blocked Outcome = "blocked"
	// Exhausted: the check would hold the run back but its budget is spent, so it did not.
	Exhausted Outcome = "exhausted"
	// Ended: the check found why the run ends (an error, a refusal) and stops it.
	Ended Outcome = "ended"
	// Parked: the run waits on work that will wake it.
	Parked Outcome = "parked"
)

// TrailEntry records one check: what it found and why.
type TrailEntry struct {
	Check   Check   `json:"check"`
	Outcome Outcome `json:"outcome"`
	Why     string  `json:"why"`
	// Reason is the termination reason the check produced or recorded, where it has one (a
	// classified error, a stop token, a model classifier that said nothing usable).
	Reason *termination.Reason `json:"reason,omitempty"`
}

// Decision is the supervisor's answer for one Turn.
type Decision struct {
	// Verdict is what the harness should do.
	Verdict Verdict `json:"verdict"`
	// Check is the check that decided; CheckCompleted when none did.
	Check Check `json:"check"`
	// Message is the text to hand the agent when the Verdict is Continue or Retry.
	Message string `json:"message,omitempty"`
	// Reason is why the run ends when the Verdict is Stop, and what a retry remedies when it
	// is Retry; nil when the run continues.
	Reason *termination.Reason `json:"reason,omitempty"`
	// RetryAfter is the delay the provider asked for before a retry (the Reason's, copied
	// here for a caller that acts on a Retry); zero when it named none. Its JSON form is the
	// Reason's retry_after_ms.
	RetryAfter time.Duration `json:"-"`
	// Trail records every check, in order.
	Trail []TrailEntry `json:"trail"`
	// Nudges is the turn's count after this decision, for the harness to pass back next time.
	Nudges Nudges `json:"nudges"`
}
