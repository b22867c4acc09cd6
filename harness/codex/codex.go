// Package codex is stopgate's Codex CLI harness: the Stop and SubagentStop hook (payload,
// Turn, answer), installing it in a hooks.json and the trust records Codex wants for it, and
// reading rollouts for audit. Harness describes it to cmd/stopgate.
//
// The rollouts themselves are read by the subpackage rollout (rollout.ReadCodexFile), into the
// session model the Claude Code reader fills too (harness/internal/session).
package codex

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// Harness describes Codex CLI to cmd/stopgate.
func Harness() harness.Harness {
	return harness.Harness{
		Name:      Name,
		Summary:   "the Codex CLI Stop and SubagentStop hook",
		Site:      termination.SiteHookCodex,
		Hook:      Hook{},
		Installer: Installer{},
		Readers:   []harness.SessionReader{Reader{}},
		Doctor:    Doctor{},
	}
}

// Installer installs the hook in a Codex hooks.json: $CODEX_HOME/hooks.json, else
// ~/.codex/hooks.json (ScopeUser), or .codex/hooks.json of the current directory
// (ScopeProject).
type Installer struct{}

// Path implements harness.Installer.
func (Installer) Path(scope harness.Scope, env harness.Env) (string, error) {
	switch scope {
	case harness.ScopeUser, "":
		if env.Getenv != nil {
			if d := env.Getenv("CODEX_HOME"); d != "" {
				return filepath.Abs(filepath.Join(d, "hooks.json"))
			}
		}
		if env.Home == "" {
			return "", errors.New("neither CODEX_HOME nor HOME is set")
		}
		return filepath.Join(env.Home, ".codex", "hooks.json"), nil
	case harness.ScopeProject:
		return filepath.Join(env.CWD, ".codex", "hooks.json"), nil
	}
	return "", fmt.Errorf("%w: %q", harness.ErrScope, scope)
}

// Command implements harness.Installer.
func (Installer) Command(exe string, args ...string) string { return Command(exe, args...) }

// IsHookCommand implements harness.Installer.
func (Installer) IsHookCommand(command string) bool { return IsHookCommand(command) }

// Install implements harness.Installer.
func (Installer) Install(path, command string) (bool, error) { return Install(path, command) }

// Uninstall implements harness.Installer.
func (Installer) Uninstall(path string) (bool, error) { return Uninstall(path) }
