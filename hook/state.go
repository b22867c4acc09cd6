package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/stopgate/stopgate"
)

// State is what the hook keeps between two invocations for one session (one agent of it, on
// SubagentStop): which run the last decision was in, and the nudges counted after it.
type State struct {
	// Run is the RunStartedAt of the last decision; zero when it was unknown.
	Run time.Time `json:"run,omitzero"`
	// Nudges is the last Decision's Nudges.
	Nudges stopgate.Nudges `json:"nudges"`
	// Reader is the session reader's checkpoint at the last stop (harness.Stop.Checkpoint):
	// what it derived from the session file, and how far it read. The next stop reads only
	// what was appended since.
	Reader json.RawMessage `json:"reader,omitempty"`
}

// StatePath returns the state file of a session's agent (agent "" for the main agent) in dir.
// Ids that are not plain file names are hashed, so no payload can name a file elsewhere.
func StatePath(dir, session, agent string) string {
	name := session
	if agent != "" {
		name += "--" + agent
	}
	if !plainName(name) {
		sum := sha256.Sum256([]byte(session + "\x00" + agent))
		name = "h-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(dir, name+".json")
}

// plainName reports whether s is a short name of letters, digits, '-', '_' and '.', not
// starting with '.'.
func plainName(s string) bool {
	if s == "" || len(s) > 160 || s[0] == '.' {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// LoadState reads the state file at path. A missing file is no error: found is false.
func LoadState(path string) (st State, found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, false, fmt.Errorf("state file %s: %w", path, err)
	}
	return st, true, nil
}

// saveState writes st to path atomically: a temporary file in the same directory, renamed
// over the old one, so a reader sees the old state or the new one, never half of either. It
// does not fsync: a state lost to a crash is read as unreadable or missing, which lets the
// next stop proceed.
func saveState(path string, st State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".state-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(append(data, '\n'))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	pruneStates(dir, time.Now())
	return nil
}
