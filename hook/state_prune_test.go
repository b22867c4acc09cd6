package hook

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPruneStates checks that saving a state file removes the state files (and stray temporary
// files) of the directory last written more than StateMaxAge ago, keeps the others and any file
// that is not the hook's, and sweeps at most once a day.
func TestPruneStates(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-StateMaxAge - time.Hour)
	write := func(name string, mod time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	write("old-session.json", old)
	write(".state-123.tmp", old)
	write("notes.txt", old)
	write("recent.json", now.Add(-StateMaxAge+time.Hour))

	if err := saveState(filepath.Join(dir, "new.json"), State{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"old-session.json": false, ".state-123.tmp": false, "notes.txt": true, "recent.json": true, "new.json": true, pruneMarker: true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", name, err == nil, want)
		}
	}

	// Within a day of the last sweep, another save does not sweep.
	write("old-again.json", old)
	if err := saveState(filepath.Join(dir, "new.json"), State{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old-again.json")); err != nil {
		t.Errorf("swept again within a day: %v", err)
	}
	// A day later, it does.
	pruneStates(dir, now.Add(pruneEvery+time.Minute))
	if _, err := os.Stat(filepath.Join(dir, "old-again.json")); err == nil {
		t.Error("not swept a day later")
	}
}
