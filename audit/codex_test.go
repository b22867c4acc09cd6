package audit

import (
	"bytes"
	"github.com/stopgate/stopgate/harness/codex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// The sessions the end-to-end suites recorded from the real harnesses (sanitized; see the
// READMEs beside them). They are read in place.
var recordedSessions = []string{
	"../harness/codex/testdata/codex/rollout-0.169.0.jsonl",
	"../harness/gemini/testdata/gemini/session-0.61.0.jsonl",
}

// TestGoldenRecorded audits the sessions Codex 0.169.0 and Gemini CLI 0.61.0 wrote in the
// end-to-end suites and pins the table and the JSON report.
func TestGoldenRecorded(t *testing.T) {
	rep := run(t, nil, recordedSessions...)
	if rep.Files.Audited != len(recordedSessions) || len(rep.Failures) != 0 {
		t.Fatalf("files %+v, failures %+v: want every recorded session audited", rep.Files, rep.Failures)
	}
	var table, js bytes.Buffer
	if err := WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "recorded.txt", table.Bytes())
	golden(t, "recorded.json", js.Bytes())
}

// TestCodexRecorded checks what the audit reads from the recorded rollout: the stop hook's
// block over the unread background job, which the agent acted on, and the final stop, which
// stopgate lets happen once the job was polled to its exit.
func TestCodexRecorded(t *testing.T) {
	rep := run(t, nil, recordedSessions[0])
	s := rep.Sessions[0]
	if s.Format != codex.Format || s.Harness != "codex" || s.Session != "00000000-0000-4000-8000-0000000000c1" || len(s.Turns) != 1 {
		t.Fatalf("session %s/%s/%s with %d turns", s.Format, s.Harness, s.Session, len(s.Turns))
	}
	if len(s.Nudges) != 1 || s.Nudges[0].Outcome != Acted || s.Nudges[0].ToolCalls != 1 ||
		!strings.HasPrefix(s.Nudges[0].Text, "Background-process completion gate") {
		t.Errorf("nudges %+v, want the one block the agent acted on", s.Nudges)
	}
	if d := s.Turns[0].Decision; d == nil || d.Verdict != stopgate.Stop || s.Ending != termination.Completed {
		t.Errorf("the last stop: %+v, run ended %s", d, s.Ending)
	}
}

// TestDetectCodex checks which files read as Codex rollouts.
func TestDetectCodex(t *testing.T) {
	meta := `{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}`
	long := `{"timestamp":"2026-03-02T09:00:00.000Z","ordinal":0,"type":"session_meta","payload":{"id":"x","base_instructions":{"text":"` + strings.Repeat("x", HeadBytes) + `"}}}`
	turn := `{"timestamp":"2026-03-02T09:00:00.000Z","type":"turn_context","payload":{"turn_id":"t"}}`
	tests := []struct {
		name string
		path string
		head string
		want bool
	}{
		{"session_meta first", "x.jsonl", meta + "\n" + turn + "\n", true},
		{"session_meta alone, no newline", "x.jsonl", meta, true},
		{"a session_meta line longer than the head", "x.jsonl", long[:HeadBytes], true},
		{"another entry first, named as a rollout", "rollout-2026-03-02T09-00-00-x.jsonl", turn + "\n", true},
		{"another entry first", "x.jsonl", turn + "\n", false},
		{"named as a rollout, not a rollout", "rollout-1.jsonl", `{"type":"user","uuid":"u","sessionId":"s"}` + "\n", false},
		{"a long line that only mentions session_meta in its payload", "x.jsonl", (`{"timestamp":"t","type":"event_msg","payload":{"text":"\"type\":\"session_meta\"` + strings.Repeat("x", HeadBytes))[:HeadBytes], false},
		{"a Claude Code entry", "x.jsonl", `{"type":"user","uuid":"u","sessionId":"s","message":{}}` + "\n", false},
		{"a Gemini CLI session", "x.jsonl", `{"sessionId":"s","projectHash":"h","startTime":"t"}` + "\n", false},
		{"a broken first line", "rollout-1.jsonl", `{"type":"session_meta",` + "\n", false},
		{"not JSON", "rollout-1.jsonl", "hello\n", false},
		{"empty", "rollout-1.jsonl", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (codex.Reader{}).Detect(tt.path, []byte(tt.head)); got != tt.want {
				t.Errorf("Detect = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCodexAgent checks that a sub-agent's rollout is audited with its agent's name.
func TestCodexAgent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout-2026-03-02T09-00-00-c0de0000-0000-4000-8000-0000000000aa.jsonl")
	lines := []string{
		`{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"c0de0000-0000-4000-8000-0000000000aa","agent_nickname":"Pascal","agent_role":"worker","source":{"subagent":{"thread_spawn":{"parent_thread_id":"c0de0000-0000-4000-8000-000000000001"}}}}}`,
		`{"timestamp":"2026-03-02T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Count the tests."}]}}`,
		`{"timestamp":"2026-03-02T09:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"There are 42 tests."}]}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := run(t, nil, dir)
	if len(rep.Sessions) != 1 {
		t.Fatalf("%d sessions; files %+v", len(rep.Sessions), rep.Files)
	}
	s := rep.Sessions[0]
	if got, want := []string{s.Format, s.Session, s.Agent, label(s)}, []string{codex.Format, "c0de0000-0000-4000-8000-0000000000aa", "Pascal", "c0de0000/Pascal"}; !reflect.DeepEqual(got, want) {
		t.Errorf("session %q, want %q", got, want)
	}
	if d := s.Turns[0].Decision; d == nil || d.Verdict != stopgate.Stop {
		t.Errorf("decision %+v", d)
	}
}
