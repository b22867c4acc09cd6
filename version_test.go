package stopgate_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
)

// TestVersion: the VERSION file holds one release, semver without a leading v.
func TestVersion(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(stopgate.Version) {
		t.Errorf("Version = %q, want MAJOR.MINOR.PATCH", stopgate.Version)
	}
}

// TestManifestsCarryVersion: every plugin and extension manifest, and the hook launcher they
// ship, carries the VERSION file's release, so an update of the binary reaches the plugins'
// users (each harness updates a plugin when its version changes).
func TestManifestsCarryVersion(t *testing.T) {
	manifests := []struct {
		path string
		// versions returns the version fields of the manifest's JSON.
		versions func(m map[string]any) []any
	}{
		{"plugins/claude-code/.claude-plugin/plugin.json", field("version")},
		{"plugins/codex/.codex-plugin/plugin.json", field("version")},
		{"gemini-extension.json", field("version")},
		{"plugins/copilot/plugin.json", field("version")},
		{"plugins/opencode/package.json", field("version")},
		{".claude-plugin/marketplace.json", marketplaceVersions},
		{".github/plugin/marketplace.json", marketplaceVersions},
	}
	for _, m := range manifests {
		t.Run(m.path, func(t *testing.T) {
			b, err := os.ReadFile(m.path)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s is not JSON: %v", m.path, err)
			}
			for _, got := range m.versions(v) {
				if got != stopgate.Version {
					t.Errorf("%s: version %v, want %q (the VERSION file's)", m.path, got, stopgate.Version)
				}
			}
		})
	}
	launchers, _ := filepath.Glob("plugins/*/bin/stopgate-hook")
	canonical, err := os.ReadFile("plugins/stopgate-hook")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(canonical, []byte("\nversion="+stopgate.Version+"\n")) {
		t.Errorf("plugins/stopgate-hook does not set version=%s", stopgate.Version)
	}
	if len(launchers) < 2 {
		t.Errorf("launchers %v, want one in each of plugins/claude-code and plugins/codex", launchers)
	}
	for _, l := range launchers {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, canonical) {
			t.Errorf("%s differs from plugins/stopgate-hook; copy it again (cp -p plugins/stopgate-hook %s)", l, l)
		}
		if fi, err := os.Stat(l); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", l)
		}
	}
}

func field(name string) func(map[string]any) []any {
	return func(m map[string]any) []any { return []any{m[name]} }
}

// TestReadmeInstallVersion: the README's go install line names this release.
func TestReadmeInstallVersion(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "go install github.com/stopgate/stopgate/cmd/stopgate@v" + stopgate.Version
	if !strings.Contains(string(b), want) {
		t.Errorf("README.md has no %q", want)
	}
}

// marketplaceVersions returns the version fields of a Claude Code or Copilot CLI marketplace
// file: its metadata's and each plugin's.
func marketplaceVersions(m map[string]any) []any {
	out := []any{m["metadata"].(map[string]any)["version"]}
	for _, p := range m["plugins"].([]any) {
		out = append(out, p.(map[string]any)["version"])
	}
	return out
}
