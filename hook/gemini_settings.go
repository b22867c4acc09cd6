package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GeminiHandlerTimeout is the timeout InstallGemini gives its handler: how long Gemini CLI
// waits for the hook before it kills it and lets the stop proceed. Gemini CLI's settings
// count it in milliseconds (60000 is also its default). It is a backstop well above the
// hook's own time budget (DefaultTimeout).
const GeminiHandlerTimeout = 60 * time.Second

// GeminiHookName is the name InstallGemini gives its handler: how Gemini CLI names the hook
// in its messages, in `/hooks disable stopgate`, and in hooksConfig.disabled.
const GeminiHookName = "stopgate"

// ErrGeminiSettings is returned (wrapped, with the file's name) for a settings file
// InstallGemini, UninstallGemini or GeminiHooksDisabled cannot read or edit: not JSON (Gemini
// CLI also accepts comments, which stopgate does not rewrite), not an object, or a "hooks"
// entry not in Gemini CLI's shape. The file is left as it was.
var ErrGeminiSettings = errors.New("invalid Gemini CLI settings")

// GeminiCommand returns the shell command line that runs `exe hook gemini-cli args...`, each
// word quoted for a POSIX shell (Gemini CLI runs command hooks through bash -c).
func GeminiCommand(exe string, args ...string) string {
	words := append([]string{exe, "hook", "gemini-cli"}, args...)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// IsGeminiHookCommand reports whether the command line runs stopgate's Gemini CLI hook: after
// any VAR=value assignments, a program whose file name begins with "stopgate", then the words
// hook and gemini-cli. This is how UninstallGemini tells the handler InstallGemini added from
// everyone else's.
func IsGeminiHookCommand(command string) bool {
	words, ok := shellWords(command)
	if !ok {
		return false
	}
	for len(words) > 0 && isAssignment(words[0]) {
		words = words[1:]
	}
	if len(words) < 3 {
		return false
	}
	name := filepath.Base(strings.ReplaceAll(words[0], `\`, "/"))
	return strings.HasPrefix(name, "stopgate") && words[1] == "hook" && words[2] == "gemini-cli"
}

// InstallGemini adds command as an AfterAgent command hook to the Gemini CLI settings file at
// settingsPath (~/.gemini/settings.json, or a project's .gemini/settings.json), creating the
// file and its directory if need be, and reports whether the file changed. The handler it adds
// is {"name":"stopgate","type":"command","command":COMMAND,"timeout":60000}, in a matcher
// group of its own.
//
// Nothing needs enabling in Gemini CLI 0.61.0: hooksConfig.enabled defaults to true, and
// InstallGemini leaves hooksConfig alone (see GeminiHooksDisabled). Everything else is kept as
// Install keeps it for Claude Code: other keys byte for byte and in their order, other events,
// groups and handlers. Installing again changes nothing; a stopgate handler already there with
// another command is updated in place, and any second one removed. A file that cannot be
// edited is an error wrapping ErrGeminiSettings and is not written.
func InstallGemini(settingsPath, command string) (changed bool, err error) {
	if !IsGeminiHookCommand(command) {
		return false, fmt.Errorf("%w: %q", ErrNotHookCommand, command)
	}
	return geminiEditSettings(settingsPath, true, func(hooks *object) (bool, error) {
		return geminiInstallEvent(hooks, command)
	})
}

// UninstallGemini removes the handlers IsGeminiHookCommand recognises from the AfterAgent
// hooks of the Gemini CLI settings file at settingsPath, with the matcher groups, the event and
// the "hooks" object the removal leaves empty, and reports whether the file changed. Everything
// else is kept. A missing file is no error and no change.
func UninstallGemini(settingsPath string) (changed bool, err error) {
	return geminiEditSettings(settingsPath, false, geminiUninstallEvent)
}

// GeminiHooksDisabled reports what in the Gemini CLI settings file at settingsPath would keep
// the stopgate hook from running: hooksConfig.enabled set to false, or the hook's name or
// command in hooksConfig.disabled. It returns "" when the file says nothing against it (a
// missing file included). Other settings files merge with this one, and only folders Gemini CLI
// trusts run hooks; neither is read here.
func GeminiHooksDisabled(settingsPath string) (string, error) {
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
		return "", fmt.Errorf("%s: %w: %w", settingsPath, ErrGeminiSettings, err)
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
			if h.Type == "command" && IsGeminiHookCommand(h.Command) {
				ours = append(ours, firstNonEmpty(h.Name, h.Command))
			}
		}
	}
	if len(ours) == 0 {
		ours = []string{GeminiHookName}
	}
	for _, name := range ours {
		if slices.Contains(s.HooksConfig.Disabled, name) {
			return fmt.Sprintf("hooksConfig.disabled lists %q: Gemini CLI skips that hook", name), nil
		}
	}
	return "", nil
}

// geminiEditSettings reads the settings file, hands its "hooks" object to edit, and writes
// the file back if edit changed it, as editSettings does for Claude Code.
func geminiEditSettings(path string, create bool, edit func(hooks *object) (bool, error)) (bool, error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	data, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return false, nil
		}
		data = nil
	case err != nil:
		return false, err
	default:
		if info, err := os.Stat(path); err == nil {
			mode = info.Mode().Perm()
		}
	}
	var top object
	if len(bytes.TrimSpace(data)) > 0 {
		if top, err = decodeObject(data); err != nil {
			return false, fmt.Errorf("%s: %w: %w", path, ErrGeminiSettings, err)
		}
	}
	var hooks object
	i := top.index("hooks")
	if i >= 0 && !isNull(bytesOf(top[i].node)) {
		if hooks, err = decodeObject(bytesOf(top[i].node)); err != nil {
			return false, fmt.Errorf("%s: %w: \"hooks\": %w", path, ErrGeminiSettings, err)
		}
	}
	changed, err := edit(&hooks)
	if err != nil {
		return false, fmt.Errorf("%s: %w: %w", path, ErrGeminiSettings, err)
	}
	if !changed {
		return false, nil
	}
	switch {
	case len(hooks) == 0 && i >= 0:
		top = append(top[:i], top[i+1:]...)
	case i >= 0:
		top[i] = member{key: "hooks", node: hooks}
	default:
		top = append(top, member{key: "hooks", node: hooks})
	}
	var b bytes.Buffer
	top.write(&b, indentUnit(data), 0)
	b.WriteByte('\n')
	if err := writeFileAtomic(path, b.Bytes(), mode); err != nil {
		return false, err
	}
	return true, nil
}

// geminiHandler decodes a hook handler and reports whether it is stopgate's Gemini CLI hook.
func geminiHandler(h node) (object, string, bool) {
	r, isRaw := h.(raw)
	if !isRaw {
		return nil, "", false
	}
	var v struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(r, &v) != nil || v.Type != "command" || !IsGeminiHookCommand(v.Command) {
		return nil, "", false
	}
	obj, err := decodeObject(r)
	if err != nil {
		return nil, "", false
	}
	return obj, v.Command, true
}

// geminiInstallEvent makes command the one stopgate handler of AfterAgent.
func geminiInstallEvent(hooks *object, command string) (bool, error) {
	groups, i, err := eventGroups(*hooks, EventAfterAgent)
	if err != nil {
		return false, err
	}
	found, changed := false, false
	for gi := 0; gi < len(groups); gi++ {
		g, handlers, ok := groupHandlers(groups[gi])
		if !ok {
			continue
		}
		var kept []node
		touched := false
		for _, h := range handlers {
			obj, cmd, ours := geminiHandler(h)
			switch {
			case !ours:
				kept = append(kept, h)
			case found: // a second stopgate handler: one is enough
				touched = true
			case cmd == command:
				found = true
				kept = append(kept, h)
			default:
				found, touched = true, true
				obj.set("command", quote(command))
				kept = append(kept, obj)
			}
		}
		if !touched {
			continue
		}
		changed = true
		if len(kept) == 0 {
			groups = append(groups[:gi], groups[gi+1:]...)
			gi--
			continue
		}
		g.set("hooks", array(kept))
		groups[gi] = g
	}
	if !found {
		changed = true
		h := object{
			{key: "name", node: quote(GeminiHookName)},
			{key: "type", node: quote("command")},
			{key: "command", node: quote(command)},
			{key: "timeout", node: raw(strconv.FormatInt(GeminiHandlerTimeout.Milliseconds(), 10))},
		}
		groups = append(groups, object{{key: "hooks", node: array{h}}})
	}
	if changed {
		hooks.put(i, EventAfterAgent, array(groups))
	}
	return changed, nil
}

// geminiUninstallEvent removes the stopgate handlers of AfterAgent.
func geminiUninstallEvent(hooks *object) (bool, error) {
	groups, i, err := eventGroups(*hooks, EventAfterAgent)
	if err != nil || i < 0 {
		return false, err
	}
	changed := false
	for gi := 0; gi < len(groups); gi++ {
		g, handlers, ok := groupHandlers(groups[gi])
		if !ok {
			continue
		}
		var kept []node
		for _, h := range handlers {
			if _, _, ours := geminiHandler(h); !ours {
				kept = append(kept, h)
			}
		}
		if len(kept) == len(handlers) {
			continue
		}
		changed = true
		if len(kept) == 0 {
			groups = append(groups[:gi], groups[gi+1:]...)
			gi--
			continue
		}
		g.set("hooks", array(kept))
		groups[gi] = g
	}
	switch {
	case !changed:
	case len(groups) == 0:
		*hooks = append((*hooks)[:i], (*hooks)[i+1:]...)
	default:
		hooks.put(i, EventAfterAgent, array(groups))
	}
	return changed, nil
}
