package hook

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
)

// This file holds the parts of a hook invocation that do not depend on the harness: the time
// budget and panic guard around deciding, the per-session budget state, and writing the
// answer. Codex uses them; ClaudeCode runs the same steps inline in claudecode.go.

// invokeHook runs decide within the options' time budget and answers: it fails open on every
// error, a panic, or the budget running out; saves the nudge state; writes the answer; and
// records the decision. It returns the process's exit status, always 0.
func invokeHook(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, o Options, decide func(context.Context, io.Reader) outcome) int {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{err: fmt.Errorf("internal error: panic: %v", r)}
			}
		}()
		done <- decide(ctx, stdin)
	}()
	var out outcome
	select {
	case out = <-done:
	case <-ctx.Done():
	}
	if err := parent.Err(); err != nil {
		failOpen(stderr, fmt.Errorf("interrupted before a decision: %w", err))
		return 0
	}
	if err := ctx.Err(); err != nil {
		failOpen(stderr, fmt.Errorf("no decision within %v: %w", o.Timeout, err))
		return 0
	}
	if out.err != nil {
		failOpen(stderr, out.err)
		return 0
	}
	for _, n := range out.notes {
		fmt.Fprintf(stderr, "stopgate: %s\n", n)
	}
	if !out.decided {
		return 0
	}

	answer, note := encodeAnswer(out.decision, out.event, o.Style)
	if note != "" {
		fmt.Fprintf(stderr, "stopgate: %s\n", note)
	}
	if out.statePath != "" {
		if err := saveState(out.statePath, out.next); err != nil {
			if answer != nil {
				// A nudge that is not counted could be given again without bound.
				failOpen(stderr, fmt.Errorf("cannot save the nudge budget: %w", err))
				return 0
			}
			fmt.Fprintf(stderr, "stopgate: cannot save the nudge budget: %v\n", err)
		}
	}
	if answer != nil {
		if _, err := stdout.Write(answer); err != nil {
			fmt.Fprintf(stderr, "stopgate: writing the answer: %v\n", err)
		}
	}
	if o.Recorder != nil {
		if err := record(ctx, o.Recorder, out.turn, out.decision); err != nil {
			fmt.Fprintf(stderr, "stopgate: recording the decision: %v\n", err)
		}
	}
	return 0
}

// decideBudgeted loads the session's nudge state for t, decides, and fills out with the
// decision and the state to save. active is the payload's stop_hook_active. It returns out
// undecided, with a note, where the budgets this run has spent are unknown and nudging could
// go on without bound.
func (o *Options) decideBudgeted(ctx context.Context, t stopgate.Turn, active bool, out outcome) outcome {
	if o.StateDir != "" && t.Session != "" {
		out.statePath = statePath(o.StateDir, t.Session, t.Agent)
	}
	var prev state
	var found bool
	var stateErr error
	if out.statePath != "" {
		prev, found, stateErr = loadState(out.statePath)
	}
	switch {
	case out.statePath == "" && active:
		out.notes = append(out.notes, "stop_hook_active and no state kept for this session: not nudging twice in a row")
		return out
	case stateErr != nil && active:
		out.notes = append(out.notes, fmt.Sprintf("nudge budget unreadable (%s) and stop_hook_active: letting the agent stop", oneLine(stateErr.Error())))
		return out
	case stateErr != nil:
		out.notes = append(out.notes, fmt.Sprintf("nudge budget unreadable (%s); starting from none given", oneLine(stateErr.Error())))
	case !found && active:
		out.notes = append(out.notes, "stop_hook_active but no nudge budget on record for this session: letting the agent stop")
		return out
	}
	var sameRun bool
	t.Nudges, sameRun = carryNudges(t, prev, found, active)

	sup := o.Supervisor
	if sup == nil {
		sup = stopgate.New(stopgate.Config{})
	}
	out.turn, out.decision, out.decided = t, sup.Decide(ctx, t), true
	out.next = state{Run: t.RunStartedAt, Nudges: out.decision.Nudges}
	if out.next.Run.IsZero() && sameRun {
		out.next.Run = prev.Run
	}
	return out
}

// now returns the options' clock.
func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// ignoredNote is the stderr note for payload fields read as absent; "" for none.
func ignoredNote(ignored []string) string {
	if len(ignored) == 0 {
		return ""
	}
	return "payload fields of an unexpected type, read as absent: " + strings.Join(ignored, ", ")
}
