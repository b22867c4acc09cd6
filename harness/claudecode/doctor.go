package claudecode

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/doctorkit"
)

// MinVersion is the first Claude Code release with every event stopgate's hook uses: Stop
// and SubagentStop carry last_assistant_message from 2.1.47, and StopFailure, which the
// plugin registers, came in 2.1.78 (Claude Code's changelog).
const MinVersion = "2.1.78"

// Doctor checks a Claude Code installation for `stopgate doctor`: the CLI on PATH and its
// version, the stopgate hooks in the user, project and local settings files and the binaries
// they run, and the stopgate plugin (installed, enabled, and the binary its launcher finds).
type Doctor struct{}

// configDir is $CLAUDE_CONFIG_DIR, else ~/.claude.
func configDir(env harness.Env) string {
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".claude")
}

// settingsHooks is the part of a settings file the doctor reads.
type settingsHooks struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
	EnabledPlugins        map[string]any `json:"enabledPlugins"`
	DisableAllHooks       bool           `json:"disableAllHooks"`
	AllowManagedHooksOnly bool           `json:"allowManagedHooksOnly"`
	PluginConfigs         map[string]struct {
		Options map[string]any `json:"options"`
	} `json:"pluginConfigs"`
}

// Checks implements harness.Doctor.
func (Doctor) Checks(ctx context.Context, env harness.Env) []harness.Check {
	var out []harness.Check
	cli, _ := doctorkit.CLICheck(ctx, env, "Claude Code", "claude", MinVersion, "Stop, SubagentStop with last_assistant_message, and StopFailure",
		"update Claude Code: 'claude update' (or 'npm install -g @anthropic-ai/claude-code')")
	out = append(out, cli)

	installed := false
	var user settingsHooks
	files := []struct{ scope, path string }{
		{"user", filepath.Join(configDir(env), "settings.json")},
		{"project", filepath.Join(env.CWD, ".claude", "settings.json")},
		{"local", filepath.Join(env.CWD, ".claude", "settings.local.json")},
	}
	for _, f := range files {
		var s settingsHooks
		found, err := doctorkit.ReadJSON(f.path, &s)
		where := doctorkit.Tilde(env, f.path)
		if err != nil {
			out = append(out, harness.Check{Name: "settings " + where, Status: harness.CheckFail, Detail: err.Error(), Fix: "fix the file's JSON: Claude Code ignores a settings file it cannot read"})
			continue
		}
		if !found {
			continue
		}
		if f.scope == "user" {
			user = s
		}
		if s.DisableAllHooks {
			out = append(out, harness.Check{Name: "hooks enabled in " + where, Status: harness.CheckFail, Detail: "disableAllHooks is true: Claude Code runs no hooks", Fix: "remove \"disableAllHooks\" from " + where})
		}
		events := map[string][]string{} // binary → events
		var order []string
		for _, event := range []string{"Stop", "SubagentStop"} {
			for _, g := range s.Hooks[event] {
				for _, h := range g.Hooks {
					if h.Type == "command" && IsHookCommand(h.Command) {
						bin := doctorkit.CommandBinary(h.Command)
						if _, ok := events[bin]; !ok {
							order = append(order, bin)
						}
						events[bin] = append(events[bin], event)
					}
				}
			}
		}
		for _, bin := range order {
			installed = true
			evs := events[bin]
			c := harness.Check{Name: "hook in " + where, Status: harness.CheckOK, Detail: "runs " + bin + " on " + strings.Join(evs, " and ")}
			if len(evs) < 2 {
				c.Status, c.Detail = harness.CheckWarn, "runs "+bin+" on "+evs[0]+" only"
				c.Fix = "run 'stopgate hook install claude-code --" + f.scope + "' to add the other event"
			}
			out = append(out, c, doctorkit.BinaryCheck(ctx, env, where, bin))
		}
	}

	// The plugin, installed from a marketplace.
	var plugins struct {
		Plugins map[string][]struct {
			Scope       string `json:"scope"`
			InstallPath string `json:"installPath"`
			Version     string `json:"version"`
		} `json:"plugins"`
	}
	ipath := filepath.Join(configDir(env), "plugins", "installed_plugins.json")
	if _, err := doctorkit.ReadJSON(ipath, &plugins); err != nil {
		out = append(out, harness.Check{Name: "plugins", Status: harness.CheckWarn, Detail: err.Error()})
	}
	for id, installs := range plugins.Plugins {
		if !strings.HasPrefix(id, "stopgate@") {
			continue
		}
		for _, in := range installs {
			installed = true
			c := harness.Check{Name: "plugin " + id, Status: harness.CheckOK, Detail: fmt.Sprintf("version %s, %s scope, in %s", in.Version, in.Scope, doctorkit.Tilde(env, in.InstallPath))}
			if on, ok := user.EnabledPlugins[id].(bool); in.Scope == "user" && (!ok || !on) {
				c.Status, c.Detail = harness.CheckFail, c.Detail+": not enabled in "+doctorkit.Tilde(env, files[0].path)
				c.Fix = "claude plugin enable " + id
			}
			out = append(out, c)
			named := ""
			if o, ok := user.PluginConfigs[id].Options["stopgate_path"].(string); ok {
				named = o
			}
			out = append(out, doctorkit.LauncherCheck(ctx, env, "plugin "+id, filepath.Join(in.InstallPath, "bin", "stopgate-hook"), named))
		}
	}
	if !installed {
		st := harness.CheckFail
		if cli.Status == harness.CheckSkip {
			st = harness.CheckSkip
		}
		out = append(out, harness.Check{Name: "stopgate installed", Status: st, Detail: "no stopgate hook in the settings files and no stopgate plugin",
			Fix: "run 'stopgate hook install claude-code', or 'claude plugin marketplace add stopgate/stopgate' and 'claude plugin install stopgate@stopgate'"})
	}
	return out
}
