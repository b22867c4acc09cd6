package claudecode

import (
	"fmt"
	"github.com/stopgate/stopgate/harness/internal/harnesstest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
	"github.com/stopgate/stopgate/loopguard"
)

// goldenTurn renders a Turn for a golden file (harnesstest.GoldenTurn).
func goldenTurn(t *testing.T, tu stopgate.Turn) []byte { return harnesstest.GoldenTurn(t, tu) }

func readTranscript(t *testing.T, path string) *transcript.Session {
	t.Helper()
	s, err := transcript.ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSessionTurnGolden pins the Turn of the last turn of real and hand-written sessions, and
// of earlier turns where they show state as it stood then.
func TestSessionTurnGolden(t *testing.T) {
	tests := []struct {
		name string
		path string
		turn int // -1: the last
	}{
		{"spotter-fa812bfe", sharedFile(t, "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"), -1},
		{"spotter-258c7280", sharedFile(t, "258c7280-ae70-4798-800f-63464d01a85d.jsonl"), -1},
		{"spotter-258c7280-turn0", sharedFile(t, "258c7280-ae70-4798-800f-63464d01a85d.jsonl"), 0},
		{"spotter-6adcf0da", sharedFile(t, "6adcf0da-e8ac-4760-8026-66fb75b5ee45.jsonl"), -1},
		{"spotter-8463c716", sharedFile(t, "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"), -1},
		{"spotter-6c2214d7-agent", sharedFile(t, "6c2214d7-b87e-4432-8e41-22ba294ea584/subagents/agent-afc096d.jsonl"), -1},
		{"spotter-short", "transcript/testdata/claude-code/short.jsonl", -1},
		{"spotter-tool_heavy", "transcript/testdata/claude-code/tool_heavy.jsonl", -1},
		{"handwritten-shell_unread_failed", "transcript/testdata/handwritten/shell_unread_failed.jsonl", -1},
		{"handwritten-shell_unread_failed-turn0", "transcript/testdata/handwritten/shell_unread_failed.jsonl", 0},
		{"handwritten-shells_read", "transcript/testdata/handwritten/shells_read.jsonl", -1},
		{"handwritten-agents", "transcript/testdata/handwritten/agents.jsonl", -1},
		{"handwritten-todos", "transcript/testdata/handwritten/todos.jsonl", -1},
		{"handwritten-stop_hooks", "transcript/testdata/handwritten/stop_hooks.jsonl", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readTranscript(t, tt.path)
			i := tt.turn
			if i < 0 {
				i = len(s.Turns) - 1
			}
			golden(t, "turn-"+tt.name+".json", goldenTurn(t, SessionTurn(s, i)))
		})
	}
}

// TestClaudeCodeTurnGolden pins a Stop on a real session with the payload fields of a recent
// Claude Code: the final message from the payload, background tasks merged in.
func TestClaudeCodeTurnGolden(t *testing.T) {
	s := readTranscript(t, sharedFile(t, "258c7280-ae70-4798-800f-63464d01a85d.jsonl"))
	p := Payload{
		SessionID: s.ID, HookEventName: EventStop,
		LastAssistantMessage: ptr("Pushed. I'll now watch the CI run."),
		BackgroundTasks: []BackgroundTask{
			{ID: "bd0afab", Type: "shell", Status: "completed"},
			{ID: "bnew001", Type: "shell", Status: "running", Command: "mix test --only slow"},
			{ID: "a881341", Type: "subagent", Status: "completed"},
			{ID: "w1", Type: "workflow", Status: "running", Name: "release"},
			{ID: "m1", Type: "monitor", Status: "running", Description: "watch the logs"},
		},
		SessionCrons: []SessionCron{{ID: "c1", Schedule: "*/5 * * * *", Recurring: true, Prompt: "check CI"}},
	}
	now := time.Date(2026, 2, 11, 21, 46, 30, 0, time.UTC)
	golden(t, "claudecode-turn-258c7280.json", goldenTurn(t, Turn(p, s, now)))
}

func TestClaudeCodeTurnMessage(t *testing.T) {
	base := func(t *testing.T) *jsonl {
		j := newJSONL(t, "sess-msg")
		j.prompt(0, "Fix the parser.")
		j.call(1, "m1", "tu1", "Read", map[string]any{"file_path": "parser.go"})
		j.result(2, "tu1", "package parser", false, nil)
		return j
	}
	tests := []struct {
		name      string
		build     func(j *jsonl)
		payload   *string
		want      *stopgate.Message
		wantError string
		lastStep  loopguard.Step
	}{
		{
			name:     "the payload's text matches the transcript: its stop reason and calls are used",
			build:    func(j *jsonl) { j.say(3, "m2", "Fixed the parser.", "end_turn") },
			payload:  ptr("Fixed the parser."),
			want:     &stopgate.Message{Text: "Fixed the parser.", Provider: Provider, FinishReason: "end_turn"},
			lastStep: loopguard.Step{Text: "Fixed the parser."},
		},
		{
			name:     "the transcript lags: the payload's text, no stop reason, and the reply added to the steps",
			build:    func(j *jsonl) {},
			payload:  ptr("Fixed the parser. Let me run the tests."),
			want:     &stopgate.Message{Text: "Fixed the parser. Let me run the tests.", Provider: Provider},
			lastStep: loopguard.Step{Text: "Fixed the parser. Let me run the tests."},
		},
		{
			name:     "an older transcript message does not lend its stop reason",
			build:    func(j *jsonl) { j.say(3, "m2", "Looking at the parser.", "max_tokens") },
			payload:  ptr("Done."),
			want:     &stopgate.Message{Text: "Done.", Provider: Provider},
			lastStep: loopguard.Step{Text: "Done."},
		},
		{
			name:     "no payload text: the transcript's last message",
			build:    func(j *jsonl) { j.say(3, "m2", "Fixed the parser.", "max_tokens") },
			want:     &stopgate.Message{Text: "Fixed the parser.", Provider: Provider, FinishReason: "max_tokens"},
			lastStep: loopguard.Step{Text: "Fixed the parser."},
		},
		{
			name: "the last message is only tool calls: the turn's last text, with its calls counted",
			build: func(j *jsonl) {
				j.say(3, "m2", "Now the tests.", "")
				j.call(4, "m3", "tu2", "Bash", map[string]any{"command": "go test"})
			},
			payload:  ptr(""),
			want:     &stopgate.Message{Text: "Now the tests.", Provider: Provider, ToolCalls: 1},
			lastStep: loopguard.Step{Tool: "Bash", Args: `{"command":"go test"}`},
		},
		{
			name: "the turn ended on an API error",
			build: func(j *jsonl) {
				j.say(3, "m2", "Working on it.", "")
				j.apiError(4, "m3", "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")
			},
			want:      &stopgate.Message{Text: "Working on it.", Provider: Provider},
			wantError: "API Error: 529",
			lastStep:  loopguard.Step{Text: "Working on it."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := base(t)
			tt.build(j)
			got := Turn(Payload{LastAssistantMessage: tt.payload}, j.read(), time.Time{})
			if !reflect.DeepEqual(got.Message, tt.want) {
				t.Errorf("Message = %+v, want %+v", got.Message, tt.want)
			}
			switch {
			case tt.wantError == "" && got.Error != nil:
				t.Errorf("Error = %+v, want none", got.Error)
			case tt.wantError != "" && (got.Error == nil || !strings.HasPrefix(got.Error.Message, tt.wantError)):
				t.Errorf("Error = %+v, want a message starting %q", got.Error, tt.wantError)
			}
			if n := len(got.Steps); n == 0 || got.Steps[n-1] != tt.lastStep {
				t.Errorf("last step of %+v, want %+v", got.Steps, tt.lastStep)
			}
		})
	}
}

func TestClaudeCodeTurnWithoutTranscript(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	got := Turn(Payload{SessionID: "s1", StopHookActive: true}, nil, now)
	wakes := true
	want := stopgate.Turn{Harness: Name, Session: "s1", Now: now, HostWakes: &wakes, Nudges: stopgate.Nudges{Consecutive: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Present but empty is a final message without text, not an unknown one.
	got = Turn(Payload{LastAssistantMessage: ptr("")}, nil, now)
	if got.Message == nil || got.Message.Text != "" {
		t.Errorf("empty last_assistant_message: Message = %+v, want an empty one", got.Message)
	}
}

// TestRunStart checks a run begins at the user's prompt and runs on through the turns that
// background-task notifications start.
func TestRunStart(t *testing.T) {
	j := newJSONL(t, "sess-run")
	j.prompt(0, "Run the tests in the background.")
	j.background(1, "m1", "tu1", "b1", "go test ./...")
	j.say(3, "m2", "They are running; I'll report back.", "")
	j.notification(60, "b1", "failed", 1)
	j.say(61, "m3", "The tests finished. All done.", "")
	j.prompt(120, "Now the docs.")
	j.say(121, "m4", "Done with the docs.", "")
	s := j.read()
	if len(s.Turns) != 3 {
		t.Fatalf("%d turns, want 3", len(s.Turns))
	}
	for i, want := range []time.Time{j.at(0), j.at(0), j.at(120)} {
		if got := SessionTurn(s, i).RunStartedAt; !got.Equal(want) {
			t.Errorf("turn %d: RunStartedAt = %v, want %v", i, got, want)
		}
	}
	// The notification turn's steps are the whole run's: the shell started in the turn before.
	steps := SessionTurn(s, 1).Steps
	if len(steps) != 3 || steps[0].Tool != "Bash" || steps[2].Text != "The tests finished. All done." {
		t.Errorf("turn 1 steps = %+v", steps)
	}
	if got := SessionTurn(s, 2).Steps; len(got) != 1 {
		t.Errorf("turn 2 steps = %+v, want only the new run's reply", got)
	}
	// The failed shell, never read, blocks the notification turn's stop.
	d := stopgate.New(stopgate.Config{}).Decide(t.Context(), SessionTurn(s, 1))
	if d.Verdict != stopgate.Continue || d.Check != stopgate.CheckProcesses {
		t.Errorf("turn 1: %s by %s, want continue by processes; trail %+v", d.Verdict, d.Check, d.Trail)
	}
	if got := SessionTurn(s, 3); !reflect.DeepEqual(got, stopgate.Turn{}) {
		t.Errorf("SessionTurn out of range = %+v, want the zero Turn", got)
	}
}

// TestProcesses checks the shells as they stood at each stop, and the read, kill and exit
// states the process gate reads.
func TestProcesses(t *testing.T) {
	j := newJSONL(t, "sess-proc")
	j.prompt(0, "Build, test and serve.")
	j.background(1, "m1", "tu1", "bbuild", "make build")
	j.background(2, "m1", "tu2", "btest", "make test")
	j.background(3, "m1", "tu3", "bserve", "npm run dev")
	j.call(4, "m1", "tu4", "TaskOutput", map[string]any{"task_id": "bserve", "block": false})
	j.result(5, "tu4", "<retrieval_status>timeout</retrieval_status><task_id>bserve</task_id><status>running</status>", false, nil)
	j.say(6, "m2", "All three are running.", "")
	j.notification(30, "bbuild", "completed", 0)
	j.call(31, "m3", "tu5", "TaskStop", map[string]any{"task_id": "btest"})
	j.result(32, "tu5", "Successfully stopped task: btest", false, map[string]any{"success": true})
	j.say(33, "m4", "Build done; I stopped the tests.", "")
	s := j.read()

	byID := func(ps []gate.Process) map[string]gate.Process {
		m := map[string]gate.Process{}
		for _, p := range ps {
			m[p.ID] = p
		}
		return m
	}
	// At the end of turn 0 all three ran; only the server had been read.
	t0 := byID(SessionTurn(s, 0).Processes)
	for _, id := range []string{"bbuild", "btest", "bserve"} {
		if p := t0[id]; p.Status != gate.StatusRunning || p.ExitCode != nil || p.ExitedAt != nil {
			t.Errorf("turn 0: %s = %+v, want running", id, p)
		}
	}
	if p := t0["bserve"]; p.LastReadAt == nil || !p.LastReadAt.Equal(j.at(5)) {
		t.Errorf("turn 0: bserve LastReadAt = %v, want %v", p.LastReadAt, j.at(5))
	}
	if p := t0["bbuild"]; p.LastReadAt != nil || !p.StartedAt.Equal(j.at(1.5)) {
		t.Errorf("turn 0: bbuild = %+v, want unread, started at its result", p)
	}

	t1 := byID(SessionTurn(s, 1).Processes)
	if p := t1["bbuild"]; p.Status != gate.StatusExited || p.ExitCode == nil || *p.ExitCode != 0 || p.ExitedAt == nil || !p.ExitedAt.Equal(j.at(30)) {
		t.Errorf("turn 1: bbuild = %+v, want exited 0 at the notification", p)
	}
	if p := t1["btest"]; p.Status != gate.StatusExited || !p.StoppedByAgent {
		t.Errorf("turn 1: btest = %+v, want exited, stopped by the agent", p)
	}
	if p := t1["bserve"]; p.Status != gate.StatusRunning {
		t.Errorf("turn 1: bserve = %+v, want running", p)
	}

	// background_tasks overlay: a task reported running is running, a finished one the
	// transcript has not seen end has exited, and one the transcript lacks is added unplaced.
	p := Payload{BackgroundTasks: []BackgroundTask{
		{ID: "bbuild", Type: "shell", Status: "running"},
		{ID: "bserve", Type: "shell", Status: "failed"},
		{ID: "bnew", Type: "shell", Status: "running", Command: "tail -f log"},
	}}
	got := byID(Turn(p, s, j.at(40)).Processes)
	if q := got["bbuild"]; q.Status != gate.StatusRunning || q.ExitCode != nil || q.ExitedAt != nil {
		t.Errorf("overlay: bbuild = %+v, want running", q)
	}
	if q := got["bserve"]; q.Status != gate.StatusExited || q.ExitCode != nil || q.LastReadAt != nil {
		t.Errorf("overlay: bserve = %+v, want exited with an unknown code, unread since", q)
	}
	if q := got["bnew"]; q.Status != gate.StatusRunning || !q.StartedAt.IsZero() || q.Command != "tail -f log" {
		t.Errorf("overlay: bnew = %+v, want running with no start", q)
	}
	if q := got["btest"]; !q.StoppedByAgent {
		t.Errorf("overlay: btest = %+v, want unchanged", q)
	}
}

func TestSubagents(t *testing.T) {
	j := newJSONL(t, "sess-agents")
	j.prompt(0, "Explore.")
	j.call(1, "m1", "tu1", "Agent", map[string]any{"description": "fg done", "prompt": "x"})
	j.result(2, "tu1", "found it", false, map[string]any{"status": "completed", "agentId": "afg"})
	j.call(3, "m2", "tu2", "Agent", map[string]any{"description": "bg running", "prompt": "x", "run_in_background": true})
	j.result(4, "tu2", "Async agent launched successfully.", false, map[string]any{"isAsync": true, "status": "async_launched", "agentId": "abg"})
	j.call(5, "m3", "tu3", "Agent", map[string]any{"description": "fg failed", "prompt": "x"})
	j.result(6, "tu3", "agent crashed", true, nil)
	j.call(7, "m4", "tu4", "Agent", map[string]any{"description": "fg no result", "prompt": "x"})
	j.say(8, "m5", "Waiting.", "")
	s := j.read()
	got := SessionTurn(s, 0).Subagents
	want := []gate.Subagent{
		{ID: "afg", Status: gate.StatusFinished, StartedAt: j.at(1), ResultCollected: true, Description: "fg done"},
		{ID: "abg", Status: gate.StatusRunning, StartedAt: j.at(3), Description: "bg running"},
		{ID: "tu3", Status: gate.StatusFailed, StartedAt: j.at(5), ResultCollected: true, Description: "fg failed"},
		{ID: "tu4", StartedAt: j.at(7), Description: "fg no result"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	p := Payload{BackgroundTasks: []BackgroundTask{
		{ID: "abg", Type: "subagent", Status: "completed"},
		{ID: "aother", Type: "subagent", Status: "running", Description: "another"},
	}}
	merged := Turn(p, s, j.at(9)).Subagents
	if merged[1].Status != gate.StatusFinished || merged[1].ResultCollected {
		t.Errorf("abg after a completed task = %+v, want finished, not collected", merged[1])
	}
	if n := len(merged); n != 5 || merged[4].ID != "aother" || merged[4].Status != gate.StatusRunning {
		t.Errorf("merged = %+v, want aother added, running", merged)
	}
	killed := Turn(Payload{BackgroundTasks: []BackgroundTask{{ID: "abg", Type: "subagent", Status: "killed"}}}, s, j.at(9)).Subagents
	if killed[1].Status != gate.StatusFailed || !killed[1].ResultCollected {
		t.Errorf("abg after a killed task = %+v, want failed, nothing owed", killed[1])
	}
}

func TestTodos(t *testing.T) {
	j := newJSONL(t, "sess-todo")
	j.prompt(0, "Do it.")
	j.say(1, "m1", "Done.", "")
	if got := SessionTurn(j.read(), 0).Todos; got != nil {
		t.Errorf("no todo tool used: Todos = %+v, want nil (unknown)", got)
	}

	todos := func(items ...map[string]any) map[string]any {
		return map[string]any{"todos": append([]map[string]any{}, items...)}
	}
	j.call(2, "m2", "tu1", "TodoWrite", todos(
		map[string]any{"content": "write it", "status": "completed", "activeForm": "Writing it"},
		map[string]any{"content": "test it", "status": "in_progress", "activeForm": "Testing it"},
	))
	j.result(3, "tu1", "Todos have been modified successfully.", false, nil)
	j.say(4, "m3", "Testing.", "")
	want := []stopgate.Todo{{Content: "write it", Status: "completed"}, {Content: "test it", Status: "in_progress"}}
	if got := SessionTurn(j.read(), 0).Todos; !reflect.DeepEqual(got, want) {
		t.Errorf("Todos = %+v, want %+v", got, want)
	}

	j.call(5, "m4", "tu2", "TodoWrite", todos())
	j.result(6, "tu2", "Todos have been modified successfully.", false, nil)
	s := j.read()
	if got := SessionTurn(s, 0).Todos; got == nil || len(got) != 0 {
		t.Errorf("emptied list: Todos = %#v, want empty, not nil", got)
	}
	j.prompt(7, "More.")
	j.say(8, "m5", "Done.", "")
	if got := SessionTurn(j.read(), 0).Todos; got != nil {
		t.Errorf("a past turn: Todos = %+v, want nil (the transcript keeps only the latest list)", got)
	}
}

// TestSubagentStop checks a sub-agent's stop reads its own transcript, is not woken by the
// host, and takes from the parent's background tasks only updates to its own work.
func TestSubagentStop(t *testing.T) {
	j := newJSONL(t, "sess-parent")
	j.agent = "asub1"
	j.prompt(0, "Map the lexer.")
	j.background(1, "m1", "tu1", "bsub", "go test ./lexer")
	j.say(2, "m2", "The lexer is mapped.", "")
	p := Payload{
		SessionID: "sess-parent", HookEventName: EventSubagentStop, AgentID: "asub1",
		BackgroundTasks: []BackgroundTask{
			{ID: "bsub", Type: "shell", Status: "completed"},
			{ID: "bparent", Type: "shell", Status: "running"},
			{ID: "aparent", Type: "subagent", Status: "running"},
			{ID: "w1", Type: "workflow", Status: "running"},
		},
	}
	got := Turn(p, j.read(), j.at(3))
	if got.Agent != "asub1" || got.HostWakes == nil || *got.HostWakes {
		t.Errorf("Agent %q HostWakes %v, want asub1 and false", got.Agent, got.HostWakes)
	}
	if len(got.Processes) != 1 || got.Processes[0].ID != "bsub" || got.Processes[0].Status != gate.StatusExited {
		t.Errorf("Processes = %+v, want only bsub, exited", got.Processes)
	}
	if len(got.Subagents) != 0 || got.Jobs != nil {
		t.Errorf("Subagents %+v Jobs %+v, want none of the parent's", got.Subagents, got.Jobs)
	}
}

func TestJobsAndSchedules(t *testing.T) {
	p := Payload{
		BackgroundTasks: []BackgroundTask{
			{ID: "w1", Type: "workflow", Status: "running", Name: "release"},
			{ID: "m1", Type: "monitor", Status: "running", Description: "watch logs"},
			{ID: "x1", Type: "MCP task", Status: "completed", Tool: "index"},
		},
		SessionCrons: []SessionCron{{ID: "c1", Schedule: "0 9 * * *", Recurring: true}, {ID: "c2", Schedule: "30 14 1 3 *"}},
	}
	got := Turn(p, nil, time.Time{})
	wantJobs := []stopgate.Job{
		{ID: "w1", Label: "release", Status: "running"},
		{ID: "m1", Label: "watch logs", Status: "running", Service: true},
		{ID: "x1", Label: "index", Status: "completed"},
	}
	if !reflect.DeepEqual(got.Jobs, wantJobs) {
		t.Errorf("Jobs = %+v, want %+v", got.Jobs, wantJobs)
	}
	wantScheds := []stopgate.Schedule{{ID: "c1", Trigger: "cron"}, {ID: "c2", Trigger: "cron"}}
	if !reflect.DeepEqual(got.Schedules, wantScheds) {
		t.Errorf("Schedules = %+v, want %+v", got.Schedules, wantScheds)
	}
	if got.Processes == nil || got.Subagents == nil {
		t.Errorf("background_tasks reported: Processes %#v Subagents %#v, want empty, not nil", got.Processes, got.Subagents)
	}

	// Absent stays unknown; empty is none.
	none := Turn(Payload{}, nil, time.Time{})
	if none.Jobs != nil || none.Schedules != nil || none.Processes != nil || none.Subagents != nil {
		t.Errorf("absent fields: %+v, want nil lists", none)
	}
	empty := Turn(Payload{BackgroundTasks: []BackgroundTask{}, SessionCrons: []SessionCron{}}, nil, time.Time{})
	if empty.Jobs == nil || empty.Schedules == nil || len(empty.Jobs)+len(empty.Schedules) != 0 {
		t.Errorf("empty fields: Jobs %#v Schedules %#v, want empty lists", empty.Jobs, empty.Schedules)
	}
}

func TestSteps(t *testing.T) {
	j := newJSONL(t, "sess-steps")
	j.prompt(0, "Go.")
	j.say(1, "m1", "Reading two files.", "")
	j.call(1.1, "m1", "tu1", "Read", map[string]any{"file_path": "a.go"})
	j.call(1.2, "m1", "tu2", "Read", map[string]any{"file_path": "b.go"})
	j.result(2, "tu1", "package a", false, nil)
	j.result(2.1, "tu2", "no such file", true, nil)
	j.say(3, "m2", "Hmm.", "")
	got := SessionTurn(j.read(), 0).Steps
	want := []loopguard.Step{
		{Tool: "Read", Args: `{"file_path":"a.go"}`, Result: "package a", Text: "Reading two files."},
		{Tool: "Read", Args: `{"file_path":"b.go"}`, Error: "no such file"},
		{Text: "Hmm."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	long := newJSONL(t, "sess-long")
	long.prompt(0, "Loop.")
	for i := range MaxSteps + 30 {
		long.say(float64(i+1), fmt.Sprintf("m%d", i), fmt.Sprintf("reply %d", i), "")
	}
	steps := SessionTurn(long.read(), 0).Steps
	if len(steps) != MaxSteps || steps[MaxSteps-1].Text != fmt.Sprintf("reply %d", MaxSteps+29) {
		t.Errorf("%d steps ending %+v, want the last %d", len(steps), steps[len(steps)-1], MaxSteps)
	}
}
