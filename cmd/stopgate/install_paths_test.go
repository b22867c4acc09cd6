package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/claudecode"
)

// TestInstallPaths checks that install and uninstall edit the file each harness's
// Installer.Path names for every scope it has, with the harness's own home variables: the
// path logic lives in the harness package only.
func TestInstallPaths(t *testing.T) {
	t.Chdir(t.TempDir())
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	homes := map[string]map[string]string{
		"plain":          {"HOME": home},
		"harness homes":  {"HOME": home, "CODEX_HOME": filepath.Join(home, "codexhome"), "GEMINI_CLI_HOME": filepath.Join(home, "geminihome")},
		"a relative one": {"HOME": home, "CODEX_HOME": "rel/codex"},
	}
	n := 0
	for _, h := range harnesses(claudecode.StyleBlock) {
		if h.Installer == nil {
			continue
		}
		for _, scope := range []harness.Scope{harness.ScopeUser, harness.ScopeProject, harness.ScopeLocal} {
			for label, vars := range homes {
				want, err := h.Installer.Path(scope, harness.Env{Home: home, CWD: cwd, Getenv: func(k string) string { return vars[k] }})
				if err != nil {
					continue // a scope the harness does not have
				}
				n++
				t.Run(h.Name+"/"+string(scope)+"/"+label, func(t *testing.T) {
					if _, errOut, code := runEnv(t, vars, "", "hook", "install", h.Name, "-"+string(scope)); code != 0 {
						t.Fatalf("install: exit %d: %s", code, errOut)
					}
					if _, err := os.Stat(want); err != nil {
						t.Fatalf("install did not write %s: %v", want, err)
					}
					if !filepath.IsAbs(want) {
						t.Errorf("Installer.Path = %q, not absolute", want)
					}
					if out, errOut, code := runEnv(t, vars, "", "hook", "uninstall", h.Name, "-"+string(scope)); code != 0 {
						t.Fatalf("uninstall: exit %d: %s %s", code, out, errOut)
					}
					// A harness whose hooks file is stopgate's own (Copilot CLI) removes it
					// when nothing else is left in it.
					if err := os.Remove(want); err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
				})
			}
		}
	}
	if n < 7 {
		t.Errorf("%d harness scopes tried, want at least 7 (Claude Code 3, Codex 2, Gemini CLI 2)", n)
	}
}
