package copilot

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/doctorkit"
)

// The Copilot CLI releases the doctor knows: FirstVersion added agentStop and subagentStop
// (its changelog, 0.0.401); StopHookActiveVersion added the payload's stop_hook_active and
// the 8-blocks-in-a-row limit (1.0.72); TestedVersion is the one the end-to-end suite runs.
const (
	FirstVersion          = "0.0.401"
	StopHookActiveVersion = "1.0.72"
	TestedVersion         = "1.0.102"
)

// PluginID is the stopgate plugin as Copilot CLI names it once installed from the
// repository's marketplace (.github/plugin/marketplace.json).
const PluginID = "stopgate@stopgate"

// Doctor checks a GitHub Copilot CLI installation for `stopgate doctor`: the CLI on PATH and
// its version, the stopgate hooks in the user's hooks folder ($COPILOT_HOME/hooks, else
// ~/.copilot/hooks) and the repository's (.github/hooks) and the binary each runs, whether
// the repository's folder is trusted (Copilot CLI loads .github/hooks only in a trusted
// folder), and the stopgate plugin: enabled in settings.json, where it is, and the binary its
// launcher finds.
type Doctor struct{}

// copilotHome is $COPILOT_HOME, else HOME/.copilot.
func copilotHome(env harness.Env) string {
	if env.Getenv != nil {
		if ch := env.Getenv("COPILOT_HOME"); ch != "" {
			return ch
		}
	}
	return filepath.Join(env.Home, ".copilot")
}

// Checks implements harness.Doctor.
func (Doctor) Checks(ctx context.Context, env harness.Env) []harness.Check {
	cli, v := doctorkit.CLICheck(ctx, env, "GitHub Copilot CLI", "copilot", FirstVersion, "agentStop and subagentStop",
		"update Copilot CLI: 'npm install -g @github/copilot'")
	if v != "" && cli.Status == harness.CheckOK && doctorkit.Less(v, StopHookActiveVersion) {
		cli.Status = harness.CheckWarn
		cli.Detail += "; releases before " + StopHookActiveVersion + " send no stop_hook_active and do not end a turn after 8 blocks (stopgate is tested with " + TestedVersion + ")"
		cli.Fix = "update Copilot CLI: 'npm install -g @github/copilot'"
	}
	out := []harness.Check{cli}
	home := copilotHome(env)
	installed, projectHook := false, false
	for _, dir := range []struct{ scope, path string }{
		{"user", filepath.Join(home, "hooks")},
		{"project", filepath.Join(env.CWD, ".github", "hooks")},
	} {
		names, _ := filepath.Glob(filepath.Join(dir.path, "*.json"))
		sort.Strings(names)
		for _, name := range names {
			where := doctorkit.Tilde(env, name)
			f, _, err := readHooksFile(name)
			if err != nil {
				out = append(out, harness.Check{Name: "hooks file " + where, Status: harness.CheckFail, Detail: err.Error(),
					Fix: "fix the file's JSON: Copilot CLI skips a hooks file it cannot read"})
				continue
			}
			for _, ev := range []string{EventAgentStop, EventSubagentStop} {
				for _, h := range f.hooks[ev] {
					if !isOurs(h) {
						continue
					}
					var v struct{ Bash, Command string }
					_ = json.Unmarshal(h, &v)
					installed = true
					projectHook = projectHook || dir.scope == "project"
					bin := doctorkit.CommandBinary(cmp.Or(v.Bash, v.Command))
					out = append(out, harness.Check{Name: "hook in " + where, Status: harness.CheckOK, Detail: "runs " + bin + " on " + ev},
						doctorkit.BinaryCheck(ctx, env, where, bin))
				}
			}
		}
	}
	if projectHook {
		c := harness.Check{Name: "folder trust of " + env.CWD, Status: harness.CheckFail,
			Detail: "the repository's .github/hooks holds the hook, and Copilot CLI loads it only in a trusted folder; this one is not trusted",
			Fix:    "start copilot in the folder and trust it when asked (or run copilot -p with --trust-folder)"}
		if env.Getenv != nil && env.Getenv("COPILOT_ALLOW_ALL") == "true" {
			c.Status, c.Detail, c.Fix = harness.CheckOK, "COPILOT_ALLOW_ALL=true trusts every folder", ""
		} else if where := trustedIn(home, env.CWD); where != "" {
			c.Status, c.Detail, c.Fix = harness.CheckOK, "trusted in "+doctorkit.Tilde(env, where), ""
		}
		out = append(out, c)
	}
	// The plugin.
	var settings struct {
		EnabledPlugins         map[string]bool `json:"enabledPlugins"`
		ExtraKnownMarketplaces map[string]struct {
			Source struct {
				Source, Path string
			} `json:"source"`
		} `json:"extraKnownMarketplaces"`
	}
	settingsPath := filepath.Join(home, "settings.json")
	if _, err := doctorkit.ReadJSON(settingsPath, &settings); err != nil {
		out = append(out, harness.Check{Name: "settings " + doctorkit.Tilde(env, settingsPath), Status: harness.CheckFail, Detail: err.Error(), Fix: "fix the file's JSON"})
	}
	ids := make([]string, 0, len(settings.EnabledPlugins))
	for id := range settings.EnabledPlugins {
		if strings.HasPrefix(id, "stopgate@") {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		installed = true
		where := "plugin " + id
		if !settings.EnabledPlugins[id] {
			out = append(out, harness.Check{Name: where, Status: harness.CheckFail, Detail: "installed but disabled in " + doctorkit.Tilde(env, settingsPath),
				Fix: "run 'copilot plugin enable " + id + "'"})
			continue
		}
		root := pluginRoot(home, id, settings.ExtraKnownMarketplaces[strings.TrimPrefix(id, "stopgate@")].Source.Source,
			settings.ExtraKnownMarketplaces[strings.TrimPrefix(id, "stopgate@")].Source.Path)
		if root == "" {
			out = append(out, harness.Check{Name: where, Status: harness.CheckWarn, Detail: "enabled in " + doctorkit.Tilde(env, settingsPath) + ", but its files were not found",
				Fix: "reinstall it: copilot plugin uninstall " + id + "; copilot plugin install " + id})
			continue
		}
		var m struct{ Version string }
		_, _ = doctorkit.ReadJSON(filepath.Join(root, "plugin.json"), &m)
		out = append(out, harness.Check{Name: where, Status: harness.CheckOK, Detail: "enabled, version " + m.Version + " in " + doctorkit.Tilde(env, root)})
		if _, err := os.Stat(filepath.Join(root, "hooks.json")); err != nil {
			out = append(out, harness.Check{Name: where + " hooks", Status: harness.CheckFail, Detail: "the plugin has no hooks.json", Fix: "reinstall the plugin"})
		}
		out = append(out, doctorkit.LauncherCheck(ctx, env, where, filepath.Join(root, "bin", "stopgate-hook"), ""))
	}
	if !installed {
		st := harness.CheckFail
		if cli.Status == harness.CheckSkip {
			st = harness.CheckSkip
		}
		out = append(out, harness.Check{Name: "stopgate installed", Status: st, Detail: "no stopgate hook in the hooks folders and no stopgate plugin",
			Fix: "run 'stopgate hook install copilot', or 'copilot plugin marketplace add stopgate/stopgate' then 'copilot plugin install stopgate@stopgate'"})
	}
	return out
}

// pluginRoot returns the directory of the installed plugin id: for a marketplace in a local
// directory (which Copilot CLI loads live, copying nothing) the plugin's source as its
// marketplace file names it; otherwise the copy under HOME/installed-plugins. "" when there
// is none.
func pluginRoot(home, id, kind, dir string) string {
	name, market, _ := strings.Cut(id, "@")
	if kind == "directory" && dir != "" {
		for _, mf := range []string{filepath.Join(dir, ".github", "plugin", "marketplace.json"), filepath.Join(dir, ".claude-plugin", "marketplace.json")} {
			var m struct {
				Plugins []struct {
					Name   string          `json:"name"`
					Source json.RawMessage `json:"source"`
				} `json:"plugins"`
			}
			if found, err := doctorkit.ReadJSON(mf, &m); err != nil || !found {
				continue
			}
			for _, p := range m.Plugins {
				var src string
				if p.Name == name && json.Unmarshal(p.Source, &src) == nil {
					if root := filepath.Join(dir, src); isPlugin(root) {
						return root
					}
				}
			}
			return ""
		}
		return ""
	}
	for _, root := range []string{filepath.Join(home, "installed-plugins", market, name), filepath.Join(home, "installed-plugins", name)} {
		if isPlugin(root) {
			return root
		}
	}
	return ""
}

// isPlugin reports whether dir holds a Copilot CLI plugin manifest.
func isPlugin(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "plugin.json"))
	return err == nil
}

// trustedIn returns the file that trusts dir (the trustedFolders list of Copilot CLI's
// config.json or settings.json, the folder or one of its parents), or "".
func trustedIn(home, dir string) string {
	for _, name := range []string{"config.json", "settings.json"} {
		var c struct {
			TrustedFolders []string `json:"trustedFolders"`
		}
		path := filepath.Join(home, name)
		if found, err := doctorkit.ReadJSON(path, &c); err != nil || !found {
			continue
		}
		for _, p := range c.TrustedFolders {
			p = filepath.Clean(p)
			if dir == p || strings.HasPrefix(dir, p+string(filepath.Separator)) {
				return path
			}
		}
	}
	return ""
}
