package audit

import (
	"github.com/stopgate/stopgate/harness/gemini"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// TestGeminiRecorded checks what the audit reads from the recorded Gemini CLI session: the
// user's prompt and the continuation prompt stopgate's denial sent are two turns (the file
// does not tell them apart), and both end completed.
func TestGeminiRecorded(t *testing.T) {
	rep := run(t, nil, recordedSessions[1])
	s := rep.Sessions[0]
	if s.Format != gemini.Format || s.Harness != "gemini-cli" || s.Session != "00000000-0000-4000-8000-0000000000a1" || len(s.Turns) != 2 {
		t.Fatalf("session %s/%s/%s with %d turns", s.Format, s.Harness, s.Session, len(s.Turns))
	}
	for i, want := range []string{"I ran the tests; they pass.", "All tasks are complete."} {
		tr := s.Turns[i]
		if tr.Trigger != "prompt" || tr.Final != want || tr.Ending != termination.Completed || tr.Decision == nil || tr.Decision.Verdict != stopgate.Stop {
			t.Errorf("turn %d: %+v", i, tr)
		}
	}
	if len(s.Nudges) != 0 {
		t.Errorf("nudges %+v: the session file does not say which prompts a hook sent", s.Nudges)
	}
}

// TestDetectGeminiCLI checks which files read as Gemini CLI sessions.
func TestDetectGeminiCLI(t *testing.T) {
	meta := `{"sessionId":"s","projectHash":"h","startTime":"2026-03-03T09:00:00.000Z","lastUpdated":"2026-03-03T09:00:00.000Z","kind":"main"}`
	legacy := "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n    {\"id\": \"u\", \"type\": \"user\", \"content\": \"hi\"}\n  ]\n}\n"
	tests := []struct {
		name string
		path string
		head string
		want bool
	}{
		{"a metadata record first", "session-2026-03-03T09-00-abcd1234.jsonl", meta + "\n" + `{"id":"u","type":"user","content":[]}` + "\n", true},
		{"a sub-agent's chat", "abcd.jsonl", `{"sessionId":"a","projectHash":"h","kind":"subagent","directories":["/w"]}` + "\n", true},
		{"a metadata record alone, no newline", "x.jsonl", meta, true},
		{"a legacy session, pretty-printed", "session-2026-03-03T09-00-abcd1234.json", legacy, true},
		{"a legacy session on one line", "x.json", strings.ReplaceAll(legacy, "\n", ""), true},
		{"a legacy session's keys in a .jsonl file", "x.jsonl", legacy, false},
		{"a JSON file of something else", "package.json", "{\n  \"name\": \"x\"\n}\n", false},
		{"a message record first", "x.jsonl", `{"id":"u","timestamp":"t","type":"user","content":[]}` + "\n", false},
		{"a Claude Code entry with a sessionId", "x.jsonl", `{"type":"user","sessionId":"s","projectHash":"h","uuid":"u"}` + "\n", false},
		{"a Codex rollout", "x.jsonl", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n", false},
		{"an array", "x.json", `[{"sessionId":"s","projectHash":"h"}]`, false},
		{"empty", "x.json", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (gemini.Reader{}).Detect(tt.path, []byte(tt.head)); got != tt.want {
				t.Errorf("Detect = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGeminiAgent checks that a sub-agent's chat is audited as an agent of the session its
// folder names.
func TestGeminiAgent(t *testing.T) {
	parent := "9e0d0000-0000-4000-8000-000000000001"
	dir := filepath.Join(t.TempDir(), "chats", parent)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"sessionId":"agent-7","projectHash":"h","startTime":"2026-03-03T09:00:00.000Z","lastUpdated":"2026-03-03T09:00:05.000Z","kind":"subagent","directories":["/work/demo"]}`,
		`{"id":"u1","timestamp":"2026-03-03T09:00:01.000Z","type":"user","content":[{"text":"Find the flaky test."}]}`,
		`{"id":"m1","timestamp":"2026-03-03T09:00:04.000Z","type":"gemini","content":"It is TestClock: it sleeps."}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "agent-7.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := run(t, nil, filepath.Dir(dir))
	if len(rep.Sessions) != 1 {
		t.Fatalf("%d sessions; files %+v", len(rep.Sessions), rep.Files)
	}
	s := rep.Sessions[0]
	if got, want := []string{s.Format, s.Session, s.Agent, label(s)}, []string{gemini.Format, parent, "agent-7", "9e0d0000/agent-7"}; !reflect.DeepEqual(got, want) {
		t.Errorf("session %q, want %q", got, want)
	}
	if d := s.Turns[0].Decision; d == nil || d.Verdict != stopgate.Stop {
		t.Errorf("decision %+v", d)
	}
}
