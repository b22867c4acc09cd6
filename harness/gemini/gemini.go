// Package gemini is stopgate's Gemini CLI harness: the AfterAgent hook (payload, Turn,
// answer), installing it in a settings file, and reading chat sessions (JSONL and legacy
// JSON) for audit. Harness describes it to cmd/stopgate.
//
// The sessions themselves are read by the subpackage chat (chat.ReadGeminiFile).
package gemini

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// Harness describes Gemini CLI to cmd/stopgate.
func Harness() harness.Harness {
	return harness.Harness{
		Name:      Name,
		Summary:   "the Gemini CLI AfterAgent hook",
		Site:      termination.SiteHookGeminiCLI,
		Hook:      Hook{},
		Installer: Installer{},
		Readers:   []harness.SessionReader{Reader{}},
		Doctor:    Doctor{},
	}
}

// Installer installs the hook in a Gemini CLI settings file: ~/.gemini/settings.json, or
// $GEMINI_CLI_HOME/.gemini/settings.json (ScopeUser), or .gemini/settings.json of the
// current directory (ScopeProject).
type Installer struct{}

// Path implements harness.Installer.
func (Installer) Path(scope harness.Scope, env harness.Env) (string, error) {
	switch scope {
	case harness.ScopeUser, "":
		home := env.Home
		if env.Getenv != nil && env.Getenv("GEMINI_CLI_HOME") != "" {
			home = env.Getenv("GEMINI_CLI_HOME")
		}
		if home == "" {
			return "", errors.New("neither GEMINI_CLI_HOME nor HOME is set")
		}
		return filepath.Abs(filepath.Join(home, ".gemini", "settings.json"))
	case harness.ScopeProject:
		return filepath.Join(env.CWD, ".gemini", "settings.json"), nil
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
