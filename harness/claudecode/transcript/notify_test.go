package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func intp(n int) *int { return &n }

func fmtInt(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestParseNotifications(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []notification
	}{
		{"real 2.1.39 shape", "<task-notification>\n<task-id>b57276d</task-id>\n<output-file>/tmp/x/tasks/b57276d.output</output-file>\n<status>failed</status>\n<summary>Background command \"Run reviews channel tests\" failed with exit code 1</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/x/tasks/b57276d.output",
			[]notification{{TaskID: "b57276d", OutputFile: "/tmp/x/tasks/b57276d.output", Status: "failed", Summary: "Background command \"Run reviews channel tests\" failed with exit code 1", ExitCode: intp(1)}}},
		{"completed, exit code in parentheses, tool-use id", "<task-notification><task-id>b1</task-id><tool-use-id>toolu_1</tool-use-id><status>completed</status><summary>Background command \"x\" completed (exit code 0)</summary></task-notification>",
			[]notification{{TaskID: "b1", ToolUseID: "toolu_1", Status: "completed", Summary: "Background command \"x\" completed (exit code 0)", ExitCode: intp(0)}}},
		{"explicit exit-code tag wins", "<task-notification><task-id>b2</task-id><status>killed</status><exit-code>-1</exit-code><summary>exit code 5</summary></task-notification>",
			[]notification{{TaskID: "b2", Status: "killed", Summary: "exit code 5", ExitCode: intp(-1)}}},
		{"two blocks, one without id", "<task-notification><task-id>a</task-id><status>completed</status></task-notification><task-notification><status>x</status></task-notification><task-notification><task-id>c</task-id></task-notification>",
			[]notification{{TaskID: "a", Status: "completed"}, {TaskID: "c"}}},
		{"unterminated block runs to the end", "<task-notification><task-id>z</task-id><status>completed</status>",
			[]notification{{TaskID: "z", Status: "completed"}}},
		{"no block", "Background command finished", nil},
		{"open tag without close tag for a field", "<task-notification><task-id>q", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := parseNotifications(c.text)
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				g, w := got[i], c.want[i]
				if g.TaskID != w.TaskID || g.ToolUseID != w.ToolUseID || g.OutputFile != w.OutputFile || g.Status != w.Status ||
					g.Summary != w.Summary || fmtInt(g.ExitCode) != fmtInt(w.ExitCode) {
					t.Errorf("[%d] = %+v exit %s, want %+v exit %s", i, g, fmtInt(g.ExitCode), w, fmtInt(w.ExitCode))
				}
			}
		})
	}
}

func TestBackgroundStart(t *testing.T) {
	cases := []struct {
		text, id, out string
		auto          bool
	}{
		{"Command running in background with ID: bd0afab. Output is being written to: /tmp/claude-1000/p/tasks/bd0afab.output", "bd0afab", "/tmp/claude-1000/p/tasks/bd0afab.output", false},
		{"Command running in background with ID: b2f8b9", "b2f8b9", "", false},
		{"Command running in background with ID: bash_1", "bash_1", "", false},
		{"Command did not complete within its 120s timeout and was moved to the background (ID: bx1). Output is being written to: /tmp/x/bx1.output.", "bx1", "/tmp/x/bx1.output", true},
		{"Command running in background with ID: b1. Output is being written to: /tmp/a b/b1.output", "b1", "/tmp/a", false},
		{"total 0\ndrwx------ 2 root root 40 .", "", "", false},
		{"Command running in background with ID: ", "", "", false},
	}
	for _, c := range cases {
		id, out, auto := backgroundStart(c.text)
		if id != c.id || out != c.out || auto != c.auto {
			t.Errorf("backgroundStart(%q) = %q, %q, %v; want %q, %q, %v", c.text, id, out, auto, c.id, c.out, c.auto)
		}
	}
}

func TestOutputStatus(t *testing.T) {
	cases := []struct {
		text   string
		status string
		exit   string
	}{
		{"<retrieval_status>success</retrieval_status>\n\n<task_id>b1</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\nok\n</output>", "completed", "0"},
		{"<retrieval_status>timeout</retrieval_status>\n\n<task_id>b1</task_id>\n\n<status>running</status>\n\n<output>\n<status>completed</status><exit_code>0</exit_code>\n</output>", "running", "nil"},
		{"<status>completed</status>\n\n<exit_code>2</exit_code>\n\n<stdout>\nx\n</stdout>\n\n<timestamp>2025-12-01T04:48:27.908Z</timestamp>", "completed", "2"},
		{"<status>running</status>\n\n<timestamp>2025-12-01T04:48:27.908Z</timestamp>", "running", "nil"},
		{"<stdout><status>failed</status></stdout>", "", "nil"},
		{"<tool_use_error>No shell found with ID: x</tool_use_error>", "", "nil"},
	}
	for _, c := range cases {
		status, exit := outputStatus(c.text)
		if status != c.status || fmtInt(exit) != c.exit {
			t.Errorf("outputStatus(%.60q) = %q, %s; want %q, %s", c.text, status, fmtInt(exit), c.status, c.exit)
		}
	}
}

func TestNormalizeStatus(t *testing.T) {
	for in, want := range map[string]ShellStatus{
		"running": ShellRunning, "pending": ShellRunning, "completed": ShellCompleted, "success": ShellCompleted,
		"failed": ShellFailed, "error": ShellFailed, "killed": ShellKilled, "stopped": ShellKilled, "cancelled": ShellKilled,
		"paused": "paused", "": "",
	} {
		if got := normalizeStatus(in); got != want {
			t.Errorf("normalizeStatus(%q) = %q, want %q", in, got, want)
		}
		if got, wantFinal := finalStatus(normalizeStatus(in)), in != "" && in != "running" && in != "pending"; got != wantFinal {
			t.Errorf("finalStatus(%q) = %v, want %v", in, got, wantFinal)
		}
	}
}

func TestExitCodeIn(t *testing.T) {
	cases := []struct {
		s    string
		code int
		ok   bool
	}{
		{`Background command "x" completed (exit code 0)`, 0, true},
		{`Background command "x" failed with exit code 137`, 137, true},
		{`exit code -1`, -1, true},
		{`exit code 1 then exit code 2`, 2, true},
		{`exit code `, 0, false},
		{`exit code x`, 0, false},
		{`Background command "x" was stopped`, 0, false},
	}
	for _, c := range cases {
		code, ok := exitCodeIn(c.s)
		if code != c.code || ok != c.ok {
			t.Errorf("exitCodeIn(%q) = %d, %v; want %d, %v", c.s, code, ok, c.code, c.ok)
		}
	}
}

func TestTaskNumber(t *testing.T) {
	for in, want := range map[string]string{
		"Task #3 created successfully: Write docs": "3",
		"Task #12":         "12",
		"Created task":     "",
		"Task #":           "",
		"Task #a1-b: done": "a1-b",
	} {
		if got := taskNumber(in); got != want {
			t.Errorf("taskNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidID(t *testing.T) {
	for in, want := range map[string]bool{
		"a881341": true, "acompact-fffbd0": true, "bash_1": true,
		"": false, "../x": false, "a/b": false, `a\b`: false, "a b": false, strings.Repeat("a", 129): false,
	} {
		if got := validID(in); got != want {
			t.Errorf("validID(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestFlexTypes(t *testing.T) {
	var v struct {
		S1, S2, S3, S4 flexString
		I1, I2, I3, I4 flexInt
		B1, B2, B3     flexBool
	}
	src := `{"S1":"x","S2":42,"S3":null,"S4":{"a":1},"I1":7,"I2":"8","I3":9.7,"I4":"nine","B1":true,"B2":"true","B3":1}`
	if err := json.Unmarshal([]byte(src), &v); err != nil {
		t.Fatal(err)
	}
	if v.S1 != "x" || v.S2 != "42" || v.S3 != "" || v.S4 != "" {
		t.Errorf("flexString: %q %q %q %q", v.S1, v.S2, v.S3, v.S4)
	}
	if v.I1 != 7 || v.I2 != 8 || v.I3 != 9 || v.I4 != 0 {
		t.Errorf("flexInt: %d %d %d %d", v.I1, v.I2, v.I3, v.I4)
	}
	if !v.B1 || !v.B2 || v.B3 {
		t.Errorf("flexBool: %v %v %v", v.B1, v.B2, v.B3)
	}
}
