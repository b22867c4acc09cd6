package hook

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StateMaxAge is how long a session's state file is kept after its last stop: a file older
// than this is removed when the hook saves another one in the same directory. A session that
// comes back after that starts its nudge budgets afresh.
const StateMaxAge = 30 * 24 * time.Hour

// pruneEvery bounds how often a directory is swept: the sweep reads the whole directory, and a
// stop should not pay for that every time. The time of the last sweep is the modification time
// of pruneMarker in the directory.
const (
	pruneEvery  = 24 * time.Hour
	pruneMarker = ".pruned"
)

// pruneStates removes the state files (and stray temporary files) in dir last written before
// now-StateMaxAge, at most once per pruneEvery. It is best effort: a file it cannot remove is
// left for the next sweep.
func pruneStates(dir string, now time.Time) {
	marker := filepath.Join(dir, pruneMarker)
	if fi, err := os.Stat(marker); err == nil && now.Sub(fi.ModTime()) < pruneEvery {
		return
	}
	if f, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	}
	_ = os.Chtimes(marker, now, now)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	cutoff := now.Add(-StateMaxAge)
	for _, e := range entries {
		name := e.Name()
		state := strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".")
		tmp := strings.HasPrefix(name, ".state-") && strings.HasSuffix(name, ".tmp")
		if !e.Type().IsRegular() || !state && !tmp {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}
