package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrCodexHooks is returned (wrapped, with the file's name) for a hooks.json InstallCodex or
// UninstallCodex cannot edit: not JSON, not an object, or a "hooks" entry not in Codex's
// shape. The file is left as it was.
var ErrCodexHooks = errors.New("invalid Codex hooks file")

// CodexCommand returns the shell command line that runs `exe hook codex args...`, each word
// quoted for a POSIX shell (Codex runs command hooks through the user's shell).
func CodexCommand(exe string, args ...string) string {
	words := append([]string{exe, "hook", "codex"}, args...)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// IsCodexHookCommand reports whether the command line runs stopgate's Codex hook: after any
// VAR=value assignments, a program whose file name begins with "stopgate", then the words
// hook and codex. This is how UninstallCodex tells the handlers InstallCodex added from
// everyone else's.
func IsCodexHookCommand(command string) bool {
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
	return strings.HasPrefix(name, "stopgate") && words[1] == "hook" && words[2] == "codex"
}

// InstallCodex adds command as a command hook for Stop and for SubagentStop to the Codex
// hooks file at hooksPath (~/.codex/hooks.json for every project, <repo>/.codex/hooks.json
// for one), creating the file (and its directory) if it does not exist, and reports whether
// the file changed.
//
// It edits the file as Install edits a Claude Code settings file: other top-level keys kept
// byte for byte (Codex allows only "description" besides "hooks"), other events and handlers
// kept, a stopgate handler already there updated in place, installing again no change. A file
// that is not valid JSON, or whose "hooks" is not in Codex's shape, is an error wrapping
// ErrCodexHooks and is not written.
//
// Codex runs a hook from hooks.json only once the user has trusted it (see CodexTrust), and a
// project's hooks only in a project the user has trusted; an untrusted hook is skipped
// silently. Installing does neither: trusting is the user's review to make.
func InstallCodex(hooksPath, command string) (changed bool, err error) {
	if !IsCodexHookCommand(command) {
		return false, fmt.Errorf("%w: %q", ErrNotHookCommand, command)
	}
	return editCodexHooks(hooksPath, true, func(hooks *object) (bool, error) {
		changed := false
		for _, event := range []string{EventStop, EventSubagentStop} {
			c, err := installHandler(hooks, event, command, IsCodexHookCommand)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		return changed, nil
	})
}

// UninstallCodex removes the handlers IsCodexHookCommand recognises from the Stop and
// SubagentStop hooks of the Codex hooks file at hooksPath, with the matcher groups, events and
// "hooks" object the removal leaves empty, and reports whether the file changed. A missing file
// is no error and no change. Trust entries Codex keeps in config.toml for removed handlers
// are left for Codex to ignore.
func UninstallCodex(hooksPath string) (changed bool, err error) {
	return editCodexHooks(hooksPath, false, func(hooks *object) (bool, error) {
		changed := false
		for _, event := range []string{EventStop, EventSubagentStop} {
			c, err := uninstallHandlers(hooks, event, IsCodexHookCommand)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		return changed, nil
	})
}

// editCodexHooks is editSettings for a Codex hooks.json, reporting errors as ErrCodexHooks.
func editCodexHooks(path string, create bool, edit func(hooks *object) (bool, error)) (bool, error) {
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
			return false, fmt.Errorf("%s: %w: %w", path, ErrCodexHooks, err)
		}
	}
	var hooks object
	i := top.index("hooks")
	if i >= 0 && !isNull(bytesOf(top[i].node)) {
		if hooks, err = decodeObject(bytesOf(top[i].node)); err != nil {
			return false, fmt.Errorf("%s: %w: \"hooks\": %w", path, ErrCodexHooks, err)
		}
	}
	changed, err := edit(&hooks)
	if err != nil {
		return false, fmt.Errorf("%s: %w: %w", path, ErrCodexHooks, err)
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

// installHandler makes command the one handler of event that ours recognises. It is
// installEvent with the recogniser as a parameter.
func installHandler(hooks *object, event, command string, ours func(string) bool) (bool, error) {
	groups, i, err := eventGroups(*hooks, event)
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
			obj, cmd, isOurs := commandHandler(h, ours)
			switch {
			case !isOurs:
				kept = append(kept, h)
			case found:
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
			{key: "type", node: quote("command")},
			{key: "command", node: quote(command)},
			{key: "timeout", node: raw(strconv.Itoa(HandlerTimeout))},
		}
		groups = append(groups, object{{key: "hooks", node: array{h}}})
	}
	if changed {
		hooks.put(i, event, array(groups))
	}
	return changed, nil
}

// uninstallHandlers removes the handlers of event that ours recognises. It is uninstallEvent
// with the recogniser as a parameter.
func uninstallHandlers(hooks *object, event string, ours func(string) bool) (bool, error) {
	groups, i, err := eventGroups(*hooks, event)
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
			if _, _, isOurs := commandHandler(h, ours); !isOurs {
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
		hooks.put(i, event, array(groups))
	}
	return changed, nil
}

// commandHandler decodes a hook handler and reports whether it is a command hook ours
// recognises.
func commandHandler(h node, ours func(string) bool) (object, string, bool) {
	r, isRaw := h.(raw)
	if !isRaw {
		return nil, "", false
	}
	var v struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(r, &v) != nil || v.Type != "command" || !ours(v.Command) {
		return nil, "", false
	}
	obj, err := decodeObject(r)
	if err != nil {
		return nil, "", false
	}
	return obj, v.Command, true
}

// CodexHookTrust is the trust record Codex keeps for one hook handler in the user's
// config.toml, under [hooks.state."KEY"] as trusted_hash = "HASH". Codex writes it when the
// user reviews and trusts the hook (/hooks in the TUI); a handler whose record is missing, or
// whose hash no longer matches, does not run unless Codex is started with
// --dangerously-bypass-hook-trust.
type CodexHookTrust struct {
	// Event is EventStop or EventSubagentStop; Command the handler's command.
	Event   string
	Command string
	// Key is "<hooks file>:<event>:<group index>:<handler index>", the hooks file's absolute
	// path and the event in snake_case ("stop", "subagent_stop").
	Key string
	// Hash is "sha256:<hex>" of the handler's normalized identity.
	Hash string
}

// TOML returns the config.toml lines that record t as trusted.
func (t CodexHookTrust) TOML() string {
	return fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(t.Key), tomlString(t.Hash))
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CodexTrust returns the trust records Codex would need for the command handlers of the Stop
// and SubagentStop events in the hooks file at hooksPath, in file order; IsCodexHookCommand of
// a record's Command tells stopgate's from the others. The hash is
// computed as Codex 0.169 computes it (codex-rs/hooks discovery: the event's snake_case name
// and the matcher group with only this handler, normalized to the fields Codex knows and the
// timeout defaulted to 600, as sorted compact JSON, SHA-256). A missing file has none.
func CodexTrust(hooksPath string) ([]CodexHookTrust, error) {
	abs, err := filepath.Abs(hooksPath)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", abs, ErrCodexHooks, err)
	}
	type group struct {
		Matcher *string           `json:"matcher"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	// groups decodes an event's matcher groups; one not in Codex's shape is left out, as
	// Install leaves it alone.
	groups := func(event string) []group {
		var raws []json.RawMessage
		_ = json.Unmarshal(file.Hooks[event], &raws)
		out := make([]group, len(raws))
		for i, r := range raws {
			_ = json.Unmarshal(r, &out[i])
		}
		return out
	}
	var out []CodexHookTrust
	for _, event := range []string{EventStop, EventSubagentStop} {
		label := "stop"
		if event == EventSubagentStop {
			label = "subagent_stop"
		}
		for gi, g := range groups(event) {
			for hi, h := range g.Hooks {
				var v struct {
					Type          string  `json:"type"`
					Command       string  `json:"command"`
					Timeout       *uint64 `json:"timeout"`
					Async         bool    `json:"async"`
					StatusMessage *string `json:"statusMessage"`
				}
				if json.Unmarshal(h, &v) != nil || v.Type != "command" || strings.TrimSpace(v.Command) == "" {
					continue
				}
				var matcher *string
				if event == EventSubagentStop {
					matcher = g.Matcher // Stop has no matcher; Codex drops one written there
				}
				hash, err := codexTrustHash(label, matcher, v.Command, v.Timeout, v.Async, v.StatusMessage)
				if err != nil {
					return nil, err
				}
				out = append(out, CodexHookTrust{
					Event:   event,
					Command: v.Command,
					Key:     fmt.Sprintf("%s:%s:%d:%d", abs, label, gi, hi),
					Hash:    hash,
				})
			}
		}
	}
	return out, nil
}

// codexTrustHash returns the hash Codex records for a trusted command handler of the event
// named label ("stop", "subagent_stop"): "sha256:" and the hex SHA-256 of the handler's
// identity as sorted compact JSON, absent fields left out, the timeout defaulted to 600 and
// raised to at least 1.
func codexTrustHash(label string, matcher *string, command string, timeout *uint64, async bool, statusMessage *string) (string, error) {
	handler := map[string]any{"type": "command", "command": command, "async": async, "timeout": uint64(600)}
	if timeout != nil {
		handler["timeout"] = max(*timeout, 1)
	}
	if statusMessage != nil {
		handler["statusMessage"] = *statusMessage
	}
	identity := map[string]any{"event_name": label, "hooks": []any{handler}}
	if matcher != nil {
		identity["matcher"] = *matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(identity); err != nil {
		return "", fmt.Errorf("encoding the hook identity: %w", err)
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
