package rollout

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// FuzzReadCodex checks that no input makes ReadCodex panic or fail, and that the session it
// builds holds together.
func FuzzReadCodex(f *testing.F) {
	data, err := os.ReadFile("../testdata/codex/rollout-0.169.0.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, s := range []string{
		"",
		"\n",
		"null\n",
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt hook_run_id=\"x\">a &amp; b</hook_prompt>"}]}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":[\"bash\",\"-lc\",\"x\"]}","call_id":"c"}}` + "\n" +
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Process running with session ID 1\nOutput:\n"}}` + "\n" +
			`{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":1}","call_id":"p"}}` + "\n" +
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"p","output":"Process exited with code 99999999999999999999\nOutput:\n"}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","exit_code":"x"}}}`,
		`{"type":"event_msg","payload":{"type":"task_complete","duration_ms":1e300}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":null}","call_id":"u"}}`,
		`{"type":"session_meta","payload":{"meta":{"id":"m","source":{"subagent":"review"}}}}`,
		`{"type":"turn_context","payload":{"sandbox_policy":7,"approval_policy":{"x":1}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadCodex(bytes.NewReader(data), &Options{MaxLineBytes: 1 << 16, MaxResultBytes: 256, MaxMalformed: 4})
		if err != nil {
			t.Fatalf("ReadCodex of an in-memory reader failed: %v", err)
		}
		if s.MalformedCount < len(s.Malformed) || len(s.Malformed) > 4 {
			t.Errorf("malformed %d, kept %d", s.MalformedCount, len(s.Malformed))
		}
		for i, tu := range s.Turns {
			if tu.Index != i || len(tu.Messages) == 0 {
				t.Errorf("turn %d: index %d, %d messages", i, tu.Index, len(tu.Messages))
			}
		}
		for _, tk := range s.Tasks {
			if tk.Turn >= len(s.Turns) {
				t.Errorf("task in turn %d of %d", tk.Turn, len(s.Turns))
			}
		}
		for _, sh := range s.Shells {
			if sh.ID == "" || sh.Call == nil {
				t.Errorf("shell without an id or a call: %+v", sh)
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
		if _, err := json.Marshal(s.Summary()); err != nil {
			t.Errorf("summary does not marshal: %v", err)
		}
	})
}
