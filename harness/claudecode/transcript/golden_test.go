package transcript

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stopgate/stopgate/internal/dataset"
)

var update = flag.Bool("update", false, "rewrite golden files")

// realSessions are the large real sessions of marot/spotter, by id. One of them ships in the
// repository's testdata/ sample; the others are read from the evaluation data set by `make
// eval` (see internal/dataset).
var realSessions = []string{
	"258c7280-ae70-4798-800f-63464d01a85d",
	"4d5611e5-241a-462a-8d15-5122611a9569",
	"6adcf0da-e8ac-4760-8026-66fb75b5ee45",
	"8463c716-a2ea-4c14-9efa-87158ebd9f20",
	"ae4a77f8-aedd-4bc1-888f-c94edc91af04",
	"fa812bfe-b295-4cca-9c2f-fdf01028cb46",
}

// shared returns the path of a file of the marot/spotter transcripts: the repository's sample,
// else the evaluation data set (the test is skipped without it, outside `make eval`).
func shared(tb testing.TB, rel string) string {
	tb.Helper()
	return dataset.Spotter(tb, rel)
}

// readFixture reads a transcript, failing the test on error.
func readFixture(tb testing.TB, path string, opts *Options) *Session {
	tb.Helper()
	s, err := ReadFile(path, opts)
	if err != nil {
		tb.Fatalf("ReadFile(%s): %v", path, err)
	}
	return s
}

// goldenDoc is what a golden file holds: the session's summary, and the summaries of the
// sub-agent transcripts read beside it.
type goldenDoc struct {
	Session    Summary       `json:"session"`
	AgentFiles []goldenAgent `json:"agent_files,omitempty"`
}

type goldenAgent struct {
	AgentID    string  `json:"agent_id"`
	Compaction bool    `json:"compaction,omitempty"`
	Linked     bool    `json:"linked"` // a Task call of the session points at it
	Summary    Summary `json:"summary"`
}

func golden(s *Session) goldenDoc {
	doc := goldenDoc{Session: s.Summary()}
	for _, af := range s.AgentFiles {
		linked := false
		for _, a := range s.Subagents {
			linked = linked || a.File == af
		}
		doc.AgentFiles = append(doc.AgentFiles, goldenAgent{AgentID: af.AgentID, Compaction: af.Compaction, Linked: linked, Summary: af.Session.Summary()})
	}
	return doc
}

func marshalGolden(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestGolden compares the summary of every fixture and real session with its golden file.
func TestGolden(t *testing.T) {
	type tc struct {
		name string
		path func(testing.TB) string
	}
	local := func(rel string) func(testing.TB) string {
		return func(testing.TB) string { return filepath.Join("testdata", filepath.FromSlash(rel)) }
	}
	inPlace := func(rel string) func(testing.TB) string {
		return func(tb testing.TB) string { return shared(tb, rel) }
	}
	cases := []tc{
		{"spotter-short", local("claude-code/short.jsonl")},
		{"spotter-tool_heavy", local("claude-code/tool_heavy.jsonl")},
		{"spotter-subagent", local("claude-code/subagent.jsonl")},
		{"spotter-6c2214d7-agent-afc096d", inPlace("6c2214d7-b87e-4432-8e41-22ba294ea584/subagents/agent-afc096d.jsonl")},
		{"handwritten-shell_unread_failed", local("handwritten/shell_unread_failed.jsonl")},
		{"handwritten-shells_read", local("handwritten/shells_read.jsonl")},
		{"handwritten-todos", local("handwritten/todos.jsonl")},
		{"handwritten-compact", local("handwritten/compact.jsonl")},
		{"handwritten-malformed", local("handwritten/malformed.jsonl")},
		{"handwritten-stop_hooks", local("handwritten/stop_hooks.jsonl")},
		{"handwritten-agents", local("handwritten/agents.jsonl")},
		{"handwritten-v2_0", local("handwritten/v2_0/0000000a-0000-4000-8000-000000000020.jsonl")},
	}
	for _, id := range realSessions {
		cases = append(cases, tc{"spotter-" + id[:8], inPlace(id + ".jsonl")})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readFixture(t, c.path(t), &Options{Subagents: true})
			got := marshalGolden(t, golden(s))
			file := filepath.Join("testdata", "golden", c.name+".json")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("summary differs from %s (run with -update and review the diff)\ngot:\n%s", file, got)
			}
		})
	}
}
