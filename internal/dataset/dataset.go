// Package dataset locates the data stopgate's tests read: the sample shipped in the
// repository's testdata/ folder (real, MIT-licensed Claude Code transcripts and labelled turn
// endings), and the larger evaluation data set that `make eval` names with the environment
// variable STOPGATE_SHARED_DATA, which may not be copied into the repository.
//
// A test that needs the evaluation data set is skipped when the variable is unset (`make
// test`, on a clone with nothing beside it), and fails when it is set and the data is missing.
package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvShared is the environment variable naming the evaluation data set's folder (the one that
// holds transcripts/ and endings/). `make eval` sets it.
const EnvShared = "STOPGATE_SHARED_DATA"

// SpotterDir is where the marot/spotter transcripts live, under both the sample and the
// evaluation data set.
const SpotterDir = "transcripts/claude-code/spotter"

// Root returns the repository's root: the nearest directory at or above the current one that
// holds go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("dataset: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("dataset: no go.mod at or above the current directory")
		}
		dir = parent
	}
}

// Sample returns the path of rel (slash-separated) in the repository's testdata/ folder,
// failing the test when it is missing.
func Sample(tb testing.TB, rel string) string {
	tb.Helper()
	root, err := Root()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(root, "testdata", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("bundled test data missing: %v", err)
	}
	return p
}

// Shared returns the path of rel (slash-separated) in the evaluation data set. It skips the
// test when STOPGATE_SHARED_DATA is unset (run `make eval`), and fails it when the variable is
// set and the file is missing.
func Shared(tb testing.TB, rel string) string {
	tb.Helper()
	dir := os.Getenv(EnvShared)
	if dir == "" {
		tb.Skipf("needs the evaluation data set (%s); run make eval", rel)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("evaluation data missing (%s=%s): %v", EnvShared, dir, err)
	}
	return p
}

// Spotter returns the path of rel, a file or folder of the marot/spotter transcripts: the
// bundled sample's copy when it has one, else the evaluation data set's (see Shared).
func Spotter(tb testing.TB, rel string) string {
	tb.Helper()
	if root, err := Root(); err == nil {
		p := filepath.Join(root, "testdata", filepath.FromSlash(SpotterDir), filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return Shared(tb, SpotterDir+"/"+rel)
}
