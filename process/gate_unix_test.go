//go:build unix

package process

import (
	"context"
	"testing"
	"time"

	"github.com/stopgate/stopgate/gate"
)

// TestManagerGateReal: a real failing run is unresolved for the gate until the agent reads it
// after it ended; a real run the agent stopped is resolved.
func TestManagerGateReal(t *testing.T) {
	m := New(&Options{Dir: t.TempDir()})
	defer m.Close()
	ctx := context.Background()
	runStart := time.Now().Add(-time.Second)

	failed, err := m.Start(ctx, StartOptions{Command: "echo FAIL; exit 1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Wait(ctx, failed.ID); err != nil {
		t.Fatal(err)
	}
	procs := m.Gate()
	if len(procs) != 1 || procs[0].Status != gate.StatusExited || procs[0].ExitCode == nil || *procs[0].ExitCode != 1 {
		t.Fatalf("gate view %+v", procs)
	}
	if !gate.IsUnresolved(procs[0], runStart) {
		t.Errorf("a failed run never read is resolved: %+v", procs[0])
	}
	if _, err := m.Read(failed.ID, 0); err != nil {
		t.Fatal(err)
	}
	if p := m.Gate()[0]; gate.IsUnresolved(p, runStart) {
		t.Errorf("a failed run read after it ended is unresolved: %+v", p)
	}

	srv, err := m.Start(ctx, StartOptions{Args: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := m.Get(srv.ID)
	if p := info.Gate(); p.Status != gate.StatusRunning || !gate.IsUnresolved(p, runStart) {
		t.Errorf("a running process never read: %+v, unresolved %t", p, gate.IsUnresolved(p, runStart))
	}
	if err := m.Stop(srv.ID, ByAgent); err != nil {
		t.Fatal(err)
	}
	info, err = m.Wait(ctx, srv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p := info.Gate(); !p.StoppedByAgent || gate.IsUnresolved(p, runStart) {
		t.Errorf("a process the agent stopped: %+v", p)
	}
}
