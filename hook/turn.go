package hook

import (
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/transcript"
)

// Harness is the Turn.Harness of every Turn this package builds.
const Harness = "claude-code"

// Provider is the Message.Provider of every final message this package builds: Claude Code's
// stop_reason tokens are the Anthropic Messages API's.
const Provider = "anthropic"

// MaxSteps bounds the loop-guard steps a Turn carries: the run's last MaxSteps tool calls and
// replies. The loop guard reads only as many trailing steps as its thresholds need, far
// fewer than this with any sensible configuration.
const MaxSteps = 100

// ClaudeCodeTurn builds the Turn a Claude Code Stop or SubagentStop hook decides on, from the
// hook's payload p, the transcript s, and the time now. For a SubagentStop, s is the
// sub-agent's own transcript (agent_transcript_path), not its parent's. s may be nil when
// there is no transcript or it could not be read; the Turn then holds what the payload alone
// says.
//
// The payload wins where both speak, because Claude Code writes the transcript
// asynchronously and it may lag behind the stop:
//
//   - Message: last_assistant_message when it is not empty, else the text of the transcript's
//     last turn (its last assistant message, or the turn's FinalText when that message is
//     only tool calls). The tool-call count and the stop_reason are taken from the
//     transcript's last assistant message only when that is the message the text came from.
//   - Processes: the transcript's background shells, overlaid with background_tasks of type
//     shell (a task reported running is running whatever the transcript says).
//   - Subagents: the transcript's Task/Agent calls, overlaid with background_tasks of type
//     subagent.
//   - Jobs: the other background_tasks (workflows, MCP tasks, …; a monitor is a service).
//   - Schedules: session_crons, every one a cron schedule, which never parks a run.
//
// On a SubagentStop, background_tasks are the parent session's: they only update the
// sub-agent's own shells and agents, never add others, and HostWakes is false, because
// Claude Code does not wake a finished sub-agent when its background work ends.
//
// RunStartedAt is the start of the run the stop ends: the last turn the user started (a
// prompt or a command). A turn a background task's notification started continues the run
// that launched the task; if it started a new run, a test suite that failed in the background
// and woke the agent could be ignored by the very turn it woke. Steps are that run's tool
// calls and replies (the last MaxSteps). Todos are the session's todo list, nil when the
// session never used a todo tool. Nudges.Consecutive is 1 when stop_hook_active is set; the
// per-check counts are the caller's to fill in (ClaudeCode keeps them in a state file).
func ClaudeCodeTurn(p Payload, s *transcript.Session, now time.Time) stopgate.Turn {
	sub := p.Event() == EventSubagentStop
	t := stopgate.Turn{Harness: Harness, Session: p.SessionID, Now: now}
	if sub {
		t.Agent = p.AgentID
	}
	var snap snapshot
	if s != nil {
		if t.Session == "" {
			t.Session = s.ID
		}
		if sub && t.Agent == "" {
			t.Agent = s.AgentID
		}
		snap = snapshotOf(s, len(s.Turns)-1, time.Time{})
	}
	wakes := !sub
	t.HostWakes = &wakes
	t.RunStartedAt = snap.runStart

	var text string
	if p.LastAssistantMessage != nil {
		text = *p.LastAssistantMessage
	}
	switch {
	case strings.TrimSpace(text) != "":
		t.Message = &stopgate.Message{Text: text, Provider: Provider}
		if snap.last != nil && strings.TrimSpace(snap.last.Text) == strings.TrimSpace(text) {
			t.Message.ToolCalls = len(snap.last.ToolCalls)
			t.Message.FinishReason = deref(snap.last.StopReason)
		} else {
			// The transcript lags: the final reply is not in its steps yet.
			snap.steps = appendStep(snap.steps, loopguard.Step{Text: text})
		}
	default:
		t.Message = snap.message()
		if t.Message == nil && p.LastAssistantMessage != nil {
			t.Message = &stopgate.Message{Provider: Provider}
		}
		t.Error = snap.apiError
	}
	t.Steps = snap.steps
	t.Todos = snap.todos
	t.Processes, t.Subagents = snap.procs, snap.subs
	t.Processes, t.Subagents, t.Jobs = mergeTasks(t.Processes, t.Subagents, p.BackgroundTasks, sub)
	if p.SessionCrons != nil {
		t.Schedules = make([]stopgate.Schedule, 0, len(p.SessionCrons))
		for _, c := range p.SessionCrons {
			t.Schedules = append(t.Schedules, stopgate.Schedule{ID: c.ID, Trigger: "cron"})
		}
	}
	if p.StopHookActive {
		t.Nudges.Consecutive = 1
	}
	return t
}

// SessionTurn builds the Turn of turn i of s as it stood when that turn ended, from the
// transcript alone: what a stop hook would have been asked at that stop, for auditing a
// session after the fact. It returns the zero Turn when i is out of range.
//
// The turn's final message, steps and run start are read as ClaudeCodeTurn reads them.
// Background shells and sub-agents are taken as they stood at the turn's end (a shell that
// finished later is still running; a read made later has not happened). Todos are known only
// for the session's last turn, because the transcript keeps only the latest list; for an
// earlier turn they are nil (unknown). Now is the turn's end. Nudges.Consecutive is 1 when a
// stop hook had already blocked a stop in the turn (transcript.StopHook.Active); the per-check
// counts are not in the transcript.
func SessionTurn(s *transcript.Session, i int) stopgate.Turn {
	if s == nil || i < 0 || i >= len(s.Turns) {
		return stopgate.Turn{}
	}
	tr := s.Turns[i]
	asOf := tr.End
	if i == len(s.Turns)-1 {
		asOf = time.Time{} // nothing happened after the last turn that belongs to another
	}
	snap := snapshotOf(s, i, asOf)
	wakes := s.AgentID == ""
	t := stopgate.Turn{
		Harness:      Harness,
		Session:      s.ID,
		Agent:        s.AgentID,
		Now:          tr.End,
		RunStartedAt: snap.runStart,
		Message:      snap.message(),
		Steps:        snap.steps,
		Todos:        snap.todos,
		Processes:    snap.procs,
		Subagents:    snap.subs,
		HostWakes:    &wakes,
		Error:        snap.apiError,
	}
	for _, h := range s.StopHooks {
		if h.Turn == i { // the turn's last record is its final stop's
			t.Nudges.Consecutive = 0
			if h.Active {
				t.Nudges.Consecutive = 1
			}
		}
	}
	return t
}

// snapshot is what a transcript says about one turn's stop.
type snapshot struct {
	runStart  time.Time
	last      *transcript.Message // the turn's last assistant message, API errors aside
	finalText string              // the turn's last assistant text
	apiError  *stopgate.ErrorInfo // the turn ended on an API error message
	steps     []loopguard.Step
	todos     []stopgate.Todo
	procs     []gate.Process
	subs      []gate.Subagent
}

// message returns the final message the snapshot holds, or nil when the turn has none.
func (sn *snapshot) message() *stopgate.Message {
	if sn.last == nil {
		return nil
	}
	m := &stopgate.Message{
		Text:         sn.last.Text,
		Provider:     Provider,
		FinishReason: deref(sn.last.StopReason),
		ToolCalls:    len(sn.last.ToolCalls),
	}
	if m.Text == "" {
		m.Text = sn.finalText
	}
	return m
}

// snapshotOf reads turn i of s. A zero asOf takes the whole transcript as known at the stop;
// otherwise events after asOf are ignored.
func snapshotOf(s *transcript.Session, i int, asOf time.Time) snapshot {
	var sn snapshot
	if i >= 0 && i < len(s.Turns) {
		tr := s.Turns[i]
		run := runStart(s.Turns, i)
		sn.runStart = s.Turns[run].Start
		sn.finalText = tr.FinalText
		for _, m := range tr.Messages {
			if m.Kind != transcript.KindAssistant {
				continue
			}
			if m.APIError {
				sn.apiError = &stopgate.ErrorInfo{Provider: Provider, Message: m.Text}
				continue
			}
			sn.last, sn.apiError = m, nil
		}
		sn.steps = steps(s.Turns[run : i+1])
		if i == len(s.Turns)-1 {
			sn.todos = todos(s)
		}
	}
	sn.procs = processes(s.Shells, asOf)
	sn.subs = subagents(s.Subagents, asOf)
	return sn
}

// runStart returns the index of the turn that started the run turn i belongs to: the last
// turn at or before i that a task notification did not start.
func runStart(turns []*transcript.Turn, i int) int {
	for j := i; j > 0; j-- {
		if turns[j].Trigger != transcript.KindNotification {
			return j
		}
	}
	return 0
}

// steps returns the loop-guard steps of turns: one per tool call (the message's text goes
// with its first call, so narration between calls does not break a streak of them) and one
// per reply without a call. A message with neither text nor calls is left out: in a
// transcript it is most often one whose blocks are not written yet, not an empty reply.
func steps(turns []*transcript.Turn) []loopguard.Step {
	var out []loopguard.Step
	for _, tr := range turns {
		for _, m := range tr.Messages {
			if m.Kind != transcript.KindAssistant || m.APIError {
				continue
			}
			if len(m.ToolCalls) == 0 {
				if strings.TrimSpace(m.Text) != "" {
					out = appendStep(out, loopguard.Step{Text: m.Text})
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
				out = appendStep(out, st)
			}
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

// todos returns the session's todo list; nil when the session never used a todo tool, so an
// unknown list is not read as an empty one.
func todos(s *transcript.Session) []stopgate.Todo {
	used := len(s.Todos) > 0
	for _, m := range s.Messages {
		if used {
			break
		}
		if m.Sidechain != (s.AgentID != "") {
			continue
		}
		for _, c := range m.ToolCalls {
			switch c.Name {
			case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList":
				used = true
			}
		}
	}
	if !used {
		return nil
	}
	out := make([]stopgate.Todo, 0, len(s.Todos))
	for _, td := range s.Todos {
		out = append(out, stopgate.Todo{Content: td.Content, Status: string(td.Status)})
	}
	return out
}

// at reports whether t is known and not after asOf (a zero asOf is no limit).
func at(t, asOf time.Time) bool {
	return !t.IsZero() && (asOf.IsZero() || !t.After(asOf))
}

// processes converts the transcript's background shells as they stood at asOf.
//
// A shell that ended is exited at Finished, with its exit code; a "completed" one whose code
// was not recorded exited 0, since Claude Code reports a non-zero exit as "failed". A shell
// killed by the model or by the user is stopped by the agent's side: nobody wants its
// output, as the transcript package also reads it. Reads are times, not byte offsets:
// LastReadAt is the first read that saw the final output for an ended shell, and the latest
// read for a running one.
func processes(shells []*transcript.Shell, asOf time.Time) []gate.Process {
	out := make([]gate.Process, 0, len(shells))
	for _, sh := range shells {
		if !sh.Started.IsZero() && !asOf.IsZero() && sh.Started.After(asOf) {
			continue
		}
		p := gate.Process{ID: sh.ID, Command: sh.Command, StartedAt: sh.Started}
		ended := !sh.Running() && (asOf.IsZero() || at(sh.Finished, asOf))
		killed := sh.Status == transcript.ShellKilled && ended
		switch {
		case !ended:
			p.Status = gate.StatusRunning
			for _, rd := range sh.Reads {
				if !rd.Error && at(rd.Time, asOf) {
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
			} else if sh.Status == transcript.ShellCompleted {
				p.ExitCode = new(int)
			}
			p.StoppedByAgent = killed && sh.KilledBy != ""
			if at(sh.ReadAt, asOf) {
				t := sh.ReadAt
				p.LastReadAt = &t
			}
		}
		out = append(out, p)
	}
	return out
}

// subagents converts the transcript's Task/Agent calls as they stood at asOf.
//
// A sub-agent whose result reached the parent (Delivered) is collected; one that ended
// without its result reaching the parent is finished or failed and uncollected; a background
// one not yet ended is running. A foreground call with no result has an unknown status (the
// transcript lags, or the call was interrupted), which never blocks. One that was killed (the
// parent's TaskStop, or the user from the task list) is failed and counts as collected:
// nobody is waiting for what it would have said.
func subagents(calls []*transcript.Subagent, asOf time.Time) []gate.Subagent {
	out := make([]gate.Subagent, 0, len(calls))
	for _, a := range calls {
		if !a.Started.IsZero() && !asOf.IsZero() && a.Started.After(asOf) {
			continue
		}
		g := gate.Subagent{ID: a.AgentID, StartedAt: a.Started, Description: a.Description}
		if g.ID == "" && a.Call != nil {
			g.ID = a.Call.ID
		}
		delivered, finished := at(a.Delivered, asOf), at(a.Finished, asOf)
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

// mergeTasks overlays the payload's background tasks on the transcript's processes and
// sub-agents, and returns the other tasks as jobs. With tasks nil (not reported) it changes
// nothing and returns nil jobs. On a SubagentStop (sub) the tasks are the parent's: they
// update only the entries already known, and add no jobs.
func mergeTasks(procs []gate.Process, subs []gate.Subagent, tasks []BackgroundTask, sub bool) ([]gate.Process, []gate.Subagent, []stopgate.Job) {
	if tasks == nil {
		return procs, subs, nil
	}
	if procs == nil && !sub {
		procs = []gate.Process{}
	}
	if subs == nil && !sub {
		subs = []gate.Subagent{}
	}
	var jobs []stopgate.Job
	if !sub {
		jobs = []stopgate.Job{}
	}
	for _, bt := range tasks {
		state := taskState(bt.Status)
		switch bt.Type {
		case "shell", "local_bash", "bash":
			i := indexOf(procs, func(p gate.Process) bool { return bt.ID != "" && p.ID == bt.ID })
			if i < 0 {
				if sub {
					continue
				}
				// Not in the transcript yet, so its start is unknown: it cannot be placed
				// in this run, and only its status is recorded.
				procs = append(procs, gate.Process{ID: bt.ID, Command: firstNonEmpty(bt.Command, bt.Description)})
				i = len(procs) - 1
			}
			applyShellState(&procs[i], state)
		case "subagent", "local_agent", "agent":
			i := indexOf(subs, func(s gate.Subagent) bool { return bt.ID != "" && s.ID == bt.ID })
			if i < 0 {
				if sub {
					continue
				}
				subs = append(subs, gate.Subagent{ID: bt.ID, Description: bt.Description})
				i = len(subs) - 1
			}
			switch state {
			case taskRunning:
				s := &subs[i]
				s.Status, s.ResultCollected = gate.StatusRunning, false
			case taskDone, taskFailed, taskKilled:
				s := &subs[i]
				if s.Status != "" && s.Status != gate.StatusRunning {
					break // the transcript knows more: whether the result was delivered
				}
				s.Status = gate.StatusFinished
				if state != taskDone {
					s.Status = gate.StatusFailed
				}
				s.ResultCollected = state == taskKilled
			}
		default:
			if sub {
				continue
			}
			j := stopgate.Job{ID: bt.ID, Label: firstNonEmpty(bt.Name, bt.Description, bt.Command, bt.Tool), Status: bt.Status}
			if state == taskRunning {
				j.Status = "running"
			}
			j.Service = bt.Type == "monitor"
			jobs = append(jobs, j)
		}
	}
	return procs, subs, jobs
}

// taskStatus is a background task's status as this package reads it.
type taskStatus int

const (
	taskUnknown taskStatus = iota
	taskRunning
	taskDone
	taskFailed
	taskKilled
)

func taskState(s string) taskStatus {
	switch strings.ToLower(s) {
	case "running", "pending", "queued", "in_progress", "started":
		return taskRunning
	case "completed", "done", "succeeded", "success":
		return taskDone
	case "failed", "error":
		return taskFailed
	case "killed", "stopped", "cancelled", "canceled", "aborted":
		return taskKilled
	}
	return taskUnknown
}

// applyShellState applies a background task's status to a process. Running wins over a
// transcript that lags. An end the transcript has not recorded yet is recorded without a
// time: a completed task exited 0, a failed one with an unknown code, which the process gate
// reads as unresolved until the agent reads its output; a killed one was stopped on purpose.
func applyShellState(p *gate.Process, st taskStatus) {
	switch st {
	case taskRunning:
		if p.Status != gate.StatusRunning {
			p.Status, p.ExitedAt, p.ExitCode, p.Signal, p.StoppedByAgent, p.LastReadAt = gate.StatusRunning, nil, nil, "", false, nil
		}
	case taskDone, taskFailed, taskKilled:
		if p.Status == gate.StatusExited {
			return // the transcript knows more: the time, the code, the reads
		}
		p.Status, p.LastReadAt = gate.StatusExited, nil
		switch st {
		case taskDone:
			p.ExitCode = new(int)
		case taskKilled:
			p.StoppedByAgent = true
		}
	}
}

func indexOf[T any](s []T, match func(T) bool) int {
	for i, v := range s {
		if match(v) {
			return i
		}
	}
	return -1
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
