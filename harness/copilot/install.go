package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness"
)

// HandlerTimeout is the timeoutSec Install gives the hook: how long Copilot CLI waits for it.
// It is a backstop well above the hook's own time budget.
const HandlerTimeout = 60 * time.Second

// HooksFileName is the hooks file Install writes in a hooks folder: stopgate's own, so every
// other hooks file there is left alone.
const HooksFileName = "stopgate.json"

// ErrHooksFile is returned (wrapped, with the file's name) for a hooks file Install or
// Uninstall cannot read or edit: not JSON, not an object, or a "hooks" entry not in Copilot
// CLI's shape. The file is left as it was.
var ErrHooksFile = errors.New("invalid Copilot CLI hooks file")

// Installer adds `stopgate hook copilot` to a Copilot CLI hooks folder and removes it.
//
// Copilot CLI 1.0.102 reads every *.json file in ~/.copilot/hooks ($COPILOT_HOME/hooks when
// set) for the user's hooks, and in the repository's .github/hooks for the project's; a
// repository's hooks run only once the folder is trusted (a trust prompt answered, or
// --trust-folder, or COPILOT_ALLOW_ALL=true). A hooks file is
// {"version":1,"hooks":{"EVENT":[{"type":"command","bash":COMMAND,"timeoutSec":N}]}}.
type Installer struct{}

// Path implements harness.Installer: HOOKS/stopgate.json in the user's hooks folder
// (ScopeUser: $COPILOT_HOME/hooks, else HOME/.copilot/hooks) or the repository's
// (ScopeProject: CWD/.github/hooks).
func (Installer) Path(scope harness.Scope, env harness.Env) (string, error) {
	home, cwd := env.Home, env.CWD
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch scope {
	case harness.ScopeUser:
		if ch := getenv("COPILOT_HOME"); ch != "" {
			return filepath.Abs(filepath.Join(ch, "hooks", HooksFileName))
		}
		if home == "" {
			return "", errors.New("neither COPILOT_HOME nor HOME is set; name the hooks file with -file")
		}
		return filepath.Abs(filepath.Join(home, ".copilot", "hooks", HooksFileName))
	case harness.ScopeProject:
		return filepath.Abs(filepath.Join(cwd, ".github", "hooks", HooksFileName))
	}
	return "", fmt.Errorf("copilot: %q: %w", scope, harness.ErrScope)
}

// Command implements harness.Installer: `exe hook copilot args...`, each word quoted for a
// POSIX shell (Copilot CLI runs a command hook's bash line with bash).
func (Installer) Command(exe string, args ...string) string {
	words := append([]string{exe, "hook", Name}, args...)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// IsHookCommand implements harness.Installer: after any VAR=value assignments, a program whose
// file name begins with "stopgate", then the words hook and copilot.
func (Installer) IsHookCommand(command string) bool {
	words := strings.Fields(command)
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) < 3 {
		return false
	}
	prog := strings.Trim(words[0], `'"`)
	return strings.HasPrefix(filepath.Base(prog), "stopgate") && strings.Trim(words[1], `'"`) == "hook" && strings.Trim(words[2], `'"`) == Name
}

// isAssignment reports whether w is a shell variable assignment.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~=%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hooksFile is a Copilot CLI hooks file: its top-level fields other than hooks kept as they
// were, and the handlers of each event.
type hooksFile struct {
	top   map[string]json.RawMessage
	hooks map[string][]json.RawMessage
}

// readHooksFile reads the hooks file at path; a missing or empty file is an empty one.
func readHooksFile(path string) (*hooksFile, fs.FileMode, error) {
	f := &hooksFile{top: map[string]json.RawMessage{}, hooks: map[string][]json.RawMessage{}}
	mode := fs.FileMode(0o644)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, mode, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, mode, nil
	}
	if err := json.Unmarshal(data, &f.top); err != nil || f.top == nil {
		return nil, 0, fmt.Errorf("%s: %w: not a JSON object", path, ErrHooksFile)
	}
	if raw, ok := f.top["hooks"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &f.hooks); err != nil {
			return nil, 0, fmt.Errorf("%s: %w: hooks is not an object of handler lists: %w", path, ErrHooksFile, err)
		}
	}
	delete(f.top, "hooks")
	return f, mode, nil
}

// isOurs reports whether a handler is a command hook running stopgate's Copilot CLI hook.
func isOurs(h json.RawMessage) bool {
	var v struct {
		Type    string `json:"type"`
		Bash    string `json:"bash"`
		Command string `json:"command"`
	}
	if json.Unmarshal(h, &v) != nil || v.Type != "command" {
		return false
	}
	return Installer{}.IsHookCommand(v.Bash) || Installer{}.IsHookCommand(v.Command)
}

// write writes the file to path, atomically, with mode.
func (f *hooksFile) write(path string, mode fs.FileMode) error {
	out := map[string]any{}
	for k, v := range f.top {
		out[k] = v
	}
	if _, ok := out["version"]; !ok {
		out["version"] = 1
	}
	hooks := map[string]any{}
	for ev, hs := range f.hooks {
		if len(hs) > 0 {
			hooks[ev] = hs
		}
	}
	out["hooks"] = hooks
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Install implements harness.Installer: it makes command the agentStop and subagentStop
// command hook of the hooks file at path, with a timeoutSec of HandlerTimeout, creating the
// file (and its folder) if need be. Other events and handlers, and other top-level fields, are
// kept; a stopgate handler already there is replaced by this one. Installing again changes
// nothing.
func (Installer) Install(path, command string) (bool, error) {
	f, mode, err := readHooksFile(path)
	if err != nil {
		return false, err
	}
	ours, _ := json.Marshal(map[string]any{"type": "command", "bash": command, "timeoutSec": int(HandlerTimeout.Seconds())})
	changed := false
	for _, ev := range []string{EventAgentStop, EventSubagentStop} {
		var kept []json.RawMessage
		present := false
		for _, h := range f.hooks[ev] {
			if isOurs(h) {
				if !present && jsonEqual(h, ours) {
					present = true
					kept = append(kept, h)
					continue
				}
				changed = true
				continue
			}
			kept = append(kept, h)
		}
		if !present {
			kept = append(kept, ours)
			changed = true
		}
		f.hooks[ev] = kept
	}
	if !changed {
		return false, nil
	}
	if err := f.write(path, mode); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}

// Uninstall implements harness.Installer: it removes every stopgate handler from the hooks file
// at path, and the file itself when nothing else is left in it. A missing file is no change.
func (Installer) Uninstall(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	f, mode, err := readHooksFile(path)
	if err != nil {
		return false, err
	}
	changed := false
	left := 0
	for ev, hs := range f.hooks {
		var kept []json.RawMessage
		for _, h := range hs {
			if isOurs(h) {
				changed = true
				continue
			}
			kept = append(kept, h)
		}
		f.hooks[ev] = kept
		left += len(kept)
	}
	if !changed {
		return false, nil
	}
	delete(f.top, "version")
	if left == 0 && len(f.top) == 0 {
		if err := os.Remove(path); err != nil {
			return false, fmt.Errorf("removing %s: %w", path, err)
		}
		return true, nil
	}
	if err := f.write(path, mode); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
