package gemini

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/stopgate/stopgate/harness/internal/hooksfile"
)

// HandlerTimeout is the timeout Install gives its handler: how long Gemini CLI
// waits for the hook before it kills it and lets the stop proceed. Gemini CLI's settings
// count it in milliseconds (60000 is also its default). It is a backstop well above the
// hook's own time budget (DefaultTimeout).
const HandlerTimeout = 60 * time.Second

// HookName is the name Install gives its handler: how Gemini CLI names the hook
// in its messages, in `/hooks disable stopgate`, and in hooksConfig.disabled.
const HookName = "stopgate"

// ErrSettings is returned (wrapped, with the file's name) for a settings file
// Install, Uninstall or HooksDisabled cannot read or edit: not JSON (Gemini
// CLI also accepts comments, which stopgate does not rewrite), not an object, or a "hooks"
// entry not in Gemini CLI's shape. The file is left as it was.
var ErrSettings = errors.New("invalid Gemini CLI settings")

// Command returns the shell command line that runs `exe hook gemini-cli args...`, each
// word quoted for a POSIX shell (Gemini CLI runs command hooks through bash -c).
func Command(exe string, args ...string) string {
	return hooksfile.HookCommand(exe, "gemini-cli", args)
}

// IsHookCommand reports whether the command line runs stopgate's Gemini CLI hook: after
// any VAR=value assignments, a program whose file name begins with "stopgate", then the words
// hook and gemini-cli. This is how Uninstall tells the handler Install added from
// everyone else's.
func IsHookCommand(command string) bool {
	return hooksfile.IsHookCommand(command, "gemini-cli")
}

// geminiSettings is the Gemini CLI settings.json: stopgate's handler under AfterAgent, named,
// with its timeout in milliseconds.
var geminiSettings = hooksfile.File{
	Err:    ErrSettings,
	Events: []string{EventAfterAgent},
	Ours:   IsHookCommand,
	NewHandler: func(command string) hooksfile.Object {
		return hooksfile.Object{
			{Key: "name", Node: hooksfile.Quote(HookName)},
			{Key: "type", Node: hooksfile.Quote("command")},
			{Key: "command", Node: hooksfile.Quote(command)},
			{Key: "timeout", Node: hooksfile.Raw(strconv.FormatInt(HandlerTimeout.Milliseconds(), 10))},
		}
	},
}

// Install adds command as an AfterAgent command hook to the Gemini CLI settings file at
// settingsPath (~/.gemini/settings.json, or a project's .gemini/settings.json), creating the
// file and its directory if need be, and reports whether the file changed. The handler it adds
// is {"name":"stopgate","type":"command","command":COMMAND,"timeout":60000}, in a matcher
// group of its own.
//
// Nothing needs enabling in Gemini CLI 0.61.0: hooksConfig.enabled defaults to true, and
// Install leaves hooksConfig alone (see HooksDisabled). Everything else is kept as
// Install keeps it for Claude Code: other keys byte for byte and in their order, other events,
// groups and handlers. Installing again changes nothing; a stopgate handler already there with
// another command is updated in place, and any second one removed. A file that cannot be
// edited is an error wrapping ErrSettings and is not written.
func Install(settingsPath, command string) (changed bool, err error) {
	return geminiSettings.Install(settingsPath, command)
}

// Uninstall removes the handlers IsHookCommand recognises from the AfterAgent
// hooks of the Gemini CLI settings file at settingsPath, with the matcher groups, the event and
// the "hooks" object the removal leaves empty, and reports whether the file changed. Everything
// else is kept. A missing file is no error and no change.
func Uninstall(settingsPath string) (changed bool, err error) {
	return geminiSettings.Uninstall(settingsPath)
}

// HooksDisabled reports what in the Gemini CLI settings file at settingsPath would keep
// the stopgate hook from running: hooksConfig.enabled set to false, or the hook's name or
// command in hooksConfig.disabled. It returns "" when the file says nothing against it (a
// missing file included). Other settings files merge with this one, and only folders Gemini CLI
// trusts run hooks; neither is read here.
func HooksDisabled(settingsPath string) (string, error) {
	data, err := os.ReadFile(settingsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "", nil
	}
	var s struct {
		Hooks       json.RawMessage `json:"hooks"`
		HooksConfig *struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return "", fmt.Errorf("%s: %w: %w", settingsPath, ErrSettings, err)
	}
	if s.HooksConfig == nil {
		return "", nil
	}
	if e := s.HooksConfig.Enabled; e != nil && !*e {
		return "hooksConfig.enabled is false: Gemini CLI runs no hooks", nil
	}
	var ours []string
	var groups []struct {
		Hooks []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"hooks"`
	}
	var events map[string]json.RawMessage
	// A hooks entry of another shape holds none of ours.
	if json.Unmarshal(s.Hooks, &events) == nil {
		_ = json.Unmarshal(events[EventAfterAgent], &groups)
	}
	for _, g := range groups {
		for _, h := range g.Hooks {
			if h.Type == "command" && IsHookCommand(h.Command) {
				ours = append(ours, cmp.Or(h.Name, h.Command))
			}
		}
	}
	if len(ours) == 0 {
		ours = []string{HookName}
	}
	for _, name := range ours {
		if slices.Contains(s.HooksConfig.Disabled, name) {
			return fmt.Sprintf("hooksConfig.disabled lists %q: Gemini CLI skips that hook", name), nil
		}
	}
	return "", nil
}
