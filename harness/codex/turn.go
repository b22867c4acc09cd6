package codex

import (
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/codex/rollout"
	"github.com/stopgate/stopgate/harness/internal/turns"
	"github.com/stopgate/stopgate/loopguard"
)

// Name is the Turn.Harness of every Turn Turn builds.
const Name = "codex"

// ProviderOpenAI is the Message.Provider of every final message Turn builds: Codex
// speaks the OpenAI Responses API.
const ProviderOpenAI = "openai"

// Turn builds the Turn a Codex Stop or SubagentStop hook decides on, from the hook's
// payload p, the rollout s, and the time now. For a SubagentStop, s is the sub-agent's own
// rollout (agent_transcript_path). s may be nil when there is no rollout or it could not be
// read; the Turn then holds what the payload alone says.
//
// The payload wins where both speak:
//
//   - Message: last_assistant_message when it is not empty, else the text of the rollout's
//     turn (its last assistant message, or the turn's FinalText when that message is only
//     tool calls). The tool-call count is taken from the rollout's last assistant message
//     only when that is the message the text came from. Codex records no stop reason.
//   - Todos: the latest update_plan call's plan; nil (unknown) when the session never
//     called update_plan.
//   - Processes: the background exec sessions (exec_command answered "Process running with
//     session ID N"), with their write_stdin polls as reads and their exit where a poll or an
//     item_completed event recorded it. A session never seen exiting is running.
//
// The turn read is the one the payload's turn_id names when the rollout knows it, else the
// rollout's last. RunStartedAt is that turn's start, the user prompt it answers: a Stop
// hook's block continues the same turn, so every stop of one user turn is in one run. Steps
// are the turn's tool calls and replies (the last MaxSteps). HostWakes is false: Codex does
// not wake an agent when a background exec session ends (openai/codex #14731), so a session
// still running at a stop is unresolved work, not a parked run. Subagents are nil (unknown):
// a Codex sub-agent's work is in rollouts of its own. Nudges.Consecutive is 1 when
// stop_hook_active is set; the per-check counts are the caller's to fill in.
func Turn(p Payload, s *rollout.CodexSession, now time.Time) stopgate.Turn {
	sub := p.Event() == EventSubagentStop
	t := stopgate.Turn{Harness: Name, Session: p.SessionID, Now: now}
	if sub {
		t.Agent = p.AgentID
	}
	wakes := false
	t.HostWakes = &wakes

	var snap turns.Snapshot
	if s != nil && s.Session != nil {
		if t.Session == "" {
			t.Session = s.ID
		}
		if sub && t.Agent == "" {
			t.Agent = s.AgentID
		}
		i := len(s.Turns) - 1
		for _, tk := range s.Tasks {
			if pos := s.TurnPos(tk.Turn); p.TurnID != "" && tk.TurnID == p.TurnID && pos >= 0 {
				i = pos
			}
		}
		snap = turns.Of(s.Session, i, time.Time{}, ProviderOpenAI)
		snap.APIError = nil // an error end is the rollout's to report, not a live Stop's
		t.Todos = todosOf(s)
	}
	t.RunStartedAt = snap.RunStart

	var text string
	if p.LastAssistantMessage != nil {
		text = *p.LastAssistantMessage
	}
	switch {
	case strings.TrimSpace(text) != "":
		t.Message = &stopgate.Message{Text: text, Provider: ProviderOpenAI}
		if snap.Last != nil && strings.TrimSpace(snap.Last.Text) == strings.TrimSpace(text) {
			t.Message.ToolCalls = len(snap.Last.ToolCalls)
		} else {
			// The rollout lags: the final reply is not in its steps yet.
			snap.Steps = turns.AppendStep(snap.Steps, loopguard.Step{Text: text})
		}
	default:
		t.Message = snap.Message()
		if t.Message == nil && p.LastAssistantMessage != nil {
			t.Message = &stopgate.Message{}
		}
		if t.Message != nil {
			t.Message.Provider = ProviderOpenAI
		}
	}
	t.Steps = snap.Steps
	if s != nil && s.Session != nil {
		t.Processes = snap.Procs
	}
	if p.StopHookActive {
		t.Nudges.Consecutive = 1
	}
	return t
}

// todosOf returns the session's plan as todos; nil when the session never called
// update_plan, so an unknown plan is not read as an empty one.
func todosOf(s *rollout.CodexSession) []stopgate.Todo {
	if s.Plan == nil {
		return nil
	}
	out := make([]stopgate.Todo, 0, len(s.Todos))
	for _, td := range s.Todos {
		out = append(out, stopgate.Todo{Content: td.Content, Status: string(td.Status)})
	}
	return out
}
