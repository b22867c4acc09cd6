package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
)

// Name names a gate (or any other continuation nudge that spends a [Budget]). The string form
// is stable and is what JSON carries.
type Name string

// The gates of this package, and the name a [Result] carries when none blocked.
const (
	// ProcessGate is the background-process gate.
	ProcessGate Name = "processes"
	// SubagentGate is the sub-agent gate.
	SubagentGate Name = "subagents"
	// NoGate is the gate of a [Result] in which nothing blocked.
	NoGate Name = "none"
)

// DefaultCap returns the number of injections a gate may make in one run when its [Budget]
// sets no cap for it: [MaxProcessGateInjections] for the process gate,
// [MaxSubagentGateInjections] for the sub-agent gate, and 1 for any other name, the most
// conservative bound that still lets a nudge happen at all.
func DefaultCap(g Name) int {
	switch g {
	case ProcessGate:
		return MaxProcessGateInjections
	case SubagentGate:
		return MaxSubagentGateInjections
	}
	return 1
}

// ErrInvalidBudget is returned (wrapped) when a budget's JSON is not an object of
// non-negative integer counts.
var ErrInvalidBudget = errors.New("invalid injection budget")

// Budget counts the injections each gate has made in the current run and bounds them. Every
// gate that holds a run back, and every other continuation nudge the supervisor gives, spends
// from it under its own [Name]; a fresh run starts from the zero Budget.
//
// The zero value is ready to use: no injections, every gate at its [DefaultCap]. A Budget is a
// value: [Budget.Spend] never writes to a map another copy can see, so copies are independent.
//
// Its JSON form is the counts alone, with the two gates of this package always present:
//
//	{"processes": 1, "subagents": 0}
//
// Caps are configuration, not state, and are not part of the JSON; decoding into a Budget
// replaces its counts and keeps its caps.
type Budget struct {
	// Caps overrides the cap of the gates it names. A gate it does not name gets its
	// [DefaultCap]; 0 silences a gate, and a negative cap counts as 0. The Budget never
	// writes to Caps.
	Caps map[Name]int

	spent map[Name]int
}

// Count returns how many injections gate g has made in this run.
func (b Budget) Count(g Name) int { return b.spent[g] }

// Cap returns how many injections gate g may make in one run.
func (b Budget) Cap(g Name) int {
	c, ok := b.Caps[g]
	if !ok {
		return DefaultCap(g)
	}
	return max(c, 0)
}

// Allow reports whether gate g may make another injection in this run.
func (b Budget) Allow(g Name) bool { return b.Count(g) < b.Cap(g) }

// Spend records one injection by gate g. It counts whether or not [Budget.Allow] would have
// allowed it: the record is of what happened.
func (b *Budget) Spend(g Name) {
	m := make(map[Name]int, len(b.spent)+1)
	maps.Copy(m, b.spent)
	m[g]++
	b.spent = m
}

// MarshalJSON writes the counts as an object, the two gates of this package always present and
// any other gate when it has spent something.
func (b Budget) MarshalJSON() ([]byte, error) {
	m := map[Name]int{ProcessGate: b.spent[ProcessGate], SubagentGate: b.spent[SubagentGate]}
	for g, n := range b.spent {
		if n != 0 {
			m[g] = n
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the counts from an object of gate names to non-negative integers,
// replacing the counts b held and keeping its caps. JSON null leaves no counts. Anything else
// is an error wrapping [ErrInvalidBudget].
func (b *Budget) UnmarshalJSON(data []byte) error {
	var m map[Name]int
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("gate: injections: %w: %w", ErrInvalidBudget, err)
	}
	for g, n := range m {
		if n < 0 {
			return fmt.Errorf("gate: injections: %q is %d: %w", g, n, ErrInvalidBudget)
		}
	}
	b.spent = m
	return nil
}
