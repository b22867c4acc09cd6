package stopgate_test

import (
	"context"
	"fmt"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/stall"
)

func ExampleSupervisor_Decide() {
	sup := stopgate.New(stopgate.Config{})
	d := sup.Decide(context.Background(), stopgate.Turn{
		Message: &stopgate.Message{Text: "I updated the config loader. Let me check the tests."},
	})
	fmt.Println(d.Verdict, d.Check)
	fmt.Println(d.Message[:60])
	// Output:
	// continue stall
	// Your last message ended with "Let me check the tests.", but
}

func ExampleSupervisor_Decide_parked() {
	sup := stopgate.New(stopgate.Config{Mode: stall.Autonomous})
	d := sup.Decide(context.Background(), stopgate.Turn{
		Message: &stopgate.Message{Text: "The deploy is running. Let me check on it."},
		Jobs:    []stopgate.Job{{ID: "j1", Label: "deploy", Status: "running"}},
	})
	fmt.Println(d.Verdict, d.Check, d.Reason.Category)
	for _, e := range d.Trail[len(d.Trail)-3:] {
		fmt.Println(e.Check, e.Outcome)
	}
	// Output:
	// stop pending_wake suspended
	// pending_wake parked
	// todos skipped
	// stall skipped
}
