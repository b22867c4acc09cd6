package codex

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

	"github.com/stopgate/stopgate/harness/internal/hooksfile"
)

// ErrHooks is returned (wrapped, with the file's name) for a hooks.json Install or
// Uninstall cannot edit: not JSON, not an object, or a "hooks" entry not in Codex's
// shape. The file is left as it was.
var ErrHooks = errors.New("invalid Codex hooks file")

// Command returns the shell command line that runs `exe hook codex args...`, each word
// quoted for a POSIX shell (Codex runs command hooks through the user's shell).
func Command(exe string, args ...string) string {
	return hooksfile.HookCommand(exe, "codex", args)
}

// IsHookCommand reports whether the command line runs stopgate's Codex hook: after any
// VAR=value assignments, a program whose file name begins with "stopgate", then the words
// hook and codex. This is how Uninstall tells the handlers Install added from
// everyone else's.
func IsHookCommand(command string) bool {
	return hooksfile.IsHookCommand(command, "codex")
}

// HandlerTimeout is the timeout, in seconds, Install gives the handlers it adds: how long
// Codex waits for the hook before it gives up on it and lets the stop proceed. It is a
// backstop well above the hook's own time budget.
const HandlerTimeout = 60

// codexHooks is the Codex hooks.json: the same shape and handler as Claude Code's settings.
var codexHooks = hooksfile.File{
	Err:    ErrHooks,
	Events: []string{EventStop, EventSubagentStop},
	Ours:   IsHookCommand,
	NewHandler: func(command string) hooksfile.Object {
		return hooksfile.Object{
			{Key: "type", Node: hooksfile.Quote("command")},
			{Key: "command", Node: hooksfile.Quote(command)},
			{Key: "timeout", Node: hooksfile.Raw(strconv.Itoa(HandlerTimeout))},
		}
	},
}

// Install adds command as a command hook for Stop and for SubagentStop to the Codex
// hooks file at hooksPath (~/.codex/hooks.json for every project, <repo>/.codex/hooks.json
// for one), creating the file (and its directory) if it does not exist, and reports whether
// the file changed.
//
// It edits the file as Install edits a Claude Code settings file: other top-level keys kept
// byte for byte (Codex allows only "description" besides "hooks"), other events and handlers
// kept, a stopgate handler already there updated in place, installing again no change. A file
// that is not valid JSON, or whose "hooks" is not in Codex's shape, is an error wrapping
// ErrHooks and is not written.
//
// Codex runs a hook from hooks.json only once the user has trusted it (see Trust), and a
// project's hooks only in a project the user has trusted; an untrusted hook is skipped
// silently. Installing does neither: trusting is the user's review to make.
func Install(hooksPath, command string) (changed bool, err error) {
	return codexHooks.Install(hooksPath, command)
}

// Uninstall removes the handlers IsHookCommand recognises from the Stop and
// SubagentStop hooks of the Codex hooks file at hooksPath, with the matcher groups, events and
// "hooks" object the removal leaves empty, and reports whether the file changed. A missing file
// is no error and no change. Trust entries Codex keeps in config.toml for removed handlers
// are left for Codex to ignore.
func Uninstall(hooksPath string) (changed bool, err error) {
	return codexHooks.Uninstall(hooksPath)
}

// HookTrust is the trust record Codex keeps for one hook handler in the user's
// config.toml, under [hooks.state."KEY"] as trusted_hash = "HASH". Codex writes it when the
// user reviews and trusts the hook (/hooks in the TUI); a handler whose record is missing, or
// whose hash no longer matches, does not run unless Codex is started with
// --dangerously-bypass-hook-trust.
type HookTrust struct {
	// Event is EventStop or EventSubagentStop; Command the handler's command.
	Event   string
	Command string
	// Key is "<hooks file>:<event>:<group index>:<handler index>", the hooks file's absolute
	// path and the event in snake_case ("stop", "subagent_stop").
	Key string
	// Hash is "sha256:<hex>" of the handler's normalized identity.
	Hash string
}

// TOML returns the config.toml lines that record t as trusted. A plugin's hook has a
// two-part hash, as Codex's app server lists it ("sha256:<handler>/sha256:<plugin files>"):
// the handler's part is recorded as trusted_hash and the plugin's content fingerprint as
// trusted_content_hash, the two fields Codex 0.169.0 compares; a record of the joined string
// as trusted_hash reads back as "modified".
func (t HookTrust) TOML() string {
	if handler, content, ok := strings.Cut(t.Hash, "/"); ok {
		return fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s\ntrusted_content_hash = %s\n", tomlString(t.Key), tomlString(handler), tomlString(content))
	}
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

// Trust returns the trust records Codex would need for the command handlers of the Stop
// and SubagentStop events in the hooks file at hooksPath, in file order; IsHookCommand of
// a record's Command tells stopgate's from the others. The hash is
// computed as Codex 0.169 computes it (codex-rs/hooks discovery: the event's snake_case name
// and the matcher group with only this handler, normalized to the fields Codex knows and the
// timeout defaulted to 600, as sorted compact JSON, SHA-256). A missing file has none.
func Trust(hooksPath string) ([]HookTrust, error) {
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
		return nil, fmt.Errorf("%s: %w: %w", abs, ErrHooks, err)
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
	var out []HookTrust
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
				hash, err := trustHash(label, matcher, v.Command, v.Timeout, v.Async, v.StatusMessage)
				if err != nil {
					return nil, err
				}
				out = append(out, HookTrust{
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

// trustHash returns the hash Codex records for a trusted command handler of the event
// named label ("stop", "subagent_stop"): "sha256:" and the hex SHA-256 of the handler's
// identity as sorted compact JSON, absent fields left out, the timeout defaulted to 600 and
// raised to at least 1.
func trustHash(label string, matcher *string, command string, timeout *uint64, async bool, statusMessage *string) (string, error) {
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
