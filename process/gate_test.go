package process

import (
	"reflect"
	"testing"
	"time"

	"github.com/stopgate/stopgate/gate"
)

func TestInfoGate(t *testing.T) {
	start := time.Date(2026, 8, 23, 10, 1, 0, 0, time.UTC)
	end, read := start.Add(time.Minute), start.Add(2*time.Minute)
	one := 1
	tests := []struct {
		name string
		in   Info
		want gate.Process
	}{
		{
			name: "running, never read",
			in:   Info{ID: "p1", Command: "go test ./...", PID: 42, LogPath: "/tmp/x", StartedAt: start, Running: true, LogSize: 10},
			want: gate.Process{ID: "p1", Command: "go test ./...", StartedAt: start, Status: gate.StatusRunning, LogSize: 10},
		},
		{
			name: "exited 1, read after the exit",
			in:   Info{ID: "p2", StartedAt: start, ExitedAt: &end, ExitCode: &one, ReadOffset: 5, LogSize: 5, LastReadAt: &read},
			want: gate.Process{ID: "p2", StartedAt: start, Status: gate.StatusExited, ExitedAt: &end, ExitCode: &one,
				ReadOffset: 5, LogSize: 5, LastReadAt: &read},
		},
		{
			name: "stopped by the agent",
			in:   Info{ID: "p3", StartedAt: start, ExitedAt: &end, Signal: "SIGTERM", StopRequestedBy: ByAgent, StoppedByAgent: true},
			want: gate.Process{ID: "p3", StartedAt: start, Status: gate.StatusExited, ExitedAt: &end, Signal: "SIGTERM", StoppedByAgent: true},
		},
		{
			name: "stopped by the user: not the agent's choice",
			in:   Info{ID: "p4", StartedAt: start, ExitedAt: &end, Signal: "SIGKILL", StopRequestedBy: ByUser},
			want: gate.Process{ID: "p4", StartedAt: start, Status: gate.StatusExited, ExitedAt: &end, Signal: "SIGKILL"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.Gate()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Gate()\n got %+v\nwant %+v", got, tt.want)
			}
			if got.ExitCode != nil && got.ExitCode == tt.in.ExitCode || got.ExitedAt != nil && got.ExitedAt == tt.in.ExitedAt {
				t.Error("the gate.Process shares memory with the Info")
			}
		})
	}
}
