package transcript_test

import (
	"fmt"
	"log"
	"os"

	"github.com/stopgate/stopgate/harness/claudecode/transcript"
)

// Read a real Claude Code session and look at how each turn ended.
func ExampleRead() {
	f, err := os.Open("testdata/claude-code/tool_heavy.jsonl")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	s, err := transcript.Read(f, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("session", s.ID, "written by Claude Code", s.Versions[0])
	for _, t := range s.Turns {
		fmt.Printf("turn %d (%s): %d tool calls, interrupted %v\n", t.Index, t.Trigger, t.ToolCalls, t.Interrupted)
	}
	for _, sh := range s.Shells {
		fmt.Printf("shell %s %q is %s\n", sh.ID, sh.Command, sh.Status)
	}
	// Output:
	// session d6e0bada-1959-4eec-a9d2-0bfade768d8f written by Claude Code 2.1.38
	// turn 0 (prompt): 2 tool calls, interrupted true
	// turn 1 (command): 0 tool calls, interrupted false
	// turn 2 (prompt): 4 tool calls, interrupted true
	// shell bae407b "mix phx.server" is running
}

// Summarise a session whose agent says it is done while a background test run failed and
// was never read: the facts a stop gate needs.
func ExampleSession_Summary() {
	s, err := transcript.ReadFile("testdata/handwritten/shell_unread_failed.jsonl", nil)
	if err != nil {
		log.Fatal(err)
	}
	sum := s.Summary()
	fmt.Println("turns:", sum.Turns)
	fmt.Println("shells started:", sum.ShellsStarted, "unread:", sum.ShellsUnread, "failed:", sum.ShellsFailed)
	fmt.Println("last turn ends:", sum.TurnEndings[len(sum.TurnEndings)-1].Final)
	sh := s.Shells[0]
	fmt.Println("exit code:", *sh.ExitCode, "notified:", sh.Notified.Format("15:04:05"), "read:", !sh.ReadAt.IsZero())
	// Output:
	// turns: 2
	// shells started: 1 unread: 1 failed: 1
	// last turn ends: Everything is done.
	// exit code: 1 notified: 10:01:30 read: false
}

// Read a session together with its sub-agents' own transcripts.
func ExampleReadFile() {
	s, err := transcript.ReadFile("testdata/handwritten/v2_0/0000000a-0000-4000-8000-000000000020.jsonl", &transcript.Options{Subagents: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range s.Subagents {
		fmt.Printf("%s %q (%s): %s, pending %v\n", a.Tool, a.Description, a.Type, a.Status, a.Pending())
		if a.File != nil {
			fmt.Println("its last words:", a.File.Session.Turns[0].FinalText)
		}
	}
	// Output:
	// Task "Read the logs" (general-purpose): completed, pending false
	// its last words: The log shows one warning about a deprecated flag.
}
