package loopguard

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stopgate/stopgate/termination"
)

// Action is what a [Verdict] asks of the harness.
type Action int

// The actions. The zero Action is None.
const (
	// None: no pattern reached a threshold; carry on.
	None Action = iota
	// Warn: show Verdict.Message to the model, once, and carry on. No reason is set.
	Warn
	// Halt: end the run with Verdict.Reason.
	Halt
)

// name returns the action's name, or "" for a value outside the three.
func (a Action) name() string {
	switch a {
	case None:
		return "none"
	case Warn:
		return "warn"
	case Halt:
		return "halt"
	}
	return ""
}

// String returns "none", "warn" or "halt".
func (a Action) String() string {
	if n := a.name(); n != "" {
		return n
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// MarshalText writes the action's name.
func (a Action) MarshalText() ([]byte, error) {
	n := a.name()
	if n == "" {
		return nil, fmt.Errorf("loopguard: action %d: %w", int(a), ErrUnknownAction)
	}
	return []byte(n), nil
}

// UnmarshalText reads an action's name, or returns an error wrapping [ErrUnknownAction].
func (a *Action) UnmarshalText(b []byte) error {
	for _, v := range []Action{None, Warn, Halt} {
		if string(b) == v.name() {
			*a = v
			return nil
		}
	}
	return fmt.Errorf("loopguard: action %q: %w", b, ErrUnknownAction)
}

// ErrUnknownAction is returned (wrapped) for an action outside none, warn and halt.
var ErrUnknownAction = errors.New("unknown loop guard action")

// Pattern names what the guard found. The string form is stable and is what JSON and the
// livelock metadata carry.
type Pattern string

// The patterns, in the order the guard reports them when several hold.
const (
	// RepeatedError: the same call failing again and again.
	RepeatedError Pattern = "repeated_error"
	// RepeatedCall: the same call returning the same result again and again.
	RepeatedCall Pattern = "repeated_call"
	// Alternation: two calls taking turns, each returning what it returned before.
	Alternation Pattern = "alternation"
	// ConsecutiveErrors: the tool-error budget: failed calls in a row, of any tools.
	ConsecutiveErrors Pattern = "consecutive_errors"
	// RepeatedMessage: the same reply, with no tool call, again and again.
	RepeatedMessage Pattern = "repeated_message"
	// EmptyReplies: replies with neither text nor a tool call, in a row.
	EmptyReplies Pattern = "empty_replies"
)

// The metadata keys a livelock halt sets on the run's final message (see [Verdict.Metadata]).
const (
	// MetadataLivelocked is the key whose true value marks a livelocked run; the stall
	// package's definite-stall check reads it.
	MetadataLivelocked = "livelocked"
	// MetadataLoop is the key whose value names the [Pattern] that livelocked the run.
	MetadataLoop = "loop"
)

// Verdict is what the guard found.
type Verdict struct {
	// Action is what to do.
	Action Action `json:"action"`
	// Pattern is what was found; empty when Action is None.
	Pattern Pattern `json:"pattern,omitempty"`
	// Tool names the tool of the call the pattern is about (the most recent one, for an
	// alternation); empty for the reply patterns.
	Tool string `json:"tool,omitempty"`
	// Args are that call's arguments, in canonical form.
	Args string `json:"args,omitempty"`
	// Count is how many steps the pattern covers, counted as far as the thresholds need (a
	// halt counts up to its threshold, not beyond).
	Count int `json:"count,omitempty"`
	// Message says what was found: for Warn, the text to show the model; for Halt, why the run
	// was ended, fit for a log or for the run's final message.
	Message string `json:"message,omitempty"`
	// Reason is why the run ended; set only on Halt: tool_loop_guard at loopguard.halt for a
	// loop, tool_error_budget at loopguard.tool-error-budget for the error budget.
	Reason termination.Reason `json:"reason,omitzero"`
}

// Livelocked reports whether the verdict halts a no-progress loop: any halt except the error
// budget, which ends a run that was failing rather than looping.
func (v Verdict) Livelocked() bool {
	return v.Action == Halt && v.Pattern != ConsecutiveErrors
}

// Metadata returns what a harness should set on the run's final message: for a livelock halt,
// {"livelocked": true, "loop": pattern}, which makes the stall package treat the run as a
// definite stall; nil otherwise (a warning ends nothing, and the error budget's end is told by
// its Reason).
func (v Verdict) Metadata() map[string]any {
	if !v.Livelocked() {
		return nil
	}
	return map[string]any{MetadataLivelocked: true, MetadataLoop: string(v.Pattern)}
}

// Check reads the trailing steps of a run, oldest first, and returns the verdict of the first
// pattern that halts, else of the first that warns, in the order of the [Pattern] constants;
// else a verdict with Action None.
//
// steps are the current run's: those since the last genuine user message, as OpenHands scopes
// its window (a nudge the harness injected is not a user message and does not start a run).
// Replies from before a user's new message are not a monologue.
//
// Call patterns are read on the steps up to the last tool call: a few replies after it (the
// agent's closing words at a stop, as many as the reply checks read: 3 by default) do not hide
// a loop that came before them, but any reply between two calls breaks a streak. Reply
// patterns are read on the replies after the last call.
//
// A halt is reported on every check that finds it. A warning is reported only on the step
// that brings its count to the warn threshold, so a harness that checks after every step shows
// each warning once; one that checks less often may miss a warning, never a halt. Check reads
// only as many steps as its thresholds need, so its cost does not grow with the history.
func (c Config) Check(steps []Step) Verdict {
	c = c.resolved()
	n := len(steps)
	// Skip the trailing replies, as many as the reply checks read. steps[:e] then ends with the
	// last tool call, if one is within reach; past that many replies, an earlier loop is not
	// the run's ending any more.
	reach := max(c.RepeatedMessage.limit(), c.EmptyReplies.limit(), 1)
	e := n
	for e > 0 && n-e < reach && steps[e-1].Tool == "" {
		e--
	}
	calls := e > 0 && steps[e-1].Tool != ""
	fresh := e == n // the last step is the last call: a call pattern's warning is due now

	var warn Verdict
	consider := func(v Verdict) bool {
		switch v.Action {
		case Halt:
			return true
		case Warn:
			if warn.Action == None {
				warn = v
			}
		}
		return false
	}

	if calls {
		w := newWindow(steps[:e], max(c.RepeatedCall.limit(), c.RepeatedError.limit(), c.Alternation.limit()))
		last := e - 1
		if steps[last].Failed() {
			count := w.run(c.RepeatedError.limit(), func(k int) bool { return steps[k].Failed() && w.sameCall(k, last) })
			if v := w.verdict(RepeatedError, c.RepeatedError, count, fresh); consider(v) {
				return v
			}
		} else {
			count := w.run(c.RepeatedCall.limit(), func(k int) bool {
				return !steps[k].Failed() && sameOutcome(steps[k], steps[last]) && w.sameCall(k, last)
			})
			if v := w.verdict(RepeatedCall, c.RepeatedCall, count, fresh); consider(v) {
				return v
			}
		}
		if count := w.alternation(c.Alternation.limit()); count > 0 {
			if v := w.verdict(Alternation, c.Alternation, count, fresh); consider(v) {
				return v
			}
		}
		if c.ErrorBudget > 0 {
			count := w.run(c.ErrorBudget, func(k int) bool { return steps[k].Failed() })
			if v := w.verdict(ConsecutiveErrors, Threshold{Halt: c.ErrorBudget}, count, fresh); consider(v) {
				return v
			}
		}
	}

	if e < n {
		replies := steps[e:]
		lastText := replies[len(replies)-1].Text
		if !blank(lastText) {
			count := countBack(replies, c.RepeatedMessage.limit(), func(s Step) bool { return sameText(s.Text, lastText) })
			if v := replyVerdict(RepeatedMessage, c.RepeatedMessage, count, lastText); consider(v) {
				return v
			}
		} else {
			count := countBack(replies, c.EmptyReplies.limit(), func(s Step) bool { return blank(s.Text) })
			if v := replyVerdict(EmptyReplies, c.EmptyReplies, count, ""); consider(v) {
				return v
			}
		}
	}
	return warn
}

// action decides what a count means under t; fresh says whether a warning is due now.
func action(t Threshold, count int, fresh bool) Action {
	switch {
	case t.Halt > 0 && count >= t.Halt:
		return Halt
	case fresh && t.Warn > 0 && count == t.Warn:
		return Warn
	}
	return None
}

// reasonFor returns the reason a halt on p carries.
func reasonFor(p Pattern) termination.Reason {
	if p == ConsecutiveErrors {
		return termination.Control(termination.SiteToolErrorBudget, termination.ToolErrorBudget)
	}
	return termination.Control(termination.SiteToolLoopGuard, termination.ToolLoopGuard)
}

// window reads the trailing calls of a run, canonicalising arguments only when two raw
// spellings differ, and each step's at most once.
type window struct {
	steps []Step // ends with a tool call
	base  int    // index of the first step whose canonical arguments are cached
	canon []string
	done  []bool
	// Backing arrays for canon and done, enough for the default thresholds without allocating.
	canonBuf [16]string
	doneBuf  [16]bool
}

// newWindow prepares to read back at most depth calls (and the two an alternation compares).
func newWindow(steps []Step, depth int) *window {
	w := &window{steps: steps}
	size := min(depth+2, len(steps))
	w.base = len(steps) - size
	if size <= len(w.canonBuf) {
		w.canon, w.done = w.canonBuf[:size], w.doneBuf[:size]
	} else {
		w.canon, w.done = make([]string, size), make([]bool, size)
	}
	return w
}

// args returns the canonical arguments of step i.
func (w *window) args(i int) string {
	j := i - w.base
	if j < 0 {
		return CanonicalArgs(w.steps[i].Args)
	}
	if !w.done[j] {
		w.canon[j], w.done[j] = CanonicalArgs(w.steps[i].Args), true
	}
	return w.canon[j]
}

// sameCall reports whether steps i and j call the same tool with the same arguments.
func (w *window) sameCall(i, j int) bool {
	a, b := w.steps[i], w.steps[j]
	return a.Tool == b.Tool && (a.Args == b.Args || w.args(i) == w.args(j))
}

// run counts the trailing calls, up to limit, for which match holds.
func (w *window) run(limit int, match func(k int) bool) int {
	n := 0
	for k := len(w.steps) - 1; k >= 0 && n < limit && w.steps[k].Tool != "" && match(k); k-- {
		n++
	}
	return n
}

// alternation counts, up to limit, the trailing steps that alternate between two different
// calls, each step the same call with the same outcome as the step two before it. It returns 0
// unless the last two steps are different calls.
func (w *window) alternation(limit int) int {
	e := len(w.steps)
	if limit < 2 || e < 2 || w.steps[e-2].Tool == "" || w.sameCall(e-1, e-2) {
		return 0
	}
	n := 2
	for k := e - 3; k >= 0 && n < limit; k-- {
		if w.steps[k].Tool == "" || !sameOutcome(w.steps[k], w.steps[k+2]) || !w.sameCall(k, k+2) {
			break
		}
		n++
	}
	return n
}

// verdict builds the verdict for a call pattern with count n under t.
func (w *window) verdict(p Pattern, t Threshold, n int, fresh bool) Verdict {
	a := action(t, n, fresh)
	if a == None {
		return Verdict{}
	}
	last := len(w.steps) - 1
	v := Verdict{Action: a, Pattern: p, Tool: w.steps[last].Tool, Args: w.args(last), Count: n}
	var other Step
	var otherArgs string
	if p == Alternation {
		other, otherArgs = w.steps[last-1], w.args(last-1)
	}
	v.Message = callMessage(v, w.steps[last], other, otherArgs)
	if a == Halt {
		v.Reason = reasonFor(p)
	}
	return v
}

// replyVerdict builds the verdict for a reply pattern with count n under t. text is the
// repeated reply.
func replyVerdict(p Pattern, t Threshold, n int, text string) Verdict {
	a := action(t, n, true)
	if a == None {
		return Verdict{}
	}
	v := Verdict{Action: a, Pattern: p, Count: n}
	v.Message = replyMessage(v, text)
	if a == Halt {
		v.Reason = reasonFor(p)
	}
	return v
}

// countBack counts, up to limit, the trailing steps of steps for which match holds.
func countBack(steps []Step, limit int, match func(Step) bool) int {
	n := 0
	for k := len(steps) - 1; k >= 0 && n < limit && match(steps[k]); k-- {
		n++
	}
	return n
}

// sameOutcome reports whether two calls came back the same: the same result and the same
// error, ignoring surrounding white space.
func sameOutcome(a, b Step) bool {
	return strings.TrimSpace(a.Result) == strings.TrimSpace(b.Result) &&
		strings.TrimSpace(a.Error) == strings.TrimSpace(b.Error)
}

// blank reports whether s holds nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// sameText reports whether a and b are the same text once every run of white space is read as
// one space and surrounding white space is ignored. It does not allocate.
func sameText(a, b string) bool {
	if a == b {
		return true
	}
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		sa, sb := unicode.IsSpace(ra), unicode.IsSpace(rb)
		switch {
		case sa != sb:
			return false
		case sa:
			a, b = strings.TrimLeftFunc(a, unicode.IsSpace), strings.TrimLeftFunc(b, unicode.IsSpace)
		case a[:na] != b[:nb]:
			return false
		default:
			a, b = a[na:], b[nb:]
		}
	}
	return a == b
}
