package audit_test

import (
	"context"
	"fmt"
	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/harness/sweagent"
	"os"

	"github.com/stopgate/stopgate/audit"
)

// Audit one hand-written Claude Code session whose first turn trails off on a promise.
func ExampleRun() {
	rep, err := audit.Run(context.Background(), []string{"testdata/handwritten/claude-code/stall.jsonl"}, &audit.Options{Readers: []audit.Reader{claudecode.Reader{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := rep.Sessions[0]
	fmt.Println(s.Counts.Turns, "turns,", s.Counts.WouldBlock, "would block")
	for _, t := range s.Turns {
		fmt.Printf("turn %d: %s, %s/%s %q\n", t.Index, t.Ending, t.Decision.Verdict, t.Decision.Check, t.Sentence)
	}
	// Output:
	// 2 turns, 1 would block
	// turn 0: completed, continue/stall "Let me run the tests to confirm the fix."
	// turn 1: completed, stop/completed ""
}

// The table, for people.
func ExampleWriteTable() {
	rep, err := audit.Run(context.Background(), []string{"testdata/handwritten/claude-code/todos.jsonl"}, &audit.Options{Readers: []audit.Reader{claudecode.Reader{}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := audit.WriteTable(os.Stdout, rep); err != nil {
		fmt.Println(err)
	}
	// Output:
	// SESSION            TURNS  STOPS  BLOCK  STALL  PROCS  SUBS  TODOS  CLAIMS  LOOP  TRUNC  ERROR  PARKED  NUDGES  ACTED  AGAIN  RUN ENDED
	// todos                  1      1      1      0      0     0      1       0     0      0      0       0       0      0      0  completed
	// TOTAL (1 session)      1      1      1      0      0     0      1       0     0      0      0       0       0      0      0  completed 1
	//
	// Would block (1):
	//   todos  turn 0  todos  2 open item(s) in the todo list
	//
	// Files: 1 found, 1 audited, 0 read with their session, 0 skipped, 0 failed.
}

// How SWE-agent and mini-swe-agent exit statuses map to termination categories.
func ExampleExitStatusReason() {
	for _, s := range []string{"submitted", "submitted (exit_cost)", "exit_context", "exit_format", "LimitsExceeded", "RateLimitError"} {
		r := sweagent.ExitStatusReason(s)
		fmt.Printf("%-22s %s\n", s, r.Category)
	}
	// Output:
	// submitted              completed
	// submitted (exit_cost)  recursion_limit
	// exit_context           context_overflow
	// exit_format            tool_error_budget
	// LimitsExceeded         recursion_limit
	// RateLimitError         rate_limited
}
