package gate

import (
	"maps"
	"time"
)

// Input is everything [Check] reads: a snapshot of a run's background work and the injections
// already spent, in the shape the CLI reads as JSON:
//
//	{"run_started_at": "2026-08-23T10:00:00Z",
//	 "processes": [...], "subagents": [...], "injections": {"processes": 0, "subagents": 0}}
//
// Absent lists mean the harness reports no such work, which blocks nothing.
type Input struct {
	// RunStartedAt is when the current run began: the first user prompt of the run, not of the
	// session. Zero means unknown, and then no process blocks: a process whose start cannot be
	// placed in this run may be a dev server the user kept from an earlier one, and prodding an
	// agent that correctly finished is the worse failure. Sub-agents do not depend on it.
	RunStartedAt time.Time `json:"run_started_at,omitzero"`
	// Processes are the background processes the harness knows of.
	Processes []Process `json:"processes,omitempty"`
	// Subagents are the sub-agents the harness knows of.
	Subagents []Subagent `json:"subagents,omitempty"`
	// Injections counts the messages each gate has injected so far in this run.
	Injections Injections `json:"injections"`
	// Caps bounds the injections per gate in one run; a gate it does not name gets its
	// [DefaultCap], and a cap of 0 or less silences the gate. It is configuration, not part
	// of the snapshot's JSON.
	Caps map[Name]int `json:"-"`
}

// allow reports whether gate g may inject another message in this run.
func (in Input) allow(g Name) bool {
	c, ok := in.Caps[g]
	if !ok {
		c = DefaultCap(g)
	}
	return in.Injections[g] < c
}

// Result is what [Check] decided.
type Result struct {
	// Blocked reports that the run may not end yet: hand Message to the agent and continue.
	Blocked bool `json:"blocked"`
	// Gate is the gate that blocked, or [NoGate].
	Gate Name `json:"gate"`
	// Message is the gate's text for the agent; empty when nothing blocked.
	Message string `json:"message"`
	// Unresolved lists, when Blocked, the ids the blocking gate names, in its message's order.
	// When not Blocked it lists the ids an exhausted gate let through (sub-agents first, then
	// processes), so the record of the run's end says what was left behind; it is empty when
	// nothing was.
	Unresolved []string `json:"unresolved"`
	// Exhausted lists, in check order, the gates that still had unresolved work but had spent
	// their budget, and so stayed silent. A run that ends with a gate here did not end clean.
	Exhausted []Name `json:"exhausted"`
	// Injections is the counts after this check: the blocking gate's is one higher. A caller
	// that keeps state between checks stores them and passes them back next time.
	Injections Injections `json:"injections"`
}

// Check runs the completion gates in the policy's order, sub-agents first, then background
// processes, and returns the first that blocks and still has budget, charging it one injection.
// A gate with unresolved work and no budget left does not block; it is listed in
// Result.Exhausted and the next gate is consulted. A gate that is not reached is not charged.
// in is not modified.
func Check(in Input) Result {
	res := Result{Gate: NoGate, Unresolved: []string{}, Exhausted: []Name{}, Injections: maps.Clone(in.Injections)}
	var left []string

	if subs := SelectUnresolvedSubagents(in.Subagents); len(subs) > 0 {
		ids := make([]string, len(subs))
		for i, s := range subs {
			ids[i] = s.ID
		}
		if !in.allow(SubagentGate) {
			res.Exhausted = append(res.Exhausted, SubagentGate)
			left = append(left, ids...)
		} else {
			res.block(SubagentGate, subagentMessage(subs), ids)
			return res
		}
	}

	if procs := SelectUnresolved(in.Processes, in.RunStartedAt); len(procs) > 0 {
		ids := make([]string, len(procs))
		for i, p := range procs {
			ids[i] = p.ID
		}
		if !in.allow(ProcessGate) {
			res.Exhausted = append(res.Exhausted, ProcessGate)
			left = append(left, ids...)
		} else {
			res.block(ProcessGate, processMessage(procs), ids)
			return res
		}
	}

	res.Unresolved = append(res.Unresolved, left...)
	return res
}

// block records that gate g blocks with msg, naming ids, and charges it.
func (r *Result) block(g Name, msg string, ids []string) {
	r.Blocked = true
	r.Gate = g
	r.Message = msg
	r.Unresolved = ids
	r.Injections = r.Injections.with(g)
}
