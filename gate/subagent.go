package gate

import (
	"strings"
	"time"
)

// MaxSubagentGateInjections bounds how many times the sub-agent gate may hold a run back.
//
// The origin's child-agent gate had no cap: it failed closed until every result was collected,
// relying on its wait tool being bounded (120 s by default, 10 min at most). stopgate caps it,
// because a child that never finishes, or that the harness cannot wait on (Claude Code's
// background agents bypass Stop hooks and outlive their parent), would otherwise wedge the
// parent for good. The cap is one above the process gate's, because a running child is work the
// parent is expected to wait out, and one bounded wait may not be enough; and it stays well
// under Claude Code's own 8-consecutive-block override, so stopgate's decision, not the
// harness's silent "completed", is what ends the run.
const MaxSubagentGateInjections = 3

// The sub-agent statuses the gate recognises. Running is shared with processes.
const (
	// StatusFinished: the sub-agent ended with a result.
	StatusFinished = "finished"
	// StatusFailed: the sub-agent ended in failure; what it produced is still its result.
	StatusFailed = "failed"
)

// Subagent is what the sub-agent gate knows about one child agent, in the shape the CLI reads
// as JSON:
//
//	{"id": "a1", "status": "running", "started_at": "2026-08-23T10:00:00Z",
//	 "result_collected": false, "description": "port the parser tests"}
//
// Every field is optional, and absence means unknown:
//
//   - id, description: absent means unnamed; the message cannot name it.
//   - status: "running", "finished" or "failed". A child that was interrupted or killed is
//     "failed": what it produced is still its result, owed to the parent. Absent, or any other
//     string, means unknown: the sub-agent never blocks.
//   - started_at: used only to order the message. The gate is not scoped to the run: a result
//     nobody collected is owed to the parent whenever the child was spawned.
//   - result_collected: absent means false: nobody has collected the result.
type Subagent struct {
	// ID names the sub-agent to the agent's tools.
	ID string `json:"id,omitempty"`
	// Status is StatusRunning, StatusFinished or StatusFailed.
	Status string `json:"status,omitempty"`
	// StartedAt is when the sub-agent was spawned.
	StartedAt time.Time `json:"started_at,omitzero"`
	// ResultCollected reports that the parent has collected the sub-agent's result.
	ResultCollected bool `json:"result_collected,omitempty"`
	// Description says what the sub-agent was asked to do.
	Description string `json:"description,omitempty"`
}

// IsSubagentUnresolved reports whether s blocks the run from completing: it is still running,
// or it finished or failed and nobody collected its result.
func IsSubagentUnresolved(s Subagent) bool {
	switch s.Status {
	case StatusRunning:
		return true
	case StatusFinished, StatusFailed:
		return !s.ResultCollected
	}
	return false
}

// SelectUnresolvedSubagents returns the sub-agents in subs that block the run, in start order,
// ties broken by id in byte order. subs is not modified.
func SelectUnresolvedSubagents(subs []Subagent) []Subagent {
	var idx []int
	for i := range subs {
		if IsSubagentUnresolved(subs[i]) {
			idx = append(idx, i)
		}
	}
	return pickInStartOrder(subs, idx, func(s *Subagent) (time.Time, string) { return s.StartedAt, s.ID })
}

// SubagentGateMessage returns the text that holds the run back, or "" when no sub-agent blocks.
// It names each blocking sub-agent by id and description, grouped by state, and says what to
// do: wait for each and collect its result, or stop one that is no longer needed. Its wording
// mirrors [ProcessGateMessage].
func SubagentGateMessage(subs []Subagent) string {
	return subagentMessage(SelectUnresolvedSubagents(subs))
}

// subagentMessage renders the gate text for already selected sub-agents; "" for none.
func subagentMessage(sel []Subagent) string {
	if len(sel) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Sub-agent completion gate: you cannot finish while sub-agents you started are unresolved.\n")
	for _, group := range []struct{ status, heading string }{
		{StatusRunning, "Still running:\n"},
		{StatusFinished, "Finished, result not collected:\n"},
		{StatusFailed, "Failed, result not collected:\n"},
	} {
		first := true
		for _, s := range sel {
			if s.Status != group.status {
				continue
			}
			if first {
				b.WriteString(group.heading)
				first = false
			}
			writeItem(&b, s.ID, s.Description)
			b.WriteString("\n")
		}
	}
	b.WriteString("Wait for each and collect its result before you finish (wait_agent, or your harness's tool for a sub-agent's result): ")
	writeIDs(&b, len(sel), func(i int) string { return sel[i].ID })
	b.WriteString(".\n")
	b.WriteString("A running sub-agent you no longer need can be stopped instead (interrupt_agent); then collect what it produced.")
	return b.String()
}
