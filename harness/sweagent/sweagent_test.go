package sweagent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/termination"
)

// TestExitStatusReason pins the mapping of every exit status SWE-agent and mini-swe-agent write.
func TestExitStatusReason(t *testing.T) {
	tests := []struct {
		status string
		want   termination.Category
		site   termination.Site
		source termination.Source
	}{
		{"submitted", termination.Completed, termination.SiteRunnerCompleted, termination.SourceControl},
		{"Submitted", termination.Completed, termination.SiteRunnerCompleted, termination.SourceControl},
		{" submitted ", termination.Completed, termination.SiteRunnerCompleted, termination.SourceControl},
		{"exit_command", termination.Completed, termination.SiteRunnerCompleted, termination.SourceControl},
		{"exit_forfeit", termination.Completed, termination.SiteRunnerCompleted, termination.SourceControl},
		{"exit_cost", termination.RecursionLimit, termination.SiteTurnError, termination.SourceControl},
		{"LimitsExceeded", termination.RecursionLimit, termination.SiteTurnError, termination.SourceControl},
		{"exit_total_execution_time", termination.Timeout, termination.SiteTurnError, termination.SourceControl},
		{"TimeExceeded", termination.Timeout, termination.SiteTurnError, termination.SourceControl},
		{"exit_format", termination.ToolErrorBudget, termination.SiteTurnError, termination.SourceControl},
		{"FormatError", termination.ToolErrorBudget, termination.SiteTurnError, termination.SourceControl},
		{"exit_context", termination.ContextOverflow, termination.SiteTurnError, termination.SourceException},
		{"exit_api", termination.ProviderError, termination.SiteTurnError, termination.SourceException},
		{"exit_command_timeout", termination.Timeout, termination.SiteTurnError, termination.SourceException},
		{"exit_environment_error", termination.ToolError, termination.SiteTurnError, termination.SourceException},
		{"early_exit", termination.ToolError, termination.SiteTurnError, termination.SourceException},
		{"exit_error", termination.Unknown, termination.SiteTurnError, termination.SourceException},
		{"UserInterruption", termination.Cancelled, termination.SiteCancelled, termination.SourceControl},
		{"KeyboardInterrupt", termination.Cancelled, termination.SiteCancelled, termination.SourceControl},
		// Autosubmission after an error ends as the error did.
		{"submitted (exit_cost)", termination.RecursionLimit, termination.SiteTurnError, termination.SourceControl},
		{"submitted (exit_context)", termination.ContextOverflow, termination.SiteTurnError, termination.SourceException},
		{"submitted (exit_format)", termination.ToolErrorBudget, termination.SiteTurnError, termination.SourceControl},
		{"submitted (exit_error)", termination.Unknown, termination.SiteTurnError, termination.SourceException},
		{"Submitted (exit_api)", termination.ProviderError, termination.SiteTurnError, termination.SourceException},
		{"autosubmit (exit_total_execution_time)", termination.Timeout, termination.SiteTurnError, termination.SourceControl},
		// mini-swe-agent records an uncaught exception by its class name.
		{"RateLimitError", termination.RateLimited, termination.SiteTurnError, termination.SourceException},
		{"APITimeoutError", termination.Timeout, termination.SiteTurnError, termination.SourceException},
		{"AbortError", termination.Cancelled, termination.SiteCancelled, termination.SourceException},
		{"ValueError", termination.Unknown, termination.SiteTurnError, termination.SourceException},
		{"", termination.Unknown, termination.SiteTurnError, termination.SourceException},
		{"submitted ()", termination.Unknown, termination.SiteTurnError, termination.SourceException},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			r := ExitStatusReason(tt.status)
			if r.Category != tt.want || r.Site != tt.site || r.Source != tt.source {
				t.Errorf("ExitStatusReason(%q) = %s, want %s at %s from %s", tt.status, r, tt.want, tt.site, tt.source)
			}
			if r.Detail != strings.TrimSpace(tt.status) {
				t.Errorf("detail %q, want the status as written", r.Detail)
			}
		})
	}
}

// TestParseTrajectory checks the Turn read from each shape of trajectory.
func TestParseTrajectory(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		format    string
		id        string
		text      string
		toolCalls int
		steps     int
		failed    int // steps that failed
		err       bool
	}{
		{
			name:   "swe-agent trajectory",
			data:   `{"trajectory":[{"action":"ls","observation":"a.py","response":"DISCUSSION\nList.\n\n` + "```\\nls\\n```" + `","thought":"List."},{"action":"submit","observation":"diff","response":"","thought":"Submit."}],"info":{"exit_status":"submitted"}}`,
			format: FormatSWEAgent, id: "x", text: "Submit.", toolCalls: 1, steps: 2,
		},
		{
			name:   "swe-agent history only",
			data:   `{"history":[{"role":"system","content":"sys"},{"role":"assistant","content":"I'll list.","action":"ls","thought":"I'll list."},{"role":"user","content":"a.py"},{"role":"assistant","content":[{"type":"text","text":"All done."}]}],"info":{"exit_status":"exit_command"}}`,
			format: FormatSWEAgent, id: "x", text: "All done.", toolCalls: 0, steps: 2,
		},
		{
			name:   "mini-swe-agent",
			data:   `{"instance_id":"astropy__astropy-1","trajectory_format":"mini-swe-agent-1","info":{"exit_status":"Submitted"},"messages":[{"role":"user","content":"task"},{"role":"assistant","content":"THOUGHT: run\n\n` + "```bash\\npytest\\n```" + `"},{"role":"user","content":"<returncode>1</returncode>\n<output>FAILED</output>"},{"role":"assistant","content":"THOUGHT: done\n\n` + "```bash\\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\n```" + `"}]}`,
			format: FormatMiniSWEAgent, id: "astropy__astropy-1", text: "THOUGHT: done\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```", toolCalls: 1, steps: 2, failed: 1,
		},
		{
			// mini-swe-agent 2's tool-calling shape: the final message announces the submit
			// command its tool call carries, so it carries one tool call (no dangling colon).
			name:   "mini-swe-agent tool calls",
			data:   `{"instance_id":"demo__demo-1","trajectory_format":"mini-swe-agent-1.1","info":{"exit_status":"Submitted"},"messages":[{"role":"user","content":"task"},{"role":"assistant","content":"Run both.","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\": \"pytest\"}"}},{"id":"c2","type":"function","function":{"name":"bash","arguments":"{\"command\": \"ls\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"FAILED","extra":{"returncode":1}},{"role":"tool","tool_call_id":"c2","content":"a.py","extra":{"returncode":0}},{"role":"assistant","content":"I'll submit:","tool_calls":[{"id":"c3","type":"function","function":{"name":"bash","arguments":"{\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\"}"}}]},{"role":"exit","content":"","extra":{"exit_status":"Submitted"}}]}`,
			format: FormatMiniSWEAgent, id: "demo__demo-1", text: "I'll submit:", toolCalls: 1, steps: 3, failed: 1,
		},
		{
			name:   "mini-swe-agent tool calls read from extra.actions, content null",
			data:   `{"trajectory_format":"mini-swe-agent-1.1","info":{"exit_status":"Submitted"},"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","function":{"name":"bash","arguments":"not json"}}],"extra":{"actions":[{"command":"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT","tool_call_id":"c1"}]}}]}`,
			format: FormatMiniSWEAgent, id: "x", text: "", toolCalls: 1, steps: 1,
		},
		{
			name:   "mini-swe-agent 2 text-based block",
			data:   `{"trajectory_format":"mini-swe-agent-1.1","info":{"exit_status":"Submitted"},"messages":[{"role":"assistant","content":"Submitting:\n\n` + "```mswea_bash_command\\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\n```" + `"}]}`,
			format: FormatMiniSWEAgent, id: "x", text: "Submitting:\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```", toolCalls: 1, steps: 1,
		},
		{
			name:   "messages without a format are mini-swe-agent's",
			data:   `{"info":{"exit_status":"LimitsExceeded"},"messages":[{"role":"assistant","content":"no action"}]}`,
			format: FormatMiniSWEAgent, id: "x", text: "no action", steps: 1,
		},
		{
			name:   "info alone",
			data:   `{"info":{"exit_status":null}}`,
			format: FormatSWEAgent, id: "x", steps: 0,
		},
		{name: "not an object", data: `[1,2]`, err: true},
		{name: "no trajectory field", data: `{"environment":"swe_main"}`, err: true},
		{name: "a field of the wrong type", data: `{"trajectory":"no","info":{}}`, err: true},
		{name: "cut short", data: `{"trajectory":[`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseTrajectory("runs/x.traj", []byte(tt.data))
			if tt.err {
				if err == nil {
					t.Fatalf("no error; session %+v", s)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tt.format || s.Harness != tt.format || s.ID != tt.id || len(s.Turns) != 1 {
				t.Fatalf("session %s/%s/%s with %d turns", s.Format, s.Harness, s.ID, len(s.Turns))
			}
			tu := s.Turns[0].Turn
			if tu.Mode != stall.Autonomous || tu.HostWakes == nil || *tu.HostWakes {
				t.Errorf("mode %q, host wakes %v: want an autonomous run nothing wakes", tu.Mode, tu.HostWakes)
			}
			text, calls := "", 0
			if tu.Message != nil {
				text, calls = tu.Message.Text, tu.Message.ToolCalls
			}
			if text != tt.text || calls != tt.toolCalls {
				t.Errorf("message %q with %d tool call(s), want %q with %d", text, calls, tt.text, tt.toolCalls)
			}
			failed := 0
			for _, st := range tu.Steps {
				if st.Failed() {
					failed++
				}
			}
			if len(tu.Steps) != tt.steps || failed != tt.failed {
				t.Errorf("%d steps (%d failed), want %d (%d): %+v", len(tu.Steps), failed, tt.steps, tt.failed, tu.Steps)
			}
		})
	}
}

// TestTrajectoryError checks that a run the runner ended carries its reason as the Turn's error,
// and a completed or cancelled one none.
func TestTrajectoryError(t *testing.T) {
	for status, wantErr := range map[string]bool{
		"submitted": false, "exit_forfeit": false, "UserInterruption": false, "": false,
		"exit_cost": true, "submitted (exit_context)": true, "exit_error": true,
	} {
		s, err := ParseTrajectory("x.traj", []byte(`{"trajectory":[],"info":{"exit_status":"`+status+`"}}`))
		if err != nil {
			t.Fatal(err)
		}
		tr := s.Turns[0]
		if (tr.Turn.Err != nil) != wantErr {
			t.Errorf("%q: Err %v, want one: %v", status, tr.Turn.Err, wantErr)
			continue
		}
		if wantErr {
			if r, ok := termination.ReasonOf(tr.Turn.Err); !ok || r != tr.Ending {
				t.Errorf("%q: the error carries %v, want the ending %v", status, r, tr.Ending)
			}
		}
		if tr.Interrupted != (status == "UserInterruption") {
			t.Errorf("%q: interrupted %v", status, tr.Interrupted)
		}
	}
}

// TestTrajectoryKey checks that the event-log key of a trajectory tells apart two runs of one
// instance, and not two copies of one run.
func TestTrajectoryKey(t *testing.T) {
	a, err := ParseTrajectory("model-a/django-1.traj", []byte(`{"info":{"exit_status":"submitted"},"trajectory":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseTrajectory("model-b/django-1.traj", []byte(`{"info":{"exit_status":"exit_cost"},"trajectory":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseTrajectory("copy/django-1.traj", []byte(`{"info":{"exit_status":"submitted"},"trajectory":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID || a.Key == b.Key || a.Key != c.Key {
		t.Errorf("keys %q %q %q for ids %q %q", a.Key, b.Key, c.Key, a.ID, b.ID)
	}
}

// TestTrajectoryDetect checks which files the trajectory reader claims.
func TestTrajectoryDetect(t *testing.T) {
	tests := []struct {
		path, head string
		want       bool
	}{
		{"a/django-1.traj", `{"trajectory": []}`, true},
		{"a/django-1.TRAJ", "\n {", true},
		{"a/django-1.traj.json", `{"info": {}}`, true},
		{"a/django-1.json", `{"info": {}}`, false},
		{"a/django-1.traj", `[]`, false},
		{"a/django-1.traj", ``, false},
		{"a/traj", `{}`, false},
	}
	for _, tt := range tests {
		if got := (Reader{}).Detect(tt.path, []byte(tt.head)); got != tt.want {
			t.Errorf("Detect(%q, %q) = %v, want %v", tt.path, tt.head, got, tt.want)
		}
	}
}

// TestTrajectoryFixtures checks that every hand-written trajectory reads.
func TestTrajectoryFixtures(t *testing.T) {
	for _, dir := range []string{"swe-agent", "mini-swe-agent"} {
		files, err := filepath.Glob(filepath.Join(handwritten, dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixtures in %s: %v", dir, err)
		}
		for _, f := range files {
			ss, err := (Reader{}).Read(f)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if len(ss) != 1 || ss[0].Format != dir || ss[0].Time.IsZero() {
				t.Errorf("%s: %d sessions, format %q, time %v", f, len(ss), ss[0].Format, ss[0].Time)
			}
		}
	}
	if _, err := (Reader{}).Read(filepath.Join(t.TempDir(), "gone.traj")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// handwritten holds the hand-written trajectories the audit tests also read.
const handwritten = "../../audit/testdata/handwritten"
