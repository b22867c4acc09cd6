package loopguard_test

import (
	"fmt"

	"github.com/stopgate/stopgate/loopguard"
)

// A harness checks after every step. The agent reads the same unchanged file again and again:
// the guard warns on the third read, and halts on the fifth, marking the run livelocked.
func ExampleConfig_Check() {
	var guard loopguard.Config // the defaults
	var steps []loopguard.Step
	for i := range 5 {
		args := `{"path": "main.go"}`
		if i%2 == 1 {
			args = `{ "path" : "main.go" }` // the same arguments, spelled differently
		}
		steps = append(steps, loopguard.Step{Tool: "read_file", Args: args, Result: "package main"})
		v := guard.Check(steps)
		if v.Action == loopguard.None {
			continue
		}
		fmt.Printf("step %d: %s %s\n", i+1, v.Action, v.Pattern)
		fmt.Println(v.Message)
		if v.Action == loopguard.Halt {
			fmt.Println(v.Reason.Category, v.Reason.Site, v.Metadata())
		}
	}
	// Output:
	// step 3: warn repeated_call
	// Loop guard: you have called read_file with arguments {"path":"main.go"} 3 times in a row and got the same result each time. Calling it again will not change that: use the result you have, or take a different approach.
	// step 5: halt repeated_call
	// Loop guard halted the run: read_file with arguments {"path":"main.go"} was called 5 times in a row and returned the same result each time.
	// tool_loop_guard loopguard.halt map[livelocked:true loop:repeated_call]
}

// Polling a job whose output moves is progress, however many times the call repeats.
func ExampleConfig_Check_progress() {
	var steps []loopguard.Step
	for pct := 10; pct <= 100; pct += 10 {
		steps = append(steps, loopguard.Step{Tool: "job_output", Args: `{"id":"build"}`, Result: fmt.Sprintf("%d%%", pct)})
	}
	fmt.Println(loopguard.Config{}.Check(steps).Action)
	// Output:
	// none
}

// The tool-error budget ends a run whose calls keep failing, with its own reason, and does not
// mark it livelocked.
func ExampleConfig_Check_errorBudget() {
	steps := []loopguard.Step{
		{Tool: "read_file", Args: `{"path":"a.go"}`, Error: "no such file"},
		{Tool: "read_file", Args: `{"path":"src/a.go"}`, Error: "no such file"},
		{Tool: "bash", Args: `{"cmd":"find . -name a.go"}`, Error: "permission denied"},
	}
	v := loopguard.Config{}.Check(steps)
	fmt.Println(v.Action, v.Pattern, v.Reason.Category, v.Livelocked())
	// Output:
	// halt consecutive_errors tool_error_budget false
}
