package claudecode

import (
	"encoding/json"
	"errors"
	"github.com/stopgate/stopgate/harness/internal/hooksfile"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const testCommand = "/usr/local/bin/stopgate hook claude-code"

// copySettings copies testdata/settings/name into a temporary directory; name "" is a file
// that does not exist yet.
func copySettings(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if name == "" {
		return path
	}
	data, err := os.ReadFile(filepath.Join("testdata", "settings", name))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
	return path
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// topLevel decodes a settings file's top-level members in order.
func topLevel(t *testing.T, data string) hooksfile.Object {
	t.Helper()
	obj, err := hooksfile.DecodeObject([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// semantic decodes JSON for a comparison that ignores white space.
func semantic(t *testing.T, data string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// TestInstallUninstall installs into each settings file (golden), installs again (no
// change), uninstalls (golden), and uninstalls again (no change).
func TestInstallUninstall(t *testing.T) {
	tests := []struct {
		name  string
		file  string // under testdata/settings; "" for none
		ours  bool   // the file already holds stopgate handlers
		exact bool   // uninstalling restores the file byte for byte
	}{
		{"missing", "", false, false},
		{"empty", "empty.json", false, false},
		{"keys", "keys.json", false, true},
		{"hooks", "hooks.json", false, true},
		{"null", "null.json", false, false},
		{"old", "old.json", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := copySettings(t, tt.file)
			before := ""
			if tt.file != "" {
				before = readString(t, path)
			}

			changed, err := Install(path, testCommand)
			if err != nil || !changed {
				t.Fatalf("Install = %v, %v; want a change", changed, err)
			}
			installed := readString(t, path)
			golden(t, "settings-"+tt.name+".install.json", []byte(installed))
			if n := strings.Count(installed, testCommand); n != 3 {
				t.Errorf("the command appears %d times, want once per event", n)
			}
			if before != "" {
				// Every other top-level key keeps its bytes and its place.
				var keys []string
				for _, m := range topLevel(t, before) {
					if m.Key == "hooks" {
						continue
					}
					keys = append(keys, m.Key)
					if !strings.Contains(installed, string(hooksfile.BytesOf(m.Node))) {
						t.Errorf("key %q lost its bytes %s", m.Key, hooksfile.BytesOf(m.Node))
					}
				}
				var after []string
				for _, m := range topLevel(t, installed) {
					if m.Key != "hooks" {
						after = append(after, m.Key)
					}
				}
				if !reflect.DeepEqual(keys, after) {
					t.Errorf("key order %v, want %v", after, keys)
				}
			}

			changed, err = Install(path, testCommand)
			if err != nil || changed || readString(t, path) != installed {
				t.Errorf("installing again: %v, %v, or the file changed; want no change", changed, err)
			}

			changed, err = Uninstall(path)
			if err != nil || !changed {
				t.Fatalf("Uninstall = %v, %v; want a change", changed, err)
			}
			removed := readString(t, path)
			golden(t, "settings-"+tt.name+".uninstall.json", []byte(removed))
			if strings.Contains(removed, "hook claude-code") {
				t.Errorf("a stopgate handler is left:\n%s", removed)
			}
			if before != "" && !tt.ours && tt.name != "null" && !reflect.DeepEqual(semantic(t, removed), semantic(t, before)) {
				t.Errorf("uninstall did not restore the settings:\n%s\nwant (as JSON)\n%s", removed, before)
			}
			if tt.exact && removed != before {
				t.Errorf("uninstall did not restore the file byte for byte:\n%s\nwant\n%s", removed, before)
			}

			changed, err = Uninstall(path)
			if err != nil || changed || readString(t, path) != removed {
				t.Errorf("uninstalling again: %v, %v, or the file changed; want no change", changed, err)
			}
		})
	}
}

func TestInstallUpdatesACommand(t *testing.T) {
	path := copySettings(t, "hooks.json")
	if _, err := Install(path, testCommand); err != nil {
		t.Fatal(err)
	}
	moved := Command("/opt/stopgate/bin/stopgate", "--", "--style=context")
	changed, err := Install(path, moved)
	if err != nil || !changed {
		t.Fatalf("Install with another command = %v, %v; want a change", changed, err)
	}
	got := readString(t, path)
	if strings.Contains(got, testCommand) || strings.Count(got, "/opt/stopgate/bin/stopgate hook claude-code -- --style=context") != 3 {
		t.Errorf("the handlers were not updated in place:\n%s", got)
	}
	// The update keeps the handler's place: Stop still has its two groups.
	var s struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(got), &s); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Hooks["Stop"]); n != 2 {
		t.Errorf("Stop has %d groups, want 2", n)
	}
}

func TestInstallKeepsModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude-settings.json")
	writeFile(t, real, `{"model": "opus"}`)
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(link, testCommand); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(link)
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	info, err = os.Stat(real)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600 kept", info.Mode().Perm(), err)
	}
	if !strings.Contains(readString(t, real), testCommand) {
		t.Errorf("the link's target was not edited")
	}
	if entries, _ := os.ReadDir(filepath.Dir(real)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestSettingsErrors(t *testing.T) {
	for _, tt := range []struct {
		name, content string
	}{
		{"not JSON", `{"model": "opus",`},
		{"comments", "// settings\n{}"},
		{"an array", `[]`},
		{"two objects", `{} {}`},
		{"hooks not an object", `{"hooks": []}`},
		{"an event not a list", `{"hooks": {"Stop": {"hooks": []}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := copySettings(t, "")
			writeFile(t, path, tt.content)
			for _, op := range []struct {
				name string
				f    func() (bool, error)
			}{
				{"Install", func() (bool, error) { return Install(path, testCommand) }},
				{"Uninstall", func() (bool, error) { return Uninstall(path) }},
			} {
				changed, err := op.f()
				if tt.name == "an event not a list" && op.name == "Uninstall" {
					// Nothing of ours can be in it; reading past it is enough.
					if err == nil || changed {
						t.Errorf("%s = %v, %v; want an error", op.name, changed, err)
					}
				}
				if changed || !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), path) {
					t.Errorf("%s = %v, %v; want an error wrapping ErrSettings naming the file", op.name, changed, err)
				}
				if got := readString(t, path); got != tt.content {
					t.Errorf("%s wrote the file: %q", op.name, got)
				}
			}
		})
	}
	if _, err := Install(filepath.Join(t.TempDir(), "s.json"), "/bin/sh -c 'echo hi'"); !errors.Is(err, hooksfile.ErrNotHookCommand) {
		t.Errorf("Install of another command: %v, want hooksfile.ErrNotHookCommand", err)
	}
	if changed, err := Uninstall(filepath.Join(t.TempDir(), "missing.json")); changed || err != nil {
		t.Errorf("Uninstall of a missing file = %v, %v; want no change, no error", changed, err)
	}
}

func TestIsHookCommand(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want bool
	}{
		{"stopgate hook claude-code", true},
		{"/usr/local/bin/stopgate hook claude-code --state-dir /tmp/x", true},
		{"'/Users/Jane Doe/go/bin/stopgate' hook claude-code -- --style=context", true},
		{`"/opt/my tools/stopgate.exe" hook claude-code`, true},
		{"STOPGATE_X=1 HOME=/h stopgate hook claude-code", true},
		{"/home/u/bin/stopgate-dev hook claude-code", true},
		{"stopgate hook codex", false},
		{"stopgate decide", false},
		{"other-tool hook claude-code", false},
		{"echo stopgate hook claude-code", false},
		{"'stopgate hook claude-code", false},
		{"", false},
	} {
		if got := IsHookCommand(tt.cmd); got != tt.want {
			t.Errorf("IsHookCommand(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

func TestCommand(t *testing.T) {
	for _, tt := range []struct {
		exe  string
		args []string
		want string
	}{
		{"/usr/local/bin/stopgate", nil, "/usr/local/bin/stopgate hook claude-code"},
		{"/Users/Jane Doe/bin/stopgate", []string{"--", "--config=/Users/Jane Doe/it's.toml"},
			`'/Users/Jane Doe/bin/stopgate' hook claude-code -- '--config=/Users/Jane Doe/it'\''s.toml'`},
		{"/bin/stopgate", []string{"--budget=stall=1", "--mode", "", "--model=openai:gpt-5-mini"},
			"/bin/stopgate hook claude-code --budget=stall=1 --mode '' --model=openai:gpt-5-mini"},
	} {
		got := Command(tt.exe, tt.args...)
		if got != tt.want {
			t.Errorf("Command(%q, %q) = %s, want %s", tt.exe, tt.args, got, tt.want)
		}
		words, ok := hooksfile.ShellWords(got)
		if want := append([]string{tt.exe, "hook", "claude-code"}, tt.args...); !ok || !reflect.DeepEqual(words, want) {
			t.Errorf("hooksfile.ShellWords(%s) = %q, want %q", got, words, want)
		}
		if !IsHookCommand(got) {
			t.Errorf("IsHookCommand(%s) = false", got)
		}
	}
}
