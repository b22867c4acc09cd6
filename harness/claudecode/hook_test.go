package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/stopgate/stopgate/hook"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/stall"
)

const (
	stalled   = "I fixed the parser. Let me run the tests."
	completed = "All tests pass and the change is pushed."
)

// runHook runs one in-process hook invocation with payload on stdin.
func runHook(t *testing.T, payload string, opts *Options) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = ClaudeCode(context.Background(), strings.NewReader(payload), &out, &errOut, opts)
	return out.String(), errOut.String(), code
}

// payloadJSON renders a payload as Claude Code would write it.
func payloadJSON(t *testing.T, p map[string]any) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// session writes a one-turn transcript whose run started at its base time and returns it with
// its path.
func session(t *testing.T, dir, id, final string) (*jsonl, string) {
	t.Helper()
	j := newJSONL(t, id)
	j.prompt(0, "Fix the parser.")
	j.say(1, "m1", final, "")
	return j, j.write(dir)
}

func fixedNow() time.Time { return time.Date(2026, 3, 1, 10, 5, 0, 0, time.UTC) }

// checkBlock checks stdout is exactly one {"decision":"block","reason":...} line, and returns
// the reason.
func checkBlock(t *testing.T, stdout string) string {
	t.Helper()
	if !strings.HasPrefix(stdout, `{"decision":"block","reason":"`) || !strings.HasSuffix(stdout, "\"}\n") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout = %q, want one {\"decision\":\"block\",\"reason\":…} line", stdout)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	reason, _ := v["reason"].(string)
	if len(v) != 2 || v["decision"] != "block" || reason == "" {
		t.Fatalf("stdout = %s, want exactly decision and reason", stdout)
	}
	return reason
}

// checkFailOpen checks the stop proceeds with lines lines on stderr, each beginning
// "stopgate:", the last saying want.
func checkFailOpen(t *testing.T, stdout, stderr string, code, lines int, want string) {
	t.Helper()
	if code != 0 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout)
	}
	got := strings.SplitAfter(stderr, "\n")
	if got[len(got)-1] == "" {
		got = got[:len(got)-1]
	}
	if len(got) != lines {
		t.Errorf("stderr = %q, want %d line(s)", stderr, lines)
	}
	for _, l := range got {
		if !strings.HasPrefix(l, "stopgate: ") || !strings.HasSuffix(l, "\n") {
			t.Errorf("stderr line %q does not begin \"stopgate: \"", l)
		}
	}
	if len(got) == 0 || !strings.Contains(got[len(got)-1], want) || !strings.HasSuffix(got[len(got)-1], "letting the agent stop\n") {
		t.Errorf("stderr = %q, want it to end on %q and letting the agent stop", stderr, want)
	}
}

func TestClaudeCodeBlocksAStall(t *testing.T) {
	dir := t.TempDir()
	_, path := session(t, dir, "sess-block", "Looking at the parser.")
	for _, event := range []string{EventStop, EventSubagentStop} {
		t.Run(event, func(t *testing.T) {
			p := map[string]any{
				"session_id": "sess-block", "hook_event_name": event, "stop_hook_active": false,
				"last_assistant_message": stalled,
			}
			if event == EventSubagentStop {
				p["agent_id"], p["agent_transcript_path"] = "asub", path
			} else {
				p["transcript_path"] = path
			}
			opts := &Options{StateDir: filepath.Join(dir, "state"), Now: fixedNow}
			stdout, stderr, code := runHook(t, payloadJSON(t, p), opts)
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			reason := checkBlock(t, stdout)
			if !strings.Contains(reason, `"Let me run the tests."`) {
				t.Errorf("reason %q does not quote the dangling sentence", reason)
			}

			opts.Style = StyleContext
			p["session_id"] = "sess-block-context"
			stdout, _, _ = runHook(t, payloadJSON(t, p), opts)
			prefix := `{"hookSpecificOutput":{"hookEventName":"` + event + `","additionalContext":"Your last message ended with \"Let me run the tests.\"`
			if !strings.HasPrefix(stdout, prefix) || !strings.HasSuffix(stdout, "\"}}\n") {
				t.Errorf("context style: stdout = %q, want %s…", stdout, prefix)
			}
		})
	}
}

func TestClaudeCodeAllowsACompletion(t *testing.T) {
	dir := t.TempDir()
	_, path := session(t, dir, "sess-done", completed)
	p := payloadJSON(t, map[string]any{
		"session_id": "sess-done", "transcript_path": path, "hook_event_name": "Stop",
		"last_assistant_message": completed, "background_tasks": []any{}, "session_crons": []any{},
	})
	stdout, stderr, code := runHook(t, p, &Options{StateDir: dir, Now: fixedNow})
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout, stderr)
	}
}

// TestClaudeCodeBudgets follows the nudge budget across invocations within a run, and its
// reset when a new run starts.
func TestClaudeCodeBudgets(t *testing.T) {
	dir := t.TempDir()
	j, path := session(t, dir, "sess-budget", stalled)
	stateDir := filepath.Join(dir, "state")
	invoke := func(active bool) bool {
		t.Helper()
		p := payloadJSON(t, map[string]any{
			"session_id": "sess-budget", "transcript_path": path, "stop_hook_active": active,
			"last_assistant_message": stalled,
		})
		stdout, stderr, code := runHook(t, p, &Options{StateDir: stateDir, Now: fixedNow})
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if stdout != "" {
			checkBlock(t, stdout)
		}
		return stdout != ""
	}
	// The stall check may nudge twice a run (stopgate.DefaultCap).
	for i, want := range []struct{ active, block bool }{{false, true}, {true, true}, {true, false}, {false, false}} {
		if got := invoke(want.active); got != want.block {
			t.Fatalf("invocation %d (stop_hook_active %v): blocked %v, want %v", i+1, want.active, got, want.block)
		}
	}
	st, found, err := hook.LoadState(hook.StatePath(stateDir, "sess-budget", ""))
	if err != nil || !found || !st.Run.Equal(j.at(0)) || st.Nudges.Given.Count("stall") != 2 || st.Nudges.Consecutive != 0 {
		t.Errorf("state = %+v (found %v, %v), want run %v, 2 stall nudges, none in a row", st, found, err, j.at(0))
	}

	// A new prompt starts a new run with a fresh budget.
	j.prompt(60, "And the lexer?")
	j.say(61, "m2", stalled, "")
	j.write(dir)
	if !invoke(false) {
		t.Errorf("a new run: allowed, want a nudge from a fresh budget")
	}
}

// TestClaudeCodeInARow checks the in-a-row bound holds across invocations even when the
// per-check budget would allow more.
func TestClaudeCodeInARow(t *testing.T) {
	dir := t.TempDir()
	_, path := session(t, dir, "sess-row", stalled)
	sup := stopgate.New(stopgate.Config{Caps: map[stopgate.Check]int{stopgate.CheckStall: 100}})
	opts := &Options{StateDir: dir, Now: fixedNow, Supervisor: sup}
	var blocks []bool
	for i := range stopgate.DefaultMaxConsecutive + 1 {
		p := payloadJSON(t, map[string]any{"session_id": "sess-row", "transcript_path": path, "stop_hook_active": i > 0, "last_assistant_message": stalled})
		stdout, _, _ := runHook(t, p, opts)
		blocks = append(blocks, stdout != "")
	}
	want := []bool{true, true, true, false}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("blocked %v, want %v", blocks, want)
	}
}

// TestClaudeCodeState covers the state file's failure cases.
func TestClaudeCodeState(t *testing.T) {
	const id = "sess-state"
	tests := []struct {
		name      string
		stateDir  func(dir string) string // "" keeps no state
		prepare   func(t *testing.T, path string)
		active    bool
		wantBlock bool
		wantNote  string
	}{
		{
			name:     "spent budget with stop_hook_active",
			stateDir: func(dir string) string { return dir },
			prepare: func(t *testing.T, path string) {
				writeFile(t, path, `{"run":"2026-03-01T10:00:00Z","nudges":{"consecutive":1,"given":{"stall":2}}}`)
			},
			active: true,
		},
		{
			name:     "spent budget of an earlier run",
			stateDir: func(dir string) string { return dir },
			prepare: func(t *testing.T, path string) {
				writeFile(t, path, `{"run":"2026-02-01T10:00:00Z","nudges":{"consecutive":0,"given":{"stall":2}}}`)
			},
			wantBlock: true,
		},
		{
			name:     "unreadable state with stop_hook_active",
			stateDir: func(dir string) string { return dir },
			prepare:  func(t *testing.T, path string) { writeFile(t, path, "{not json") },
			active:   true,
			wantNote: "stopgate: nudge budget unreadable",
		},
		{
			name:      "unreadable state, first stop",
			stateDir:  func(dir string) string { return dir },
			prepare:   func(t *testing.T, path string) { writeFile(t, path, `{"nudges":{"given":{"stall":-4}}}`) },
			wantBlock: true,
			wantNote:  "starting from none given",
		},
		{
			name:     "no state on record with stop_hook_active",
			stateDir: func(dir string) string { return dir },
			active:   true,
			wantNote: "no nudge budget on record for this session",
		},
		{
			name:      "no state dir, first stop",
			stateDir:  func(string) string { return "" },
			wantBlock: true,
		},
		{
			name:     "no state dir with stop_hook_active",
			stateDir: func(string) string { return "" },
			active:   true,
			wantNote: "not nudging twice in a row",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, path := session(t, dir, id, stalled)
			stateDir := tt.stateDir(filepath.Join(dir, "state"))
			if tt.prepare != nil {
				tt.prepare(t, hook.StatePath(stateDir, id, ""))
			}
			p := payloadJSON(t, map[string]any{"session_id": id, "transcript_path": path, "stop_hook_active": tt.active, "last_assistant_message": stalled})
			stdout, stderr, code := runHook(t, p, &Options{StateDir: stateDir, Now: fixedNow})
			if code != 0 {
				t.Errorf("exit %d", code)
			}
			if tt.wantBlock {
				checkBlock(t, stdout)
			} else if stdout != "" {
				t.Errorf("stdout = %q, want the stop to proceed", stdout)
			}
			if tt.wantNote == "" && stderr != "" || !strings.Contains(stderr, tt.wantNote) {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantNote)
			}
			if tt.wantBlock && stateDir != "" {
				if _, found, err := hook.LoadState(hook.StatePath(stateDir, id, "")); !found || err != nil {
					t.Errorf("after a nudge the state is unreadable (found %v, %v)", found, err)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestClaudeCodeUnsavableState(t *testing.T) {
	dir := t.TempDir()
	notADir := filepath.Join(dir, "file")
	writeFile(t, notADir, "")
	p := payloadJSON(t, map[string]any{"session_id": "s", "last_assistant_message": stalled})
	stdout, stderr, code := runHook(t, p, &Options{StateDir: notADir, Now: fixedNow})
	// Reading the budget fails first (a note), then saving it (the failure).
	checkFailOpen(t, stdout, stderr, code, 2, "cannot save the nudge budget")

	// A stop needs no saved budget to be right: it proceeds, and the failure is noted.
	p = payloadJSON(t, map[string]any{"session_id": "s", "last_assistant_message": completed})
	stdout, stderr, code = runHook(t, p, &Options{StateDir: notADir, Now: fixedNow})
	if code != 0 || stdout != "" || !strings.Contains(stderr, "\nstopgate: cannot save the nudge budget: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestClaudeCodeUnreadableTranscript(t *testing.T) {
	dir := t.TempDir()
	p := payloadJSON(t, map[string]any{
		"session_id": "sess-lost", "transcript_path": filepath.Join(dir, "missing.jsonl"),
		"last_assistant_message": stalled,
	})
	stdout, stderr, code := runHook(t, p, &Options{StateDir: dir, Now: fixedNow})
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	checkBlock(t, stdout)
	if !strings.HasPrefix(stderr, "stopgate: transcript unreadable") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr = %q, want one note that the transcript is unreadable", stderr)
	}
	// Without a state directory, the same: the one note, nothing about a budget.
	stdout, stderr, _ = runHook(t, p, &Options{Now: fixedNow})
	checkBlock(t, stdout)
	if !strings.HasPrefix(stderr, "stopgate: transcript unreadable") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("no state dir: stderr = %q, want one note that the transcript is unreadable", stderr)
	}
}

// blockingClient is a model client that answers only when its context ends.
type blockingClient struct{}

func (blockingClient) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	<-ctx.Done()
	return model.Response{}, ctx.Err()
}

// recorder records the calls, and fails or panics as told.
type recorder struct {
	turns []stopgate.Turn
	decs  []stopgate.Decision
	err   error
	panic bool
}

func (r *recorder) Record(_ context.Context, t stopgate.Turn, d stopgate.Decision) error {
	if r.panic {
		panic("recorder broke")
	}
	r.turns, r.decs = append(r.turns, t), append(r.decs, d)
	return r.err
}

func TestClaudeCodeFailsOpen(t *testing.T) {
	slow := stopgate.New(stopgate.Config{Classifier: &stall.ModelClassifier{Client: blockingClient{}, Timeout: time.Hour}})
	tests := []struct {
		name    string
		payload string
		opts    *Options
		want    string
	}{
		{"not JSON", "Stop hook says hi", nil, "hook payload is not a JSON object"},
		{"empty stdin", "", nil, "hook payload is not a JSON object"},
		{"a JSON array", `[{"session_id":"s"}]`, nil, "hook payload is not a JSON object"},
		{"a panic while deciding", `{"session_id":"s","last_assistant_message":"x"}`,
			&Options{Now: func() time.Time { panic("clock broke") }}, "panic: clock broke"},
		{"the time budget runs out", `{"session_id":"s","last_assistant_message":"The parser now handles nested quotes."}`,
			&Options{Supervisor: slow, Timeout: 10 * time.Millisecond}, "no decision within 10ms"},
		{"the caller's context ends", `{"session_id":"s","last_assistant_message":"The parser now handles nested quotes."}`,
			&Options{Supervisor: slow, Timeout: time.Hour}, "interrupted before a decision: context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if strings.Contains(tt.name, "caller") {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			rec := &recorder{}
			opts := tt.opts
			if opts == nil {
				opts = &Options{}
			}
			opts.Recorder = rec
			var out, errOut bytes.Buffer
			code := ClaudeCode(ctx, strings.NewReader(tt.payload), &out, &errOut, opts)
			checkFailOpen(t, out.String(), errOut.String(), code, 1, tt.want)
			if len(rec.turns) != 0 {
				t.Errorf("the recorder was called for a decision that was not made")
			}
		})
	}
}

func TestClaudeCodeRecorder(t *testing.T) {
	for _, tt := range []struct {
		name      string
		rec       *recorder
		final     string
		wantBlock bool
		wantNote  string
	}{
		{"records a nudge", &recorder{}, stalled, true, ""},
		{"records a stop", &recorder{}, completed, false, ""},
		{"an error changes nothing", &recorder{err: errors.New("store is down")}, stalled, true, "stopgate: recording the decision: store is down\n"},
		{"a panic changes nothing", &recorder{panic: true}, stalled, true, "stopgate: recording the decision: panic: recorder broke\n"},
		{"a panic on a stop changes nothing", &recorder{panic: true}, completed, false, "stopgate: recording the decision: panic: recorder broke\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := payloadJSON(t, map[string]any{"session_id": "sess-rec", "last_assistant_message": tt.final})
			stdout, stderr, code := runHook(t, p, &Options{StateDir: dir, Now: fixedNow, Recorder: tt.rec})
			if code != 0 || stderr != tt.wantNote {
				t.Errorf("exit %d, stderr %q; want 0 and %q", code, stderr, tt.wantNote)
			}
			if tt.wantBlock {
				checkBlock(t, stdout)
			} else if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if tt.rec.panic {
				return
			}
			if len(tt.rec.turns) != 1 {
				t.Fatalf("recorded %d decisions, want 1", len(tt.rec.turns))
			}
			tu, d := tt.rec.turns[0], tt.rec.decs[0]
			if tu.Harness != Name || tu.Session != "sess-rec" || !tu.Now.Equal(fixedNow()) || tu.Message == nil || tu.Message.Text != tt.final {
				t.Errorf("recorded turn %+v", tu)
			}
			if (d.Verdict == stopgate.Continue) != tt.wantBlock {
				t.Errorf("recorded decision %s, want block %v", d.Verdict, tt.wantBlock)
			}
		})
	}
}

func TestClaudeCodeNotes(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    string
	}{
		{"another event", `{"session_id":"s","hook_event_name":"PreToolUse","last_assistant_message":"` + stalled + `"}`,
			"stopgate: hook event \"PreToolUse\" is not Stop, SubagentStop or StopFailure; nothing to decide\n"},
		{"a SubagentStop without its transcript", `{"session_id":"s","hook_event_name":"SubagentStop","agent_id":"a","last_assistant_message":"` + completed + `"}`,
			"stopgate: no agent_transcript_path in the SubagentStop payload; deciding on the payload alone\n"},
		{"a field of the wrong type", `{"session_id":"s","cwd":7,"last_assistant_message":"` + completed + `"}`,
			"stopgate: payload fields of an unexpected type, read as absent: cwd\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runHook(t, tt.payload, &Options{StateDir: t.TempDir(), Now: fixedNow})
			if code != 0 || stdout != "" || stderr != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, nothing, %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

func TestEncodeAnswer(t *testing.T) {
	tests := []struct {
		name     string
		d        stopgate.Decision
		event    string
		style    Style
		want     string
		wantNote string
	}{
		{"stop", stopgate.Decision{Verdict: stopgate.Stop, Message: "ignored"}, EventStop, StyleBlock, "", ""},
		{"block", stopgate.Decision{Verdict: stopgate.Continue, Message: "Read <out> & go on."}, EventStop, "",
			`{"decision":"block","reason":"Read <out> & go on."}` + "\n", ""},
		{"context", stopgate.Decision{Verdict: stopgate.Continue, Message: "Go on."}, EventSubagentStop, StyleContext,
			`{"hookSpecificOutput":{"hookEventName":"SubagentStop","additionalContext":"Go on."}}` + "\n", ""},
		{"retry", stopgate.Decision{Verdict: stopgate.Retry, Check: stopgate.CheckStopMetadata, Message: "send it again"}, EventStop, StyleBlock,
			"", "a retry was advised (stop_metadata), but a stop hook cannot resend a request; letting the agent stop"},
		{"no message", stopgate.Decision{Verdict: stopgate.Continue, Check: stopgate.CheckTodos, Message: " "}, EventStop, StyleBlock,
			"", "check todos continued the run without a message; letting the agent stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, note := encodeAnswer(tt.d, tt.event, tt.style)
			if string(got) != tt.want || note != tt.wantNote {
				t.Errorf("got %q, note %q; want %q, note %q", got, note, tt.want, tt.wantNote)
			}
		})
	}
}
