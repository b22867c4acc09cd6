package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/internal/dataset"
	"github.com/stopgate/stopgate/store"
)

// transcriptSets are the real transcripts the audit tests read, with what auditing them
// gives: the repository's sample (testdata/transcripts, MIT, marot/spotter), and the whole
// evaluation data set, which only `make eval` names (the case is skipped without it).
var transcriptSets = []struct {
	name      string
	dir       func(tb testing.TB) string
	sessions  string // the table's total row
	files     string // the table's account of the files
	turns     int    // recorded
	decisions int    // one per stop: not the interrupted turns, nor local commands (/compact, /mcp)
}{
	{"sample", func(tb testing.TB) string { return dataset.Sample(tb, "transcripts") }, "TOTAL (6 sessions)", "Files: 10 found, 5 audited, 2 read with their session, 3 skipped", 12, 6},
	{"evaluation", func(tb testing.TB) string { return dataset.Shared(tb, "transcripts") }, "TOTAL (16 sessions)", "Files: 30 found, 10 audited, 11 read with their session, 9 skipped", 31, 24},
}

// auditFixtures are the audit package's hand-written sessions: every check that blocks, real
// nudges, every exit status, and files that are no sessions or are broken.
var auditFixtures = filepath.Join("..", "..", "audit", "testdata", "handwritten")

func TestAuditTable(t *testing.T) {
	for _, set := range transcriptSets {
		t.Run(set.name, func(t *testing.T) {
			out, errOut, code := runCmd(t, "", "audit", set.dir(t))
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, want := range []string{"SESSION", "RUN ENDED", "258c7280/a881341", "6c2214d7/afc096d", set.sessions, set.files} {
				if !strings.Contains(out, want) {
					t.Errorf("the table lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func TestAuditJSON(t *testing.T) {
	out, errOut, code := runCmd(t, "", "audit", "--json", auditFixtures)
	if code != 1 || !strings.Contains(errOut, "2 file(s) could not be read") {
		t.Errorf("exit %d, stderr %q; want 1 and the two broken trajectories reported", code, errOut)
	}
	var rep struct {
		Sessions []struct {
			Session string `json:"session"`
			Format  string `json:"format"`
			Turns   []struct {
				Sentence string `json:"sentence"`
				Decision *struct {
					Verdict string `json:"verdict"`
					Check   string `json:"check"`
				} `json:"decision"`
			} `json:"turns"`
		} `json:"sessions"`
		Total struct {
			Sessions int `json:"sessions"`
			Counts   struct {
				WouldBlock        int            `json:"would_block"`
				WouldBlockByCheck map[string]int `json:"would_block_by_check"`
				Parked            int            `json:"parked"`
				NudgeOutcomes     map[string]int `json:"nudge_outcomes"`
			} `json:"counts"`
		} `json:"total"`
		Files struct {
			Skipped map[string]int `json:"skipped"`
			Failed  int            `json:"failed"`
		} `json:"files"`
		Failures []struct {
			Path string `json:"path"`
		} `json:"failures"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	c := rep.Total.Counts
	if rep.Total.Sessions != 33 || c.WouldBlock != 23 || c.Parked != 1 {
		t.Errorf("total %d sessions, %d would block, %d parked; want 33, 23, 1", rep.Total.Sessions, c.WouldBlock, c.Parked)
	}
	wantChecks := map[string]int{"stall": 5, "processes": 3, "todos": 1, "livelock": 2, "stop_metadata": 2, "error": 9, "claims": 1}
	for k, v := range wantChecks {
		if c.WouldBlockByCheck[k] != v {
			t.Errorf("would block by %s: %d, want %d (all: %v)", k, c.WouldBlockByCheck[k], v, c.WouldBlockByCheck)
		}
	}
	if c.NudgeOutcomes["acted"] != 1 || c.NudgeOutcomes["stopped_again"] != 1 {
		t.Errorf("nudge outcomes %v", c.NudgeOutcomes)
	}
	if rep.Files.Failed != 2 || len(rep.Failures) != 2 || rep.Files.Skipped["unknown format"] != 2 || rep.Files.Skipped["nothing to audit: no turns"] != 2 {
		t.Errorf("files %+v, failures %+v", rep.Files, rep.Failures)
	}
	found := false
	for _, s := range rep.Sessions {
		for _, tr := range s.Turns {
			if tr.Decision != nil && tr.Decision.Check == "stall" && tr.Sentence == "Let me run the tests to confirm the fix." {
				found = true
			}
		}
	}
	if !found {
		t.Error("the stall turn does not quote its sentence")
	}
}

// TestAuditMixedFolder audits a folder laid out as the harnesses lay out their session files,
// holding Claude Code, Codex and Gemini CLI sessions side by side (the hand-written fixtures of
// the audit package, and the sessions the end-to-end suites recorded from Codex 0.169.0 and
// Gemini CLI 0.61.0), and records it in the event log.
func TestAuditMixedFolder(t *testing.T) {
	dir := t.TempDir()
	place := func(from string, to ...string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(append([]string{dir}, to...)...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	harnesses := filepath.Join("..", "..", "harness")
	place(filepath.Join(auditFixtures, "claude-code", "stall.jsonl"), "claude", "projects", "-work-demo", "a0d17000-0000-4000-8000-000000000001.jsonl")
	place(filepath.Join(auditFixtures, "codex", "codex-stall.jsonl"), "codex", "sessions", "2026", "03", "02", "rollout-2026-03-02T09-00-00-c0de0000-0000-4000-8000-000000000001.jsonl")
	place(filepath.Join(auditFixtures, "codex", "codex-background.jsonl"), "codex", "sessions", "2026", "03", "02", "rollout-2026-03-02T10-00-00-c0de0000-0000-4000-8000-000000000002.jsonl")
	place(filepath.Join(harnesses, "codex", "testdata", "codex", "rollout-0.169.0.jsonl"), "codex", "sessions", "2026", "11", "29", "rollout-2026-11-29T22-34-02-00000000-0000-4000-8000-0000000000c1.jsonl")
	place(filepath.Join(auditFixtures, "gemini", "gemini-background.jsonl"), "gemini", "tmp", "0f0e0d0c", "chats", "session-2026-03-03T10-00-9e0d0000.jsonl")
	place(filepath.Join(auditFixtures, "gemini", "gemini-legacy.json"), "gemini", "tmp", "0f0e0d0c", "chats", "session-2026-03-03T12-00-9e0d0000.json")
	place(filepath.Join(harnesses, "gemini", "testdata", "gemini", "session-0.61.0.jsonl"), "gemini", "tmp", "9dad1e4e", "chats", "session-2026-11-29T22-46-00000000.jsonl")
	place(filepath.Join(auditFixtures, "other", "notes.txt"), "notes.txt")

	out, errOut, code := runCmd(t, "", "audit", dir)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"a0d17000 ", "rollout-2026-03-02T09-00-00-c0de0000 ", "rollout-2026-11-29T22-34-02-00000000 ",
		"session-2026-03-03T10-00-9e0d0000 ", "session-2026-11-29T22-46-00000000 ",
		"TOTAL (7 sessions)", `"I'll add the changelog entry next."`, "unresolved: 5150", "unresolved: 7311",
		"Files: 8 found, 7 audited, 0 read with their session, 1 skipped (unknown format 1), 0 failed.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}

	out, _, code = runCmd(t, "", "audit", "--json", dir)
	var rep struct {
		Sessions []struct {
			Format  string `json:"format"`
			Harness string `json:"harness"`
			Counts  struct {
				WouldBlock int `json:"would_block"`
			} `json:"counts"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("exit %d, not one JSON document: %v\n%s", code, err, out)
	}
	type key struct{ format, harness string }
	sessions, blocks := map[key]int{}, map[key]int{}
	for _, s := range rep.Sessions {
		k := key{s.Format, s.Harness}
		sessions[k]++
		blocks[k] += s.Counts.WouldBlock
	}
	for k, want := range map[key][2]int{
		{"claude-code", "claude-code"}: {1, 1},
		{"codex", "codex"}:             {3, 2},
		{"gemini-cli", "gemini-cli"}:   {3, 2},
	} {
		if sessions[k] != want[0] || blocks[k] != want[1] {
			t.Errorf("%s: %d sessions, %d would block; want %d, %d", k.format, sessions[k], blocks[k], want[0], want[1])
		}
	}

	db := filepath.Join(t.TempDir(), "events.db")
	if _, errOut, code := runCmd(t, "", "audit", "--record", "--store", db, dir); code != 0 {
		t.Fatalf("recording: exit %d, stderr %q", code, errOut)
	}
	st, err := store.Open(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for harness, want := range map[string]int{"claude-code": 2, "codex": 4, "gemini-cli": 5} {
		got, err := st.Query(t.Context(), store.Filter{Kind: store.KindDecision, Harness: harness})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("%d %s decisions in the log, want one per stop (%d)", len(got), harness, want)
		}
	}
}

func TestAuditRecord(t *testing.T) {
	for _, set := range transcriptSets {
		t.Run(set.name, func(t *testing.T) { testAuditRecord(t, set.dir(t), set.turns, set.decisions) })
	}
}

// testAuditRecord records the audit of dir, which holds turns turns and decisions stops, twice.
func testAuditRecord(t *testing.T, shared string, turns, decisions int) {
	db := filepath.Join(t.TempDir(), "events.db")
	out, errOut, code := runCmd(t, "", "audit", "--record", "--store", db, shared)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	m := regexp.MustCompile(fmt.Sprintf(`Recorded: (\d+) event\(s\) for %d turn\(s\); 0 turn\(s\) were already recorded\.`, turns)).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no account of the recording:\n%s", out)
	}

	st, err := store.Open(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Query(t.Context(), store.Filter{Kind: store.KindDecision, Harness: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != decisions {
		t.Errorf("%d decisions in the log, want one per stop (%d)", len(got), decisions)
	}
	all, err := st.Query(t.Context(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if m[1] != strconv.Itoa(len(all)) {
		t.Errorf("recorded %s events, the log holds %d", m[1], len(all))
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	out, _, code = runCmd(t, "", "audit", "--record", "--store", db, shared)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("Recorded: 0 event(s) for 0 turn(s); %d turn(s) were already recorded.", turns)) {
		t.Errorf("recording again (exit %d):\n%s", code, out)
	}
}

func TestAuditCommandLine(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no paths", []string{"audit"}, exitUsage, "name at least one file or directory"},
		{"an unknown flag", []string{"audit", "--frobnicate", "x"}, exitUsage, "flag provided but not defined"},
		{"a bad check", []string{"audit", "--off", "nonsense", auditFixtures}, exitUsage, "nonsense"},
		{"no default event log", []string{"audit", "--record", auditFixtures}, 1, "no state directory"},
		{"a path that does not exist", []string{"audit", filepath.Join(t.TempDir(), "nope")}, 1, "1 file(s) could not be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCmd(t, "", tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.stderr)
			}
		})
	}
	help, _, code := runCmd(t, "", "help", "audit")
	if code != 0 || !strings.Contains(help, "--record") && !strings.Contains(help, "-record") {
		t.Errorf("help audit (exit %d):\n%s", code, help)
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, w := range map[string]io.Writer{"a buffer": &bytes.Buffer{}, "a regular file": f} {
		if isTerminal(w) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
}
