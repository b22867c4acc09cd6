package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/store"
)

// sharedTranscripts returns the project's shared transcripts, failing the test when they are
// missing: a missing data set must not pass silently.
func sharedTranscripts(t *testing.T) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "data", "transcripts")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared test data missing (the repository expects ../shared beside it): %v", err)
	}
	return p
}

// auditFixtures are the audit package's hand-written sessions: every check that blocks, real
// nudges, every exit status, and files that are no sessions or are broken.
var auditFixtures = filepath.Join("..", "..", "audit", "testdata", "handwritten")

func TestAuditTable(t *testing.T) {
	out, errOut, code := runCmd(t, "", "audit", sharedTranscripts(t))
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"SESSION", "RUN ENDED", "258c7280/a881341", "6c2214d7/afc096d",
		"TOTAL (16 sessions)", "Files: 30 found, 10 audited, 11 read with their session, 9 skipped",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
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
	if rep.Total.Sessions != 22 || c.WouldBlock != 12 || c.Parked != 1 {
		t.Errorf("total %d sessions, %d would block, %d parked; want 22, 12, 1", rep.Total.Sessions, c.WouldBlock, c.Parked)
	}
	wantChecks := map[string]int{"stall": 2, "processes": 1, "todos": 1, "livelock": 2, "stop_metadata": 1, "error": 5}
	for k, v := range wantChecks {
		if c.WouldBlockByCheck[k] != v {
			t.Errorf("would block by %s: %d, want %d (all: %v)", k, c.WouldBlockByCheck[k], v, c.WouldBlockByCheck)
		}
	}
	if c.NudgeOutcomes["acted"] != 1 || c.NudgeOutcomes["stopped_again"] != 1 {
		t.Errorf("nudge outcomes %v", c.NudgeOutcomes)
	}
	if rep.Files.Failed != 2 || len(rep.Failures) != 2 || rep.Files.Skipped["unknown format"] != 4 {
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

func TestAuditRecord(t *testing.T) {
	db := filepath.Join(t.TempDir(), "events.db")
	shared := sharedTranscripts(t)
	out, errOut, code := runCmd(t, "", "audit", "--record", "--store", db, shared)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	m := regexp.MustCompile(`Recorded: (\d+) event\(s\) for 31 turn\(s\); 0 turn\(s\) were already recorded\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no account of the recording:\n%s", out)
	}

	st, err := store.Open(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	decisions, err := st.Query(t.Context(), store.Filter{Kind: store.KindDecision, Harness: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	if len(decisions) != 26 {
		t.Errorf("%d decisions in the log, want one per stop (26)", len(decisions))
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
	if code != 0 || !strings.Contains(out, "Recorded: 0 event(s) for 0 turn(s); 31 turn(s) were already recorded.") {
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
