// Package claudecode is stopgate's Claude Code harness: the Stop and SubagentStop hook
// (payload, Turn, answer), installing it in a settings file, and reading session
// transcripts for audit. Harness describes it to cmd/stopgate.
//
// The transcripts themselves are read by the subpackage transcript (transcript.ReadFile and,
// at a live stop, transcript.ReadTail), into the session model it shares with the Codex
// reader (harness/internal/session).
package claudecode

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// Harness describes Claude Code to cmd/stopgate. style is how its hook writes a
// continuation.
func Harness(style Style) harness.Harness {
	return harness.Harness{
		Name:      Name,
		Summary:   "the Claude Code Stop, SubagentStop and StopFailure hook",
		Site:      termination.SiteHookClaudeCode,
		Hook:      Hook{Style: style},
		Installer: Installer{},
		Readers:   []harness.SessionReader{Reader{}},
		Doctor:    Doctor{},
	}
}

// Installer installs the hook in a Claude Code settings file: ~/.claude/settings.json
// (ScopeUser), .claude/settings.json (ScopeProject) or .claude/settings.local.json
// (ScopeLocal) of the current directory.
type Installer struct{}

// Path implements harness.Installer.
func (Installer) Path(scope harness.Scope, env harness.Env) (string, error) {
	switch scope {
	case harness.ScopeUser, "":
		if env.Home == "" {
			return "", errors.New("HOME is not set")
		}
		return filepath.Join(env.Home, ".claude", "settings.json"), nil
	case harness.ScopeProject:
		return filepath.Join(env.CWD, ".claude", "settings.json"), nil
	case harness.ScopeLocal:
		return filepath.Join(env.CWD, ".claude", "settings.local.json"), nil
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
