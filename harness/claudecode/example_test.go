package claudecode_test

import (
	"context"
	"fmt"
	"github.com/stopgate/stopgate/harness/claudecode"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate/hook"
)

// A Stop whose final message trails off on a promise is answered with a block; the agent reads
// the reason as its next instruction.
func ExampleHook() {
	payload := `{"session_id":"0d9f3c1e","hook_event_name":"Stop","stop_hook_active":false,
		"last_assistant_message":"I fixed the parser. Let me run the tests."}`
	code := hook.Run(context.Background(), strings.NewReader(payload), os.Stdout, os.Stdout, claudecode.Hook{}, &hook.Options{
		Now: func() time.Time { return time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC) },
	})
	fmt.Println("exit", code)
	// Output:
	// {"decision":"block","reason":"Your last message ended with \"Let me run the tests.\", but the turn ended before you did it. If that work is still to be done, do it now. If it is finished, or you decided against it, say so in one short final message (for example \"Done: …\" or \"Not doing X because …\") and stop. If you need the user to decide, ask the question plainly."}
	// exit 0
}

// Anything that goes wrong lets the agent stop: nothing on stdout, one line on stderr.
func ExampleHook_failOpen() {
	code := hook.Run(context.Background(), strings.NewReader(""), os.Stdout, os.Stdout, claudecode.Hook{}, nil)
	fmt.Println("exit", code)
	// Output:
	// stopgate: hook payload is not a JSON object: empty input; letting the agent stop
	// exit 0
}

// Absent is not empty: background_tasks missing means an older Claude Code that did not say,
// [] means nothing is in flight.
func ExampleDecodePayload() {
	for _, in := range []string{
		`{"session_id":"s","stop_hook_active":true}`,
		`{"session_id":"s","background_tasks":[]}`,
	} {
		p, err := claudecode.DecodePayload(strings.NewReader(in))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("event %s, active %v, background tasks known: %v (%d)\n", p.Event(), p.StopHookActive, p.BackgroundTasks != nil, len(p.BackgroundTasks))
	}
	// Output:
	// event Stop, active true, background tasks known: false (0)
	// event Stop, active false, background tasks known: true (0)
}

// The Turn a payload alone describes: a running shell the transcript has not recorded yet
// cannot be placed in the run, and a cron schedule never parks it.
func ExampleTurn() {
	p, _ := claudecode.DecodePayload(strings.NewReader(`{"session_id":"s","last_assistant_message":"Done.",
		"background_tasks":[{"id":"b1","type":"shell","status":"running","command":"npm run dev"}],
		"session_crons":[{"id":"c1","schedule":"0 9 * * *","recurring":true}]}`))
	t := claudecode.Turn(p, nil, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	fmt.Println(t.Harness, t.Message.Text, *t.HostWakes)
	fmt.Printf("%s %s started %v\n", t.Processes[0].ID, t.Processes[0].Status, !t.Processes[0].StartedAt.IsZero())
	fmt.Println(t.Schedules[0].Trigger)
	// Output:
	// claude-code Done. true
	// b1 running started false
	// cron
}

func ExampleInstall() {
	dir, _ := os.MkdirTemp("", "stopgate-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte("{\n  \"model\": \"opus\"\n}\n"), 0o644)

	changed, err := claudecode.Install(path, claudecode.Command("/usr/local/bin/stopgate"))
	fmt.Println(changed, err)
	changed, err = claudecode.Install(path, claudecode.Command("/usr/local/bin/stopgate"))
	fmt.Println(changed, err)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	changed, err = claudecode.Uninstall(path)
	b, _ = os.ReadFile(path)
	fmt.Print(changed, err, " ", string(b))
	// Output:
	// true <nil>
	// false <nil>
	// {
	//   "model": "opus",
	//   "hooks": {
	//     "Stop": [
	//       {
	//         "hooks": [
	//           {
	//             "type": "command",
	//             "command": "/usr/local/bin/stopgate hook claude-code",
	//             "timeout": 60
	//           }
	//         ]
	//       }
	//     ],
	//     "SubagentStop": [
	//       {
	//         "hooks": [
	//           {
	//             "type": "command",
	//             "command": "/usr/local/bin/stopgate hook claude-code",
	//             "timeout": 60
	//           }
	//         ]
	//       }
	//     ],
	//     "StopFailure": [
	//       {
	//         "hooks": [
	//           {
	//             "type": "command",
	//             "command": "/usr/local/bin/stopgate hook claude-code",
	//             "timeout": 60
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
	// true <nil> {
	//   "model": "opus"
	// }
}
