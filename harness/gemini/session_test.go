package gemini

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/gemini/chat"
)

// geminiBackground is a run_shell_command call that Gemini CLI moved to the background as pid.
func geminiBackground(command string, pid int) geminiToolUse {
	return geminiToolUse{"run_shell_command", map[string]any{"command": command, "is_background": true}, "success",
		fmt.Sprintf("Command moved to background (PID: %d). Output hidden. Press Ctrl+B to view.", pid)}
}

// geminiSessionCases are the sessions TestGeminiSessionTurn reads: the recorded one (nil build)
// and hand-written ones, with the number of turns Turns finds, each turn checked by check
// when it is set.
var geminiSessionCases = []struct {
	name  string
	build func(c *geminiChat)
	turns int
	check func(t *testing.T, c *geminiChat, i int, got stopgate.Turn)
}{
	{name: "recorded-0.61.0", turns: 2},
	{
		name: "as-of",
		build: func(c *geminiChat) {
			c.user(0, "<session_context>\nThis is the Gemini CLI.\n</session_context>")
			c.user(1, "Release it.")
			c.model(2, "", geminiToolUse{"write_todos", todosArgs("Run tests", "completed", "Tag", "pending"), "success", "Updated."},
				geminiBackground("make e2e", 101))
			c.model(3, "The suite is running; I'll tag once it passes.")
			c.user(10, "Is it done?")
			c.model(11, "",
				geminiToolUse{"list_background_processes", map[string]any{}, "success", "- [PID 101] EXITED: `make e2e` (Exit Code: 3)"},
				geminiToolUse{"read_background_output", map[string]any{"pid": 101}, "success", "Full Log Output:\nFAIL"})
			c.model(13, "It failed with exit code 3.")
			c.user(20, "Fix it.")
			c.model(21, "", geminiToolUse{"run_shell_command", map[string]any{"command": "go test ./..."}, "success", "ok"})
			c.user(22, "[System: You successfully executed a tool but returned an empty response. Please analyze the tool output and explain your progress or final answer.]")
			c.model(23, "Fixing the test.")
			c.typed(24, "error", "[API Error: 503 The model is overloaded.]")
		},
		turns: 3,
		check: func(t *testing.T, c *geminiChat, i int, got stopgate.Turn) {
			wantStatus := []string{"running", "exited", "exited"}[i]
			if len(got.Processes) != 1 || got.Processes[0].ID != "101" || got.Processes[0].Status != wantStatus || (got.Processes[0].LastReadAt == nil) != (i == 0) {
				t.Errorf("turn %d: processes %+v, want pid 101 %s, read after turn 0", i, got.Processes, wantStatus)
			}
			if (got.Todos != nil) != (i == 2) {
				t.Errorf("turn %d: todos %v, want them for the last turn only", i, got.Todos)
			}
			if (got.Error != nil) != (i == 2) {
				t.Errorf("turn %d: error %+v, want the last turn's", i, got.Error)
			}
			if want := c.at([]float64{1, 10, 20}[i]); !got.RunStartedAt.Equal(want) {
				t.Errorf("turn %d: run started %v, want %v", i, got.RunStartedAt, want)
			}
			if want := c.at([]float64{3, 13, 24}[i]); !got.Now.Equal(want) {
				t.Errorf("turn %d: now %v, want %v", i, got.Now, want)
			}
		},
	},
	{
		name: "resumed",
		build: func(c *geminiChat) {
			c.model(1, "Picking up where we left off.")
			c.user(5, "Next step.")
			c.model(6, "Done.")
		},
		turns: 2,
		check: func(t *testing.T, _ *geminiChat, i int, got stopgate.Turn) {
			if i == 0 && (!got.RunStartedAt.IsZero() || got.Message == nil || got.Message.Text != "Picking up where we left off.") {
				t.Errorf("the turn before any prompt: %+v", got)
			}
		},
	},
	{
		name: "context-only",
		build: func(c *geminiChat) {
			c.user(0, "<session_context>\nThis is the Gemini CLI.\n</session_context>")
		},
	},
}

// TestGeminiSessionTurn builds every turn of the recorded and hand-written sessions, checks
// each against Turn on the session file as it stood at the turn's stop (the records
// before the next turn's prompt) with the payload Gemini CLI sends then, and pins it in a
// golden file.
func TestGeminiSessionTurn(t *testing.T) {
	for _, tt := range geminiSessionCases {
		t.Run(tt.name, func(t *testing.T) {
			c := newGeminiChat(t, "gem-1")
			text := readText(t, geminiSessionFile)
			if tt.build != nil {
				tt.build(c)
				text = c.String()
			}
			s, err := chat.ReadGemini(strings.NewReader(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			turns := Turns(s)
			if len(turns) != tt.turns {
				t.Fatalf("%d turns, want %d", len(turns), tt.turns)
			}
			lines := strings.SplitAfter(text, "\n")
			for i, run := range turns {
				got := SessionTurn(s, i)
				if got.Harness != Name || got.Session != s.ID {
					t.Errorf("turn %d: harness %q, session %q", i, got.Harness, got.Session)
				}
				prefix := text
				if i+1 < len(turns) {
					prefix = strings.Join(lines[:turns[i+1][0].Line-1], "")
				}
				checkGeminiAsOfStop(t, s, i, run, prefix, got)
				if tt.check != nil {
					tt.check(t, c, i, got)
				}
				golden(t, fmt.Sprintf("sessionturn/gemini-%s-turn%d.json", tt.name, i), goldenTurn(t, got))
			}
			if got := SessionTurn(s, len(turns)); turnJSON(t, got) != "{}" {
				t.Errorf("a turn past the end: %s", turnJSON(t, got))
			}
		})
	}
}

// checkGeminiAsOfStop compares got, turn i of s (the messages run), with what Turn
// builds from prefix (the session file as it stood at the turn's stop) and the payload Gemini
// CLI sends then. The todo list of an earlier turn is unknown to SessionTurn.
func checkGeminiAsOfStop(t *testing.T, s *chat.GeminiSession, i int, run []*chat.GeminiMessage, prefix string, got stopgate.Turn) {
	t.Helper()
	then, err := chat.ReadGemini(strings.NewReader(prefix), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := Payload{SessionID: s.ID}
	if run[0].Prompt() {
		p.Prompt = &run[0].Text
	}
	want := Turn(p, then, got.Now)
	if i < len(Turns(s))-1 {
		want.Todos = nil
	}
	if g, w := turnJSON(t, got), turnJSON(t, want); g != w {
		t.Errorf("turn %d differs from Turn at its stop:\n got: %s\nwant: %s", i, g, w)
	}
}

// TestGeminiTurns checks where sessions split into turns.
func TestGeminiTurns(t *testing.T) {
	tests := []struct {
		name  string
		build func(c *geminiChat)
		want  string // each turn's message ids, turns separated by " | "
	}{
		{"no messages", func(*geminiChat) {}, ""},
		{"a prompt and its answer", func(c *geminiChat) { c.user(0, "Hi."); c.model(1, "Hello.") }, "u-1 m-2"},
		{"an unanswered prompt", func(c *geminiChat) { c.user(0, "Hi.") }, "u-1"},
		{"tool results start no turn", func(c *geminiChat) {
			c.user(0, "List.")
			c.model(1, "", geminiToolUse{"ls", map[string]any{}, "success", "a b"})
			c.model(2, "a and b.")
		}, "u-1 m-2 r-3 m-4"},
		{"notices stay with their turn", func(c *geminiChat) {
			c.user(0, "Go.")
			c.typed(1, "info", "User cancelled the request.")
			c.user(2, "Go again.")
			c.typed(3, "error", "[API Error: boom]")
		}, "u-1 x-2 | u-3 x-4"},
		{"the session context starts no turn", func(c *geminiChat) {
			c.user(0, "<session_context>ctx</session_context>")
			c.user(1, "Go.")
			c.model(2, "Gone.")
		}, "u-2 m-3"},
		{"Gemini CLI's nudge after an empty answer starts no turn", func(c *geminiChat) {
			c.user(0, "Go.")
			c.model(1, "", geminiToolUse{"ls", map[string]any{}, "success", "a"})
			c.user(2, "[System: You successfully executed a tool but returned an empty response. Please analyze the tool output.]")
			c.model(3, "Listed a.")
		}, "u-1 m-2 r-3 u-4 m-5"},
		{"a hook's continuation starts a turn", func(c *geminiChat) {
			c.user(0, "Go.")
			c.model(1, "Let me check.")
			c.user(2, "Your last message ended with a promise.")
			c.model(3, "Checked.")
		}, "u-1 m-2 | u-3 m-4"},
		{"model messages before the first prompt", func(c *geminiChat) {
			c.typed(0, "info", "Resumed.")
			c.model(1, "Where were we?")
			c.user(2, "Here.")
		}, "x-1 m-2 | u-3"},
		{"notices before the first prompt make no turn", func(c *geminiChat) {
			c.typed(0, "info", "Resumed.")
			c.user(1, "Here.")
		}, "u-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newGeminiChat(t, "gem-1")
			tt.build(c)
			var parts []string
			for _, run := range Turns(c.read()) {
				var ids []string
				for _, m := range run {
					ids = append(ids, m.ID)
				}
				parts = append(parts, strings.Join(ids, " "))
			}
			if got := strings.Join(parts, " | "); got != tt.want {
				t.Errorf("turns %q, want %q", got, tt.want)
			}
		})
	}
	if Turns(nil) != nil || SessionTurn(nil, 0).Harness != "" {
		t.Error("a nil session has turns")
	}
}

// FuzzGeminiSessionTurn checks that any session's turns build without panicking, with at most
// maxSteps steps, each by the time of the next, and that the supervisor can decide each.
func FuzzGeminiSessionTurn(f *testing.F) {
	if b, err := os.ReadFile(geminiSessionFile); err == nil {
		f.Add(string(b))
	}
	for _, tt := range geminiSessionCases {
		if tt.build != nil {
			c := newGeminiChat(nil, "gem-1") // the builders fail a test only on values JSON cannot encode
			tt.build(c)
			f.Add(c.String())
		}
	}
	f.Add(`{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"user","content":"go"},{"id":"b","type":"gemini","content":"ok"}]}`)
	f.Add(`{"id":"a","type":"user","content":"go"}` + "\n" + `{"$rewindTo":"a"}` + "\n" + `{"id":"b","type":"gemini","content":"x","toolCalls":[{"name":"write_todos","args":{"todos":[{"description":"d","status":"pending"}]}}]}`)
	sup := stopgate.New(stopgate.Config{})
	f.Fuzz(func(t *testing.T, in string) {
		s, err := chat.ReadGemini(strings.NewReader(in), nil)
		if err != nil {
			t.Fatal(err)
		}
		turns := Turns(s)
		n := 0
		for i, run := range turns {
			if len(run) == 0 {
				t.Fatalf("turn %d is empty", i)
			}
			n += len(run)
			got := SessionTurn(s, i)
			if got.Harness != Name || len(got.Steps) > maxSteps {
				t.Fatalf("turn %d: %s", i, turnJSON(t, got))
			}
			if d := sup.Decide(t.Context(), got); d.Verdict == "" {
				t.Fatalf("turn %d: no verdict", i)
			}
		}
		if n > len(s.Messages) {
			t.Fatalf("%d messages in turns, %d in the session", n, len(s.Messages))
		}
		if got := SessionTurn(s, len(turns)); got.Harness != "" {
			t.Fatalf("a turn past the end: %s", turnJSON(t, got))
		}
	})
}
