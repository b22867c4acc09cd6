package audit

import (
	"errors"
	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/harness/codex"
	"github.com/stopgate/stopgate/harness/gemini"
	"github.com/stopgate/stopgate/harness/sweagent"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stopgate/stopgate"
)

// addFiles adds the files matching pattern as seeds.
func addFiles(f *testing.F, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files match %s: %v", pattern, err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParseTrajectory checks that any input either fails to parse or reads as one turn with a
// valid ending that the supervisor can decide, without panicking.
func FuzzParseTrajectory(f *testing.F) {
	addFiles(f, filepath.Join(handwritten, "swe-agent", "*.traj"))
	addFiles(f, filepath.Join(handwritten, "mini-swe-agent", "*.traj.json"))
	for _, s := range []string{`{}`, `{"info":null}`, `{"info":{"exit_status":7}}`, `{"trajectory":[{}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"text","text":"` + "```bash\\n\\n```" + `"}]}]}`,
		`{"history":[{"role":"assistant","action":"   "}]}`, `{"messages":[{"role":"assistant","content":{"a":1}}]}`} {
		f.Add([]byte(s))
	}
	sup := stopgate.New(stopgate.Config{})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := sweagent.ParseTrajectory("fuzz.traj", data)
		if err != nil {
			if s != nil {
				t.Fatalf("a session with the error %v", err)
			}
			return
		}
		if len(s.Turns) != 1 {
			t.Fatalf("%d turns", len(s.Turns))
		}
		tr := s.Turns[0]
		if !tr.Ending.Category.Valid() {
			t.Fatalf("ending %q is not a category", tr.Ending.Category)
		}
		if len(tr.Turn.Steps) > claudecode.MaxSteps {
			t.Fatalf("%d steps", len(tr.Turn.Steps))
		}
		d := sup.Decide(t.Context(), tr.Turn)
		if d.Verdict == "" || len(d.Trail) != len(stopgate.Checks()) {
			t.Fatalf("decision %+v", d)
		}
	})
}

// FuzzExitStatusReason checks that every status maps to a valid category, keeping it as the
// detail.
func FuzzExitStatusReason(f *testing.F) {
	for _, s := range []string{"submitted", "submitted (exit_cost)", "autosubmit (", "LimitsExceeded", "", "(", "submit ()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, status string) {
		r := sweagent.ExitStatusReason(status)
		if !r.Category.Valid() {
			t.Fatalf("%q: category %q", status, r.Category)
		}
		if r.Detail != strings.TrimSpace(status) {
			t.Fatalf("%q: detail %q", status, r.Detail)
		}
	})
}

// FuzzClaudeCode fuzzes the Claude Code transcript reader, from the hand-written transcripts.
func FuzzClaudeCode(f *testing.F) {
	addFiles(f, filepath.Join(handwritten, "claude-code", "*.jsonl"))
	f.Add([]byte(`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"Stop hook feedback:\n- [x]: go on"}}`))
	fuzzReader(f, claudecode.Reader{}, "s.jsonl")
}

// fuzzReader checks that detecting and reading any file named name with rd never panics, fails
// only on I/O (never on content), and that what it reads is consistent: sessions of rd's
// format with turns, nudges in range (their text valid UTF-8 when the file is), a valid ending
// and a decision for every turn.
func fuzzReader(f *testing.F, rd Reader, name string) {
	dir := f.TempDir()
	sup := stopgate.New(stopgate.Config{})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		head := data
		if len(head) > HeadBytes {
			head = head[:HeadBytes]
		}
		_ = rd.Detect(path, head)
		ss, err := rd.Read(path)
		if err != nil {
			if !errors.Is(err, ErrSkip) {
				t.Fatalf("content made an error: %v", err)
			}
			return
		}
		for _, s := range ss {
			if s.Format != rd.Format() || len(s.Turns) == 0 {
				t.Fatalf("session of format %q with %d turns", s.Format, len(s.Turns))
			}
			for _, n := range s.Nudges {
				if n.Turn < 0 || n.Turn >= len(s.Turns) || n.ToolCalls < 0 || !utf8.ValidString(n.Text) && utf8.ValidString(string(data)) {
					t.Fatalf("nudge %+v of %d turns", n, len(s.Turns))
				}
			}
			for i, tr := range s.Turns {
				if !tr.Ending.Category.Valid() {
					t.Fatalf("turn %d: ending %q is not a category", i, tr.Ending.Category)
				}
			}
			a := &auditor{Options{Supervisor: sup}}
			r := a.decide(t.Context(), s)
			if len(r.report.Turns) != len(s.Turns) {
				t.Fatalf("%d turn reports for %d turns", len(r.report.Turns), len(s.Turns))
			}
		}
	})
}

// FuzzCodex fuzzes the Codex rollout reader, from the hand-written and recorded rollouts.
func FuzzCodex(f *testing.F) {
	addFiles(f, filepath.Join(handwritten, "codex", "*.jsonl"))
	addFiles(f, recordedSessions[0])
	f.Add([]byte(`{"timestamp":"t","type":"event_msg","payload":{"type":"turn_aborted","reason":"budget_limited"}}`))
	fuzzReader(f, codex.Reader{}, "rollout-fuzz.jsonl")
}

// FuzzGeminiCLI fuzzes the Gemini CLI session reader, from the hand-written and recorded
// sessions.
func FuzzGeminiCLI(f *testing.F) {
	addFiles(f, filepath.Join(handwritten, "gemini", "*.json*"))
	addFiles(f, recordedSessions[1])
	f.Add([]byte(`{"id":"u","type":"user","content":"go"}` + "\n" + `{"id":"i","type":"info","content":"⚠️  Response truncated due to token limits."}`))
	fuzzReader(f, gemini.Reader{}, "session-fuzz.jsonl")
}
