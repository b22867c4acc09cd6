package audit

import (
	"flag"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/internal/dataset"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// handwritten holds the hand-written fixtures of this package (see its README.md).
const handwritten = "testdata/handwritten"

// shared returns the path of the evaluation data set's transcripts joined with elem (real
// Claude Code sessions, MIT, marot/spotter): the test is skipped without it, outside `make
// eval`, and fails when `make eval` names a folder without them.
func shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	return dataset.Shared(tb, path.Join(append([]string{"transcripts"}, elem...)...))
}

// sample returns the path of the repository's sample of those transcripts joined with elem
// (testdata/transcripts at the root; see its PROVENANCE.md).
func sample(tb testing.TB, elem ...string) string {
	tb.Helper()
	return dataset.Sample(tb, path.Join(append([]string{"transcripts"}, elem...)...))
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
