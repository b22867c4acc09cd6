// Package turns builds the parts of a stopgate.Turn every harness reads the same way from the
// shared session model (package harness/internal/session): the snapshot of one turn's stop, the run it
// belongs to, its loop-guard steps, the todo list, background shells and sub-agents.
package turns

import (
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/harness/internal/session"
	"github.com/stopgate/stopgate/loopguard"
)

// MaxSteps bounds the loop-guard steps a Turn carries: the run's last MaxSteps tool calls and
// replies. The loop guard reads only as many trailing steps as its thresholds need, far
// fewer than this with any sensible configuration.
const MaxSteps = session.KeepSteps

// Snapshot is what a transcript says about one turn's stop.
type Snapshot struct {
	RunStart  time.Time
	Last      *session.Message    // the turn's last assistant message, API errors aside
	FinalText string              // the turn's last assistant text
	APIError  *stopgate.ErrorInfo // the turn ended on an API error message
	Steps     []loopguard.Step
	Todos     []stopgate.Todo
	Procs     []gate.Process
	Subs      []gate.Subagent

	provider string
}

// Message returns the final message the snapshot holds, or nil when the turn has none.
func (sn *Snapshot) Message() *stopgate.Message {
	if sn.Last == nil {
		return nil
	}
	m := &stopgate.Message{
		Text:         sn.Last.Text,
		Provider:     sn.provider,
		FinishReason: Deref(sn.Last.StopReason),
		ToolCalls:    len(sn.Last.ToolCalls),
	}
	if m.Text == "" {
		m.Text = sn.FinalText
	}
	return m
}

// Of reads turn i of s. A zero asOf takes the whole transcript as known at the stop;
// otherwise events after asOf are ignored. provider is the Provider of the final message and
// of an API error.
func Of(s *session.Session, i int, asOf time.Time, provider string) Snapshot {
	sn := Snapshot{provider: provider}
	if i >= 0 && i < len(s.Turns) {
		tr := s.Turns[i]
		run := RunStart(s.Turns, i)
		sn.RunStart = s.Turns[run].Start
		sn.FinalText = tr.FinalText
		for _, m := range tr.Messages {
			if m.Kind != session.KindAssistant || m.Synthetic {
				continue
			}
			if m.APIError {
				sn.APIError = &stopgate.ErrorInfo{Provider: provider, Message: m.Text}
				continue
			}
			sn.Last, sn.APIError = m, nil
		}
		sn.Steps = Steps(s.Turns[run : i+1])
		if i == len(s.Turns)-1 {
			sn.Todos = Todos(s)
		}
	}
	sn.Procs = Processes(s.Shells, asOf)
	sn.Subs = Subagents(s.Subagents, asOf)
	return sn
}

// RunStart returns the index of the turn that started the run turn i belongs to: the last
// turn at or before i that a task notification did not start.
func RunStart(turns []*session.Turn, i int) int {
	for j := i; j > 0; j-- {
		if turns[j].Trigger != session.KindNotification {
			return j
		}
	}
	return 0
}

// Steps returns the loop-guard steps of turns: one per tool call (the message's text goes
// with its first call, so narration between calls does not break a streak of them) and one
// per reply without a call. A message with neither text nor calls is left out: in a
// transcript it is most often one whose blocks are not written yet, not an empty reply.
func Steps(turns []*session.Turn) []loopguard.Step {
	var out []loopguard.Step
	for _, tr := range turns {
		for _, m := range tr.Messages {
			if m.Kind != session.KindAssistant || m.APIError || m.Synthetic {
				continue
			}
			if len(m.ToolCalls) == 0 {
				if strings.TrimSpace(m.Text) != "" {
					out = AppendStep(out, loopguard.Step{Text: m.Text})
				}
				continue
			}
			for k, c := range m.ToolCalls {
				st := loopguard.Step{Tool: c.Name, Args: string(c.Input)}
				if k == 0 {
					st.Text = m.Text
				}
				if r := c.Result; r != nil {
					if r.IsError {
						st.Error = r.Text
						if st.Error == "" {
							st.Error = "error"
						}
					} else {
						st.Result = r.Text
					}
				}
				out = AppendStep(out, st)
			}
		}
	}
	return out
}

// AppendStep appends st, keeping the last MaxSteps.
func AppendStep(s []loopguard.Step, st loopguard.Step) []loopguard.Step {
	s = append(s, st)
	if len(s) > MaxSteps {
		s = s[len(s)-MaxSteps:]
	}
	return s
}

// Todos returns the session's todo list; nil when the session never used a todo tool, so an
// unknown list is not read as an empty one.
func Todos(s *session.Session) []stopgate.Todo {
	used := len(s.Todos) > 0 || s.TodosUsed
	if !used {
		return nil
	}
	out := make([]stopgate.Todo, 0, len(s.Todos))
	for _, td := range s.Todos {
		out = append(out, stopgate.Todo{Content: td.Content, Status: string(td.Status)})
	}
	return out
}

// At reports whether t is known and not after asOf (a zero asOf is no limit).
func At(t, asOf time.Time) bool {
	return !t.IsZero() && (asOf.IsZero() || !t.After(asOf))
}

// Processes converts the transcript's background shells as they stood at asOf.
//
// A shell that ended is exited at Finished, with its exit code; a "completed" one whose code
// was not recorded exited 0, since Claude Code reports a non-zero exit as "failed". A shell
// killed by the model or by the user is stopped by the agent's side: nobody wants its
// output, as the transcript package also reads it. Reads are times, not byte offsets:
// LastReadAt is the first read that saw the final output for an ended shell, and the latest
// read for a running one.
func Processes(shells []*session.Shell, asOf time.Time) []gate.Process {
	out := make([]gate.Process, 0, len(shells))
	for _, sh := range shells {
		if !sh.Started.IsZero() && !asOf.IsZero() && sh.Started.After(asOf) {
			continue
		}
		p := gate.Process{ID: sh.ID, Command: sh.Command, StartedAt: sh.Started}
		ended := !sh.Running() && (asOf.IsZero() || At(sh.Finished, asOf))
		killed := sh.Status == session.ShellKilled && ended
		switch {
		case !ended:
			p.Status = gate.StatusRunning
			for _, rd := range sh.Reads {
				if !rd.Error && At(rd.Time, asOf) {
					t := rd.Time
					p.LastReadAt = &t
				}
			}
		default:
			p.Status = gate.StatusExited
			if !sh.Finished.IsZero() {
				t := sh.Finished
				p.ExitedAt = &t
			}
			if sh.ExitCode != nil {
				c := *sh.ExitCode
				p.ExitCode = &c
			} else if sh.Status == session.ShellCompleted {
				p.ExitCode = new(int)
			}
			p.StoppedByAgent = killed && sh.KilledBy != ""
			if At(sh.ReadAt, asOf) {
				t := sh.ReadAt
				p.LastReadAt = &t
			}
		}
		out = append(out, p)
	}
	return out
}

// Subagents converts the transcript's Task/Agent calls as they stood at asOf.
//
// A sub-agent whose result reached the parent (Delivered) is collected; one that ended
// without its result reaching the parent is finished or failed and uncollected; a background
// one not yet ended is running. A foreground call with no result has an unknown status (the
// transcript lags, or the call was interrupted), which never blocks. One that was killed (the
// parent's TaskStop, or the user from the task list) is failed and counts as collected:
// nobody is waiting for what it would have said.
func Subagents(calls []*session.Subagent, asOf time.Time) []gate.Subagent {
	out := make([]gate.Subagent, 0, len(calls))
	for _, a := range calls {
		if !a.Started.IsZero() && !asOf.IsZero() && a.Started.After(asOf) {
			continue
		}
		g := gate.Subagent{ID: a.AgentID, StartedAt: a.Started, Description: a.Description}
		if g.ID == "" && a.Call != nil {
			g.ID = a.Call.ID
		}
		delivered, finished := At(a.Delivered, asOf), At(a.Finished, asOf)
		switch {
		case delivered || finished:
			g.Status = gate.StatusFinished
			switch a.Status {
			case "error", "failed", "killed", "stopped", "cancelled", "canceled":
				g.Status = gate.StatusFailed
			}
			g.ResultCollected = delivered || a.Status == "killed"
		case a.Background:
			g.Status = gate.StatusRunning
		}
		out = append(out, g)
	}
	return out
}

// Deref returns *s, "" for nil.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
