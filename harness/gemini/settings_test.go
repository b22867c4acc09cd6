package gemini

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

const geminiTestCommand = "/usr/local/bin/stopgate hook gemini-cli -- --state-dir=/var/lib/stopgate"

// copyGeminiSettings copies testdata/gemini/settings/name into a temporary directory; name ""
// is a file that does not exist yet.
func copyGeminiSettings(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".gemini", "settings.json")
	if name == "" {
		return path
	}
	data, err := os.ReadFile(filepath.Join("testdata", "gemini", "settings", name))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
	return path
}

// afterAgentCommands returns the commands of the AfterAgent handlers of a settings file.
func afterAgentCommands(t *testing.T, data string) []string {
	t.Helper()
	var s struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	var out []string
	for _, g := range s.Hooks[EventAfterAgent] {
		var group struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &group) == nil {
			for _, h := range group.Hooks {
				out = append(out, h.Command)
			}
		}
	}
	return out
}

// TestInstallGemini installs into each settings file (golden), installs again (no change),
// uninstalls (golden), and uninstalls again (no change). Uninstalling what was installed into a
// file without stopgate gives the file back as it was, up to re-indentation of the hooks it
// touched.
func TestInstallGemini(t *testing.T) {
	tests := []struct {
		name     string
		file     string // "" for a file that does not exist
		restores bool   // Uninstall gives back the original bytes
	}{
		{"missing", "", false},
		{"empty", "empty.json", false},
		{"keys", "keys.json", false},
		{"null", "null.json", false},
		{"old", "old.json", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := copyGeminiSettings(t, tt.file)
			original := ""
			if tt.file != "" {
				original = readString(t, path)
			}
			changed, err := Install(path, geminiTestCommand)
			if err != nil || !changed {
				t.Fatalf("Install: %v, changed %v", err, changed)
			}
			installed := readString(t, path)
			geminiGolden(t, "settings-"+tt.name+".install.json", []byte(installed))
			if cmds := afterAgentCommands(t, installed); strings.Count(strings.Join(cmds, "\n"), "stopgate hook gemini-cli") != 1 {
				t.Errorf("installed AfterAgent commands %q, want stopgate's once", cmds)
			}
			if why, err := HooksDisabled(path); why != "" || err != nil {
				t.Errorf("HooksDisabled after install: %q, %v", why, err)
			}
			if changed, err := Install(path, geminiTestCommand); changed || err != nil {
				t.Errorf("a second install: changed %v, %v", changed, err)
			}
			if readString(t, path) != installed {
				t.Error("a second install rewrote the file")
			}
			changed, err = Uninstall(path)
			if err != nil || !changed {
				t.Fatalf("Uninstall: %v, changed %v", err, changed)
			}
			removed := readString(t, path)
			geminiGolden(t, "settings-"+tt.name+".uninstall.json", []byte(removed))
			for _, c := range afterAgentCommands(t, removed) {
				if IsHookCommand(c) {
					t.Errorf("uninstall left %q", c)
				}
			}
			if changed, err := Uninstall(path); changed || err != nil {
				t.Errorf("a second uninstall: changed %v, %v", changed, err)
			}
			if tt.file == "keys.json" {
				// The keys other than hooks are kept byte for byte, in order.
				got, want := topLevel(t, removed), topLevel(t, original)
				if len(got) != len(want) {
					t.Fatalf("top-level keys %d, want %d", len(got), len(want))
				}
				for i := range want {
					if got[i].Key != want[i].Key || (got[i].Key != "hooks" && string(hooksfile.BytesOf(got[i].Node)) != string(hooksfile.BytesOf(want[i].Node))) {
						t.Errorf("member %d: %s changed", i, want[i].Key)
					}
				}
				if !reflect.DeepEqual(semantic(t, removed), semantic(t, original)) {
					t.Errorf("uninstall did not give the settings back:\n%s\nwant\n%s", removed, original)
				}
			}
		})
	}
}

func TestInstallGeminiUpdatesACommand(t *testing.T) {
	path := copyGeminiSettings(t, "old.json")
	if _, err := Install(path, geminiTestCommand); err != nil {
		t.Fatal(err)
	}
	data := readString(t, path)
	var s struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(data), &s); err != nil {
		t.Fatal(err)
	}
	var group struct {
		Hooks []map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(s.Hooks[EventAfterAgent][0], &group); err != nil {
		t.Fatal(err)
	}
	first := group.Hooks[0]
	// The handler keeps its fields (name, timeout, description); only the command changes. The
	// second stopgate handler, in a group of its own, goes with its group.
	want := map[string]any{"name": "stopgate", "type": "command", "command": geminiTestCommand, "timeout": float64(30000), "description": "keep the agent honest"}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("updated handler %v, want %v", first, want)
	}
	if cmds := afterAgentCommands(t, data); !reflect.DeepEqual(cmds, []string{geminiTestCommand, "echo other"}) {
		t.Errorf("AfterAgent commands %q", cmds)
	}
}

func TestGeminiSettingsErrors(t *testing.T) {
	tests := []struct {
		name, content string
	}{
		{"not JSON", `{"hooks": `},
		{"comments", "{\n  // Gemini CLI accepts these\n  \"hooks\": {}\n}"},
		{"not an object", `["hooks"]`},
		{"hooks not an object", `{"hooks": ["AfterAgent"]}`},
		{"AfterAgent not a list", `{"hooks": {"AfterAgent": {"hooks": []}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			writeFile(t, path, tt.content)
			for name, f := range map[string]func() (bool, error){
				"install":   func() (bool, error) { return Install(path, geminiTestCommand) },
				"uninstall": func() (bool, error) { return Uninstall(path) },
			} {
				changed, err := f()
				if changed || !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), path) {
					t.Errorf("%s: changed %v, err %v; want ErrSettings naming the file", name, changed, err)
				}
			}
			if got := readString(t, path); got != tt.content {
				t.Errorf("the file was written: %q", got)
			}
		})
	}
	if _, err := Install(filepath.Join(t.TempDir(), "s.json"), "/usr/bin/stopgate hook claude-code"); !errors.Is(err, hooksfile.ErrNotHookCommand) {
		t.Errorf("installing another command: %v, want hooksfile.ErrNotHookCommand", err)
	}
	if changed, err := Uninstall(filepath.Join(t.TempDir(), "missing.json")); changed || err != nil {
		t.Errorf("uninstalling from a missing file: %v, %v", changed, err)
	}
}

func TestGeminiHooksDisabled(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"missing", "", ""},
		{"nothing said", `{"hooks":{}}`, ""},
		{"enabled", `{"hooksConfig":{"enabled":true,"disabled":["other"]}}`, ""},
		{"every hook off", `{"hooksConfig":{"enabled":false}}`, "hooksConfig.enabled is false"},
		{"stopgate off by name", `{"hooksConfig":{"disabled":["stopgate"]}}`, `hooksConfig.disabled lists "stopgate"`},
		{"an unnamed handler off by command", `{"hooksConfig":{"disabled":["stopgate hook gemini-cli"]},"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"stopgate hook gemini-cli"}]}]}}`,
			`hooksConfig.disabled lists "stopgate hook gemini-cli"`},
		{"hooks of another shape", `{"hooksConfig":{"disabled":["stopgate"]},"hooks":[1]}`, `hooksConfig.disabled lists "stopgate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if tt.content != "" {
				writeFile(t, path, tt.content)
			}
			got, err := HooksDisabled(path)
			if err != nil || !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
				t.Errorf("HooksDisabled = %q, %v; want %q…", got, err, tt.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, `{"hooksConfig":`)
	if _, err := HooksDisabled(path); !errors.Is(err, ErrSettings) {
		t.Errorf("a file that is not JSON: %v, want ErrSettings", err)
	}
}

func TestIsGeminiHookCommand(t *testing.T) {
	tests := []struct {
		command string
		want    bool
	}{
		{"stopgate hook gemini-cli", true},
		{"/usr/local/bin/stopgate hook gemini-cli -- --budget=stall=1", true},
		{"'/opt/my tools/stopgate-dev' hook gemini-cli", true},
		{`STOPGATE_X=1 'C:\tools\stopgate.exe' hook gemini-cli`, true},
		{"stopgate hook claude-code", false},
		{"stopgate hook codex", false},
		{"stopgate gemini-cli", false},
		{"notstopgate hook gemini-cli", false},
		{"echo stopgate hook gemini-cli", false},
		{"'stopgate hook gemini-cli", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsHookCommand(tt.command); got != tt.want {
			t.Errorf("IsHookCommand(%q) = %v, want %v", tt.command, got, tt.want)
		}
	}
}

func TestGeminiCommand(t *testing.T) {
	tests := []struct {
		exe  string
		args []string
		want string
	}{
		{"/usr/local/bin/stopgate", nil, "/usr/local/bin/stopgate hook gemini-cli"},
		{"/opt/my tools/stopgate", []string{"--", "--state-dir=/var/lib/it's here"}, `'/opt/my tools/stopgate' hook gemini-cli -- '--state-dir=/var/lib/it'\''s here'`},
	}
	for _, tt := range tests {
		got := Command(tt.exe, tt.args...)
		if got != tt.want {
			t.Errorf("Command(%q, %q) = %s, want %s", tt.exe, tt.args, got, tt.want)
		}
		if !IsHookCommand(got) {
			t.Errorf("IsHookCommand(%s) = false", got)
		}
	}
}
