package opencode

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
)

var update = flag.Bool("update", false, "rewrite plugins/opencode/index.js from plugin.js")

// TestPackage: the packaged plugin, plugins/opencode, is plugin.js running the shared
// launcher beside it: index.js is PackageSource() byte for byte (-update rewrites it), the
// launcher is there and executable, and package.json names index.js at this release.
func TestPackage(t *testing.T) {
	dir := filepath.Join("..", "..", "plugins", "opencode")
	index := filepath.Join(dir, "index.js")
	want := PackageSource()
	if *update {
		if err := os.WriteFile(index, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not PackageSource(); run go test ./harness/opencode -run TestPackage -update", index)
	}
	if strings.Contains(want, "__STOPGATE_") || !strings.Contains(want, "const COMMAND = "+PackageLauncherCommand+";") {
		t.Errorf("PackageSource left a placeholder or does not run the launcher:\n%.600s", want)
	}
	fi, err := os.Stat(filepath.Join(dir, "bin", "stopgate-hook"))
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("the package has no executable bin/stopgate-hook: %v", err)
	}
	var pkg struct {
		Name, Version, Main, Type string
		Files                     []string
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	if pkg.Main != "index.js" || pkg.Type != "module" || pkg.Version != stopgate.Version {
		t.Errorf("package.json = %+v, want main index.js, type module, version %s", pkg, stopgate.Version)
	}
}
