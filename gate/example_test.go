package gate_test

import (
	"fmt"
	"time"

	"github.com/stopgate/stopgate/gate"
)

// A run started at 10:00 launched a test suite that failed at 10:04 and was never read, and a
// dev server the user has kept since yesterday. Only the test run blocks; the second check,
// fed the budget the first returned, shows the gate going silent once its budget is spent.
func ExampleCheck() {
	runStart := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	exitedAt := runStart.Add(4 * time.Minute)
	one := 1
	in := gate.Input{
		RunStartedAt: runStart,
		Processes: []gate.Process{
			{ID: "srv1", Command: "pnpm dev", StartedAt: runStart.Add(-24 * time.Hour), Status: gate.StatusRunning},
			{ID: "t1", Command: "go test ./...", StartedAt: runStart.Add(time.Minute), Status: gate.StatusExited,
				ExitedAt: &exitedAt, ExitCode: &one, LogSize: 2048},
		},
	}
	r := gate.Check(in)
	fmt.Println(r.Blocked, r.Gate, r.Unresolved)
	fmt.Println(r.Message)

	in.Injections = r.Injections
	in.Injections[gate.ProcessGate]++ // a second nudge, given earlier in the run
	r = gate.Check(in)
	fmt.Println(r.Blocked, r.Gate, r.Unresolved, r.Exhausted)
	// Output:
	// true processes [t1]
	// Background-process completion gate: you cannot finish while background processes you started in this run are unresolved.
	// Ended without a clean exit, output not read since it ended:
	// - t1 (go test ./...) — exited with code 1
	// Read the output of each (task_output, or your harness's tool for a background process's output) and act on what it says: ["t1"].
	// To leave a process running on purpose (a dev server, a watcher), read its output once, say that you are leaving it running, and finish. A process you no longer need can be stopped instead (task_stop).
	// false none [t1] [processes]
}
