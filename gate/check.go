package gate

import "time"

// Input is everything [Check] reads: a snapshot of a run's background work and the injections
// already spent, in the shape the CLI reads as JSON:
//
//	{"now": "2026-08-23T10:05:00Z", "run_started_at": "2026-08-23T10:00:00Z",
//	 "processes": [...], "subagents": [...], "injections": {"processes": 0, "subagents": 0}}
//
// Absent lists mean the harness reports no such work, which blocks nothing.
type Input struct {
	// Now is when the decision is made. It is carried so a recorded check is complete, but no
	// gate rule reads it, on purpose: a process is in the run because of when it started, never
	// because it is recent (a recency window is how the origin came to forget a job that failed
	// after five minutes).
	Now time.Time `json:"now,omitzero"`
	// RunStartedAt is when the current run began: the first user prompt of the run, not of the
	// session. Zero means unknown, and then no process blocks: a process whose start cannot be
	// placed in this run may be a dev server the user kept from an earlier one, and prodding an
	// agent that correctly finished is the worse failure. Sub-agents do not depend on it.
	RunStartedAt time.Time `json:"run_started_at,omitzero"`
	// Processes are the background processes the harness knows of.
	Processes []Process `json:"processes,omitempty"`
	// Subagents are the sub-agents the harness knows of.
	Subagents []Subagent `json:"subagents,omitempty"`
	// Injections is the budget spent so far in this run.
	Injections Budget `json:"injections"`
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
	// Injections is the budget after this check: the blocking gate's count is one higher. A
	// caller that keeps state between checks stores it and passes it back next time.
	Injections Budget `json:"injections"`
}

// Check runs the completion gates in the policy's order, sub-agents first, then background
// processes, and returns the first that blocks and still has budget, charging it one injection.
// A gate with unresolved work and no budget left does not block; it is listed in
// Result.Exhausted and the next gate is consulted. A gate that is not reached is not charged.
// in is not modified.
func Check(in Input) Result {
	res := Result{Gate: NoGate, Unresolved: []string{}, Exhausted: []Name{}, Injections: in.Injections}
	var left []string

	if subs := SelectUnresolvedSubagents(in.Subagents); len(subs) > 0 {
		ids := make([]string, len(subs))
		for i, s := range subs {
			ids[i] = s.ID
		}
		if !in.Injections.Allow(SubagentGate) {
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
		if !in.Injections.Allow(ProcessGate) {
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
	r.Injections.Spend(g)
}
