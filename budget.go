package stopgate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
)

// ErrInvalidBudget is returned (wrapped) when a budget's JSON is not an object of
// non-negative integer counts.
var ErrInvalidBudget = errors.New("invalid nudge budget")

// Budget counts the continuations each check has given in the current run and bounds them:
// every check that holds a run back spends from it under its own [Check] (and a paused turn's
// resumptions under [BudgetPauseTurn]). A fresh run starts from the zero Budget.
//
// The zero value is ready to use: nothing spent, every check at its [DefaultCap]. A Budget is
// a value: [Budget.Spend] never writes to a map another copy can see, so copies are
// independent.
//
// Its JSON form is the counts alone, with the two completion gates always present:
//
//	{"processes": 1, "subagents": 0, "stall": 2}
//
// Caps are configuration, not state, and are not part of the JSON; decoding into a Budget
// replaces its counts and keeps its caps.
type Budget struct {
	// Caps overrides the cap of the checks it names. A check it does not name gets its
	// [DefaultCap]; 0 silences a check, and a negative cap counts as 0. The Budget never
	// writes to Caps.
	Caps map[Check]int

	spent map[Check]int
}

// Count returns how many continuations check c has given in this run.
func (b Budget) Count(c Check) int { return b.spent[c] }

// Cap returns how many continuations check c may give in one run.
func (b Budget) Cap(c Check) int {
	n, ok := b.Caps[c]
	if !ok {
		return DefaultCap(c)
	}
	return max(n, 0)
}

// Allow reports whether check c may give another continuation in this run.
func (b Budget) Allow(c Check) bool { return b.Count(c) < b.Cap(c) }

// Spend records one continuation by check c. It counts whether or not [Budget.Allow] would
// have allowed it: the record is of what happened.
func (b *Budget) Spend(c Check) {
	m := make(map[Check]int, len(b.spent)+1)
	maps.Copy(m, b.spent)
	m[c]++
	b.spent = m
}

// MarshalJSON writes the counts as an object, the two completion gates always present and any
// other check when it has spent something.
func (b Budget) MarshalJSON() ([]byte, error) {
	m := map[Check]int{CheckProcesses: b.spent[CheckProcesses], CheckSubagents: b.spent[CheckSubagents]}
	for c, n := range b.spent {
		if n != 0 {
			m[c] = n
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the counts from an object of check names to non-negative integers,
// replacing the counts b held and keeping its caps. JSON null leaves no counts. Anything else
// is an error wrapping [ErrInvalidBudget].
func (b *Budget) UnmarshalJSON(data []byte) error {
	var m map[Check]int
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("stopgate: nudges given: %w: %w", ErrInvalidBudget, err)
	}
	for c, n := range m {
		if n < 0 {
			return fmt.Errorf("stopgate: nudges given: %q is %d: %w", c, n, ErrInvalidBudget)
		}
	}
	b.spent = m
	return nil
}
