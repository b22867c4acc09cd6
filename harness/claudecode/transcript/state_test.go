package transcript

import (
	"strings"
	"testing"
	"time"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestShells(t *testing.T) {
	type want struct {
		id       string
		status   ShellStatus
		exit     int // -1: unknown
		auto     bool
		unread   bool
		failed   bool
		killedBy Actor
		readAt   string // RFC 3339, "" for never
		notified bool
		reads    int
	}
	cases := []struct {
		name string
		path func(testing.TB) string
		want []want
	}{
		{"failed, notified, never read", fixture("handwritten/shell_unread_failed.jsonl"), []want{
			{"bh0001", ShellFailed, 1, false, true, true, "", "", true, 0},
		}},
		{"read after completion, stopped, auto-backgrounded", fixture("handwritten/shells_read.jsonl"), []want{
			{"bh0002", ShellCompleted, 0, false, false, false, "", "2026-01-06T09:02:51.2Z", false, 2},
			{"bh0003", ShellCompleted, 0, false, false, false, "", "2026-01-06T09:04:02.1Z", true, 1},
			{"bh0004", ShellKilled, -1, false, false, false, ActorModel, "", false, 0},
			{"bh0005", ShellRunning, -1, true, false, false, "", "", false, 0},
		}},
		{"2.0 era: BashOutput and KillShell", fixture("handwritten/v2_0/0000000a-0000-4000-8000-000000000020.jsonl"), []want{
			{"5e6f7a", ShellKilled, -1, false, false, false, ActorModel, "", false, 1},
			{"8b9c0d", ShellCompleted, 2, false, false, true, "", "2026-01-12T16:00:20.1Z", false, 1},
		}},
		{"real: a still-running server peeked at with tail", fixture("claude-code/tool_heavy.jsonl"), []want{
			{"bae407b", ShellRunning, -1, false, false, false, "", "", false, 1},
		}},
		{"real: completed, notified, never read", inPlace("258c7280-ae70-4798-800f-63464d01a85d.jsonl"), []want{
			{"b0be39e", ShellCompleted, 0, true, true, false, "", "", true, 0},
			{"bd0afab", ShellCompleted, 0, true, false, false, "", "2026-02-11T20:52:10.596Z", true, 7},
		}},
		{"real: failed and read by TaskOutput, another read by Bash", inPlace("6adcf0da-e8ac-4760-8026-66fb75b5ee45.jsonl"), []want{
			{"b57276d", ShellFailed, 1, true, false, true, "", "2026-02-12T15:43:47.149Z", true, 2},
			{"b563ccf", ShellCompleted, 0, false, false, false, "", "2026-02-12T15:46:20.121Z", true, 1},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readFixture(t, c.path(t), nil)
			if len(s.Shells) != len(c.want) {
				t.Fatalf("%d shells, want %d", len(s.Shells), len(c.want))
			}
			for i, w := range c.want {
				sh := s.Shells[i]
				exit := -1
				if sh.ExitCode != nil {
					exit = *sh.ExitCode
				}
				readAt := ""
				if !sh.ReadAt.IsZero() {
					readAt = sh.ReadAt.Format(time.RFC3339Nano)
				}
				if sh.ID != w.id || sh.Status != w.status || exit != w.exit || sh.AutoBackgrounded != w.auto ||
					sh.Unread() != w.unread || sh.Failed() != w.failed || sh.KilledBy != w.killedBy ||
					readAt != w.readAt || !sh.Notified.IsZero() != w.notified || len(sh.Reads) != w.reads {
					t.Errorf("shell %d = {%s %s exit %d auto %v unread %v failed %v killed by %q read at %q notified %v reads %d}, want %+v",
						i, sh.ID, sh.Status, exit, sh.AutoBackgrounded, sh.Unread(), sh.Failed(), sh.KilledBy, readAt, !sh.Notified.IsZero(), len(sh.Reads), w)
				}
				if sh.Call == nil || sh.Command == "" || sh.Started.IsZero() {
					t.Errorf("shell %s: call %v, command %q, started %v", sh.ID, sh.Call != nil, sh.Command, sh.Started)
				}
				if !sh.Running() && (sh.Finished.IsZero() || sh.Finished.Before(sh.Started)) {
					t.Errorf("shell %s ended but Finished = %v (started %v)", sh.ID, sh.Finished, sh.Started)
				}
			}
		})
	}
}

// fixture and inPlace name the transcript a table case reads.
func fixture(rel string) func(testing.TB) string {
	return func(testing.TB) string { return "testdata/" + rel }
}

func inPlace(rel string) func(testing.TB) string {
	return func(tb testing.TB) string { return shared(tb, rel) }
}

func TestShellEdgeCases(t *testing.T) {
	start := lines(
		uPrompt("2026-01-01T00:00:00Z", "go"),
		aCall("2026-01-01T00:00:01Z", "m1", "t1", "Bash", `{"command":"make","run_in_background":true}`),
	)
	started := start + lines(`{"type":"user","timestamp":"2026-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Command running in background with ID: b1. Output is being written to: /tmp/t/b1.output"}]}}`)
	note := func(status, summary string) string {
		return uPrompt("2026-01-01T00:01:00Z", "<task-notification>\n<task-id>b1</task-id>\n<status>"+status+"</status>\n<summary>"+summary+"</summary>\n</task-notification>")
	}
	cases := []struct {
		name     string
		jsonl    string
		id       string
		status   ShellStatus
		killedBy Actor
		unread   bool
		shells   int
	}{
		{"a background call whose result was never written", start, "", ShellRunning, "", false, 1},
		{"started from the result text alone", started, "b1", ShellRunning, "", false, 1},
		{"stopped by the user", started + lines(note("killed", `Background command "make" was stopped by the user`)), "b1", ShellKilled, ActorUser, false, 1},
		{"stopped, nobody said by whom", started + lines(note("stopped", `Background command "make" was stopped`)), "b1", ShellKilled, ActorUnknown, false, 1},
		{"an error read does not count", started + lines(
			note("completed", `Background command "make" completed (exit code 0)`),
			aCall("2026-01-01T00:01:01Z", "m2", "t2", "TaskOutput", `{"task_id":"b1"}`),
			`{"type":"user","timestamp":"2026-01-01T00:01:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"<tool_use_error>No task found with ID: b1</tool_use_error>"}]}}`,
		), "b1", ShellCompleted, "", true, 1},
		{"a notification for a shell started before the file begins", lines(note("failed", `Background command "old" failed with exit code 3`)), "b1", ShellFailed, "", true, 1},
		{"agent and status-less notifications are not shells", lines(
			uPrompt("2026-01-01T00:01:00Z", "<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n<summary>Agent \"x\" completed</summary>\n</task-notification>"),
			uPrompt("2026-01-01T00:02:00Z", "<task-notification>\n<task-id>m1</task-id>\n<summary>Monitor event: \"PR\"</summary>\n</task-notification>"),
		), "", "", "", false, 0},
		{"a failed kill changes nothing", started + lines(
			aCall("2026-01-01T00:00:03Z", "m2", "t2", "KillShell", `{"shell_id":"b1"}`),
			`{"type":"user","timestamp":"2026-01-01T00:00:04Z","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"Shell b1 is not running"}]}}`,
		), "b1", ShellRunning, "", false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readString(t, c.jsonl, nil)
			if len(s.Shells) != c.shells {
				t.Fatalf("%d shells, want %d", len(s.Shells), c.shells)
			}
			if c.shells == 0 {
				return
			}
			sh := s.Shells[0]
			if sh.ID != c.id || sh.Status != c.status || sh.KilledBy != c.killedBy || sh.Unread() != c.unread {
				t.Errorf("shell = {%q %s killed by %q unread %v}, want {%q %s %q %v}", sh.ID, sh.Status, sh.KilledBy, sh.Unread(), c.id, c.status, c.killedBy, c.unread)
			}
		})
	}
}

func TestTodos(t *testing.T) {
	type want struct {
		id, content string
		status      TodoStatus
		tool        string
	}
	cases := []struct {
		name string
		path func(testing.TB) string
		want []want
	}{
		{"TodoWrite then the task tools", fixture("handwritten/todos.jsonl"), []want{
			{"", "Refactor the parser", TodoCompleted, "TodoWrite"},
			{"", "Add tests", TodoInProgress, "TodoWrite"},
			{"", "Update the docs", TodoPending, "TodoWrite"},
			{"1", "Benchmark the parser", TodoCompleted, "TaskCreate"},
			{"2", "Fuzz the parser", TodoPending, "TaskCreate"},    // the update to completed failed
			{"", "Write the changelog", TodoPending, "TaskCreate"}, // its result was never written
		}},
		{"2.0 era: TodoWrite with ids, then a snapshot on a user entry", fixture("handwritten/v2_0/0000000a-0000-4000-8000-000000000020.jsonl"), []want{
			{"1", "Start the server", TodoCompleted, "TodoWrite"},
			{"2", "Check the logs", TodoCompleted, "TodoWrite"},
		}},
		{"real sessions use no todo tools", inPlace("fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readFixture(t, c.path(t), nil)
			if len(s.Todos) != len(c.want) {
				t.Fatalf("todos = %+v, want %d", s.Todos, len(c.want))
			}
			for i, w := range c.want {
				got := s.Todos[i]
				if got.ID != w.id || got.Content != w.content || got.Status != w.status || got.Tool != w.tool {
					t.Errorf("todo %d = %+v, want %+v", i, got, w)
				}
			}
		})
	}
}

func TestTodoOpen(t *testing.T) {
	for _, c := range []struct {
		status TodoStatus
		open   bool
	}{{TodoPending, true}, {TodoInProgress, true}, {TodoCompleted, false}, {"cancelled", false}, {"", false}} {
		if got := (Todo{Status: c.status}).Open(); got != c.open {
			t.Errorf("Open(%q) = %v, want %v", c.status, got, c.open)
		}
	}
}

func TestTodoTaskList(t *testing.T) {
	s := readString(t, lines(
		uPrompt("2026-01-01T00:00:00Z", "go"),
		aCall("2026-01-01T00:00:01Z", "m1", "t1", "TaskList", `{}`),
		`{"type":"user","timestamp":"2026-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"#4 [pending] Ship it"}]},"toolUseResult":{"tasks":[{"id":"4","subject":"Ship it","status":"pending"},{"id":"5","subject":"Gone","status":"deleted"}]}}`,
		aCall("2026-01-01T00:00:03Z", "m2", "t2", "TaskUpdate", `{"taskId":"4","status":"in_progress","activeForm":"Shipping it"}`),
	), nil)
	if len(s.Todos) != 1 || s.Todos[0] != (Todo{ID: "4", Content: "Ship it", Status: TodoInProgress, ActiveForm: "Shipping it", Tool: "TaskCreate"}) {
		t.Errorf("todos = %+v", s.Todos)
	}
}

func TestSubagents(t *testing.T) {
	type want struct {
		tool, typ, agentID, status string
		background, pending, file  bool
		progress                   int
	}
	cases := []struct {
		name string
		path func(testing.TB) string
		want []want
	}{
		{"real: foreground Explore agent with its file", inPlace("4d5611e5-241a-462a-8d15-5122611a9569.jsonl"), []want{
			{"Task", "Explore", "a2898e3", "completed", false, false, true, 67},
		}},
		{"real: two agents, both delivered", inPlace("fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"), []want{
			{"Task", "Explore", "a93ccab", "completed", false, false, true, 51},
			{"Task", "Explore", "aa84377", "completed", false, false, true, 43},
		}},
		{"real: agent whose file was not kept", fixture("claude-code/subagent.jsonl"), []want{
			{"Task", "Plan", "afb92ff", "completed", false, false, false, 19},
		}},
		{"background agent delivered by notification; foreground agent never returned", fixture("handwritten/agents.jsonl"), []want{
			{"Agent", "Explore", "a0b1c2d3", "completed", true, false, false, 0},
			{"Agent", "Explore", "a4e5f6a7", "", false, true, false, 2},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readFixture(t, c.path(t), &Options{Subagents: true})
			if len(s.Subagents) != len(c.want) {
				t.Fatalf("%d subagents, want %d", len(s.Subagents), len(c.want))
			}
			for i, w := range c.want {
				a := s.Subagents[i]
				got := want{a.Tool, a.Type, a.AgentID, a.Status, a.Background, a.Pending(), a.File != nil, a.Progress}
				if got != w {
					t.Errorf("subagent %d = %+v, want %+v", i, got, w)
				}
				if a.Call == nil || a.Started.IsZero() || a.Description == "" {
					t.Errorf("subagent %d: call %v, started %v, description %q", i, a.Call != nil, a.Started, a.Description)
				}
				if !a.Pending() && (a.Finished.IsZero() || a.Delivered.Before(a.Finished)) {
					t.Errorf("subagent %d delivered %v before it finished %v", i, a.Delivered, a.Finished)
				}
			}
		})
	}

	// The background agent finished when the notice was queued and reached the parent when
	// it was delivered.
	s := readFixture(t, "testdata/handwritten/agents.jsonl", nil)
	a := s.Subagents[0]
	if !a.Finished.Equal(ts("2026-01-11T11:01:00Z")) || !a.Delivered.Equal(ts("2026-01-11T11:01:00.1Z")) {
		t.Errorf("background agent finished %v, delivered %v", a.Finished, a.Delivered)
	}
}

func TestSubagentEdgeCases(t *testing.T) {
	call := lines(
		uPrompt("2026-01-01T00:00:00Z", "go"),
		aCall("2026-01-01T00:00:01Z", "m1", "t1", "Task", `{"description":"d","prompt":"p","run_in_background":true}`),
		`{"type":"user","timestamp":"2026-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Async agent launched successfully."}]},"toolUseResult":{"isAsync":true,"status":"async_launched","agentId":"ag1"}}`,
	)
	cases := []struct {
		name    string
		jsonl   string
		status  string
		pending bool
	}{
		{"launched, still running", call, "async_launched", true},
		{"collected with TaskOutput", call + lines(
			aCall("2026-01-01T00:01:00Z", "m2", "t2", "TaskOutput", `{"task_id":"ag1"}`),
			`{"type":"user","timestamp":"2026-01-01T00:01:30Z","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"<retrieval_status>success</retrieval_status>\n\n<task_id>ag1</task_id>\n\n<status>completed</status>\n\n<output>done</output>"}]}}`,
		), "completed", false},
		{"stopped by the model", call + lines(
			aCall("2026-01-01T00:01:00Z", "m2", "t2", "TaskStop", `{"task_id":"ag1"}`),
			`{"type":"user","timestamp":"2026-01-01T00:01:01Z","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"stopped"}]}}`,
		), "killed", true},
		{"rejected call", lines(
			aCall("2026-01-01T00:00:01Z", "m1", "t1", "Agent", `{"description":"d","prompt":"p"}`),
			`{"type":"user","timestamp":"2026-01-01T00:00:02Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use."}]},"toolUseResult":"User rejected tool use"}`,
		), "error", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readString(t, c.jsonl, nil)
			if len(s.Subagents) != 1 {
				t.Fatalf("%d subagents", len(s.Subagents))
			}
			if a := s.Subagents[0]; a.Status != c.status || a.Pending() != c.pending {
				t.Errorf("status %q pending %v, want %q %v", a.Status, a.Pending(), c.status, c.pending)
			}
		})
	}
}

func TestStopHooks(t *testing.T) {
	s := readFixture(t, "testdata/handwritten/stop_hooks.jsonl", nil)
	type want struct {
		kind            StopHookKind
		blocked, active bool
	}
	wants := []want{
		{StopHookSummary, false, false},   // first stop: the hook ran
		{StopHookFeedback, true, false},   // … and nudged
		{StopHookAttachment, true, true},  // second stop, already continuing: nudged again
		{StopHookFeedback, true, true},    // the same nudge's message
		{StopHookSummary, false, true},    // third stop: let through
		{StopHookAttachment, false, true}, // hook_success of the same stop
	}
	if len(s.StopHooks) != len(wants) {
		t.Fatalf("%d stop-hook records, want %d", len(s.StopHooks), len(wants))
	}
	for i, w := range wants {
		h := s.StopHooks[i]
		if h.Kind != w.kind || h.Blocked != w.blocked || h.Active != w.active || h.Turn != 0 {
			t.Errorf("record %d = {%s blocked %v active %v turn %d}, want %+v", i, h.Kind, h.Blocked, h.Active, h.Turn, w)
		}
	}
	if got := s.Turns[0].StopHookBlocks; got != 2 {
		t.Errorf("StopHookBlocks = %d, want 2 (two nudges; one of them written twice)", got)
	}
	if h := s.StopHooks[2]; h.Event != "Stop" || h.Attachment != "hook_blocking_error" || h.Text != "[stopgate hook claude-code]: You promised to update the changelog." {
		t.Errorf("blocking attachment = %+v", h)
	}
	if h := s.StopHooks[0]; len(h.Commands) != 1 || h.Commands[0] != "stopgate hook claude-code" || len(h.Errors) != 0 {
		t.Errorf("summary = %+v", h)
	}
	if h := s.StopHooks[1]; !strings.HasPrefix(h.Text, "Stop hook feedback:\n- [stopgate hook claude-code]") {
		t.Errorf("feedback text = %q", h.Text)
	}

	// Real sessions: stop hooks ran (hook_progress, stop_hook_summary) but never blocked.
	real := readFixture(t, shared(t, "258c7280-ae70-4798-800f-63464d01a85d.jsonl"), nil)
	for _, h := range real.StopHooks {
		if h.Kind != StopHookSummary || h.Blocked || h.Active || len(h.Commands) != 3 || h.Turn < 0 {
			t.Errorf("real record = %+v", h)
		}
	}
	if len(real.StopHooks) != 3 {
		t.Errorf("%d records, want 3", len(real.StopHooks))
	}
}

func TestStopHookVariants(t *testing.T) {
	cases := []struct {
		name      string
		entry     string
		blocked   bool
		prevented bool
		text      string
		errors    []string
	}{
		{"summary with errors of either shape, continuation prevented",
			`{"type":"system","subtype":"stop_hook_summary","hookCount":"2","hookInfos":[{"command":"a"},{"command":7}],"hookErrors":["boom",{"err":"e"}],"preventedContinuation":true,"stopReason":"halt","timestamp":"2026-01-01T00:00:02Z"}`,
			false, true, "", []string{"boom", `{"err":"e"}`}},
		{"additional context on Stop continues the turn",
			`{"type":"attachment","timestamp":"2026-01-01T00:00:02Z","attachment":{"type":"hook_additional_context","hookEvent":"Stop","content":["check the build"]}}`,
			true, false, "check the build", nil},
		{"stopped continuation",
			`{"type":"attachment","timestamp":"2026-01-01T00:00:02Z","attachment":{"type":"hook_stopped_continuation","hookEvent":"SubagentStop","message":"budget spent"}}`,
			false, true, "budget spent", nil},
		{"blocking error as a bare string",
			`{"type":"attachment","timestamp":"2026-01-01T00:00:02Z","attachment":{"type":"hook_blocking_error","hookEvent":"Stop","blockingError":"not yet"}}`,
			true, false, "not yet", nil},
		{"non-blocking error",
			`{"type":"attachment","timestamp":"2026-01-01T00:00:02Z","attachment":{"type":"hook_non_blocking_error","hookEvent":"Stop","stderr":"exit 1"}}`,
			false, false, "", []string{"exit 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readString(t, lines(uPrompt("2026-01-01T00:00:00Z", "go"), aText("2026-01-01T00:00:01Z", "m1", "Done."), c.entry), nil)
			if len(s.StopHooks) != 1 {
				t.Fatalf("%d records", len(s.StopHooks))
			}
			h := s.StopHooks[0]
			if h.Blocked != c.blocked || h.PreventedContinuation != c.prevented || h.Text != c.text || strings.Join(h.Errors, "|") != strings.Join(c.errors, "|") {
				t.Errorf("record = %+v", h)
			}
		})
	}
	// Attachments of other hook events are not stop-hook records.
	s := readString(t, lines(`{"type":"attachment","attachment":{"type":"hook_blocking_error","hookEvent":"PreToolUse","blockingError":"no"}}`), nil)
	if len(s.StopHooks) != 0 || s.Entries["attachment/hook_blocking_error"] != 1 {
		t.Errorf("records %d, entries %v", len(s.StopHooks), s.Entries)
	}
}

func TestCompactions(t *testing.T) {
	s := readFixture(t, "testdata/handwritten/compact.jsonl", nil)
	if len(s.Compactions) != 2 {
		t.Fatalf("%d compactions, want 2", len(s.Compactions))
	}
	c := s.Compactions[0]
	if c.Trigger != "manual" || c.PreTokens != 151234 || c.Micro || c.Turn != 1 || !strings.HasPrefix(c.Summary, "This session is being continued") {
		t.Errorf("compaction = %+v", c)
	}
	m := s.Compactions[1]
	if !m.Micro || m.Trigger != "auto" || m.PreTokens != 90000 || m.Summary != "" || m.Turn != 2 {
		t.Errorf("microcompaction = %+v", m)
	}
	if s.Turns[1].Trigger != KindCommand || !strings.Contains(s.Turns[1].Prompt, "/compact") {
		t.Errorf("the /compact command did not start a turn: %+v", s.Turns[1])
	}

	real := readFixture(t, shared(t, "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), nil)
	if len(real.Compactions) != 1 {
		t.Fatalf("%d compactions", len(real.Compactions))
	}
	if c := real.Compactions[0]; c.Trigger != "manual" || c.PreTokens != 142431 || len(c.Summary) < 1000 || c.Time.IsZero() {
		t.Errorf("real compaction = {%s %d summary %d bytes at %v}", c.Trigger, c.PreTokens, len(c.Summary), c.Time)
	}
}

func TestMessageKinds(t *testing.T) {
	cases := []struct {
		entry string
		kind  MessageKind
	}{
		{uPrompt("2026-01-01T00:00:00Z", "fix the bug"), KindPrompt},
		{`{"type":"user","message":{"content":[{"type":"image","source":{}}]}}`, KindPrompt},
		{uPrompt("2026-01-01T00:00:00Z", "<command-message>review</command-message>"), KindCommand},
		{uPrompt("2026-01-01T00:00:00Z", "<bash-input>ls</bash-input>"), KindCommand},
		{uPrompt("2026-01-01T00:00:00Z", "<bash-stdout>a</bash-stdout>"), KindCommandOutput},
		{uPrompt("2026-01-01T00:00:00Z", "<local-command-caveat>Caveat</local-command-caveat>"), KindCommandOutput},
		{uPrompt("2026-01-01T00:00:00Z", "  <task-notification><task-id>x</task-id></task-notification>"), KindNotification},
		{uText("2026-01-01T00:00:00Z", "Stop hook feedback: x", `,"isMeta":true`), KindHookFeedback},
		{uText("2026-01-01T00:00:00Z", "[Request interrupted by user for tool use]", ""), KindInterrupt},
		{uText("2026-01-01T00:00:00Z", "skill body", `,"isMeta":true`), KindMeta},
		{uPrompt("2026-01-01T00:00:00Z", "<system-reminder>x</system-reminder>"), KindMeta},
		{`{"type":"user","message":{"content":[]}}`, KindMeta},
		{`{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued"}}`, KindCompactSummary},
		{uResult("2026-01-01T00:00:00Z", "t1", "ok"), KindToolResult},
	}
	for _, c := range cases {
		s := readString(t, lines(c.entry), nil)
		if len(s.Messages) != 1 || s.Messages[0].Kind != c.kind {
			t.Errorf("%s: kind %q, want %q", c.entry, s.Messages[0].Kind, c.kind)
		}
		if c.kind.StartsTurn() != (len(s.Turns) == 1 && s.Turns[0].Trigger == c.kind) {
			t.Errorf("%s: turns %d", c.entry, len(s.Turns))
		}
	}
}

func TestTodoSidechainIsolated(t *testing.T) {
	s := readString(t, lines(
		uPrompt("2026-01-01T00:00:00Z", "go"),
		aCall("2026-01-01T00:00:01Z", "m1", "t1", "TodoWrite", `{"todos":[{"content":"main item","status":"pending","activeForm":"Doing"}]}`),
		uResult("2026-01-01T00:00:02Z", "t1", "Todos have been modified successfully."),
		`{"type":"assistant","isSidechain":true,"timestamp":"2026-01-01T00:00:03Z","message":{"id":"side","content":[{"type":"tool_use","id":"t2","name":"TodoWrite","input":{"todos":[]}}]}}`,
		`{"type":"user","isSidechain":true,"timestamp":"2026-01-01T00:00:04Z","todos":[],"message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}`,
	), nil)
	if len(s.Todos) != 1 || s.Todos[0].Content != "main item" || !s.Todos[0].Open() {
		t.Errorf("todos = %+v, want the main agent's one open item", s.Todos)
	}
}
