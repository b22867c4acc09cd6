package codex

import (
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/codex/rollout"
	"github.com/stopgate/stopgate/harness/internal/turns"
)

// SessionTurn builds the Turn of turn i of the Codex rollout s as it stood when that turn
// ended, from the rollout alone: what a Codex Stop hook would have been asked at the turn's
// last stop, for auditing a session after the fact. It returns the zero Turn when s is nil or
// i is out of range.
//
// A turn is one of s.Turns: a user prompt and everything up to the next one. A Stop hook's
// block continues the same turn, so the stop read is the turn's last. The Turn is Turn's
// without a payload, read as SessionTurn reads a past turn of a Claude Code session:
//
//   - Message: the turn's last assistant message (its text, or the turn's last text when it
//     is only tool calls), with its tool-call count. Codex records no stop reason.
//   - Steps: the turn's tool calls and replies (the last MaxSteps); RunStartedAt is the
//     turn's start.
//   - Processes: the background exec sessions as they stood at the turn's end: a session that
//     exited later is still running, a poll made later has not happened.
//   - Todos: the latest update_plan plan, for the session's last turn only. The transcript
//     keeps only the latest plan, so for an earlier turn they are nil (unknown).
//   - Error: the last error event of the turn when no assistant message followed it, the error
//     the turn ended on. Codex 0.169.0 has no hook event for such an end (its hook schemas
//     list no StopFailure); the Turn carries it so an audit can say whether a retry was worth making, as SessionTurn's
//     carries a Claude Code API error.
//   - HostWakes is false and Subagents nil (unknown), as in Turn.
//   - Nudges.Consecutive is 1 when a Stop hook blocked an earlier stop of the turn (Codex then
//     sets stop_hook_active for the rest of the turn); the per-check counts are not in the
//     rollout.
//
// Session and Agent are the rollout's (a sub-agent's rollout names its nickname or role). Now
// is the turn's end: its task's task_complete when the rollout records one within the turn,
// else the time of the turn's last entry.
func SessionTurn(s *rollout.CodexSession, i int) stopgate.Turn {
	if s == nil || s.Session == nil || i < 0 || i >= len(s.Turns) {
		return stopgate.Turn{}
	}
	end := s.Turns[i].End
	for _, tk := range s.Tasks {
		if tk.Turn == i && !tk.Completed.IsZero() && !tk.Completed.After(s.Turns[i].End) {
			end = tk.Completed
		}
	}
	asOf := end
	if i == len(s.Turns)-1 {
		asOf = time.Time{} // nothing happened after the last turn that belongs to another
	}
	snap := turns.Of(s.Session, i, asOf, ProviderOpenAI)
	wakes := false
	t := stopgate.Turn{
		Harness:      Name,
		Session:      s.ID,
		Agent:        s.AgentID,
		Now:          end,
		RunStartedAt: snap.RunStart,
		Message:      snap.Message(),
		Steps:        snap.Steps,
		Processes:    snap.Procs,
		HostWakes:    &wakes,
	}
	if t.Message != nil {
		t.Message.Provider = ProviderOpenAI
	}
	if i == len(s.Turns)-1 {
		t.Todos = todosOf(s)
	}
	for _, e := range s.Errors {
		if e.Turn == i && (snap.Last == nil || e.Line > snap.Last.Line) {
			t.Error = &stopgate.ErrorInfo{Provider: ProviderOpenAI, Message: e.Message}
		}
	}
	for _, h := range s.StopHooks {
		if h.Turn == i && h.Blocked {
			t.Nudges.Consecutive = 1
		}
	}
	return t
}
