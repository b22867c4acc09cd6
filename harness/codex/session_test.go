package codex

import (
	"encoding/json"
	"fmt"
	"github.com/stopgate/stopgate/harness/internal/turns"
	"os"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/harness/codex/rollout"
)

// codexHookPrompt is the user message Codex writes when a Stop hook blocks: the hook's reason
// in a <hook_prompt>.
func codexHookPrompt(reason string) map[string]any {
	return map[string]any{"type": "message", "role": "user", "content": []any{
		map[string]any{"type": "input_text", "text": `<hook_prompt hook_run_id="stop:1:/work/.codex/hooks.json">` + reason + `</hook_prompt>`}}}
}

// codexSessionCases are the rollouts TestCodexSessionTurn reads: the recorded one (nil build)
// and hand-written ones, each turn checked by check when it is set.
var codexSessionCases = []struct {
	name  string
	build func(r *codexRollout)
	check func(t *testing.T, r *codexRollout, i int, got stopgate.Turn)
}{
	{name: "recorded-0.169.0"},
	{
		name: "as-of",
		build: func(r *codexRollout) {
			r.prompt(0, "t1", "Release it.").
				plan(1, "p1", "Run tests=completed", "Tag=pending").
				call(2, "bg", "exec_command", map[string]any{"cmd": "make e2e"}, codexRunning("9")).
				say(3, "The suite is running; I'll tag once it passes.")
			r.add(3.5, "event_msg", map[string]any{"type": "task_complete", "turn_id": "t1"})
			r.prompt(10, "t2", "Is it done?").
				call(11, "poll", "write_stdin", map[string]any{"session_id": 9, "chars": ""}, codexExited(1)).
				say(12, "It failed: one test is red.")
			r.add(12.5, "event_msg", map[string]any{"type": "task_complete", "turn_id": "t2"})
			r.prompt(20, "t3", "Fix it and tag.").say(21, "Fixing the test.")
			r.add(22, "event_msg", map[string]any{"type": "error", "message": "stream disconnected before completion: connection reset"})
			r.add(22.5, "event_msg", map[string]any{"type": "task_complete", "turn_id": "t3"})
		},
		check: func(t *testing.T, r *codexRollout, i int, got stopgate.Turn) {
			wantStatus := []string{gate.StatusRunning, gate.StatusExited, gate.StatusExited}[i]
			if len(got.Processes) != 1 || got.Processes[0].ID != "9" || got.Processes[0].Status != wantStatus || (got.Processes[0].LastReadAt == nil) != (i == 0) {
				t.Errorf("turn %d: processes %+v, want session 9 %s, read after turn 0", i, got.Processes, wantStatus)
			}
			if (got.Todos != nil) != (i == 2) {
				t.Errorf("turn %d: todos %v, want them for the last turn only", i, got.Todos)
			}
			if (got.Error != nil) != (i == 2) || i == 2 && !strings.HasPrefix(got.Error.Message, "stream disconnected") {
				t.Errorf("turn %d: error %+v, want the last turn's", i, got.Error)
			}
			if want := r.at([]float64{0, 10, 20}[i]); !got.RunStartedAt.Equal(want) {
				t.Errorf("turn %d: run started %v, want %v", i, got.RunStartedAt, want)
			}
			if want := r.at([]float64{3.5, 12.5, 22.5}[i]); !got.Now.Equal(want) {
				t.Errorf("turn %d: now %v, want its task_complete %v", i, got.Now, want)
			}
		},
	},
	{
		name: "blocked-then-error-recovered",
		build: func(r *codexRollout) {
			r.prompt(0, "t1", "Ship it.")
			r.add(1, "event_msg", map[string]any{"type": "error", "message": "unexpected status 500 Internal Server Error"})
			r.say(2, "Let me run the tests.")
			r.add(3, "response_item", codexHookPrompt("Your last message ended with a promise."))
			r.call(4, "c1", "exec_command", map[string]any{"cmd": "go test ./..."}, codexExited(0)).say(5, "The tests pass. Shipped.")
			r.add(5.5, "event_msg", map[string]any{"type": "task_complete", "turn_id": "t1"})
		},
		check: func(t *testing.T, _ *codexRollout, _ int, got stopgate.Turn) {
			if got.Nudges.Consecutive != 1 || got.Error != nil || got.Message == nil || got.Message.Text != "The tests pass. Shipped." {
				t.Errorf("turn %+v: want the block counted and the error the agent went on from left out", got)
			}
		},
	},
	{
		name: "steered",
		build: func(r *codexRollout) {
			r.prompt(0, "t1", "Migrate the users table.").say(1, "Migrating users.")
			// The user's next message arrives while the task runs: Codex steers the task with it.
			r.add(2, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Orders too."}}})
			r.say(3, "Users and orders are migrated.")
			r.add(4, "event_msg", map[string]any{"type": "task_complete", "turn_id": "t1"})
		},
		check: func(t *testing.T, r *codexRollout, i int, got stopgate.Turn) {
			if want := r.at([]float64{1, 4}[i]); !got.Now.Equal(want) {
				t.Errorf("turn %d: now %v, want %v: the task's completion is the second turn's", i, got.Now, want)
			}
		},
	},
	{
		name: "subagent",
		build: func(r *codexRollout) {
			r.lines = r.lines[:0]
			r.add(0, "session_meta", map[string]any{"id": "cx-2", "agent_nickname": "Pascal", "agent_role": "worker",
				"source": map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": "cx-1"}}}})
			r.prompt(1, "t1", "Do the sub-task.").say(2, "Sub-task done.")
		},
		check: func(t *testing.T, _ *codexRollout, _ int, got stopgate.Turn) {
			if got.Session != "cx-2" || got.Agent != "Pascal" || got.HostWakes == nil || *got.HostWakes || got.Subagents != nil {
				t.Errorf("turn %+v", got)
			}
		},
	},
}

// TestCodexSessionTurn builds every turn of the recorded and hand-written rollouts, checks
// each against Turn on the rollout as it stood at the turn's last stop (the lines before
// the next prompt) with the payload Codex sends then, and pins it in a golden file.
func TestCodexSessionTurn(t *testing.T) {
	for _, tt := range codexSessionCases {
		t.Run(tt.name, func(t *testing.T) {
			r := newCodexRollout(t)
			var text string
			if tt.build == nil {
				text = readText(t, codexRolloutFile)
			} else {
				tt.build(r)
				text = strings.Join(r.lines, "\n") + "\n"
			}
			s, err := rollout.ReadCodex(strings.NewReader(text), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Turns) == 0 {
				t.Fatal("no turns")
			}
			lines := strings.SplitAfter(text, "\n")
			for i := range s.Turns {
				got := SessionTurn(s, i)
				if got.Harness != Name || got.Now.IsZero() || got.Now.After(s.Turns[i].End) {
					t.Errorf("turn %d: harness %q, now %v; want codex, by the turn's end %v", i, got.Harness, got.Now, s.Turns[i].End)
				}
				prefix := text
				if i+1 < len(s.Turns) {
					prefix = strings.Join(lines[:s.Turns[i+1].Line-1], "")
				}
				checkCodexAsOfStop(t, s, i, prefix, got)
				if tt.check != nil {
					tt.check(t, r, i, got)
				}
				golden(t, fmt.Sprintf("sessionturn/codex-%s-turn%d.json", tt.name, i), goldenTurn(t, got))
			}
		})
	}
}

// checkCodexAsOfStop compares got, turn i of s, with what Turn builds from prefix (the
// rollout as it stood at the turn's last stop) and the payload Codex sends then. The plan of
// an earlier turn and the error the turn ended on are SessionTurn's own: the plan is
// unknown for an earlier turn, and a Stop payload never carries an error.
func checkCodexAsOfStop(t *testing.T, s *rollout.CodexSession, i int, prefix string, got stopgate.Turn) {
	t.Helper()
	then, err := rollout.ReadCodex(strings.NewReader(prefix), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := Payload{}
	for _, tk := range s.Tasks {
		if tk.Turn == i {
			p.TurnID = tk.TurnID
		}
	}
	for _, h := range s.StopHooks {
		p.StopHookActive = p.StopHookActive || h.Turn == i && h.Blocked
	}
	if s.AgentID != "" {
		p.HookEventName = EventSubagentStop
	}
	want := Turn(p, then, got.Now)
	if i < len(s.Turns)-1 {
		want.Todos = nil
	}
	want.Error = got.Error
	if g, w := turnJSON(t, got), turnJSON(t, want); g != w {
		t.Errorf("turn %d differs from Turn at its stop:\n got: %s\nwant: %s", i, g, w)
	}
}

// TestCodexSessionTurnOutOfRange checks the zero Turn for a turn that does not exist.
func TestCodexSessionTurnOutOfRange(t *testing.T) {
	s := newCodexRollout(t).prompt(0, "t1", "Hi.").say(1, "Hello.").read()
	for _, tt := range []struct {
		name string
		s    *rollout.CodexSession
		i    int
	}{
		{"nil session", nil, 0},
		{"no embedded session", &rollout.CodexSession{}, 0},
		{"negative", s, -1},
		{"past the end", s, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := SessionTurn(tt.s, tt.i); turnJSON(t, got) != "{}" {
				t.Errorf("turn %s, want the zero Turn", turnJSON(t, got))
			}
		})
	}
}

// FuzzCodexSessionTurn checks that any rollout's turns build without panicking, each by its
// turn's end with at most turns.MaxSteps steps, and that the supervisor can decide each.
func FuzzCodexSessionTurn(f *testing.F) {
	if b, err := os.ReadFile(codexRolloutFile); err == nil {
		f.Add(string(b))
	}
	for _, tt := range codexSessionCases {
		if tt.build != nil {
			r := newCodexRollout(nil) // the builders fail a test only on values JSON cannot encode
			tt.build(r)
			f.Add(strings.Join(r.lines, "\n") + "\n")
		}
	}
	f.Add(`{"timestamp":"t","type":"event_msg","payload":{"type":"error","message":"x"}}` + "\n" +
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt>go</hook_prompt>"}]}}`)
	sup := stopgate.New(stopgate.Config{})
	f.Fuzz(func(t *testing.T, in string) {
		s, err := rollout.ReadCodex(strings.NewReader(in), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Turns {
			got := SessionTurn(s, i)
			if got.Harness != Name || got.Now.After(s.Turns[i].End) || len(got.Steps) > turns.MaxSteps || got.HostWakes == nil || *got.HostWakes {
				t.Fatalf("turn %d: %s", i, turnJSON(t, got))
			}
			if d := sup.Decide(t.Context(), got); d.Verdict == "" {
				t.Fatalf("turn %d: no verdict", i)
			}
		}
		if got := SessionTurn(s, len(s.Turns)); got.Harness != "" {
			t.Fatalf("a turn past the end: %s", turnJSON(t, got))
		}
	})
}

// turnJSON renders a Turn as compact JSON, for comparing two.
func turnJSON(t testing.TB, tu stopgate.Turn) string {
	t.Helper()
	b, err := json.Marshal(tu)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readText returns the contents of the file at path.
func readText(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
