package copilot

import (
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/loopguard"
)

// Name is the harness's name: `stopgate hook copilot`, and the Turn.Harness of every Turn this
// package builds.
const Name = "copilot"

// MaxSteps bounds the loop-guard steps a Turn carries: the run's last MaxSteps tool calls and
// replies.
const MaxSteps = 100

// Turn builds the Turn a Copilot CLI agentStop or subagentStop hook decides on, from the hook's
// payload p, the session's event log s, its todo list todos, and the time now. s may be nil
// when there is no log or it could not be read, and todos nil when the session database has
// no todo list (or could not be read); the Turn then holds what the rest says.
//
// For an agentStop:
//
//   - Message: the run's last assistant message (its text, or the run's last text when it
//     is only tool requests). Copilot CLI has written it before it runs the hook.
//     FinishReason stays empty: stopReason ("end_turn") is Copilot CLI's own word, not a
//     provider's token.
//   - RunStartedAt: the last user prompt's time. A stop hook's continuation and a
//     notification that background work finished continue the run they interrupt.
//   - Steps: the run's tool calls and replies (the last MaxSteps).
//   - Todos: the session database's todos table (pending, in_progress and done; blocked
//     items are left out, since nothing can be done about them now).
//   - Processes: the bash commands run in async mode, or left running past their wait, with
//     the notifications that they finished and the read_bash and stop_bash calls on them.
//     HostWakes is true: Copilot CLI wakes the agent with a notification when an attached
//     shell finishes (a detached one it does not watch, and is taken as the agent's choice).
//   - Subagents: the task tool calls; one with a result was collected.
//   - Error: a session error recorded after the run's last assistant message.
//
// For a subagentStop the Turn is the sub-agent's: Agent is its id (or name), Message its
// response from the payload, Steps its own messages where the log has them, HostWakes false;
// the parent's todos and shells are not its work.
//
// Nudges.Consecutive is 1 when stop_hook_active is set.
func Turn(p Payload, s *Session, todos []stopgate.Todo, now time.Time) stopgate.Turn {
	t := stopgate.Turn{Harness: Name, Session: p.SessionID, Now: now}
	if t.Session == "" && s != nil {
		t.Session = s.ID
	}
	if p.StopHookActive {
		t.Nudges.Consecutive = 1
	}
	if p.Event() == EventSubagentStop {
		return subagentTurn(t, p, s)
	}
	if s == nil {
		wakes := true
		t.HostWakes = &wakes
		t.Todos = todos
		return t
	}
	st := stopAt(s, len(s.Messages), time.Time{})
	st.Todos = todos
	st.Harness, st.Session, st.Now, st.Nudges = t.Harness, t.Session, t.Now, t.Nudges
	return st
}

// subagentTurn fills t for a subagentStop.
func subagentTurn(t stopgate.Turn, p Payload, s *Session) stopgate.Turn {
	t.Agent = firstNonEmpty(p.AgentID, p.AgentName)
	wakes := false
	t.HostWakes = &wakes
	var msgs []*Message
	if s != nil && p.AgentID != "" {
		msgs = s.Subagent[p.AgentID]
	}
	for _, m := range msgs {
		if m.Kind == KindAssistant {
			t.Steps = appendStep(t.Steps, loopguard.Step{Text: m.Text, Tool: toolName(m)})
		}
	}
	switch {
	case p.Response != nil:
		t.Message = &stopgate.Message{Text: *p.Response}
	case len(msgs) > 0:
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Kind == KindAssistant {
				t.Message = &stopgate.Message{Text: msgs[i].Text, ToolCalls: len(msgs[i].ToolCalls)}
				break
			}
		}
	}
	return t
}

func toolName(m *Message) string {
	if len(m.ToolCalls) > 0 {
		return m.ToolCalls[0].Name
	}
	return ""
}

// stopAt builds the Turn of the main agent's stop that came after s.Messages[:end], with the
// background shells as they stood at asOf (zero: the whole log is known at the stop).
func stopAt(s *Session, end int, asOf time.Time) stopgate.Turn {
	t := stopgate.Turn{Harness: Name, Session: s.ID}
	wakes := true
	t.HostWakes = &wakes
	msgs := s.Messages[:end]
	start := runStart(msgs)
	if start >= 0 {
		t.RunStartedAt = msgs[start].Time
	}
	run := msgs[max(start, 0):]
	final := -1
	for i, m := range run {
		if m.Kind == KindAssistant {
			final = i
		}
	}
	if final >= 0 {
		m := run[final]
		t.Message = &stopgate.Message{Text: m.Text, ToolCalls: len(m.ToolCalls)}
		if strings.TrimSpace(m.Text) == "" {
			t.Message.Text = lastText(run)
		}
	}
	for _, m := range run[final+1:] {
		if m.Kind == KindError && strings.TrimSpace(m.Text) != "" {
			t.Error = &stopgate.ErrorInfo{Message: m.Text, Type: m.ErrorType}
		}
	}
	t.Steps = steps(run)
	t.Processes = processes(s.Shells, asOf)
	t.Subagents = subagents(s.Tasks, asOf)
	if n := len(run); n > 0 && !run[n-1].Time.IsZero() {
		t.Now = run[n-1].Time
	}
	return t
}

// runStart returns the index of the user prompt that started the run msgs end in: the last
// user message that is not a stop hook's continuation; -1 when there is none.
func runStart(msgs []*Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Kind == KindUser && !m.Continuation {
			return i
		}
	}
	return -1
}

// lastText returns the text of the last assistant message of run that has any.
func lastText(run []*Message) string {
	for i := len(run) - 1; i >= 0; i-- {
		if m := run[i]; m.Kind == KindAssistant && strings.TrimSpace(m.Text) != "" {
			return m.Text
		}
	}
	return ""
}

// steps returns the loop-guard steps of run: one per tool call (the message's text goes with
// its first call) and one per reply without a call.
func steps(run []*Message) []loopguard.Step {
	var out []loopguard.Step
	for _, m := range run {
		if m.Kind != KindAssistant {
			continue
		}
		if len(m.ToolCalls) == 0 {
			if strings.TrimSpace(m.Text) != "" {
				out = appendStep(out, loopguard.Step{Text: m.Text})
			}
			continue
		}
		for k, c := range m.ToolCalls {
			st := loopguard.Step{Tool: c.Name, Args: string(c.Args)}
			if k == 0 {
				st.Text = m.Text
			}
			switch {
			case c.Done && !c.Success:
				st.Error = c.Error
			default:
				st.Result = c.Result
			}
			out = appendStep(out, st)
		}
	}
	return out
}

// appendStep appends st, keeping the last MaxSteps.
func appendStep(s []loopguard.Step, st loopguard.Step) []loopguard.Step {
	s = append(s, st)
	if len(s) > MaxSteps {
		s = s[len(s)-MaxSteps:]
	}
	return s
}

// at reports whether t is known and not after asOf (a zero asOf is no limit).
func at(t, asOf time.Time) bool {
	return !t.IsZero() && (asOf.IsZero() || !t.After(asOf))
}

// processes converts the background shells as they stood at asOf. A detached shell is left
// out: Copilot CLI does not watch it, and the agent detached it on purpose.
func processes(shells []*Shell, asOf time.Time) []gate.Process {
	out := make([]gate.Process, 0, len(shells))
	for _, sh := range shells {
		if sh.Detached || !asOf.IsZero() && sh.Started.After(asOf) {
			continue
		}
		p := gate.Process{ID: sh.ID, Command: sh.Command, StartedAt: sh.Started}
		ended := sh.Ended && (asOf.IsZero() || at(sh.Finished, asOf))
		if !ended {
			p.Status = gate.StatusRunning
			for _, rd := range sh.Reads {
				if at(rd, asOf) {
					r := rd
					p.LastReadAt = &r
				}
			}
			out = append(out, p)
			continue
		}
		p.Status = gate.StatusExited
		if !sh.Finished.IsZero() {
			f := sh.Finished
			p.ExitedAt = &f
		}
		if sh.ExitCode != nil {
			c := *sh.ExitCode
			p.ExitCode = &c
		}
		p.StoppedByAgent = sh.Killed
		if at(sh.ReadAfterEnd, asOf) {
			r := sh.ReadAfterEnd
			p.LastReadAt = &r
		}
		out = append(out, p)
	}
	return out
}

// subagents converts the task tool calls as they stood at asOf: a call with a result is a
// sub-agent finished (failed, when the call failed) whose result reached the agent; one
// without is of unknown status (the log lags, or the call was interrupted), which never
// blocks.
func subagents(tasks []*ToolCall, asOf time.Time) []gate.Subagent {
	out := make([]gate.Subagent, 0, len(tasks))
	for _, c := range tasks {
		if !asOf.IsZero() && c.Started.After(asOf) {
			continue
		}
		g := gate.Subagent{ID: c.ID, StartedAt: c.Started}
		if c.Done && at(c.Finished, asOf) {
			g.Status, g.ResultCollected = gate.StatusFinished, true
			if !c.Success {
				g.Status = gate.StatusFailed
			}
		}
		out = append(out, g)
	}
	return out
}
