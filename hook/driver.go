package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
)

// This file is the hook driver every harness shares: the time budget and panic guard around
// deciding, the per-session budget state, encoding, writing and recording the answer, and
// failing open. A harness adds only its decide step (decode its payload, read its transcript,
// build the Turn) and its answer encoder; see ClaudeCode, Codex and GeminiCLI.

// decideFunc does everything that may fail or take time for one invocation: decoding the
// payload, reading the transcript, deciding.
type decideFunc func(ctx context.Context, stdin io.Reader) outcome

// encodeFunc returns what to write on stdout for d, decided on a stop of the given hook event
// (nil to let the agent stop), and a note for stderr when the answer is not what the verdict
// says.
type encodeFunc func(d stopgate.Decision, event string) ([]byte, string)

// invokeHook runs decide within the options' time budget and answers with encode: it fails
// open on every error, a panic, or the budget running out; saves the nudge state; writes the
// answer; and records the decision. It returns the process's exit status, always 0.
func invokeHook(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, o Options, decide decideFunc, encode encodeFunc) int {
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
		fmt.Fprintf(stderr, "stopgate: %s\n", oneLine(n))
	}
	if !out.decided {
		return 0
	}

	answer, note := encode(out.decision, out.event)
	if note != "" {
		fmt.Fprintf(stderr, "stopgate: %s\n", oneLine(note))
	}
	if out.statePath != "" {
		if err := saveState(out.statePath, out.next); err != nil {
			if answer != nil {
				// A nudge that is not counted could be given again without bound.
				failOpen(stderr, fmt.Errorf("cannot save the nudge budget: %w", err))
				return 0
			}
			fmt.Fprintf(stderr, "stopgate: cannot save the nudge budget: %s\n", oneLine(err.Error()))
		}
	}
	if answer != nil {
		if _, err := stdout.Write(answer); err != nil {
			fmt.Fprintf(stderr, "stopgate: writing the answer: %s\n", oneLine(err.Error()))
		}
	}
	if o.Recorder != nil {
		// Recording has a budget of its own, apart from the decision's: the answer is written
		// already, and a store that does not answer must cost the stop little.
		rctx, rcancel := context.WithTimeout(parent, o.recordTimeout())
		defer rcancel()
		if err := record(rctx, o.Recorder, out.turn, out.decision); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && rctx.Err() != nil {
				err = fmt.Errorf("the event log did not answer within %v: %w", o.recordTimeout(), err)
			}
			fmt.Fprintf(stderr, "stopgate: recording the decision: %s\n", oneLine(err.Error()))
		}
	}
	return 0
}

// DefaultRecordTimeout is how long a hook invocation waits for its decision to be recorded
// when Options.RecordTimeout is zero. It is apart from the decision's Timeout: the answer is
// written before recording starts, and past this budget the record is given up.
const DefaultRecordTimeout = time.Second

// recordTimeout returns the options' recording budget.
func (o *Options) recordTimeout() time.Duration {
	if o.RecordTimeout > 0 {
		return o.RecordTimeout
	}
	return DefaultRecordTimeout
}

// stateKey names the per-session state file of one Turn.
type stateKey struct {
	session, agent string
}

// decideBudgeted loads the session's nudge state for t, decides, and fills out with the
// decision and the state to save. active is the payload's stop_hook_active. It returns out
// undecided, with a note, where the budgets this run has spent are unknown and nudging could
// go on without bound.
func (o *Options) decideBudgeted(ctx context.Context, t stopgate.Turn, active bool, out outcome) outcome {
	return o.decideWithState(ctx, t, stateKey{t.Session, t.Agent}, active, false, out)
}

// decideWithState is decideBudgeted with the state file named by key and, when chain is set,
// a stop that follows one of this run's nudges counted as in a row whatever active says (for
// a harness whose stop_hook_active does not last through a continued run).
func (o *Options) decideWithState(ctx context.Context, t stopgate.Turn, key stateKey, active, chain bool, out outcome) outcome {
	if o.StateDir != "" && t.Session != "" {
		out.statePath = statePath(o.StateDir, key.session, key.agent)
	}
	var prev state
	var found bool
	var stateErr error
	if out.statePath != "" {
		prev, found, stateErr = loadState(out.statePath)
	}
	if chain {
		// The stop follows one of this run's nudges: a chain of them, whatever
		// stop_hook_active says. A run start either side does not know cannot tell runs apart,
		// and counts as the same run, as a chain of blocked stops does.
		active = active || found && prev.Nudges.Consecutive > 0 &&
			(t.RunStartedAt.IsZero() || prev.Run.IsZero() || t.RunStartedAt.Equal(prev.Run))
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

// decodeNotes starts an outcome for a decoded payload: the note on ignored fields, the hook
// event, and, when the event is none of want, a note that there is nothing to decide. It
// reports whether to go on deciding.
func decodeNotes(ignored []string, event string, want ...string) (outcome, bool) {
	var out outcome
	if n := ignoredNote(ignored); n != "" {
		out.notes = append(out.notes, n)
	}
	out.event = event
	for _, w := range want {
		if event == w {
			return out, true
		}
	}
	var names string
	switch len(want) {
	case 1:
		names = want[0]
	default:
		names = strings.Join(want[:len(want)-1], ", ") + " or " + want[len(want)-1]
	}
	out.notes = append(out.notes, fmt.Sprintf("hook event %q is not %s; nothing to decide", event, names))
	return out, false
}

// answerJSON returns the answer that keeps the agent going with d's message (cut to
// MaxMessageBytes), built by shape, as one line of JSON; nil, with a note, when d lets the
// agent stop though its verdict says otherwise.
func answerJSON(d stopgate.Decision, shape func(msg string) any) ([]byte, string) {
	switch d.Verdict {
	case stopgate.Continue:
	case stopgate.Retry:
		return nil, fmt.Sprintf("a retry was advised (%s), but a stop hook cannot resend a request; letting the agent stop", d.Check)
	default:
		return nil, ""
	}
	msg := cutMessage(d.Message)
	if strings.TrimSpace(msg) == "" {
		return nil, fmt.Sprintf("check %s continued the run without a message; letting the agent stop", d.Check)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shape(msg)); err != nil {
		return nil, fmt.Sprintf("encoding the answer: %v; letting the agent stop", err)
	}
	return b.Bytes(), ""
}

// decisionReason is the {"decision":…,"reason":…} answer Claude Code and Codex (with "block")
// and Gemini CLI (with "deny") read.
type decisionReason struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
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
