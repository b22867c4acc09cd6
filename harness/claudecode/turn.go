package claudecode

import (
	"cmp"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
	"github.com/stopgate/stopgate/harness/internal/turns"
	"github.com/stopgate/stopgate/loopguard"
)

// Name is the harness's name, and the Turn.Harness of every Turn this package builds.
const Name = "claude-code"

// Provider is the Message.Provider of every final message this package builds: Claude Code's
// stop_reason tokens are the Anthropic Messages API's.
const Provider = "anthropic"

// MaxSteps bounds the loop-guard steps a Turn carries: the run's last MaxSteps tool calls and
// replies.
const MaxSteps = turns.MaxSteps

// Turn builds the Turn a Claude Code Stop or SubagentStop hook decides on, from the
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
func Turn(p Payload, s *transcript.Session, now time.Time) stopgate.Turn {
	sub := p.Event() == EventSubagentStop
	t := stopgate.Turn{Harness: Name, Session: p.SessionID, Now: now}
	if sub {
		t.Agent = p.AgentID
	}
	var snap turns.Snapshot
	if s != nil {
		if t.Session == "" {
			t.Session = s.ID
		}
		if sub && t.Agent == "" {
			t.Agent = s.AgentID
		}
		snap = turns.Of(s, len(s.Turns)-1, time.Time{}, Provider)
	}
	wakes := !sub
	t.HostWakes = &wakes
	t.RunStartedAt = snap.RunStart

	var text string
	if p.LastAssistantMessage != nil {
		text = *p.LastAssistantMessage
	}
	switch {
	case strings.TrimSpace(text) != "":
		t.Message = &stopgate.Message{Text: text, Provider: Provider}
		if snap.Last != nil && strings.TrimSpace(snap.Last.Text) == strings.TrimSpace(text) {
			t.Message.ToolCalls = len(snap.Last.ToolCalls)
			t.Message.FinishReason = turns.Deref(snap.Last.StopReason)
		} else {
			// The transcript lags: the final reply is not in its steps yet.
			snap.Steps = turns.AppendStep(snap.Steps, loopguard.Step{Text: text})
		}
	default:
		t.Message = snap.Message()
		if t.Message == nil && p.LastAssistantMessage != nil {
			t.Message = &stopgate.Message{Provider: Provider}
		}
		t.Error = snap.APIError
	}
	t.Steps = snap.Steps
	t.Todos = snap.Todos
	t.Processes, t.Subagents = snap.Procs, snap.Subs
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
// The turn's final message, steps and run start are read as Turn reads them.
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
	snap := turns.Of(s, i, asOf, Provider)
	wakes := s.AgentID == ""
	t := stopgate.Turn{
		Harness:      Name,
		Session:      s.ID,
		Agent:        s.AgentID,
		Now:          tr.End,
		RunStartedAt: snap.RunStart,
		Message:      snap.Message(),
		Steps:        snap.Steps,
		Todos:        snap.Todos,
		Processes:    snap.Procs,
		Subagents:    snap.Subs,
		HostWakes:    &wakes,
		Error:        snap.APIError,
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
				procs = append(procs, gate.Process{ID: bt.ID, Command: cmp.Or(bt.Command, bt.Description)})
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
			j := stopgate.Job{ID: bt.ID, Label: cmp.Or(bt.Name, bt.Description, bt.Command, bt.Tool), Status: bt.Status}
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
