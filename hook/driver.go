package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
)

// Run runs one stop-hook invocation of the harness whose Hook is h: h.Stop reads the payload
// from stdin and builds the Turn, Run decides it within the options' time budget, and
// h.Answer encodes the decision, which Run writes to stdout. It returns the process's exit
// status, which is always 0.
//
// It fails open: an error from h.Stop (a payload that is not JSON), a panic, or the time
// budget running out lets the stop proceed, with empty stdout and one line on stderr beginning
// "stopgate:" saying what went wrong. Exit status 0 is deliberate: every harness reads exit 2
// as a block or denial with stderr as the reason (an error would be handed to the agent as its
// next instruction), and the others mostly as a hook error shown to the user on every stop;
// with 0 and empty stdout the stop just proceeds, and stderr still reaches the harness's
// verbose output or log.
//
// Budgets across invocations live in a JSON state file per Stop.State in Options.StateDir:
// the run the last decision was in (its RunStartedAt) and the Nudges after it. A stop in
// another run starts from none given; Stop.Active (stop_hook_active) carries the in-a-row
// count, and with Stop.Chain so does a stop that follows one of this run's nudges. A state
// file that cannot be read is treated as empty, except when the stop is in a row: then the
// budgets this run has spent are unknown, and nudging again could go on without bound, so the
// stop proceeds. The same holds for a missing file then (an earlier nudge whose state was
// lost, or another hook's block).
func Run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, h harness.Hook, opts *Options) int {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	parent := ctx
	if o.StateDir != "" {
		dir := o.StateDir
		ctx = harness.WithCheckpoints(ctx, func(key harness.StateKey) []byte {
			st, _, err := LoadState(StatePath(dir, key.Session, key.Agent))
			if err != nil {
				return nil
			}
			return st.Reader
		})
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{err: fmt.Errorf("internal error: panic: %v", r)}
			}
		}()
		done <- o.decide(ctx, h, stdin)
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

	answer, note := h.Answer(out.decision, out.stop)
	if note != "" {
		fmt.Fprintf(stderr, "stopgate: %s\n", oneLine(note))
	}
	recorded := out.decision
	if o.Shadow && answer != nil {
		// Shadow mode: the would-block is recorded and not carried out, and a nudge not
		// given is not counted against the budgets.
		fmt.Fprintf(stderr, "stopgate: shadow mode: would have kept the agent going (%s); letting it stop\n", out.decision.Check)
		answer, out.statePath = nil, ""
		recorded.Verdict = stopgate.Shadow
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
		if err := record(rctx, o.Recorder, out.turn, recorded); err != nil {
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

// decide does everything that may fail or take time for one invocation: h.Stop (decoding the
// payload, reading the session file, building the Turn), then deciding with the session's
// budgets.
func (o *Options) decide(ctx context.Context, h harness.Hook, stdin io.Reader) outcome {
	st, err := h.Stop(ctx, stdin, o.now())
	if err != nil {
		return outcome{err: err}
	}
	if st == nil {
		return outcome{err: errors.New("the harness returned no stop")}
	}
	out := outcome{notes: st.Notes, stop: st}
	if st.Skip {
		return out
	}
	if st.Ended != nil {
		return ended(st, out)
	}
	out = o.decideWithState(ctx, st.Turn, st.State, st.Active, st.Chain, out)
	if out.decided && json.Valid(st.Checkpoint) {
		out.next.Reader = st.Checkpoint
	}
	return out
}

// ended fills out with the record of a run that has already ended (Stop.Ended): a Stop
// verdict carrying the reason, no state to save.
func ended(st *harness.Stop, out outcome) outcome {
	r := *st.Ended
	why := "the run ended on an API error: " + string(r.Category)
	out.turn, out.decided = st.Turn, true
	out.decision = stopgate.Decision{Verdict: stopgate.Stop, Check: stopgate.CheckError, Reason: &r,
		Trail: []stopgate.TrailEntry{{Check: stopgate.CheckError, Outcome: stopgate.Ended, Why: why, Reason: &r}}}
	return out
}

// decideWithState loads the session's nudge state for t from the file key names, decides,
// and fills out with the decision and the state to save. active is the payload's
// stop_hook_active; when chain is set, a stop that follows one of this run's nudges counts as
// in a row whatever active says (for a harness whose stop_hook_active does not last through a
// continued run). It returns out undecided, with a note, where the budgets this run has spent
// are unknown and nudging could go on without bound.
func (o *Options) decideWithState(ctx context.Context, t stopgate.Turn, key harness.StateKey, active, chain bool, out outcome) outcome {
	if o.StateDir != "" && t.Session != "" {
		out.statePath = StatePath(o.StateDir, key.Session, key.Agent)
	}
	var prev State
	var found bool
	var stateErr error
	if out.statePath != "" {
		prev, found, stateErr = LoadState(out.statePath)
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
	out.next = State{Run: t.RunStartedAt, Nudges: out.decision.Nudges}
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

// DefaultTimeout is the time budget of one hook invocation when Options.Timeout is zero.
// Claude Code waits up to 600 s for a command hook (the other harnesses about as long), and the agent waits with it; stopgate
// answers in milliseconds, so anything near this budget means something is stuck, and the
// stop proceeds.
const DefaultTimeout = 10 * time.Second

// Recorder records a decision the hook made, for an event log. Run calls it after the answer
// is written, with a budget of its own in ctx (Options.RecordTimeout); its error, or its
// panic, is reported on stderr and never changes the answer.
type Recorder interface {
	Record(ctx context.Context, t stopgate.Turn, d stopgate.Decision) error
}

// Options configures Run. The zero value (or a nil *Options) decides with the default
// supervisor, keeps no state between invocations, and has DefaultTimeout to do it in.
type Options struct {
	// Supervisor makes the decision; nil means stopgate.New(stopgate.Config{}).
	Supervisor *stopgate.Supervisor
	// StateDir is the directory of the per-session state files that carry the nudge budgets
	// from one stop to the next. Empty keeps no state: every stop starts from no nudges given,
	// so to stay bounded the hook then lets the agent stop whenever stop_hook_active is set,
	// which gives at most one nudge in a row.
	StateDir string
	// Timeout is the time budget of one invocation, reading the transcript and any model call
	// included; zero means DefaultTimeout. Past it the stop proceeds.
	Timeout time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Recorder, if set, is called with each decision, after the answer is written.
	Recorder Recorder
	// RecordTimeout bounds the Recorder's call, apart from Timeout; zero means
	// DefaultRecordTimeout. Past it the record is given up, with a note on stderr.
	RecordTimeout time.Duration
	// Shadow runs the hook in shadow mode: every decision is made and recorded, and the
	// agent is always let stop. A decision to keep it going is recorded with the verdict
	// stopgate.Shadow, its Message the one that would have been handed on, and is not
	// counted against the nudge budgets.
	Shadow bool
}

// failOpen reports err on stderr as the reason the stop proceeds.
func failOpen(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "stopgate: %s; letting the agent stop\n", oneLine(err.Error()))
}

// oneLine folds s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// outcome is what the decision step produced.
type outcome struct {
	err     error
	notes   []string
	decided bool // false: let the agent stop without deciding (notes say why)
	stop    *harness.Stop

	turn      stopgate.Turn
	decision  stopgate.Decision
	statePath string // "" when no state is kept
	next      State
}

// carryNudges returns the turn's nudges given the state of the previous decision, and whether
// the turn is in the same run. The in-a-row count continues while stop_hook_active is set; the
// per-check counts continue within a run: the same known run start, or, when either start is
// unknown, a chain of blocked stops.
func carryNudges(t stopgate.Turn, prev State, found, active bool) (stopgate.Nudges, bool) {
	n := stopgate.Nudges{}
	if active {
		n.Consecutive = 1
		if found && prev.Nudges.Consecutive > 1 {
			n.Consecutive = prev.Nudges.Consecutive
		}
	}
	if !found {
		return n, false
	}
	sameRun := !t.RunStartedAt.IsZero() && !prev.Run.IsZero() && t.RunStartedAt.Equal(prev.Run)
	if (t.RunStartedAt.IsZero() || prev.Run.IsZero()) && active {
		sameRun = true
	}
	if sameRun {
		n.Given = prev.Nudges.Given
	}
	return n, sameRun
}

// record calls r, bounded by ctx even if r ignores it, and turns a panic into an error.
func record(ctx context.Context, r Recorder, t stopgate.Turn, d stopgate.Decision) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- r.Record(ctx, t, d)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
