package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// rollout builds a hand-written Codex rollout, one line a call, in the 0.169 shape. Everything
// in it is made up: ids, times and text.
type rollout struct {
	lines []string
	base  time.Time
}

func newRollout() *rollout {
	return &rollout{base: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
}

func (r *rollout) at(sec float64) time.Time {
	return r.base.Add(time.Duration(sec * float64(time.Second)))
}

func (r *rollout) add(sec float64, typ string, payload any) *rollout {
	b, err := json.Marshal(map[string]any{"timestamp": r.at(sec).Format(time.RFC3339Nano), "type": typ, "payload": payload})
	if err != nil {
		panic(err)
	}
	r.lines = append(r.lines, string(b))
	return r
}

func (r *rollout) raw(line string) *rollout {
	r.lines = append(r.lines, line)
	return r
}

func (r *rollout) String() string { return strings.Join(r.lines, "\n") + "\n" }

func (r *rollout) meta(sec float64) *rollout {
	return r.add(sec, "session_meta", map[string]any{"id": "sess-1", "cwd": "/work", "originator": "codex_exec", "cli_version": "0.169.0", "source": "exec", "model_provider": "openai"})
}

func (r *rollout) task(sec float64, turn string) *rollout {
	r.add(sec, "event_msg", map[string]any{"type": "task_started", "turn_id": turn})
	return r.add(sec, "turn_context", map[string]any{"turn_id": turn, "cwd": "/work", "model": "gpt-5", "approval_policy": "never", "sandbox_policy": map[string]any{"type": "workspace-write"}, "effort": "medium"})
}

func (r *rollout) complete(sec float64, turn, last string) *rollout {
	return r.add(sec, "event_msg", map[string]any{"type": "task_complete", "turn_id": turn, "last_agent_message": last, "duration_ms": 1500})
}

func (r *rollout) user(sec float64, text string) *rollout {
	return r.add(sec, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}})
}

func (r *rollout) say(sec float64, text string) *rollout {
	return r.add(sec, "response_item", map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%v", sec), "content": []any{map[string]any{"type": "output_text", "text": text}}})
}

func (r *rollout) call(sec float64, id, name string, args any) *rollout {
	b, _ := json.Marshal(args)
	return r.add(sec, "response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(b), "call_id": id})
}

func (r *rollout) output(sec float64, id string, out any) *rollout {
	return r.add(sec, "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": out})
}

func (r *rollout) tokens(sec float64) *rollout {
	return r.add(sec, "event_msg", map[string]any{"type": "token_count", "info": nil})
}

func running(id string) string {
	return "Chunk ID: ab12cd\nWall time: 0.2500 seconds\nProcess running with session ID " + id + "\nOriginal token count: 0\nOutput:\n"
}

func exited(code int, output string) string {
	return fmt.Sprintf("Chunk ID: ef34ab\nWall time: 0.0100 seconds\nProcess exited with code %d\nOriginal token count: 1\nOutput:\n%s", code, output)
}

func readRollout(t *testing.T, r *rollout) *CodexSession {
	t.Helper()
	s, err := ReadCodex(strings.NewReader(r.String()), nil)
	if err != nil {
		t.Fatalf("ReadCodex: %v", err)
	}
	return s
}

func TestReadCodexSession(t *testing.T) {
	r := newRollout().meta(0).task(0.1, "turn-1").
		add(0.2, "response_item", map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "<permissions instructions>…"}}}).
		user(0.2, "<environment_context>\n  <cwd>/work</cwd>\n</environment_context>").
		add(0.25, "world_state", map[string]any{"full": true}).
		user(0.3, "Fix the parser.").
		add(1, "response_item", map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": "x"}).
		say(1, "Looking.").
		call(1, "c1", "exec_command", map[string]any{"cmd": "cat parser.go"}).
		tokens(1).
		output(2, "c1", exited(0, "package parser\n")).
		say(3, "I fixed it. Let me run the tests.").
		tokens(3).
		user(4, `<hook_prompt hook_run_id="stop:0:/work/.codex/hooks.json">Your last message ended with "Let me run the tests." &lt;do it&gt; &amp; report</hook_prompt>`).
		call(5, "c2", "exec_command", map[string]any{"cmd": "go test ./..."}).
		output(6, "c2", exited(0, "ok\n")).
		say(7, "Tests pass.").
		complete(7.5, "turn-1", "Tests pass.").
		add(8, "mystery_type", map[string]any{"x": 1})
	s := readRollout(t, r)

	if s.ID != "sess-1" || s.CWD != "/work" || len(s.Versions) != 1 || s.Versions[0] != "0.169.0" {
		t.Errorf("session %q cwd %q versions %v", s.ID, s.CWD, s.Versions)
	}
	if m := s.Meta; m.Originator != "codex_exec" || m.Source != "exec" || m.ModelProvider != "openai" {
		t.Errorf("meta %+v", m)
	}
	if len(s.Turns) != 1 {
		t.Fatalf("%d turns, want 1 (the environment context and the hook prompt start none)", len(s.Turns))
	}
	tu := s.Turns[0]
	if tu.Trigger != KindPrompt || tu.Prompt != "Fix the parser." || tu.FinalText != "Tests pass." || tu.ToolCalls != 2 ||
		tu.StopHookBlocks != 1 || tu.Duration != 1500*time.Millisecond || !tu.Start.Equal(r.at(0.3)) || !tu.End.Equal(r.at(8)) {
		t.Errorf("turn %+v", tu)
	}
	var kinds []string
	for _, m := range s.Messages {
		kinds = append(kinds, string(m.Kind))
	}
	want := "meta meta prompt assistant tool-result assistant hook-feedback assistant tool-result assistant"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("message kinds\n got %s\nwant %s", got, want)
	}
	first := s.Messages[3]
	if first.Text != "Looking." || len(first.ToolCalls) != 1 || first.Entries != 3 || first.Model != "gpt-5" || first.ID != "msg_1" {
		t.Errorf("the first response %+v: want its reasoning, text and call merged", first)
	}
	if c := first.ToolCalls[0]; c.Name != "exec_command" || string(c.Input) != `{"cmd":"cat parser.go"}` || c.Result == nil || !strings.Contains(c.Result.Text, "package parser") {
		t.Errorf("call %+v", c)
	}
	if len(s.StopHooks) != 1 {
		t.Fatalf("%d stop hooks, want 1", len(s.StopHooks))
	}
	if h := s.StopHooks[0]; h.Kind != StopHookFeedback || !h.Blocked || h.Active || h.Turn != 0 ||
		h.Text != `Your last message ended with "Let me run the tests." <do it> & report` {
		t.Errorf("stop hook %+v", h)
	}
	if len(s.Tasks) != 1 {
		t.Fatalf("%d tasks", len(s.Tasks))
	}
	if tk := s.Tasks[0]; tk.TurnID != "turn-1" || tk.Turn != 0 || tk.Model != "gpt-5" || tk.ApprovalPolicy != "never" || tk.SandboxPolicy != "workspace-write" ||
		tk.Effort != "medium" || tk.LastAgentMessage == nil || *tk.LastAgentMessage != "Tests pass." || !tk.Completed.Equal(r.at(7.5)) {
		t.Errorf("task %+v", tk)
	}
	if len(s.Shells) != 0 || s.Plan != nil || s.Todos != nil {
		t.Errorf("foreground commands and no plan: shells %v plan %v todos %v", s.Shells, s.Plan, s.Todos)
	}
	if s.Skipped != 1 || s.Entries["mystery_type"] != 1 || s.Entries["world_state"] != 1 || s.Entries["response_item/function_call"] != 2 {
		t.Errorf("skipped %d, entries %v", s.Skipped, s.Entries)
	}
}

func TestReadCodexShells(t *testing.T) {
	tests := []struct {
		name string
		// build adds the calls after a prompt at 0; the shell under test is session 7.
		build      func(r *rollout)
		status     ShellStatus
		exit       int // -1: none
		reads      int
		readAt     float64 // -1: never
		finishedAt float64 // -1: not finished
	}{
		{
			name: "started, never polled",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test", "yield_time_ms": 100}).output(2, "c1", running("7"))
			},
			status: ShellRunning, exit: -1, readAt: -1, finishedAt: -1,
		},
		{
			name: "polled while running",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test"}).output(2, "c1", running("7")).
					call(3, "p1", "write_stdin", map[string]any{"session_id": 7, "chars": ""}).output(4, "p1", running("7"))
			},
			status: ShellRunning, exit: -1, reads: 1, readAt: -1, finishedAt: -1,
		},
		{
			name: "polled to its exit",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test"}).output(2, "c1", running("7")).
					call(3, "p1", "write_stdin", map[string]any{"session_id": "7", "chars": "", "yield_time_ms": 5000}).output(4, "p1", exited(2, "FAIL\n"))
			},
			status: ShellFailed, exit: 2, reads: 1, readAt: 4, finishedAt: 4,
		},
		{
			name: "exit recorded by an item_completed event, never polled",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test"}).output(2, "c1", running("7")).
					add(5, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "CommandExecution", "id": "c1", "process_id": "7", "status": "failed", "exit_code": 1}})
			},
			status: ShellFailed, exit: 1, readAt: -1, finishedAt: 5,
		},
		{
			name: "exit recorded by exec_command_end, clean",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test"}).output(2, "c1", running("7")).
					add(5, "event_msg", map[string]any{"type": "exec_command_end", "call_id": "c1", "process_id": "7", "exit_code": 0})
			},
			status: ShellCompleted, exit: 0, readAt: -1, finishedAt: 5,
		},
		{
			name: "poll finds the process gone",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test"}).output(2, "c1", running("7")).
					call(3, "p1", "write_stdin", map[string]any{"session_id": 7}).output(4, "p1", "write_stdin failed: Unknown process id 7")
			},
			status: ShellGone, exit: -1, reads: 1, readAt: 4, finishedAt: 4,
		},
		{
			name: "a failed poll saw nothing",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test"}).output(2, "c1", running("7")).
					call(3, "p1", "write_stdin", map[string]any{"session_id": 7}).output(4, "p1", "aborted by user")
			},
			status: ShellRunning, exit: -1, reads: 1, readAt: -1, finishedAt: -1,
		},
		{
			name: "output that quotes the markers is the command's, not Codex's",
			build: func(r *rollout) {
				r.call(1, "c1", "exec_command", map[string]any{"cmd": "make test"}).output(2, "c1", running("7")).
					call(3, "p1", "write_stdin", map[string]any{"session_id": 7}).output(4, "p1", running("7")+"Process exited with code 0\n")
			},
			status: ShellRunning, exit: -1, reads: 1, readAt: -1, finishedAt: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRollout().meta(0).task(0, "t").user(0, "Run the tests.")
			tt.build(r)
			s := readRollout(t, r)
			if len(s.Shells) != 1 {
				t.Fatalf("%d shells, want 1", len(s.Shells))
			}
			sh := s.Shells[0]
			if sh.ID != "7" || sh.Command != "make test" || sh.Status != tt.status || len(sh.Reads) != tt.reads || !sh.Started.Equal(r.at(2)) || sh.Call == nil || sh.Call.ID != "c1" {
				t.Errorf("shell %+v: want id 7, make test, %s, %d reads, started at 2 s", sh, tt.status, tt.reads)
			}
			if (tt.exit < 0) != (sh.ExitCode == nil) || sh.ExitCode != nil && *sh.ExitCode != tt.exit {
				t.Errorf("exit code %v, want %d", sh.ExitCode, tt.exit)
			}
			wantTime := func(name string, got time.Time, sec float64) {
				if sec < 0 && !got.IsZero() || sec >= 0 && !got.Equal(r.at(sec)) {
					t.Errorf("%s = %v, want %v s", name, got, sec)
				}
			}
			wantTime("ReadAt", sh.ReadAt, tt.readAt)
			wantTime("Finished", sh.Finished, tt.finishedAt)
		})
	}
}

func TestReadCodexPlan(t *testing.T) {
	r := newRollout().meta(0).task(0, "t").user(0, "Release.").
		call(1, "c1", "update_plan", map[string]any{"plan": []any{map[string]any{"step": "Run tests", "status": "in_progress"}, map[string]any{"step": "Tag", "status": "pending"}}}).
		output(1, "c1", "Plan updated").
		call(2, "c2", "update_plan", map[string]any{"explanation": "Tests pass.", "plan": []any{map[string]any{"step": "Run tests", "status": "completed"}, map[string]any{"step": "Tag", "status": "in_progress"}}}).
		output(2, "c2", "Plan updated")
	s := readRollout(t, r)
	if s.Plan == nil || s.Plan.Explanation != "Tests pass." || s.Plan.Line != 7 {
		t.Fatalf("plan %+v", s.Plan)
	}
	got := fmt.Sprint(s.Todos)
	if want := "[{ Run tests completed  update_plan} { Tag in_progress  update_plan}]"; got != want {
		t.Errorf("todos %s, want %s", got, want)
	}

	empty := readRollout(t, newRollout().user(0, "x").call(1, "c1", "update_plan", map[string]any{"plan": []any{}}))
	if empty.Plan == nil || empty.Todos == nil || len(empty.Todos) != 0 {
		t.Errorf("an empty plan: plan %v todos %#v, want known and empty", empty.Plan, empty.Todos)
	}
	bad := readRollout(t, newRollout().user(0, "x").add(1, "response_item", map[string]any{"type": "function_call", "name": "update_plan", "arguments": "{not json", "call_id": "c1"}))
	if bad.Plan != nil || bad.Todos != nil {
		t.Errorf("unreadable arguments: plan %v todos %v, want none", bad.Plan, bad.Todos)
	}
}

func TestReadCodexTurnsAndTasks(t *testing.T) {
	r := newRollout().meta(0).
		task(1, "t1").user(1, "First.").say(2, "Done one.").complete(3, "t1", "Done one.").
		task(10, "t2").user(10, "Second.").say(11, "Working").
		add(12, "event_msg", map[string]any{"type": "error", "message": "stream disconnected"}).
		add(12.5, "event_msg", map[string]any{"type": "turn_aborted", "turn_id": "t2", "reason": "interrupted"}).
		add(13, "compacted", map[string]any{"message": "Summary of the work so far.", "replacement_history": []any{}}).
		add(14, "event_msg", map[string]any{"type": "task_complete", "turn_id": "t9", "last_agent_message": nil})
	s := readRollout(t, r)
	if len(s.Turns) != 2 || s.Turns[1].Prompt != "Second." || !s.Turns[1].Interrupted || s.Turns[0].Interrupted {
		t.Fatalf("turns %d; second %+v", len(s.Turns), s.Turns[len(s.Turns)-1])
	}
	if len(s.Tasks) != 3 {
		t.Fatalf("%d tasks, want 3 (the last one's start not in the file)", len(s.Tasks))
	}
	if tk := s.Tasks[1]; tk.TurnID != "t2" || tk.Turn != 1 || tk.Aborted != "interrupted" || !tk.Completed.IsZero() {
		t.Errorf("aborted task %+v", tk)
	}
	if tk := s.Tasks[2]; tk.TurnID != "t9" || tk.Turn != 1 || tk.LastAgentMessage != nil {
		t.Errorf("orphan task %+v", tk)
	}
	if len(s.Errors) != 1 || s.Errors[0].Message != "stream disconnected" || s.Errors[0].Turn != 1 {
		t.Errorf("errors %+v", s.Errors)
	}
	if len(s.Compactions) != 1 || s.Compactions[0].Summary != "Summary of the work so far." || s.Compactions[0].Turn != 1 {
		t.Errorf("compactions %+v", s.Compactions)
	}
}

func TestReadCodexOutputsAndCalls(t *testing.T) {
	r := newRollout().user(0, "Go.").
		add(1, "response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch", "call_id": "p1"}).
		add(1, "response_item", map[string]any{"type": "local_shell_call", "id": "ls1", "action": map[string]any{"type": "exec", "command": []string{"ls"}}}).
		add(2, "response_item", map[string]any{"type": "custom_tool_call_output", "call_id": "p1", "output": []any{map[string]any{"type": "input_text", "text": "Done!"}}}).
		add(2, "response_item", map[string]any{"type": "function_call_output", "call_id": "ls1", "output": map[string]any{"content": "boom", "success": false}})
	s := readRollout(t, r)
	if len(s.Messages) != 3 {
		t.Fatalf("%d messages, want prompt, one response, one run of outputs", len(s.Messages))
	}
	calls := s.Messages[1].ToolCalls
	if len(calls) != 2 || calls[0].Name != "apply_patch" || string(calls[0].Input) != `"*** Begin Patch\n*** End Patch"` || calls[1].Name != "local_shell" || calls[1].ID != "ls1" {
		t.Fatalf("calls %+v", calls)
	}
	if res := calls[0].Result; res == nil || res.Text != "Done!" || res.IsError {
		t.Errorf("patch result %+v", res)
	}
	if res := calls[1].Result; res == nil || res.Text != "boom" || !res.IsError {
		t.Errorf("shell result %+v", res)
	}
	if out := s.Messages[2]; out.Kind != KindToolResult || len(out.ToolResults) != 2 || out.Entries != 2 {
		t.Errorf("outputs %+v", out)
	}
}

func TestReadCodexMalformed(t *testing.T) {
	r := newRollout().user(0, "Hi.").
		raw(`not json`).
		raw(`[1,2]`).
		raw(`{"payload":{}}`).
		raw(`{"type":"response_item","payload":{"type":"message","content":"a string"}}`).
		raw(`{"type":"event_msg","payload":{"type":7}}`).
		raw(``).
		say(1, "Hello.")
	s, err := ReadCodex(strings.NewReader(r.String()), &Options{MaxMalformed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.MalformedCount != 5 || len(s.Malformed) != 3 {
		t.Errorf("malformed %d, kept %d; want 5, 3", s.MalformedCount, len(s.Malformed))
	}
	if !errors.Is(s.Malformed[1], ErrNotObject) || !errors.Is(s.Malformed[2], ErrNoType) || s.Malformed[0].Line != 2 {
		t.Errorf("malformed %v", s.Malformed)
	}
	if len(s.Turns) != 1 || s.Turns[0].FinalText != "Hello." || s.Lines != 8 {
		t.Errorf("turns %d, lines %d", len(s.Turns), s.Lines)
	}
}

func TestReadCodexLongLine(t *testing.T) {
	long := newRollout().output(1, "c1", strings.Repeat("x", 200<<10))
	r := newRollout().user(0, "Hi.").raw(long.lines[0]).say(2, "Done.")
	s, err := ReadCodex(strings.NewReader(r.String()), &Options{MaxLineBytes: 100 << 10, MaxResultBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if s.MalformedCount != 1 || !errors.Is(s.Malformed[0], ErrLineTooLong) || s.Turns[0].FinalText != "Done." {
		t.Errorf("malformed %v, final %q", s.Malformed, s.Turns[0].FinalText)
	}
	s = readRollout(t, newRollout().user(0, "Hi.").call(1, "c1", "exec_command", map[string]any{"cmd": "x"}).output(2, "c1", strings.Repeat("é", 70<<10)))
	if res := s.Messages[1].ToolCalls[0].Result; res == nil || !res.TextTruncated || len(res.Text) > DefaultMaxResultBytes {
		t.Errorf("a long output is kept whole: %d bytes", len(res.Text))
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n > 0 {
		return 0, errors.New("disk on fire")
	}
	f.n++
	return copy(p, newRollout().user(0, "Hi.").String()), nil
}

func TestReadCodexIOError(t *testing.T) {
	s, err := ReadCodex(&failingReader{}, nil)
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || s == nil || len(s.Turns) != 1 {
		t.Errorf("err %v, session %v", err, s)
	}
	if _, err := ReadCodexFile("testdata/no-such-rollout.jsonl", nil); err == nil {
		t.Error("a missing file is no error")
	}
}

// TestReadCodexRealRollout reads the rollout Codex 0.169.0 wrote in the end-to-end suite's
// background-process scenario (kept, sanitized, with the hook package's fixtures).
func TestReadCodexRealRollout(t *testing.T) {
	s, err := ReadCodexFile("../testdata/codex/rollout-0.169.0.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.MalformedCount != 0 || s.Skipped != 0 || s.Meta.CLIVersion != "0.169.0" || s.Meta.Originator != "codex_exec" {
		t.Errorf("malformed %d skipped %d meta %+v", s.MalformedCount, s.Skipped, s.Meta)
	}
	if len(s.Turns) != 1 || len(s.Tasks) != 1 || s.Tasks[0].Turn != 0 || s.Turns[0].StopHookBlocks != 1 {
		t.Fatalf("turns %d tasks %d", len(s.Turns), len(s.Tasks))
	}
	if len(s.Shells) != 1 {
		t.Fatalf("%d shells, want the background job", len(s.Shells))
	}
	sh := s.Shells[0]
	if sh.Status != ShellFailed || sh.ExitCode == nil || *sh.ExitCode != 3 || len(sh.Reads) != 1 || sh.ReadAt.IsZero() || sh.Unread() {
		t.Errorf("shell %+v: want exit 3, read once after it ended", sh)
	}
	if len(s.StopHooks) != 1 || !strings.HasPrefix(s.StopHooks[0].Text, "Background-process completion gate") {
		t.Errorf("stop hooks %+v", s.StopHooks)
	}
}
