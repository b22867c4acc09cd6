package loopguard

// Threshold says when a pattern is reported, in steps. The guard warns once, on the step that
// brings the pattern's count to Warn, and halts on every check that finds the count at Halt or
// more.
//
// Zero means the pattern's default (see [Config]); a negative value turns that verdict off, so
// a negative Halt with Warn left at its default is a warn-only guard (the origin's WARN mode). A
// Warn at or above Halt is never reported: the halt comes first.
type Threshold struct {
	// Warn is the count at which the guard warns.
	Warn int `json:"warn,omitempty"`
	// Halt is the count at which the guard halts.
	Halt int `json:"halt,omitempty"`
}

// Config holds the loop guard's thresholds. The zero Config is the default guard; every zero
// field takes the default its doc gives.
type Config struct {
	// RepeatedCall is the same call (tool and canonical arguments) returning the same result,
	// counted in calls. Default: warn at 3, halt at 5. Cline warns at 3 identical calls and
	// stops at 5; Gemini CLI stops at 5 identical calls; OpenHands halts at 4 identical
	// action-observation pairs, without warning. The halt is at 5 rather than 4 because an
	// unchanged result is also what polling a slow job looks like while it has not moved (the
	// complaint that made OpenHands' thresholds configurable).
	RepeatedCall Threshold `json:"repeated_call,omitzero"`
	// RepeatedError is the same call failing, whatever the error says, counted in calls.
	// Default: warn at 2, halt at 3. OpenHands halts when the same action has failed 3 times
	// (its SDK nudges at 3 and halts at 4); with the error budget at 3 failures in a row a
	// fourth could never be reached, so the warning comes one call earlier.
	RepeatedError Threshold `json:"repeated_error,omitzero"`
	// Alternation is two different calls taking turns (A B A B …), each returning what it
	// returned last time, counted in steps. Default: warn at 4, halt at 6, OpenHands' 6
	// alternating steps.
	Alternation Threshold `json:"alternation,omitzero"`
	// RepeatedMessage is the same reply, with no tool call, step after step, counted in
	// replies. Default: warn at 2, halt at 3, OpenHands' 3 identical agent messages.
	RepeatedMessage Threshold `json:"repeated_message,omitzero"`
	// EmptyReplies is replies with neither text nor a tool call, in a row. Default: warn at 2,
	// halt at 3: OpenHands halts at 3 empty responses; Roo Code retries the first in silence and
	// speaks up from the second.
	EmptyReplies Threshold `json:"empty_replies,omitzero"`
	// ErrorBudget is how many failed calls in a row, of any tools, end the run. Default 3, the
	// origin's tool-error budget (and the consecutive-mistake limit of Cline and Roo Code); a
	// negative value turns it off. It halts without a warning: failures of different calls
	// are ordinary exploration until the budget runs out, and failures of the same call are
	// warned about by RepeatedError.
	ErrorBudget int `json:"error_budget,omitempty"`
}

// or fills the zero fields of t from d.
func (t Threshold) or(d Threshold) Threshold {
	if t.Warn == 0 {
		t.Warn = d.Warn
	}
	if t.Halt == 0 {
		t.Halt = d.Halt
	}
	return t
}

// limit is how far a count under t needs to go: to Halt, and one past Warn (a warning is due only
// when the count is exactly Warn). Counting further changes no verdict.
func (t Threshold) limit() int {
	n := max(t.Halt, 0)
	if t.Warn > 0 {
		n = max(n, t.Warn+1)
	}
	return n
}

// resolved returns c with every zero field replaced by its default, as the doc of each field
// states it.
func (c Config) resolved() Config {
	c.RepeatedCall = c.RepeatedCall.or(Threshold{Warn: 3, Halt: 5})
	c.RepeatedError = c.RepeatedError.or(Threshold{Warn: 2, Halt: 3})
	c.Alternation = c.Alternation.or(Threshold{Warn: 4, Halt: 6})
	c.RepeatedMessage = c.RepeatedMessage.or(Threshold{Warn: 2, Halt: 3})
	c.EmptyReplies = c.EmptyReplies.or(Threshold{Warn: 2, Halt: 3})
	if c.ErrorBudget == 0 {
		c.ErrorBudget = 3
	}
	return c
}
