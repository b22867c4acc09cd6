package stopgate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stopgate/stopgate/claims"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/termination"
)

// DefaultMaxConsecutive is how many continuations the supervisor gives in a row, with no stop
// allowed in between, before it lets the agent stop whatever the checks say. Claude Code's own
// cap is 8 consecutive blocks; stopgate stops well before it, because an agent that did not
// act on three nudges in a row will not act on a fourth.
const DefaultMaxConsecutive = 3

// BudgetPauseTurn is the budget a paused turn's resumptions spend (a provider's pause_turn
// stop, the server-tool loop's iteration limit): a budget of its own, apart from the stop
// metadata check's, because a long server-tool turn pauses more than once and resuming it is
// not a retry. It is not a check and does not appear in the trail.
const BudgetPauseTurn Check = "pause_turn"

// BudgetUnverifiedClaim is the budget of the claims check's second rule, a verification claim
// that no run after the last edit supports (on only when Config.Claims.RequireEvidence is set),
// kept apart from the budget of contradicted claims.
const BudgetUnverifiedClaim Check = "claims_unverified"

// DefaultPauseResumes is how many times a run may resume a paused turn when the configuration
// sets no cap for [BudgetPauseTurn].
const DefaultPauseResumes = 5

// DefaultCap returns how many continuations check c may give in one run when the
// configuration sets none: 2 for the process gate and 3 for the sub-agent gate (the gate
// package's caps), 2 for open todos and for a trailing promise, 1 for a livelock and for a
// truncated answer, 2 retries of an error, and [DefaultPauseResumes] resumptions of a paused
// turn.
func DefaultCap(c Check) int {
	switch c {
	case CheckProcesses, CheckSubagents:
		return gate.DefaultCap(gate.Name(c))
	case CheckTodos, CheckStall, CheckError:
		return 2
	case BudgetPauseTurn:
		return DefaultPauseResumes
	}
	return 1
}

// Config configures a Supervisor. The zero Config is the default supervisor: interactive mode,
// every check on, the default budgets, no model classifier.
type Config struct {
	// Mode is the mode of turns that do not say: stall.Interactive (a question to the user is a
	// legitimate end) or stall.Autonomous (nobody will answer, so a permission-ask is a stall).
	// Empty means interactive.
	Mode stall.Mode
	// Caps overrides how many continuations a check may give in one run; a check it does not
	// name gets DefaultCap. 0 silences a check's continuations (it still runs and is recorded).
	Caps map[Check]int
	// MaxConsecutive bounds continuations in a row; 0 means DefaultMaxConsecutive.
	MaxConsecutive int
	// Off turns checks off; an off check is recorded in the trail as Off.
	Off map[Check]bool
	// Classifier is the model stall classifier consulted after the lexical one; nil is off.
	Classifier *stall.ModelClassifier
	// LoopGuard holds the loop guard's thresholds; the zero value is its defaults.
	LoopGuard loopguard.Config
	// Claims configures the claims check; the zero value blocks only a claim the run's own
	// results contradict.
	Claims claims.Config
}

// Supervisor makes Decisions. It holds only configuration, and is safe for concurrent use.
type Supervisor struct {
	cfg  Config
	caps map[Check]int
}

// New returns a Supervisor with the given configuration.
func New(cfg Config) *Supervisor {
	caps := make(map[Check]int)
	for _, c := range append(Checks(), BudgetPauseTurn, BudgetUnverifiedClaim) {
		n, ok := cfg.Caps[c]
		if !ok {
			n = DefaultCap(c)
		}
		caps[c] = n
	}
	if cfg.MaxConsecutive <= 0 {
		cfg.MaxConsecutive = DefaultMaxConsecutive
	}
	if cfg.Mode == "" {
		cfg.Mode = stall.Interactive
	}
	return &Supervisor{cfg: cfg, caps: caps}
}

// Decide runs the checks over t in their fixed order and returns the decision. It does no I/O
// of its own; the model classifier, when configured, is the one call that may leave the
// process, and ctx bounds it. Decide never fails: a check that cannot run records why and lets
// the next one decide.
func (s *Supervisor) Decide(ctx context.Context, t Turn) Decision {
	d := &decider{s: s, t: t, budget: t.Nudges.Given}
	d.budget.Caps = s.caps
	d.mode = t.Mode
	if d.mode == "" {
		d.mode = s.cfg.Mode
	}
	d.hostWakes = t.hostWakes()
	d.inRowSpent = t.Nudges.Consecutive >= s.cfg.MaxConsecutive

	steps := []func(context.Context) bool{
		d.checkError, d.checkStopMetadata, d.checkLivelock, d.checkGates, d.checkClaims, d.checkPendingWake,
		d.checkTodos, d.checkStall,
	}
	for _, step := range steps {
		if step(ctx) {
			break
		}
	}
	if d.dec.Verdict == "" {
		r := termination.Control(termination.SiteSupervisor, termination.Completed)
		d.dec.Verdict, d.dec.Check, d.dec.Reason = Stop, CheckCompleted, &r
	}
	// Every check appears in the trail exactly once, in order.
	seen := make(map[Check]bool, len(d.dec.Trail))
	for _, e := range d.dec.Trail {
		seen[e.Check] = true
	}
	var trail []TrailEntry
	for _, c := range Checks() {
		if seen[c] {
			for _, e := range d.dec.Trail {
				if e.Check == c {
					trail = append(trail, e)
				}
			}
			continue
		}
		why := "an earlier check decided"
		if d.silenced && (c == CheckTodos || c == CheckStall) {
			why = "silenced: the run is parked on pending work"
		}
		trail = append(trail, TrailEntry{Check: c, Outcome: Skipped, Why: why})
	}
	d.dec.Trail = trail
	categorized(d.dec.Reason)
	for i := range d.dec.Trail {
		categorized(d.dec.Trail[i].Reason)
	}
	d.dec.Nudges = Nudges{Given: d.budget}
	if d.dec.Verdict != Stop {
		d.dec.Nudges.Consecutive = t.Nudges.Consecutive + 1
	}
	return d.dec
}

// decider carries one Decide call's state.
type decider struct {
	s          *Supervisor
	t          Turn
	mode       stall.Mode
	hostWakes  bool
	inRowSpent bool
	budget     Budget
	silenced   bool
	dec        Decision
}

func (d *decider) record(c Check, o Outcome, why string, r *termination.Reason) {
	d.dec.Trail = append(d.dec.Trail, TrailEntry{Check: c, Outcome: o, Why: why, Reason: r})
}

func (d *decider) off(c Check) bool {
	if d.s.cfg.Off[c] {
		d.record(c, Off, "turned off in the configuration", nil)
		return true
	}
	return false
}

// categorized gives a reason that carries no category the category unknown, so that every
// Reason a Decision carries says what it is.
func categorized(r *termination.Reason) {
	if r != nil && r.Category == "" {
		r.Category = termination.Unknown
	}
}

// nudge gives a continuation from check c if its budget and the in-a-row budget allow; it
// records the check either way and reports whether it decided.
func (d *decider) nudge(c Check, v Verdict, msg, why string, r *termination.Reason) bool {
	return d.nudgeFrom(c, c, v, msg, why, r)
}

// nudgeFrom is nudge spending from the budget of key, which is c's own except where a check
// keeps a separate budget for one of its continuations (a paused turn's resumptions).
func (d *decider) nudgeFrom(c, key Check, v Verdict, msg, why string, r *termination.Reason) bool {
	if why2, ok := d.allowed(key); !ok {
		d.record(c, Exhausted, why+"; "+why2, r)
		return false
	}
	d.budget.Spend(key)
	d.record(c, Blocked, why, r)
	d.dec.Verdict, d.dec.Check, d.dec.Message, d.dec.Reason = v, c, msg, nil
	if v == Retry {
		d.dec.Reason = r
		if r != nil {
			d.dec.RetryAfter = r.RetryAfter
		}
	}
	return true
}

func (d *decider) allowed(c Check) (string, bool) {
	if d.inRowSpent {
		return fmt.Sprintf("not nudging: %d continuations in a row already", d.t.Nudges.Consecutive), false
	}
	if !d.budget.Allow(c) {
		return fmt.Sprintf("not nudging: budget spent (%d of %d this run)", d.budget.Count(c), d.budget.Cap(c)), false
	}
	return "", true
}

// end stops the run with r. When the same check has just recorded that its budget is spent,
// that entry becomes the ending one, keeping its account of the budget.
func (d *decider) end(c Check, why string, r termination.Reason) bool {
	if n := len(d.dec.Trail); n > 0 && d.dec.Trail[n-1].Check == c && d.dec.Trail[n-1].Outcome == Exhausted {
		why = d.dec.Trail[n-1].Why
		d.dec.Trail = d.dec.Trail[:n-1]
	}
	d.record(c, Ended, why, &r)
	d.dec.Verdict, d.dec.Check, d.dec.Reason = Stop, c, &r
	return true
}

// 1. The run ended on an error.
func (d *decider) checkError(context.Context) bool {
	if d.off(CheckError) {
		return false
	}
	err := d.t.Err
	if err == nil && d.t.Error != nil {
		err = d.t.Error.apiError()
	}
	if err == nil {
		d.record(CheckError, Pass, "the run did not end on an error", nil)
		return false
	}
	r, ok := termination.ReasonOf(err)
	if !ok || r.Category == "" {
		r = termination.New(termination.SiteSupervisor, termination.SourceException, termination.Classify(err))
	}
	if msg, ok := retryAdvice(r); ok {
		if d.nudge(CheckError, Retry, msg, "the error is worth retrying: "+string(r.Category), &r) {
			return true
		}
		return d.end(CheckError, "", r)
	}
	return d.end(CheckError, "the run ended on an error no retry can fix: "+string(r.Category), r)
}

// 2. The stop metadata.
func (d *decider) checkStopMetadata(context.Context) bool {
	if d.off(CheckStopMetadata) {
		return false
	}
	m := d.t.Message
	if m == nil {
		d.record(CheckStopMetadata, Unknown, "no final message", nil)
		return false
	}
	var c termination.Classification
	var ok bool
	switch {
	case m.FinishReason != "":
		c, ok = termination.ClassifyStop(m.Provider, m.FinishReason)
	case m.Payload != nil:
		c, ok = termination.ClassifyStop(m.Provider, m.Payload)
	}
	if !ok {
		d.record(CheckStopMetadata, Unknown, "the message carries no stop token", nil)
		return false
	}
	r := termination.New(termination.SiteSupervisor, termination.SourceMetadata, c)
	switch r.Category {
	case termination.Completed:
		d.record(CheckStopMetadata, Pass, fmt.Sprintf("ordinary finish (%s)", r.Detail), nil)
		return false
	case termination.Unknown:
		d.record(CheckStopMetadata, Pass, fmt.Sprintf("unrecognised stop token %q, taken as no signal", r.Detail), &r)
		return false
	case termination.OutputTruncated:
		if d.nudge(CheckStopMetadata, Continue, truncatedMessage(r.Detail), "the answer was cut off at the output limit", &r) {
			return true
		}
		return d.end(CheckStopMetadata, "", r)
	case termination.Suspended:
		if d.nudgeFrom(CheckStopMetadata, BudgetPauseTurn, Retry, "The provider paused the turn; send the conversation back to resume it.", "the provider paused the turn", &r) {
			return true
		}
		return d.end(CheckStopMetadata, "", r)
	}
	return d.end(CheckStopMetadata, "the stop token ends the run: "+string(r.Category), r)
}

// 3. A definite stall: a livelock exit in the metadata, or a loop the guard halts.
func (d *decider) checkLivelock(context.Context) bool {
	if d.off(CheckLivelock) {
		return false
	}
	text := ""
	var meta map[string]any
	if d.t.Message != nil {
		text, meta = d.t.Message.Text, d.t.Message.Metadata
	}
	nudge, definite := stall.DefiniteStallFor(text, meta)
	r := termination.Control(termination.SiteToolLoopGuard, termination.ToolLoopGuard)
	why := "the message is marked livelocked"
	if !definite && len(d.t.Steps) > 0 {
		v := d.s.cfg.LoopGuard.Check(d.t.Steps)
		switch {
		case v.Livelocked():
			nudge, _ = stall.DefiniteStallFor(text, v.Metadata())
			definite, why, r = true, "the loop guard halts: "+v.Message, v.Reason
		case v.Action == loopguard.Halt:
			// The error budget: the run was failing, not looping, and ends with its reason.
			return d.end(CheckLivelock, "no loop, but the tool-error budget ends the run: "+v.Message, v.Reason)
		}
	}
	if !definite {
		why := "no livelock"
		if d.t.Message == nil && len(d.t.Steps) == 0 {
			d.record(CheckLivelock, Unknown, "no final message and no steps", nil)
			return false
		}
		d.record(CheckLivelock, Pass, why, nil)
		return false
	}
	if d.nudge(CheckLivelock, Continue, nudge, why, &r) {
		return true
	}
	return d.end(CheckLivelock, "", r)
}

// 4. Completion gates: sub-agents, then processes.
func (d *decider) checkGates(context.Context) bool {
	procs, subs := d.t.Processes, d.t.Subagents
	if d.s.cfg.Off[CheckProcesses] {
		procs = nil
	}
	if d.s.cfg.Off[CheckSubagents] {
		subs = nil
	}
	if d.hostWakes {
		// Running work will wake the agent when it finishes: it is pending, not unresolved,
		// and the pending-wake check reads it.
		procs = slices.DeleteFunc(slices.Clone(procs), processRunning)
		subs = slices.DeleteFunc(slices.Clone(subs), func(s gate.Subagent) bool { return s.Status == gate.StatusRunning })
	}
	res := gate.Check(gate.Input{RunStartedAt: d.t.RunStartedAt, Processes: procs, Subagents: subs,
		Injections: gate.Injections{gate.ProcessGate: d.budget.Count(CheckProcesses), gate.SubagentGate: d.budget.Count(CheckSubagents)},
		Caps:       map[gate.Name]int{gate.ProcessGate: d.budget.Cap(CheckProcesses), gate.SubagentGate: d.budget.Cap(CheckSubagents)}})
	blockedBy := Check(res.Gate)
	for _, c := range []Check{CheckSubagents, CheckProcesses} {
		switch {
		case d.off(c):
		case blockedBy == c:
			if why, ok := d.allowed(c); !ok {
				d.record(c, Exhausted, "unresolved: "+strings.Join(res.Unresolved, ", ")+"; "+why, nil)
				if c == CheckSubagents {
					// The gate stopped at the sub-agents; what the processes hold is unread.
					d.record(CheckProcesses, Skipped, "not read: "+why, nil)
					return false
				}
				continue
			}
			d.budget.Spend(c)
			d.record(c, Blocked, "unresolved: "+strings.Join(res.Unresolved, ", "), nil)
			d.dec.Verdict, d.dec.Check, d.dec.Message = Continue, c, res.Message
			return true
		case slices.Contains(res.Exhausted, gate.Name(c)):
			d.record(c, Exhausted, "unresolved work left behind: the gate's budget is spent", nil)
		case c == CheckProcesses && d.t.Processes == nil, c == CheckSubagents && d.t.Subagents == nil:
			d.record(c, Unknown, "the harness reported none", nil)
		default:
			d.record(c, Pass, "nothing unresolved started this run", nil)
		}
	}
	return false
}

// 5. Pending wake: the run is parked on work that will wake it.
func (d *decider) checkPendingWake(context.Context) bool {
	if d.off(CheckPendingWake) {
		return false
	}
	if !d.hostWakes {
		d.record(CheckPendingWake, Pass, "the host does not wake the agent when work finishes", nil)
		return false
	}
	var jobs []stall.Job
	services := map[string]bool{}
	for _, j := range d.t.Jobs {
		jobs = append(jobs, stall.Job{ID: j.ID, Label: j.Label, Status: j.Status})
		if j.Service {
			services[j.ID] = true
		}
	}
	for _, p := range d.t.Processes {
		if processRunning(p) && !p.StartedAt.IsZero() && !d.t.RunStartedAt.IsZero() && !p.StartedAt.Before(d.t.RunStartedAt) {
			jobs = append(jobs, stall.Job{ID: "process " + p.ID, Label: p.Command, Status: "running"})
		}
	}
	for _, s := range d.t.Subagents {
		if s.Status == gate.StatusRunning {
			jobs = append(jobs, stall.Job{ID: "sub-agent " + s.ID, Label: s.Description, Status: "running"})
		}
	}
	var scheds []stall.Schedule
	for _, s := range d.t.Schedules {
		scheds = append(scheds, stall.Schedule{ID: s.ID, Trigger: s.Trigger, At: s.At})
	}
	now := d.t.Now
	if now.IsZero() {
		now = time.Time{} // unknown: every armed one-shot schedule counts as pending
	}
	reason := stall.PendingWakeReason(jobs, scheds, now, services)
	if reason == "" {
		d.record(CheckPendingWake, Pass, "nothing pending will wake the agent", nil)
		return false
	}
	r := termination.Control(termination.SiteSupervisor, termination.Suspended)
	d.silenced = true
	d.record(CheckPendingWake, Parked, reason, &r)
	d.dec.Verdict, d.dec.Check, d.dec.Reason = Stop, CheckPendingWake, &r
	return true
}

// 6. Open todo items.
func (d *decider) checkTodos(context.Context) bool {
	if d.off(CheckTodos) {
		return false
	}
	var open []string
	source := "the todo list"
	switch {
	case d.t.Todos != nil:
		for _, td := range d.t.Todos {
			if td.Open() {
				open = append(open, td.Content)
			}
		}
	case d.t.Message != nil:
		open, source = stall.OpenTodos(d.t.Message.Text), "the final message's checklist"
	default:
		d.record(CheckTodos, Unknown, "no todo list and no final message", nil)
		return false
	}
	if len(open) == 0 {
		d.record(CheckTodos, Pass, "no open items in "+source, nil)
		return false
	}
	why := fmt.Sprintf("%d open item(s) in %s", len(open), source)
	return d.nudge(CheckTodos, Continue, stall.TodoNudge(open), why, nil)
}

// 4b. The final message claims a verification the run's own results contradict.
func (d *decider) checkClaims(context.Context) bool {
	if d.off(CheckClaims) {
		return false
	}
	m := d.t.Message
	if m == nil {
		d.record(CheckClaims, Unknown, "no final message", nil)
		return false
	}
	v := claims.Check(m.Text, d.t.Steps, d.s.cfg.Claims)
	if !v.Block {
		o := Pass
		if v.Outcome != claims.NoClaim && len(d.t.Steps) == 0 {
			o = Unknown // a claim, and no steps to read it against
		}
		d.record(CheckClaims, o, string(v.Outcome)+": "+v.Why, nil)
		return false
	}
	key := CheckClaims
	if v.Outcome == claims.Unverified {
		key = BudgetUnverifiedClaim
	}
	return d.nudgeFrom(CheckClaims, key, Continue, v.Message, string(v.Outcome)+": "+v.Why, nil)
}

// 7. The final message trails off on a promise.
func (d *decider) checkStall(ctx context.Context) bool {
	if d.off(CheckStall) {
		return false
	}
	m := d.t.Message
	if m == nil {
		d.record(CheckStall, Unknown, "no final message", nil)
		return false
	}
	if m.ToolCalls > 0 {
		d.record(CheckStall, Pass, "the message ends on a tool call", nil)
		return false
	}
	v := stall.ClassifyProse(ctx, m.Text, d.mode, d.s.cfg.Classifier)
	if v.Stalled {
		return d.nudge(CheckStall, Continue, v.Nudge, string(v.By)+": "+v.Why, nil)
	}
	d.record(CheckStall, Pass, "lexical: "+v.Why, v.Reason)
	return false
}
