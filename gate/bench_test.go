package gate

import (
	"strconv"
	"testing"
	"time"
)

// benchProcesses builds n processes, a third each running unread, failed unread and resolved,
// half of them started before the run, in shuffled start order.
func benchProcesses(n int) []Process {
	procs := make([]Process, n)
	for i := range procs {
		p := Process{ID: strconv.Itoa(i), Command: "go test ./pkg" + strconv.Itoa(i), StartedAt: ms(int64(500 + (i*7919)%n)), Status: StatusRunning}
		switch i % 3 {
		case 1:
			p.Status, p.ExitCode, p.ExitedAt, p.LogSize = StatusExited, code(1), msp(9000), 100
		case 2:
			p.LastReadAt = msp(8000)
		}
		procs[i] = p
	}
	return procs
}

func BenchmarkSelectUnresolved5000(b *testing.B) {
	procs := benchProcesses(5000)
	b.ReportAllocs()
	for b.Loop() {
		SelectUnresolved(procs, ms(1000))
	}
}

func BenchmarkProcessGateMessage5000(b *testing.B) {
	procs := benchProcesses(5000)
	b.ReportAllocs()
	for b.Loop() {
		ProcessGateMessage(procs, ms(1000))
	}
}

func BenchmarkCheckTypical(b *testing.B) {
	// What a stop hook sees: a handful of processes and sub-agents, one of them unresolved.
	in := Input{RunStartedAt: ms(1000), Processes: benchProcesses(6), Subagents: []Subagent{
		{ID: "a", Status: StatusFinished, ResultCollected: true}, {ID: "b", Status: StatusFinished, ResultCollected: true},
	}}
	b.ReportAllocs()
	for b.Loop() {
		Check(in)
	}
}

func BenchmarkCheck5000(b *testing.B) {
	subs := make([]Subagent, 1000)
	for i := range subs {
		subs[i] = Subagent{ID: strconv.Itoa(i), Status: StatusFinished, ResultCollected: true, StartedAt: time.Unix(int64(i), 0)}
	}
	in := Input{RunStartedAt: ms(1000), Processes: benchProcesses(5000), Subagents: subs}
	b.ReportAllocs()
	for b.Loop() {
		Check(in)
	}
}
