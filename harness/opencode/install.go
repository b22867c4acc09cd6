package opencode

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness"
)

// pluginSource is the plugin's template: plugin.js with the command and the timeout to fill in.
//
//go:embed plugin.js
var pluginSource string

// PluginFileName is the plugin file Install writes beside the opencode config file.
const PluginFileName = "stopgate-plugin.js"

// HandlerTimeout is how long the plugin waits for the hook before it lets the session stop.
const HandlerTimeout = 60 * time.Second

// ErrConfig is returned (wrapped, with the file's name) for an opencode config file Install or
// Uninstall cannot edit: not JSON (opencode also reads JSONC, whose comments stopgate does not
// rewrite), not an object, or a "plugin" entry that is not a list of strings.
var ErrConfig = errors.New("invalid opencode config file")

// Installer adds stopgate's plugin to an opencode config file and removes it.
//
// Install writes the plugin (plugin.js, with the hook command in it) as stopgate-plugin.js
// beside the config file and adds its file:// URL to the config's "plugin" list; opencode
// 1.18 loads a plugin from such a URL with no build step and no package to install.
type Installer struct{}

// Path implements harness.Installer: the user's config ($XDG_CONFIG_HOME/opencode/opencode.json,
// else HOME/.config/opencode/opencode.json) or the project's (CWD/opencode.json).
func (Installer) Path(scope harness.Scope, env harness.Env) (string, error) {
	home, cwd := env.Home, env.CWD
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch scope {
	case harness.ScopeUser:
		if x := getenv("XDG_CONFIG_HOME"); x != "" {
			return filepath.Abs(filepath.Join(x, "opencode", "opencode.json"))
		}
		if home == "" {
			return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set; name the config file with -file")
		}
		return filepath.Abs(filepath.Join(home, ".config", "opencode", "opencode.json"))
	case harness.ScopeProject:
		return filepath.Abs(filepath.Join(cwd, "opencode.json"))
	}
	return "", fmt.Errorf("opencode: %q: %w", scope, harness.ErrScope)
}

// Command implements harness.Installer: `exe hook opencode args...`, each word quoted for the
// POSIX shell the plugin runs it with.
func (Installer) Command(exe string, args ...string) string {
	words := append([]string{exe, "hook", Name}, args...)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// IsHookCommand implements harness.Installer: after any VAR=value assignments, a program whose
// file name begins with "stopgate", then the words hook and opencode.
func (Installer) IsHookCommand(command string) bool {
	words := strings.Fields(command)
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") && !strings.ContainsAny(words[0], "/'\"") {
		words = words[1:]
	}
	if len(words) < 3 {
		return false
	}
	return strings.HasPrefix(filepath.Base(strings.Trim(words[0], `'"`)), "stopgate") &&
		strings.Trim(words[1], `'"`) == "hook" && strings.Trim(words[2], `'"`) == Name
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~=%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PluginSource returns the plugin's source with command as the hook it runs.
func PluginSource(command string) string {
	cmd, _ := json.Marshal(command)
	s := strings.Replace(pluginSource, "__STOPGATE_COMMAND__", string(cmd), 1)
	return strings.Replace(s, "__STOPGATE_TIMEOUT_MS__", strconv.FormatInt(HandlerTimeout.Milliseconds(), 10), 1)
}

// pluginURL returns the file:// URL of the plugin beside the config file at configPath.
func pluginURL(configPath string) string {
	u := url.URL{Scheme: "file", Path: filepath.Join(filepath.Dir(configPath), PluginFileName)}
	return u.String()
}

// isOurs reports whether a plugin entry is stopgate's.
func isOurs(entry string) bool {
	return strings.HasPrefix(entry, "file://") && strings.HasSuffix(entry, "/"+PluginFileName)
}

// readConfig reads the config file at path; a missing or empty file is an empty object.
func readConfig(path string) (map[string]json.RawMessage, []string, fs.FileMode, error) {
	cfg := map[string]json.RawMessage{}
	mode := fs.FileMode(0o644)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil, mode, nil
	}
	if err != nil {
		return nil, nil, 0, err
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &cfg); err != nil || cfg == nil {
			return nil, nil, 0, fmt.Errorf("%s: %w: not a JSON object (comments are not rewritten)", path, ErrConfig)
		}
	}
	var plugins []string
	if raw, ok := cfg["plugin"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &plugins); err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w: plugin is not a list of strings", path, ErrConfig)
		}
	}
	return cfg, plugins, mode, nil
}

// writeFile writes data to path atomically, with mode, creating the folder.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writeConfig writes cfg with plugins as its plugin list (dropped when empty).
func writeConfig(path string, cfg map[string]json.RawMessage, plugins []string, mode fs.FileMode) error {
	if len(plugins) > 0 {
		b, _ := json.Marshal(plugins)
		cfg["plugin"] = b
	} else {
		delete(cfg, "plugin")
	}
	if _, ok := cfg["$schema"]; !ok {
		cfg["$schema"] = json.RawMessage(`"https://opencode.ai/config.json"`)
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(data, '\n'), mode)
}

// Install implements harness.Installer: it writes the plugin, running command, beside the
// config file at path, and makes its file:// URL the config's one stopgate plugin entry. Other
// keys and plugins are kept (the file is rewritten with its keys in sorted order). Installing
// again changes nothing.
func (Installer) Install(path, command string) (bool, error) {
	cfg, plugins, mode, err := readConfig(path)
	if err != nil {
		return false, err
	}
	changed := false
	pluginPath := filepath.Join(filepath.Dir(path), PluginFileName)
	src := PluginSource(command)
	if old, err := os.ReadFile(pluginPath); err != nil || string(old) != src {
		if err := writeFile(pluginPath, []byte(src), 0o644); err != nil {
			return false, fmt.Errorf("writing %s: %w", pluginPath, err)
		}
		changed = true
	}
	want := pluginURL(path)
	var kept []string
	present := false
	for _, p := range plugins {
		switch {
		case p == want && !present:
			present = true
			kept = append(kept, p)
		case isOurs(p):
			changed = true
		default:
			kept = append(kept, p)
		}
	}
	if !present {
		kept = append(kept, want)
		changed = true
	}
	if !changed {
		return false, nil
	}
	if err := writeConfig(path, cfg, kept, mode); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}

// Uninstall implements harness.Installer: it removes stopgate's plugin entries from the config
// file at path and the plugin file beside it. A missing file is no change.
func (Installer) Uninstall(path string) (bool, error) {
	changed := false
	pluginPath := filepath.Join(filepath.Dir(path), PluginFileName)
	if err := os.Remove(pluginPath); err == nil {
		changed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return changed, nil
	}
	cfg, plugins, mode, err := readConfig(path)
	if err != nil {
		return changed, err
	}
	var kept []string
	for _, p := range plugins {
		if isOurs(p) {
			changed = true
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == len(plugins) {
		return changed, nil
	}
	if err := writeConfig(path, cfg, kept, mode); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}

// PackageLauncherCommand is the JavaScript expression the packaged plugin (plugins/opencode)
// runs as its hook: the shared launcher shipped beside it, bin/stopgate-hook, quoted for
// /bin/sh, with the harness name. The launcher finds the stopgate binary ($STOPGATE_BIN, PATH,
// the go install directories) and lets the session stop when there is none.
const PackageLauncherCommand = `"'" + decodeURIComponent(new URL("./bin/stopgate-hook", import.meta.url).pathname).replaceAll("'", "'\\''") + "' opencode"`

// PackageSource returns the source of the packaged plugin, plugins/opencode/index.js: the
// plugin Install writes, running the launcher beside it (PackageLauncherCommand) instead of
// a command fixed at install time.
func PackageSource() string {
	s := strings.Replace(pluginSource, "// stopgate's opencode plugin, written by `stopgate hook install opencode`.",
		"// stopgate's opencode plugin, as the package plugins/opencode. Generated from\n// harness/opencode/plugin.js (go test ./harness/opencode -run TestPackage -update); do not edit.", 1)
	s = strings.Replace(s, "__STOPGATE_COMMAND__", PackageLauncherCommand, 1)
	return strings.Replace(s, "__STOPGATE_TIMEOUT_MS__", strconv.FormatInt(HandlerTimeout.Milliseconds(), 10), 1)
}
