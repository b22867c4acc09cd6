package gate

import (
	"strconv"
	"strings"
	"time"
)

// MaxProcessGateInjections bounds how many times the process gate may hold a run back. A wedged
// gate that never lets the run end is worse than a premature "done", so once this many gate
// messages have been injected in one run the gate goes silent. The value is the origin's.
const MaxProcessGateInjections = 2

// The process statuses the gate recognises.
const (
	// StatusRunning: the process has not exited.
	StatusRunning = "running"
	// StatusExited: the process has exited (cleanly or not).
	StatusExited = "exited"
)

// Process is what the process gate knows about one background process, in the shape the CLI
// reads as JSON:
//
//	{"id": "aaaa1111", "command": "pnpm test", "started_at": "2026-08-23T10:00:00Z",
//	 "status": "exited", "exited_at": "2026-08-23T10:04:10Z", "exit_code": 1, "signal": "",
//	 "stopped_by_agent": false, "read_offset": 0, "log_size": 512,
//	 "last_read_at": "2026-08-23T10:05:00Z"}
//
// Every field is optional, and absence means unknown, never a value that happens to pass:
//
//   - id, command: absent means unnamed. The gate still applies; the message cannot name it.
//   - started_at: absent means the start cannot be placed in this run, so the process never
//     blocks.
//   - status: "running" or "exited". An exit recorded in exited_at, exit_code or signal makes
//     the process exited whatever the status says (a status can be stale, an exit cannot be
//     undone). Absent, or any other string, with no exit recorded means unknown: it never blocks.
//   - exited_at: absent means the exit time is unknown. Acknowledgement then falls back to bytes:
//     the agent's reads have reached log_size.
//   - exit_code: absent means unknown, which is not 0. Only a recorded 0, with no signal, is a
//     clean exit; an exited process whose code is unknown blocks like a failure until read.
//   - signal: the signal that ended the process ("SIGKILL"). Absent means it was not ended by a
//     signal, or that is not known. A signal is a failure unless stopped_by_agent says the agent
//     asked for it.
//   - stopped_by_agent: absent means false. True when the agent itself stopped the process (its
//     stop tool sent the signal); such a process never blocks.
//   - read_offset, log_size: bytes of the process's log read by the agent so far, and written so
//     far; absent means 0.
//   - last_read_at: when the agent last read the process's output, even a read that returned
//     nothing. Absent means never read, or that the harness does not record reads.
type Process struct {
	// ID names the process to the agent's tools.
	ID string `json:"id,omitempty"`
	// Command is the command line the process runs.
	Command string `json:"command,omitempty"`
	// StartedAt is when the process started.
	StartedAt time.Time `json:"started_at,omitzero"`
	// Status is StatusRunning or StatusExited; see the type's doc for other values.
	Status string `json:"status,omitempty"`
	// ExitedAt is when the process exited; nil when unknown or still running.
	ExitedAt *time.Time `json:"exited_at,omitempty"`
	// ExitCode is the process's exit code; nil when unknown or still running.
	ExitCode *int `json:"exit_code,omitempty"`
	// Signal is the signal that ended the process; empty when none is known.
	Signal string `json:"signal,omitempty"`
	// StoppedByAgent reports that the agent itself stopped the process.
	StoppedByAgent bool `json:"stopped_by_agent,omitempty"`
	// ReadOffset is how many bytes of the log the agent has read.
	ReadOffset int64 `json:"read_offset,omitempty"`
	// LogSize is how many bytes the log held when last measured.
	LogSize int64 `json:"log_size,omitempty"`
	// LastReadAt is when the agent last read the output; nil when never.
	LastReadAt *time.Time `json:"last_read_at,omitempty"`
}

// exited reports whether the process has exited: an exit fact is recorded, or the status says so.
func (p Process) exited() bool {
	return p.ExitedAt != nil || p.ExitCode != nil || p.Signal != "" || p.Status == StatusExited
}

// clean reports an exit known to be successful: code 0 and no signal.
func (p Process) clean() bool {
	return p.ExitCode != nil && *p.ExitCode == 0 && p.Signal == ""
}

// readWhileRunning reports that the agent has looked at a running process: any read at all,
// even one that returned nothing (the origin counted only bytes, so a silent process could
// never be acknowledged).
func (p Process) readWhileRunning() bool {
	return p.LastReadAt != nil || p.ReadOffset > 0
}

// readSinceExit reports that the agent has seen the process's final state.
//
// With both times known, only a read at or after the exit counts: a read made before the exit
// cannot have seen what the process wrote as it failed, however the byte counts compare (the
// log size may be stale). With either time unknown, the bytes are the only evidence: every byte
// there is has been read, and either there were bytes to read or a read is recorded (an empty
// log with no read recorded is not a look, or a silent crash would pass).
func (p Process) readSinceExit() bool {
	if p.LastReadAt != nil && p.ExitedAt != nil {
		return !p.LastReadAt.Before(*p.ExitedAt)
	}
	return p.ReadOffset >= p.LogSize && (p.LogSize > 0 || p.LastReadAt != nil)
}

// IsUnresolved reports whether p blocks the run from completing. All three must hold:
//
//  1. p started in this run: StartedAt at or after runStartedAt. A process from an earlier run
//     (a dev server the user kept) never blocks. There is no recency window, so a job that
//     fails after an hour is still seen. A zero runStartedAt or StartedAt means the process
//     cannot be placed in this run, and it does not block.
//  2. p is unresolved: still running, or ended without a clean exit (non-zero code, a signal,
//     or an unknown code). A process the agent stopped itself is resolved, however it ended.
//  3. the agent has not looked: a running process has never been read (a read that returned
//     nothing counts); an ended one has not been read since it ended.
//
// Reading a running process's output once is therefore how an agent acknowledges a process it
// means to leave running; if that process later fails, it blocks again until read.
func IsUnresolved(p Process, runStartedAt time.Time) bool {
	if runStartedAt.IsZero() || p.StartedAt.IsZero() || p.StartedAt.Before(runStartedAt) {
		return false
	}
	if p.StoppedByAgent {
		return false
	}
	if p.exited() {
		return !p.clean() && !p.readSinceExit()
	}
	return p.Status == StatusRunning && !p.readWhileRunning()
}

// SelectUnresolved returns the processes in procs that block the run, in start order, ties
// broken by id in byte order, so the message built from them is deterministic. procs is not
// modified.
func SelectUnresolved(procs []Process, runStartedAt time.Time) []Process {
	var idx []int
	for i := range procs {
		if IsUnresolved(procs[i], runStartedAt) {
			idx = append(idx, i)
		}
	}
	return pickInStartOrder(procs, idx, func(p *Process) (time.Time, string) { return p.StartedAt, p.ID })
}

// ProcessGateMessage returns the text that holds the run back, or "" when no process blocks. It
// names each blocking process by id and command, says what to do (read its output and act on
// it), and how to finish while deliberately leaving a process running (read its output once,
// say so) or stop one that is no longer needed. Its wording mirrors [SubagentGateMessage], so
// the agent reads one contract for both.
func ProcessGateMessage(procs []Process, runStartedAt time.Time) string {
	return processMessage(SelectUnresolved(procs, runStartedAt))
}

// processMessage renders the gate text for already selected processes; "" for none.
func processMessage(sel []Process) string {
	if len(sel) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Background-process completion gate: you cannot finish while background processes you started in this run are unresolved.\n")
	for _, section := range []struct {
		ended   bool
		heading string
	}{
		{false, "Still running, output never read:\n"},
		{true, "Ended without a clean exit, output not read since it ended:\n"},
	} {
		first := true
		for i := range sel {
			p := &sel[i]
			if p.exited() != section.ended {
				continue
			}
			if first {
				b.WriteString(section.heading)
				first = false
			}
			writeItem(&b, p.ID, p.Command)
			if section.ended {
				b.WriteString(" — ")
				writeEnding(&b, p)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("Read the output of each (task_output, or your harness's tool for a background process's output) and act on what it says: ")
	writeIDs(&b, len(sel), func(i int) string { return sel[i].ID })
	b.WriteString(".\n")
	b.WriteString("To leave a process running on purpose (a dev server, a watcher), read its output once, say that you are leaving it running, and finish. A process you no longer need can be stopped instead (task_stop).")
	return b.String()
}

// writeEnding says how an ended process ended.
func writeEnding(b *strings.Builder, p *Process) {
	switch {
	case p.Signal != "":
		b.WriteString("killed by signal ")
		b.WriteString(p.Signal)
	case p.ExitCode != nil:
		var scratch [20]byte
		b.WriteString("exited with code ")
		b.Write(strconv.AppendInt(scratch[:0], int64(*p.ExitCode), 10))
	default:
		b.WriteString("exited, exit status unknown")
	}
}
