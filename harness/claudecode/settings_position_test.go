package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsErrorPosition checks that a settings file that does not parse is refused, left as
// it was, with the line and column where it stops being one JSON object.
func TestSettingsErrorPosition(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"a stray brace", "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n", "line 5, column 3:"},
		{"cut short", `{"model": "opus"`, "line 1, column 17:"},
		{"data after the object", "{\"a\": 1}\n\nx", "line 3, column 1:"},
		{"not an object", "\n  [1, 2]", "line 2, column 3:"},
		{"a bad escape", "{\"a\": \"\\q\"}", "line 1, column 9:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			for op, f := range map[string]func(string) (bool, error){
				"install":   func(p string) (bool, error) { return Install(p, testCommand) },
				"uninstall": Uninstall,
			} {
				_, err := f(path)
				if err == nil || !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), path+": "+tt.want) {
					t.Errorf("%s: %v; want ErrSettings at %q", op, err, tt.want)
				}
				if b, _ := os.ReadFile(path); string(b) != tt.body {
					t.Errorf("%s wrote the file", op)
				}
			}
		})
	}
}
