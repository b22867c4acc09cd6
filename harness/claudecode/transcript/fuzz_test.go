package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are the small fixtures, whole, as seed inputs.
func fuzzSeeds(f *testing.F) {
	f.Helper()
	paths, err := filepath.Glob("testdata/handwritten/*.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	paths = append(paths, "testdata/claude-code/short.jsonl", "testdata/claude-code/tool_heavy.jsonl",
		"testdata/handwritten/v2_0/0000000a-0000-4000-8000-000000000020.jsonl")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"\n",
		"null\n",
		`{"type":"user","message":{"content":null}}`,
		`{"type":"assistant","message":{"id":"","content":[{"type":"tool_use","id":"","name":"Bash","input":{"run_in_background":"true"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"","content":[{"type":"text","text":"Command running in background with ID: "}]}]},"toolUseResult":{"backgroundTaskId":7}}`,
		`{"type":"queue-operation","operation":"enqueue","content":"<task-notification><task-id>x</task-id><status>killed</status>"}`,
		`{"type":"system","subtype":"stop_hook_summary","hookErrors":{"a":1},"hookInfos":"x"}`,
		`{"type":"attachment","attachment":{"type":"hook_blocking_error","hookEvent":"Stop","blockingError":[1]}}`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzRead checks that no input makes Read panic or fail, and that the session it builds
// holds together.
func FuzzRead(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), &Options{MaxLineBytes: 1 << 16, MaxResultBytes: 256, MaxMalformed: 4})
		if err != nil {
			t.Fatalf("Read of an in-memory reader failed: %v", err)
		}
		if s.MalformedCount < len(s.Malformed) || len(s.Malformed) > 4 {
			t.Errorf("malformed %d, kept %d", s.MalformedCount, len(s.Malformed))
		}
		if s.Lines > bytes.Count(data, []byte("\n"))+1 {
			t.Errorf("%d lines in %d newlines", s.Lines, bytes.Count(data, []byte("\n")))
		}
		for i, tu := range s.Turns {
			if tu.Index != i || len(tu.Messages) == 0 {
				t.Errorf("turn %d: index %d, %d messages", i, tu.Index, len(tu.Messages))
			}
		}
		for _, m := range s.Messages {
			for _, c := range m.ToolCalls {
				if c.Result != nil && c.Result.ToolUseID != c.ID {
					t.Errorf("call %q linked to result for %q", c.ID, c.Result.ToolUseID)
				}
			}
			for _, r := range m.ToolResults {
				if len(r.Text) > 256 {
					t.Errorf("result text %d bytes over the limit", len(r.Text))
				}
			}
		}
		for _, h := range s.StopHooks {
			if h.Turn >= len(s.Turns) {
				t.Errorf("stop hook in turn %d of %d", h.Turn, len(s.Turns))
			}
		}
		if _, err := json.Marshal(s.Summary()); err != nil {
			t.Errorf("summary does not marshal: %v", err)
		}
	})
}

// FuzzParseNotifications checks the task-notification reader on arbitrary text.
func FuzzParseNotifications(f *testing.F) {
	f.Add("<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n<summary>Background command \"x\" failed with exit code 1</summary>\n</task-notification>")
	f.Add("<task-notification><task-id>a</task-id><exit-code>99999999999999999999</exit-code></task-notification>")
	f.Add("<task-notification><task-id></task-id></task-notification><task-notification>")
	f.Add("exit code -")
	f.Fuzz(func(t *testing.T, text string) {
		for _, n := range parseNotifications(text) {
			if n.TaskID == "" || !strings.Contains(text, n.TaskID) {
				t.Errorf("task id %q not from the text", n.TaskID)
			}
		}
		_, _, _ = backgroundStart(text)
		_, _ = outputStatus(text)
	})
}
