package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"github.com/stopgate/stopgate/hook"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/harness/codex/rollout"
)

// The Codex fixtures, recorded by the end-to-end suite from Codex 0.169.0 and sanitized (see
// e2e/codex_test.go, -record-codex).
const (
	codexPayloadFile = "testdata/codex/stop-payload-0.169.0.json"
	codexRolloutFile = "testdata/codex/rollout-0.169.0.jsonl"
)

// codexGolden compares got with testdata/codex/name, rewriting it under -update.
func codexGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "codex", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./hook -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update and review the diff)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// codexRollout builds a hand-written Codex rollout in the 0.169 shape. Everything in it is
// made up: ids, times and text.
type codexRollout struct {
	t     *testing.T
	base  time.Time
	lines []string
}

func newCodexRollout(t *testing.T) *codexRollout {
	r := &codexRollout{t: t, base: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	r.add(0, "session_meta", map[string]any{"id": "cx-1", "cwd": "/work", "originator": "codex_exec", "cli_version": "0.169.0", "source": "exec"})
	return r
}

func (r *codexRollout) at(sec float64) time.Time {
	return r.base.Add(time.Duration(sec * float64(time.Second)))
}

func (r *codexRollout) add(sec float64, typ string, payload any) *codexRollout {
	b, err := json.Marshal(map[string]any{"timestamp": r.at(sec).Format(time.RFC3339Nano), "type": typ, "payload": payload})
	if err != nil {
		r.t.Fatal(err)
	}
	r.lines = append(r.lines, string(b))
	return r
}

// prompt starts task turn with the user's text at sec.
func (r *codexRollout) prompt(sec float64, turn, text string) *codexRollout {
	r.add(sec, "event_msg", map[string]any{"type": "task_started", "turn_id": turn})
	r.add(sec, "turn_context", map[string]any{"turn_id": turn, "cwd": "/work", "model": "gpt-5"})
	return r.add(sec, "response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}}})
}

func (r *codexRollout) say(sec float64, text string) *codexRollout {
	r.add(sec, "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}})
	return r.add(sec, "event_msg", map[string]any{"type": "token_count"})
}

func (r *codexRollout) call(sec float64, id, name string, args any, output string) *codexRollout {
	b, _ := json.Marshal(args)
	r.add(sec, "response_item", map[string]any{"type": "function_call", "name": name, "arguments": string(b), "call_id": id})
	r.add(sec, "event_msg", map[string]any{"type": "token_count"})
	return r.add(sec+0.5, "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": output})
}

func (r *codexRollout) plan(sec float64, id string, steps ...string) *codexRollout {
	var plan []map[string]string
	for _, s := range steps {
		step, status, _ := strings.Cut(s, "=")
		plan = append(plan, map[string]string{"step": step, "status": status})
	}
	return r.call(sec, id, "update_plan", map[string]any{"plan": plan}, "Plan updated")
}

func (r *codexRollout) write(dir string) string {
	path := filepath.Join(dir, "rollout.jsonl")
	writeFile(r.t, path, strings.Join(r.lines, "\n")+"\n")
	return path
}

func (r *codexRollout) read() *rollout.CodexSession {
	s, err := rollout.ReadCodex(strings.NewReader(strings.Join(r.lines, "\n")+"\n"), nil)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

func codexRunning(id string) string {
	return "Chunk ID: 1\nWall time: 0.2 seconds\nProcess running with session ID " + id + "\nOriginal token count: 0\nOutput:\n"
}

func codexExited(code int) string {
	return fmt.Sprintf("Chunk ID: 2\nWall time: 0.1 seconds\nProcess exited with code %d\nOriginal token count: 1\nOutput:\nout\n", code)
}

// codexPayload renders a Codex Stop payload for the rollout at path.
func codexPayload(t *testing.T, session, path, last string, active bool) string {
	t.Helper()
	p := map[string]any{
		"session_id": session, "turn_id": "t1", "transcript_path": path, "cwd": "/work",
		"hook_event_name": "Stop", "model": "gpt-5", "permission_mode": "default",
		"stop_hook_active": active, "last_assistant_message": last,
	}
	if path == "" {
		p["transcript_path"] = nil
	}
	return payloadJSON(t, p)
}

func runCodex(t *testing.T, payload string, opts *Options) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Codex(context.Background(), strings.NewReader(payload), &out, &errOut, opts)
	return out.String(), errOut.String(), code
}

func TestDecodeCodexPayload(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Payload
	}{
		{
			name: "the recorded payload's shape",
			in:   `{"session_id":"s","turn_id":"t","transcript_path":"/r.jsonl","cwd":"/w","hook_event_name":"Stop","model":"gpt-5","permission_mode":"default","stop_hook_active":true,"last_assistant_message":"Done."}`,
			want: Payload{SessionID: "s", TurnID: "t", TranscriptPath: "/r.jsonl", CWD: "/w", HookEventName: EventStop, Model: "gpt-5", PermissionMode: "default", StopHookActive: true, LastAssistantMessage: ptr("Done.")},
		},
		{
			name: "nullable fields null",
			in:   `{"session_id":"s","transcript_path":null,"last_assistant_message":null}`,
			want: Payload{SessionID: "s"},
		},
		{
			name: "an empty final message is not an absent one",
			in:   `{"last_assistant_message":""}`,
			want: Payload{LastAssistantMessage: ptr("")},
		},
		{
			name: "SubagentStop",
			in:   `{"hook_event_name":"SubagentStop","agent_id":"a1","agent_type":"worker","agent_transcript_path":"/a.jsonl","transcript_path":"/p.jsonl"}`,
			want: Payload{HookEventName: EventSubagentStop, AgentID: "a1", AgentType: "worker", AgentTranscriptPath: "/a.jsonl", TranscriptPath: "/p.jsonl"},
		},
		{
			name: "fields of the wrong type are read as absent and named",
			in:   `{"session_id":7,"stop_hook_active":"yes","last_assistant_message":["x"],"agent_id":{},"model":"m","extra":1}`,
			want: Payload{Model: "m", Ignored: []string{"session_id", "stop_hook_active", "last_assistant_message", "agent_id"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodePayload(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
	for _, in := range []string{"", " ", "null", "[]", `"Stop"`, "{", `{"a":1} {}`, strings.Repeat(" ", hookio.MaxPayloadBytes+1)} {
		if _, err := DecodePayload(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), hookio.ErrPayload.Error()) {
			t.Errorf("DecodePayload(%.20q) = %v, want hookio.ErrPayload", in, err)
		}
	}
}

func TestCodexPayloadEvent(t *testing.T) {
	for _, tt := range []struct {
		p    Payload
		want string
	}{
		{Payload{}, EventStop},
		{Payload{HookEventName: "Stop", AgentID: "a"}, EventStop},
		{Payload{AgentID: "a"}, EventSubagentStop},
		{Payload{AgentTranscriptPath: "/a"}, EventSubagentStop},
		{Payload{HookEventName: "PreToolUse"}, "PreToolUse"},
	} {
		if got := tt.p.Event(); got != tt.want {
			t.Errorf("%+v.Event() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestDecodeCodexRecordedPayload decodes the Stop payload Codex 0.169.0 sent.
func TestDecodeCodexRecordedPayload(t *testing.T) {
	f, err := os.Open(codexPayloadFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := DecodePayload(f)
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "00000000-0000-4000-8000-0000000000c1" || got.TurnID != "00000000-0000-4000-8000-0000000000c2" ||
		got.Event() != EventStop || got.StopHookActive || got.LastAssistantMessage == nil || got.Model != "gpt-stopgate-fake" ||
		!strings.HasSuffix(got.TranscriptPath, ".jsonl") || len(got.Ignored) != 0 {
		t.Errorf("recorded payload decoded as %+v", got)
	}
}

func TestCodexTurn(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 5, 0, 0, time.UTC)
	tests := []struct {
		name    string
		rollout func(r *codexRollout)
		payload Payload
		check   func(t *testing.T, r *codexRollout, got stopgate.Turn)
	}{
		{
			name:    "payload alone",
			payload: Payload{SessionID: "s", LastAssistantMessage: ptr("Done."), StopHookActive: true},
			check: func(t *testing.T, _ *codexRollout, got stopgate.Turn) {
				if got.Harness != Name || got.Session != "s" || got.Message == nil || got.Message.Text != "Done." || got.Message.Provider != ProviderOpenAI ||
					got.Nudges.Consecutive != 1 || got.Todos != nil || got.Processes != nil || got.HostWakes == nil || *got.HostWakes || !got.RunStartedAt.IsZero() {
					t.Errorf("turn %+v", got)
				}
			},
		},
		{
			name: "the rollout's run, plan and background sessions",
			rollout: func(r *codexRollout) {
				r.prompt(0, "t0", "Earlier.").say(1, "Earlier done.")
				r.call(2, "old", "exec_command", map[string]any{"cmd": "npm run dev"}, codexRunning("3"))
				r.prompt(10, "t1", "Release.").
					plan(11, "p1", "Run tests=completed", "Tag=in_progress").
					call(12, "bg", "exec_command", map[string]any{"cmd": "make e2e"}, codexRunning("9")).
					call(13, "fg", "exec_command", map[string]any{"cmd": "git status"}, codexExited(0)).
					say(14, "Tagging now.")
			},
			payload: Payload{SessionID: "s", TurnID: "t1", LastAssistantMessage: ptr("Tagging now.")},
			check: func(t *testing.T, r *codexRollout, got stopgate.Turn) {
				if !got.RunStartedAt.Equal(r.at(10)) {
					t.Errorf("run started %v, want the second prompt", got.RunStartedAt)
				}
				if fmt.Sprint(got.Todos) != "[{Run tests completed} {Tag in_progress}]" {
					t.Errorf("todos %v", got.Todos)
				}
				if len(got.Processes) != 2 || got.Processes[0].ID != "3" || got.Processes[1].ID != "9" || got.Processes[1].Command != "make e2e" ||
					got.Processes[1].Status != gate.StatusRunning || got.Processes[1].LastReadAt != nil || !got.Processes[1].StartedAt.Equal(r.at(12.5)) {
					t.Errorf("processes %+v", got.Processes)
				}
				if len(got.Steps) != 4 || got.Steps[0].Tool != "update_plan" || got.Steps[3].Text != "Tagging now." || got.Message.ToolCalls != 0 {
					t.Errorf("steps %+v", got.Steps)
				}
			},
		},
		{
			name: "the payload's turn, not the rollout's last",
			rollout: func(r *codexRollout) {
				r.prompt(0, "t1", "First.").say(1, "One.").prompt(10, "t2", "Second.").say(11, "Two.")
			},
			payload: Payload{TurnID: "t1"},
			check: func(t *testing.T, r *codexRollout, got stopgate.Turn) {
				if !got.RunStartedAt.Equal(r.at(0)) || got.Message == nil || got.Message.Text != "One." || got.Session != "cx-1" {
					t.Errorf("turn %+v", got)
				}
			},
		},
		{
			name: "a lagging rollout: the payload's message is the last step",
			rollout: func(r *codexRollout) {
				r.prompt(0, "t1", "Go.").call(1, "c", "exec_command", map[string]any{"cmd": "ls"}, codexExited(0))
			},
			payload: Payload{LastAssistantMessage: ptr("Listed.")},
			check: func(t *testing.T, _ *codexRollout, got stopgate.Turn) {
				if len(got.Steps) != 2 || got.Steps[1].Text != "Listed." || got.Message.Text != "Listed." {
					t.Errorf("steps %+v message %+v", got.Steps, got.Message)
				}
			},
		},
		{
			name: "no final text anywhere",
			rollout: func(r *codexRollout) {
				r.prompt(0, "t1", "Go.")
			},
			payload: Payload{},
			check: func(t *testing.T, _ *codexRollout, got stopgate.Turn) {
				if got.Message != nil || got.Processes == nil || len(got.Processes) != 0 {
					t.Errorf("message %+v processes %#v: want none, and known none", got.Message, got.Processes)
				}
			},
		},
		{
			name: "SubagentStop",
			rollout: func(r *codexRollout) {
				r.lines = r.lines[:0] // a sub-agent's own meta
				r.add(0, "session_meta", map[string]any{"id": "cx-1", "agent_nickname": "Pascal", "agent_role": "worker"})
				r.prompt(1, "t1", "Do the sub-task.").say(2, "Sub-task done.")
			},
			payload: Payload{HookEventName: EventSubagentStop, SessionID: "s"},
			check: func(t *testing.T, _ *codexRollout, got stopgate.Turn) {
				if got.Agent != "Pascal" || got.Message == nil || got.Message.Text != "Sub-task done." || *got.HostWakes {
					t.Errorf("turn %+v", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s *rollout.CodexSession
			r := newCodexRollout(t)
			if tt.rollout != nil {
				tt.rollout(r)
				s = r.read()
			}
			tt.check(t, r, Turn(tt.payload, s, now))
		})
	}
}

// TestCodexGolden builds the Turns of the recorded session's two stops from the recorded
// payload and rollout, decides on them, and compares the Turns and the answers with their
// golden files. The first stop is asked with the rollout as it stood then (cut before the
// block that followed, which Codex writes after the hook answers): the background job is still
// running and unread, and the answer is the process gate's block. The last stop is asked with
// the whole rollout and the payload Codex sent then (the final message, stop_hook_active): the
// job was polled to its exit, and the agent may stop.
func TestCodexGolden(t *testing.T) {
	recorded := mustRead(t, codexPayloadFile)
	var first, last []string
	cut := false
	for _, l := range strings.SplitAfter(string(mustRead(t, codexRolloutFile)), "\n") {
		cut = cut || strings.Contains(l, "<hook_prompt")
		if !cut {
			first = append(first, l)
		}
		last = append(last, l)
	}
	const final = "I polled the job: it printed done-output and exited with code 3, as this fixture expects. Done."
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	for _, stop := range []struct {
		name    string
		rollout []string
		edit    func(m map[string]any)
		block   bool
	}{
		{name: "first", rollout: first, edit: func(map[string]any) {}, block: true},
		{name: "last", rollout: last, edit: func(m map[string]any) {
			m["last_assistant_message"], m["stop_hook_active"] = final, true
		}},
	} {
		t.Run(stop.name, func(t *testing.T) {
			path := filepath.Join(dir, stop.name+".jsonl")
			writeFile(t, path, strings.Join(stop.rollout, ""))
			var m map[string]any
			if err := json.Unmarshal(recorded, &m); err != nil {
				t.Fatal(err)
			}
			stop.edit(m)
			m["transcript_path"] = path
			payload := payloadJSON(t, m)

			p, err := DecodePayload(strings.NewReader(payload))
			if err != nil {
				t.Fatal(err)
			}
			s, err := rollout.ReadCodexFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			turn, err := json.MarshalIndent(Turn(p, s, now), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			codexGolden(t, "turn-"+stop.name+"-stop.json", append(turn, '\n'))

			// The state the first stop's block left, so the last stop is in the same run.
			stdout, stderr, code := runCodex(t, payload, &Options{StateDir: dir, Now: func() time.Time { return now }})
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if !stop.block {
				if stdout != "" {
					t.Errorf("the last stop was blocked: %s", stdout)
				}
				return
			}
			codexGolden(t, "block-first-stop.txt", []byte(checkBlock(t, stdout)+"\n"))
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCodex(t *testing.T) {
	const (
		promise = "Let me run the tests."
		stall   = "I fixed the parser. " + promise
		done    = "All tests pass and the change is pushed."
	)
	tests := []struct {
		name    string
		rollout func(r *codexRollout)
		last    string
		active  bool
		opts    Options
		// want is a substring of the block reason; "" means the stop is allowed.
		want string
		// stderr is a substring of stderr; "" means stderr is empty.
		stderr string
	}{
		{name: "a trailing promise is blocked", last: stall, want: `"` + promise + `"`},
		{name: "a completion is allowed", last: done},
		{name: "a question is allowed", last: "Shall I proceed with the migration?"},
		{
			name: "an open plan step is blocked",
			rollout: func(r *codexRollout) {
				r.plan(1, "p1", "Run tests=completed", "Write the changelog=in_progress")
			},
			last: done, want: "Write the changelog",
		},
		{
			name: "a completed plan is allowed",
			rollout: func(r *codexRollout) {
				r.plan(1, "p1", "Run tests=completed")
			},
			last: done,
		},
		{
			name: "a background session never seen exiting is blocked",
			rollout: func(r *codexRollout) {
				r.call(1, "bg", "exec_command", map[string]any{"cmd": "make e2e", "yield_time_ms": 100}, codexRunning("41"))
			},
			last: "It runs in the background.", want: "41 (make e2e)",
		},
		{
			name: "a background session polled to its exit is allowed",
			rollout: func(r *codexRollout) {
				r.call(1, "bg", "exec_command", map[string]any{"cmd": "make e2e"}, codexRunning("41")).
					call(3, "poll", "write_stdin", map[string]any{"session_id": 41, "chars": ""}, codexExited(2))
			},
			last: "It failed with exit 2; the log says the fixture is missing.",
		},
		{
			name: "a background session from an earlier turn is not this run's",
			rollout: func(r *codexRollout) {
				r.call(1, "bg", "exec_command", map[string]any{"cmd": "npm run dev"}, codexRunning("41")).
					say(2, "The dev server runs.").
					prompt(10, "t1", "Now fix the parser.")
			},
			last: done,
		},
		{
			name:   "stop_hook_active without state kept lets it stop",
			last:   stall,
			active: true,
			opts:   Options{StateDir: "-"},
			stderr: "stop_hook_active and no state kept",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := newCodexRollout(t).prompt(0, "t1", "Fix the parser.")
			if tt.rollout != nil {
				tt.rollout(r)
			}
			path := r.write(dir)
			opts := tt.opts
			switch opts.StateDir {
			case "":
				opts.StateDir = dir
			case "-":
				opts.StateDir = ""
			}
			opts.Now = func() time.Time { return r.at(60) }
			stdout, stderr, code := runCodex(t, codexPayload(t, fmt.Sprintf("s%d", i), path, tt.last, tt.active), &opts)
			if code != 0 {
				t.Errorf("exit %d", code)
			}
			if tt.stderr == "" && stderr != "" || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q, want %q", stderr, tt.stderr)
			}
			if tt.want == "" {
				if stdout != "" {
					t.Errorf("stdout %q, want nothing", stdout)
				}
				return
			}
			if reason := checkBlock(t, stdout); !strings.Contains(reason, tt.want) {
				t.Errorf("reason %q, want it to contain %q", reason, tt.want)
			}
		})
	}
}

// TestCodexBudgets: Codex never stops a Stop hook that keeps blocking, so the state file's
// budgets are what end a stall: two nudges (the default stall budget), then the stop goes
// through; a new user turn starts a new run with the budget whole again.
func TestCodexBudgets(t *testing.T) {
	dir := t.TempDir()
	r := newCodexRollout(t).prompt(0, "t1", "Fix it.")
	path := r.write(dir)
	opts := &Options{StateDir: dir, Now: func() time.Time { return r.at(30) }}
	stalls := []string{"I looked. Let me check the logs.", "Good point. Now I will run the linter.", "Understood. I will check the build next."}
	var verdicts []bool
	for i, msg := range stalls {
		stdout, stderr, code := runCodex(t, codexPayload(t, "budget", path, msg, i > 0), opts)
		if code != 0 || stderr != "" {
			t.Fatalf("stop %d: exit %d, stderr %q", i, code, stderr)
		}
		verdicts = append(verdicts, stdout != "")
	}
	if fmt.Sprint(verdicts) != "[true true false]" {
		t.Errorf("blocked %v, want [true true false]", verdicts)
	}
	r.say(40, stalls[2]).prompt(50, "t2", "Now the docs.")
	path = r.write(dir)
	var m map[string]any
	if err := json.Unmarshal([]byte(codexPayload(t, "budget", path, stalls[0], false)), &m); err != nil {
		t.Fatal(err)
	}
	m["turn_id"] = "t2"
	stdout, _, _ := runCodex(t, payloadJSON(t, m), opts)
	if stdout == "" {
		t.Error("a new turn's stall was not blocked: the budget carried over from the last run")
	}
}

func TestCodexFailsOpen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		payload string
		opts    *Options
		lines   int
		want    string
	}{
		{"not JSON", "Stop!", nil, 1, "hook payload is not a JSON object"},
		{"empty", "", nil, 1, "empty input"},
		{"panic", codexPayload(t, "p", "", "x", false), &Options{Now: func() time.Time { panic("clock broke") }}, 1, "panic: clock broke"},
		{"a state file that cannot be saved", codexPayload(t, "s", "", "I fixed it. Let me run the tests.", false), &Options{StateDir: filepath.Join(dir, "file", "sub")}, 2, "cannot save the nudge budget"},
	}
	writeFile(t, filepath.Join(dir, "file"), "not a directory")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCodex(t, tt.payload, tt.opts)
			checkFailOpen(t, stdout, stderr, code, tt.lines, tt.want)
		})
	}
}

func TestCodexNotes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, payload, want string
	}{
		{"another event", `{"hook_event_name":"PreToolUse"}`, `hook event "PreToolUse" is not Stop or SubagentStop`},
		{"an unreadable rollout", codexPayload(t, "n1", filepath.Join(dir, "missing.jsonl"), "Done.", false), "rollout unreadable"},
		{"a SubagentStop without its rollout", `{"hook_event_name":"SubagentStop","agent_id":"a","last_assistant_message":"Done."}`, "no agent_transcript_path"},
		{"a field of the wrong type", `{"session_id":"n2","stop_hook_active":"no","last_assistant_message":"Done."}`, "read as absent: stop_hook_active"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCodex(t, tt.payload, &Options{StateDir: dir})
			if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "stopgate: ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want a note %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestCodexSubagentStop reads the sub-agent's own rollout, not its parent's.
func TestCodexSubagentStop(t *testing.T) {
	dir := t.TempDir()
	parent := newCodexRollout(t).prompt(0, "t1", "Delegate.")
	parent.plan(1, "p1", "Everything=pending")
	parentPath := parent.write(filepath.Join(dir, "parent"))
	child := newCodexRollout(t).prompt(2, "c1", "Do the sub-task.")
	childPath := child.write(filepath.Join(dir, "child"))
	p := payloadJSON(t, map[string]any{
		"session_id": "sub", "hook_event_name": "SubagentStop", "transcript_path": parentPath,
		"agent_id": "a1", "agent_type": "worker", "agent_transcript_path": childPath,
		"last_assistant_message": "Sub-task done.", "stop_hook_active": false,
	})
	stdout, stderr, code := runCodex(t, p, &Options{StateDir: dir})
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q: the parent's open plan held the child back", code, stdout, stderr)
	}
	if _, err := os.Stat(hook.StatePath(dir, "sub", "a1")); err != nil {
		t.Errorf("no state for the sub-agent: %v", err)
	}
}

func TestInstall(t *testing.T) {
	const cmd = "/usr/local/bin/stopgate hook codex -- --state-dir=/var/lib/stopgate"
	tests := []struct {
		name     string
		existing string // "" for no file
		command  string
		changed  bool
		// golden is the file after install, in testdata/codex/install/.
		golden string
	}{
		{name: "a new file", command: cmd, changed: true, golden: "new.json"},
		{
			name:     "other hooks and the description kept",
			existing: "{\n    \"description\": \"team hooks\",\n    \"hooks\": {\n        \"PreToolUse\": [{\"matcher\": \"^Bash$\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint-bash\"}]}],\n        \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-done\", \"timeout\": 5}]}]\n    }\n}\n",
			command:  cmd, changed: true, golden: "kept.json",
		},
		{
			name:     "installed again",
			existing: "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/usr/local/bin/stopgate hook codex -- --state-dir=/var/lib/stopgate\",\n            \"timeout\": 60\n          }\n        ]\n      }\n    ],\n    \"SubagentStop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/usr/local/bin/stopgate hook codex -- --state-dir=/var/lib/stopgate\",\n            \"timeout\": 60\n          }\n        ]\n      }\n    ]\n  }\n}\n",
			command:  cmd, changed: false, golden: "new.json",
		},
		{
			name:     "a moved binary updated in place, a second handler dropped, Claude Code's hook left alone",
			existing: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/stopgate hook codex","timeout":99},{"type":"command","command":"stopgate hook claude-code"},{"type":"command","command":"stopgate hook codex --timeout=1s"}]}]}}`,
			command:  cmd, changed: true, golden: "moved.json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".codex", "hooks.json")
			if tt.existing != "" {
				writeFile(t, path, tt.existing)
			}
			changed, err := Install(path, tt.command)
			if err != nil || changed != tt.changed {
				t.Fatalf("Install = %v, %v; want %v", changed, err, tt.changed)
			}
			got := mustRead(t, path)
			codexGolden(t, filepath.Join("install", tt.golden), got)
			if changed, err := Install(path, tt.command); changed || err != nil {
				t.Errorf("installing again: %v, %v; want no change", changed, err)
			}
			if changed, err := Uninstall(path); !changed || err != nil {
				t.Fatalf("Uninstall = %v, %v", changed, err)
			}
			after := string(mustRead(t, path))
			if IsHookCommand(after) || strings.Contains(after, "hook codex") {
				t.Errorf("uninstall left stopgate in:\n%s", after)
			}
			if tt.existing != "" && tt.golden == "kept.json" && semanticJSON(t, after) != semanticJSON(t, tt.existing) {
				t.Errorf("install then uninstall changed the file:\n%s\nwas:\n%s", after, tt.existing)
			}
			if changed, err := Uninstall(path); changed || err != nil {
				t.Errorf("uninstalling again: %v, %v; want no change", changed, err)
			}
		})
	}
}

// semanticJSON returns the JSON value of s, re-encoded, for comparisons that ignore layout.
func semanticJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestInstallErrors(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{`{"hooks": `, `[]`, `{"hooks": {"Stop": {"not": "a list"}}}`, `{"hooks": 7}`} {
		path := filepath.Join(dir, "bad.json")
		writeFile(t, path, bad)
		if _, err := Install(path, "stopgate hook codex"); err == nil || !strings.Contains(err.Error(), ErrHooks.Error()) {
			t.Errorf("Install on %q: %v, want ErrHooks", bad, err)
		}
		if _, err := Uninstall(path); err == nil && bad != `{"hooks": {"Stop": {"not": "a list"}}}` {
			t.Errorf("Uninstall on %q: no error", bad)
		}
		if got := string(mustRead(t, path)); got != bad {
			t.Errorf("the invalid file was written: %q", got)
		}
	}
	if _, err := Install(filepath.Join(dir, "h.json"), "notify-done"); err == nil {
		t.Error("Install of a command that is not stopgate's: no error")
	}
	if changed, err := Uninstall(filepath.Join(dir, "missing.json")); changed || err != nil {
		t.Errorf("Uninstall of a missing file: %v, %v", changed, err)
	}
}

func TestIsHookCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"stopgate hook codex":                        true,
		"/opt/bin/stopgate hook codex -- --budget=x": true,
		"'/my dir/stopgate-dev' hook codex":          true,
		"XDG_STATE_HOME=/s stopgate hook codex":      true,
		"stopgate hook claude-code":                  false,
		"stopgate hook":                              false,
		"codex hook codex":                           false,
		"stopgate hook 'codex":                       false,
		"echo stopgate hook codex":                   false,
		Command("/a b/stopgate", "--", "--x=1"):      true,
	} {
		if got := IsHookCommand(cmd); got != want {
			t.Errorf("IsHookCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestCodexTrust checks the trust records against hashes Codex 0.169.0 accepted: a hook with
// the record's key and hash in config.toml ran without --dangerously-bypass-hook-trust (the
// first case was verified by hand, the second is what the end-to-end suite trusts).
func TestTrust(t *testing.T) {
	hash, err := trustHash("stop", nil, "cat > /tmp/cx/cap/stop-$(date +%s%N).json", ptr(uint64(30)), false, nil)
	if err != nil || hash != "sha256:cbe6585d5b9c4289d0509e1b452627fdf164394591bcee9b1afc0ac201d11714" {
		t.Errorf("hash = %q, %v", hash, err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.json")
	writeFile(t, path, `{"hooks":{"Stop":[{"matcher":"ignored","hooks":[{"type":"command","command":"notify"},{"type":"prompt"}]}],
		"SubagentStop":[{"matcher":"^worker$","hooks":[{"type":"command","command":"stopgate hook codex","timeout":0,"statusMessage":"checking"}]}]}}`)
	recs, err := Trust(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2: %+v", len(recs), recs)
	}
	want0, _ := trustHash("stop", nil, "notify", nil, false, nil)
	want1, _ := trustHash("subagent_stop", ptr("^worker$"), "stopgate hook codex", ptr(uint64(1)), false, ptr("checking"))
	if r := recs[0]; r.Key != path+":stop:0:0" || r.Hash != want0 || r.Event != EventStop || r.Command != "notify" {
		t.Errorf("record 0 %+v", r)
	}
	if r := recs[1]; r.Key != path+":subagent_stop:0:0" || r.Hash != want1 || r.Event != EventSubagentStop {
		t.Errorf("record 1 %+v", r)
	}
	if got := recs[0].TOML(); got != fmt.Sprintf("[hooks.state.%q]\ntrusted_hash = %q\n", path+":stop:0:0", want0) {
		t.Errorf("TOML = %q", got)
	}
	if got := tomlString("a\"b\\c\nd"); got != `"a\"b\\c\u000Ad"` {
		t.Errorf("tomlString = %s", got)
	}
	if recs, err := Trust(filepath.Join(dir, "missing.json")); recs != nil || err != nil {
		t.Errorf("a missing file: %v, %v", recs, err)
	}
	writeFile(t, path, "{")
	if _, err := Trust(path); err == nil {
		t.Error("an invalid file: no error")
	}
}

// TestHookTrustTOML: a hooks.json hook's record is its one hash; a plugin hook's two-part
// hash (handler/plugin files, as hooks/list reports it) is split into trusted_hash and
// trusted_content_hash, and quotes in a key are escaped.
func TestHookTrustTOML(t *testing.T) {
	tests := []struct {
		name string
		in   HookTrust
		want string
	}{
		{"hooks file", HookTrust{Key: "/h/hooks.json:stop:0:0", Hash: "sha256:aa"},
			"[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n"},
		{"plugin", HookTrust{Key: "stopgate@stopgate:hooks/hooks.json:stop:0:0", Hash: "sha256:aa/sha256:bb"},
			"[hooks.state.\"stopgate@stopgate:hooks/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\ntrusted_content_hash = \"sha256:bb\"\n"},
		{"quoted key", HookTrust{Key: `/a "b"/hooks.json:stop:0:0`, Hash: "sha256:aa"},
			"[hooks.state.\"/a \\\"b\\\"/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.TOML(); got != tt.want {
				t.Errorf("TOML() = %q, want %q", got, tt.want)
			}
		})
	}
}
