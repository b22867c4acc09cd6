package stall

import (
	"time"
)

// Job is the part of a background job record the pending-wake gate reads.
type Job struct {
	// ID identifies the job; it is what serviceJobIDs is keyed by.
	ID string
	// Label is a human-readable name for the log line ("npm test"); optional.
	Label string
	// Status is the job's state; only "running", exactly, means the job will still report.
	Status string
}

// The schedule triggers.
const (
	// TriggerOnce fires one time, at the schedule's At.
	TriggerOnce = "once"
	// TriggerCron fires periodically.
	TriggerCron = "cron"
)

// Schedule is the part of a thread's schedule the pending-wake gate reads.
type Schedule struct {
	// ID identifies the schedule.
	ID string
	// Trigger is TriggerOnce or TriggerCron.
	Trigger string
	// At is when a one-shot schedule fires; the zero time means it has none.
	At time.Time
}

// PendingWakeReason reports whether the agent is already guaranteed to be woken, and so must
// not be nudged however its last message reads. It returns the reason, for the log line, or
// "" when no wake is pending.
//
// The prose checks cannot tell a stall from the most common correct ending of all: parking
// on a background job ("the job wakes me when it exits"), which is what agents are told to
// do. Their origin measured 40% of nudges firing while a job was running on the thread. There
// are two gates, and deliberately only two:
//
//  1. A job whose Status is "running" and whose ID is not in serviceJobIDs. Service jobs (a
//     preview server and other long-lived processes) run indefinitely and stand for no
//     pending work; ordinary background jobs and one-off builds still report back. The first
//     such job in order is reported: "job build-123 (npm test) is running".
//  2. A TriggerOnce schedule whose At is after now: the mechanism an agent arms when it means
//     to continue later, and the absence of which the nudge exists to make up for. A zero At
//     is not a gate, and neither is an At equal to now, which is due rather than pending.
//     Reported as "one-shot schedule s1 fires at 2026-09-02T15:00:00Z (in 1h0m0s)".
//
// A TriggerCron schedule is never a gate. It is a periodic wake, not a wake for the work in
// hand: an agent with a daily 09:00 report that stalls at 14:00 is stalled for the next 19
// hours. Gating on cron would silently switch the detector off for every thread that owns a
// recurring schedule. Any other trigger is not a gate either.
//
// now is the current time; the function reads no clock.
func PendingWakeReason(jobs []Job, schedules []Schedule, now time.Time, serviceJobIDs map[string]bool) string {
	for _, j := range jobs {
		if j.Status != "running" || serviceJobIDs[j.ID] {
			continue
		}
		name := "job"
		if j.ID != "" {
			name += " " + j.ID
		}
		if j.Label != "" {
			name += " (" + j.Label + ")"
		}
		return name + " is running"
	}
	for _, s := range schedules {
		if s.Trigger != TriggerOnce || s.At.IsZero() || !s.At.After(now) {
			continue
		}
		name := "one-shot schedule"
		if s.ID != "" {
			name += " " + s.ID
		}
		return name + " fires at " + s.At.UTC().Format(time.RFC3339) + " (in " + s.At.Sub(now).String() + ")"
	}
	return ""
}
