//go:build unix

package stopgate_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/process"
)

// A Go harness whose agent starts its test run in the background with a process.Manager, and
// then, before reading what the run printed, tries to end its turn. The harness asks the
// supervisor at that stop, giving it the Manager's view of the processes, and is told to hand
// the agent the gate's message: read the failed run. Once the agent has read it, the same
// question lets the run end.
func Example_harness() {
	ctx := context.Background()
	runStarted := time.Now()
	procs := process.New(nil)
	defer procs.Close()

	// The agent's background tool call.
	run, err := procs.Start(ctx, process.StartOptions{Command: "echo 'FAIL: TestParse'; exit 1"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := procs.Wait(ctx, run.ID); err != nil { // the run fails while the agent talks
		log.Fatal(err)
	}

	// The agent's turn ends; the harness's stop hook asks the supervisor.
	sup := stopgate.New(stopgate.Config{})
	hostWakes := false // this harness does not wake the agent when a process ends
	turn := stopgate.Turn{
		Harness:      "my-go-harness",
		RunStartedAt: runStarted,
		Now:          time.Now(),
		Message:      &stopgate.Message{Text: "I started the tests in the background. All done."},
		Processes:    procs.Gate(),
		HostWakes:    &hostWakes,
	}
	d := sup.Decide(ctx, turn)
	fmt.Println(d.Verdict, d.Check)
	fmt.Println(strings.Contains(d.Message, run.ID+" (echo 'FAIL: TestParse'; exit 1) — exited with code 1"))

	// The harness hands d.Message to the agent, which reads the run's output.
	out, err := procs.Read(run.ID, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("the agent reads: %s", out.Data)

	// At its next stop the run may end: the failure has been read.
	turn.Message = &stopgate.Message{Text: "TestParse fails on an empty header; I reported it above."}
	turn.Processes, turn.Nudges, turn.Now = procs.Gate(), d.Nudges, time.Now()
	d = sup.Decide(ctx, turn)
	fmt.Println(d.Verdict, d.Check)
	// Output:
	// continue processes
	// true
	// the agent reads: FAIL: TestParse
	// stop completed
}
