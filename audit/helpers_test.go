package audit

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// sharedTranscripts holds the real session transcripts shared by the project (Claude Code,
// MIT, marot/spotter; see claude-code/spotter/PROVENANCE.md). They are read in place.
const sharedTranscripts = "../../shared/data/transcripts"

// handwritten holds the hand-written fixtures of this package (see its README.md).
const handwritten = "testdata/handwritten"

// shared returns the path of the shared transcripts joined with elem, failing the test when it
// is missing: a missing data set must not pass silently.
func shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{sharedTranscripts}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("shared test data missing (the repository expects ../shared beside it): %v", err)
	}
	return p
}

// golden compares got with testdata/golden/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./audit -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run go test ./audit -update and review the diff)\n%s", path, firstDiff(string(got), string(want)))
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return ""
}

// run audits paths with opts, failing the test on an error.
func run(t *testing.T, opts *Options, paths ...string) *Report {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Readers == nil {
		o.Readers = DefaultReaders()
	}
	rep, err := Run(t.Context(), paths, &o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// sessionByLabel returns the session the table labels l.
func sessionByLabel(t *testing.T, rep *Report, l string) SessionReport {
	t.Helper()
	for _, s := range rep.Sessions {
		if label(s) == l {
			return s
		}
	}
	t.Fatalf("no session %q in the report", l)
	return SessionReport{}
}
