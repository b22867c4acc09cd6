package chat_test

import (
	"fmt"
	"log"

	"github.com/stopgate/stopgate/harness/gemini/chat"
)

// Read a session file Gemini CLI 0.61.0 wrote: each message as its last record left it, and the
// todo list of the last write_todos call.
func ExampleReadGeminiFile() {
	s, err := chat.ReadGeminiFile("../testdata/gemini/session-0.61.0.jsonl", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("session", s.ID, "kind", s.Kind, "records", s.Records)
	for _, m := range s.Messages[1:] {
		switch {
		case m.Prompt():
			fmt.Printf("%s prompt: %.40q\n", m.Type, m.Text)
		case len(m.ToolCalls) > 0:
			fmt.Printf("%s calls %s (%s)\n", m.Type, m.ToolCalls[0].Name, m.ToolCalls[0].Status)
		case m.ToolResponses > 0:
			fmt.Printf("%s tool results: %d\n", m.Type, m.ToolResponses)
		default:
			fmt.Printf("%s says: %q\n", m.Type, m.Text)
		}
	}
	for _, td := range s.Todos {
		fmt.Printf("todo %q %s\n", td.Content, td.Status)
	}
	// Output:
	// session 00000000-0000-4000-8000-0000000000a1 kind main records map[$set:9 message:10 metadata:1]
	// user prompt: "Prepare the release."
	// gemini calls write_todos (success)
	// user tool results: 1
	// gemini says: "I ran the tests; they pass."
	// user prompt: "Your todo list still has 1 open item(s):"
	// gemini calls write_todos (success)
	// user tool results: 1
	// gemini says: "Updated the changelog as well. All tasks are complete."
	// todo "Run the tests" completed
	// todo "Update the changelog" completed
}
