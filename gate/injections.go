package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
)

// Name names a gate. The string form is stable and is what JSON carries.
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

// DefaultCap returns how many messages gate g may inject in one run when [Input.Caps] sets no
// cap for it: [MaxProcessGateInjections] for the process gate, [MaxSubagentGateInjections] for
// the sub-agent gate, and 0 for any other name.
func DefaultCap(g Name) int {
	switch g {
	case ProcessGate:
		return MaxProcessGateInjections
	case SubagentGate:
		return MaxSubagentGateInjections
	}
	return 0
}

// ErrInvalidInjections is returned (wrapped) when the injections JSON is not an object of
// non-negative integer counts.
var ErrInvalidInjections = errors.New("invalid injection counts")

// Injections counts the messages each gate has injected in the current run. It is plain data,
// not a budget: the caps are [Input.Caps] (the supervisor keeps its own per-check budget,
// stopgate.Budget, and hands the gate its counts and caps). Its JSON form always carries both
// gates:
//
//	{"processes": 1, "subagents": 0}
type Injections map[Name]int

// with returns a copy of in with g counted once more; in is not modified.
func (in Injections) with(g Name) Injections {
	out := make(Injections, len(in)+1)
	maps.Copy(out, in)
	out[g]++
	return out
}

// MarshalJSON writes the counts, both gates always present.
func (in Injections) MarshalJSON() ([]byte, error) {
	m := map[Name]int{ProcessGate: in[ProcessGate], SubagentGate: in[SubagentGate]}
	for g, n := range in {
		if n != 0 {
			m[g] = n
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads an object of gate names to non-negative integers; anything else is an
// error wrapping [ErrInvalidInjections]. JSON null leaves no counts.
func (in *Injections) UnmarshalJSON(data []byte) error {
	var m map[Name]int
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("gate: injections: %w: %w", ErrInvalidInjections, err)
	}
	for g, n := range m {
		if n < 0 {
			return fmt.Errorf("gate: injections: %q is %d: %w", g, n, ErrInvalidInjections)
		}
	}
	*in = m
	return nil
}
