package codex

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/codex/rollout"
	"github.com/stopgate/stopgate/harness/internal/hookio"
)

// The hook events this package answers.
const (
	// EventStop is the main agent's Stop event.
	EventStop = "Stop"
	// EventSubagentStop is a sub-agent's SubagentStop event.
	EventSubagentStop = "SubagentStop"
)

// Hook is the Codex CLI Stop and SubagentStop hook, for the driver in package hook
// (hook.Run): it reads the payload from stdin (DecodePayload), reads the rollout it names
// (rollout.ReadTail, going on from the checkpoint the last stop kept in the state file),
// builds the Turn (Turn), and encodes the answer.
//
// To let the agent stop, the driver writes nothing. To keep it going, Answer writes
// {"decision":"block","reason":MESSAGE} (MESSAGE cut to hookio.MaxMessageBytes): Codex ends the stop
// and hands the reason to the model as the next user message of the same turn, wrapped in
// <hook_prompt hook_run_id="…">…</hook_prompt> with <, > and & escaped. Codex has no other way
// to continue a turn from a Stop hook. A Retry verdict is answered as a stop, as Claude Code's
// hook answers it.
//
// The driver fails open: an internal error, a panic, a payload that is not JSON, or the time
// budget running out lets the stop proceed, with exit 0, empty stdout, and one line on stderr
// beginning "stopgate:". Codex reads exit 2 with stderr as a block (the error
// would become the model's next instruction) and any other status, or stdout that is not a
// JSON object, as a failed hook that blocks nothing. A rollout that cannot be read is not
// fatal: the decision is made on the payload alone, and stderr says so. On SubagentStop the
// rollout read is the sub-agent's own (agent_transcript_path).
//
// Budgets across invocations live in the same per-session state files as Claude Code's, with
// the same rules. They matter more here: Codex has no cap of its own on consecutive blocks
// (a hook that always blocks loops the turn for ever), so stopgate's budgets are what bound
// the nudges.
type Hook struct{}

// Stop implements harness.Hook.
func (Hook) Stop(ctx context.Context, stdin io.Reader, now time.Time) (*harness.Stop, error) {
	p, err := DecodePayload(stdin)
	if err != nil {
		return nil, err
	}
	st := hookio.NewStop(p.Ignored, p.Event(), EventStop, EventSubagentStop)
	if st.Skip {
		return st, nil
	}
	var s *rollout.CodexSession
	if path := hookio.StopTranscriptPath(st, p.TranscriptPath, p.AgentTranscriptPath); path != "" {
		key := harness.StateKey{Session: p.SessionID}
		if p.Event() == EventSubagentStop {
			key.Agent = p.AgentID
		}
		s, st.Checkpoint, err = readRollout(hookio.ExpandPath(path, p.CWD), harness.Checkpoint(ctx, key), p.TurnID)
		if err != nil {
			s, st.Checkpoint = nil, nil
			st.Notes = append(st.Notes, fmt.Sprintf("rollout unreadable (%s); deciding on the payload alone", hookio.OneLine(err.Error())))
		}
	}
	st.Turn = Turn(p, s, now)
	st.Active = p.StopHookActive
	st.State = harness.StateKey{Session: st.Turn.Session, Agent: st.Turn.Agent}
	return st, nil
}

// Answer implements harness.Hook.
func (Hook) Answer(d stopgate.Decision, _ *harness.Stop) ([]byte, string) {
	return hookio.Answer(d, hookio.Block)
}

// readRollout reads the rollout at path for a stop, going on from checkpoint
// (rollout.ReadTail). A tail read holds only the current run's turns: when the payload's
// turn_id names a task the rollout records and whose turn is not among them, the rollout is
// read whole (the Turn is that turn's), with the tail read's checkpoint kept for the next stop.
func readRollout(path string, checkpoint []byte, turnID string) (*rollout.CodexSession, []byte, error) {
	s, next, err := rollout.ReadTail(path, checkpoint, nil)
	if err != nil || turnID == "" {
		return s, next, err
	}
	for _, tk := range s.Tasks {
		if tk.TurnID == turnID && s.TurnPos(tk.Turn) >= 0 {
			return s, next, nil
		}
	}
	whole, err := rollout.ReadCodexFile(path, nil)
	if err != nil {
		return nil, nil, err
	}
	return whole, next, nil
}
