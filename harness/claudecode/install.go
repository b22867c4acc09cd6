package claudecode

import (
	"errors"
	"strconv"

	"github.com/stopgate/stopgate/harness/internal/hooksfile"
)

// HandlerTimeout is the timeout, in seconds, Install gives the handlers it adds: how long
// Claude Code waits for the hook before it cancels it and lets the stop proceed. It is a
// backstop well above the hook's own time budget (DefaultTimeout), and far below Claude Code's
// default of 600 s.
const HandlerTimeout = 60

// ErrSettings is returned (wrapped, with the file's name) for a settings file Install or
// Uninstall cannot edit: not JSON, not an object, or a "hooks" entry not in Claude Code's
// shape. The file is left as it was.
var ErrSettings = errors.New("invalid Claude Code settings")

// Command returns the shell command line that runs `exe hook claude-code args...`, each word
// quoted for a POSIX shell (Claude Code runs command hooks through a shell).
func Command(exe string, args ...string) string {
	return hooksfile.HookCommand(exe, "claude-code", args)
}

// IsHookCommand reports whether the command line runs stopgate's Claude Code hook: after any
// VAR=value assignments, a program whose file name begins with "stopgate" (stopgate,
// stopgate.exe, a renamed stopgate-dev), then the words hook and claude-code. This is how
// Uninstall tells the handlers Install added from everyone else's.
func IsHookCommand(command string) bool {
	return hooksfile.IsHookCommand(command, "claude-code")
}

// claudeCodeSettings is the Claude Code settings.json.
var claudeCodeSettings = hooksfile.File{
	Err:    ErrSettings,
	Events: []string{EventStop, EventSubagentStop, EventStopFailure},
	Ours:   IsHookCommand,
	NewHandler: func(command string) hooksfile.Object {
		return hooksfile.Object{
			{Key: "type", Node: hooksfile.Quote("command")},
			{Key: "command", Node: hooksfile.Quote(command)},
			{Key: "timeout", Node: hooksfile.Raw(strconv.Itoa(HandlerTimeout))},
		}
	},
}

// Install adds command as a command hook for Stop, SubagentStop and StopFailure (which records
// why a run ended on an API error, and never blocks) to the Claude Code settings file at settingsPath, creating the file (and its directory) if it does not exist.
// It reports whether the file changed.
//
// Everything else is kept: other top-level keys byte for byte and in their order, other
// events and other handlers (re-indented at most). Installing again changes nothing; a
// stopgate handler already there with another command (a moved binary, other flags) is
// updated in place, and any second one removed. A file that is not valid JSON, or whose
// "hooks" is not in Claude Code's shape, is an error wrapping ErrSettings and is not written.
// The file is replaced atomically and keeps its permissions; a symbolic link is followed.
func Install(settingsPath string, command string) (changed bool, err error) {
	return claudeCodeSettings.Install(settingsPath, command)
}

// Uninstall removes the handlers IsHookCommand recognises from the Stop, SubagentStop and
// StopFailure hooks
// of the Claude Code settings file at settingsPath, and reports whether the file changed.
// Matcher groups, events and the "hooks" object left empty by the removal are removed too;
// everything else is kept as Install keeps it. A missing file is no error and no change.
func Uninstall(settingsPath string) (changed bool, err error) {
	return claudeCodeSettings.Uninstall(settingsPath)
}
