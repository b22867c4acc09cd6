package hook

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestStatePath(t *testing.T) {
	dir := filepath.Join("var", "state")
	tests := []struct {
		session, agent, want string
	}{
		{"0d9f3c1e-2b4a-4c5d-8e6f-7a8b9c0d1e2f", "", "0d9f3c1e-2b4a-4c5d-8e6f-7a8b9c0d1e2f.json"},
		{"0d9f3c1e", "a881341", "0d9f3c1e--a881341.json"},
		{"../../etc/passwd", "", ""},
		{".hidden", "", ""},
		{"s", "../x", ""},
		{"", "", ""},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		got := StatePath(dir, tt.session, tt.agent)
		if filepath.Dir(got) != dir {
			t.Errorf("StatePath(%q, %q) = %q, outside %q", tt.session, tt.agent, got, dir)
		}
		name := filepath.Base(got)
		if tt.want != "" && name != tt.want || tt.want == "" && !strings.HasPrefix(name, "h-") {
			t.Errorf("StatePath(%q, %q) = %q, want %q (or a hashed name)", tt.session, tt.agent, name, tt.want)
		}
		if seen[name] {
			t.Errorf("StatePath(%q, %q) = %q collides", tt.session, tt.agent, name)
		}
		seen[name] = true
	}
}
