package gemini_test

import (
	"context"
	"fmt"
	"github.com/stopgate/stopgate/harness/gemini"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/gemini/chat"
	"github.com/stopgate/stopgate/hook"
)

// An AfterAgent response that trails off on a promise is denied; Gemini CLI sends the reason to
// the model as the prompt of a retry turn.
func ExampleHook() {
	payload := `{"session_id":"7c2d9e41","hook_event_name":"AfterAgent","prompt":"Fix the parser.",
		"prompt_response":"I fixed the parser. Let me run the tests.","stop_hook_active":false}`
	code := hook.Run(context.Background(), strings.NewReader(payload), os.Stdout, os.Stdout, gemini.Hook{}, &hook.Options{
		Now: func() time.Time { return time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC) },
	})
	fmt.Println("exit", code)
	// Output:
	// {"decision":"deny","reason":"Your last message ended with \"Let me run the tests.\", but the turn ended before you did it. If that work is still to be done, do it now. If it is finished, or you decided against it, say so in one short final message (for example \"Done: …\" or \"Not doing X because …\") and stop. If you need the user to decide, ask the question plainly."}
	// exit 0
}

// The Turn of a recorded Gemini CLI 0.61.0 stop: the run started at the user's prompt, its final
// message from the session file (the payload's prompt_response joins every response, and each
// response's streamed chunks), and the write_todos list.
func ExampleTurn() {
	f, err := os.Open("testdata/gemini/afteragent-0.61.0.json")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	p, err := gemini.DecodePayload(f)
	if err != nil {
		log.Fatal(err)
	}
	s, err := chat.ReadGeminiFile("testdata/gemini/session-0.61.0.jsonl", nil)
	if err != nil {
		log.Fatal(err)
	}
	t := gemini.Turn(p, s, p.Time())
	fmt.Printf("prompt_response: %q\n", p.Response())
	fmt.Printf("final message:   %q\n", t.Message.Text)
	fmt.Println("run started", t.RunStartedAt.Format(time.RFC3339Nano), "with", len(t.Steps), "steps")
	for _, td := range t.Todos {
		fmt.Printf("todo %q is %s\n", td.Content, td.Status)
	}
	d := stopgate.New(stopgate.Config{}).Decide(context.Background(), t)
	fmt.Println(d.Verdict, d.Check)
	// Output:
	// prompt_response: "I ran the tests; they pass.  tests; t hey pass.\nUpdated the changelog as well. All tasks are complete. log as well. All t asks are complete."
	// final message:   "Updated the changelog as well. All tasks are complete."
	// run started 2026-11-29T22:46:56.609Z with 4 steps
	// todo "Run the tests" is completed
	// todo "Update the changelog" is completed
	// stop completed
}

// Install the hook into a project's .gemini/settings.json, and remove it again.
func ExampleInstall() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	settings := filepath.Join(dir, ".gemini", "settings.json")
	changed, err := gemini.Install(settings, gemini.Command("/usr/local/bin/stopgate"))
	fmt.Println("installed:", changed, err)
	b, _ := os.ReadFile(settings)
	fmt.Print(string(b))
	changed, err = gemini.Uninstall(settings)
	fmt.Println("removed:", changed, err)
	// Output:
	// installed: true <nil>
	// {
	//   "hooks": {
	//     "AfterAgent": [
	//       {
	//         "hooks": [
	//           {
	//             "name": "stopgate",
	//             "type": "command",
	//             "command": "/usr/local/bin/stopgate hook gemini-cli",
	//             "timeout": 60000
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
	// removed: true <nil>
}
