package process

import "github.com/stopgate/stopgate/gate"

// Gate returns the snapshot in the shape the completion gate reads, fact for fact: Running
// becomes status "running", else "exited"; the exit time, code and signal, the read offset,
// the log size and the last read carry over; StoppedByAgent is kept, so a process the agent
// stopped on purpose never blocks while one a user or the harness stopped still does until
// it is read. Nothing is inferred: a fact the Info lacks is absent in the gate.Process too.
func (i Info) Gate() gate.Process {
	status := gate.StatusExited
	if i.Running {
		status = gate.StatusRunning
	}
	return gate.Process{
		ID:             i.ID,
		Command:        i.Command,
		StartedAt:      i.StartedAt,
		Status:         status,
		ExitedAt:       clone(i.ExitedAt),
		ExitCode:       clone(i.ExitCode),
		Signal:         i.Signal,
		StoppedByAgent: i.StoppedByAgent,
		ReadOffset:     i.ReadOffset,
		LogSize:        i.LogSize,
		LastReadAt:     clone(i.LastReadAt),
	}
}

// Gate returns the gate's view of every process the Manager started, in start order: what a
// Go harness puts in a stopgate.Turn's Processes at its agent's stop.
func (m *Manager) Gate() []gate.Process {
	infos := m.List()
	out := make([]gate.Process, len(infos))
	for k, i := range infos {
		out[k] = i.Gate()
	}
	return out
}

// clone copies what p points to, so the gate.Process shares no memory with the Info.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
