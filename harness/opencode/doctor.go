package opencode

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/doctorkit"
)

// TestedVersion is the opencode release stopgate's plugin is tested with; an older one may
// lack the plugin API it uses (the session.idle event, the SDK client's messages, todo and
// promptAsync), so the doctor warns.
const TestedVersion = "1.18.33"

// PackageName is the name of the packaged plugin, plugins/opencode/package.json.
const PackageName = "@stopgate/opencode"

// Doctor checks an opencode installation for `stopgate doctor`: the CLI on PATH and its
// version, and the stopgate plugins the user's and the project's config files list (their
// "plugin" entries): the plugin `stopgate hook install opencode` writes (its file, and the
// binary its command runs) and the package plugins/opencode installed with `opencode plugin`
// (its directory, and the binary its launcher finds).
type Doctor struct{}

// commandRE finds the hook command an installed stopgate-plugin.js runs.
var commandRE = regexp.MustCompile(`(?m)^const COMMAND = ("(?:[^"\\]|\\.)*");$`)

// Checks implements harness.Doctor.
func (Doctor) Checks(ctx context.Context, env harness.Env) []harness.Check {
	cli, v := doctorkit.CLICheck(ctx, env, "opencode", "opencode", "0.0.0", "plugins on session.idle", "")
	if v != "" && doctorkit.Less(v, TestedVersion) {
		cli.Status = harness.CheckWarn
		cli.Detail += "; stopgate is tested with " + TestedVersion + " and older releases may lack the plugin API it uses"
		cli.Fix = "update opencode: 'opencode upgrade' or 'npm install -g opencode-ai'"
	}
	out := []harness.Check{cli}
	user, _ := Installer{}.Path(harness.ScopeUser, env)
	files := []string{user, filepath.Join(env.CWD, "opencode.json"), filepath.Join(env.CWD, ".opencode", "opencode.json")}
	installed := false
	for _, path := range files {
		if path == "" {
			continue
		}
		where := doctorkit.Tilde(env, path)
		_, plugins, _, err := readConfig(path)
		if err != nil {
			out = append(out, harness.Check{Name: "config " + where, Status: harness.CheckFail, Detail: err.Error(), Fix: "fix the file's JSON"})
			continue
		}
		for _, p := range plugins {
			switch {
			case isOurs(p):
				installed = true
				out = append(out, fileChecks(ctx, env, where, p)...)
			case isPackage(p, filepath.Dir(path)):
				installed = true
				out = append(out, packageChecks(ctx, env, where, p, filepath.Dir(path))...)
			}
		}
	}
	if !installed {
		st := harness.CheckFail
		if cli.Status == harness.CheckSkip {
			st = harness.CheckSkip
		}
		out = append(out, harness.Check{Name: "stopgate installed", Status: st, Detail: "no stopgate plugin in the opencode config files",
			Fix: "run 'stopgate hook install opencode', or 'opencode plugin -g PATH/plugins/opencode' with PATH a stopgate checkout"})
	}
	return out
}

// fileChecks checks the plugin file a file:// entry of the config at where names and the
// binary its command runs.
func fileChecks(ctx context.Context, env harness.Env, where, entry string) []harness.Check {
	name := "plugin in " + where
	u, err := url.Parse(entry)
	if err != nil {
		return []harness.Check{{Name: name, Status: harness.CheckFail, Detail: entry + ": " + err.Error(), Fix: "run 'stopgate hook install opencode' again"}}
	}
	src, err := os.ReadFile(u.Path)
	if err != nil {
		return []harness.Check{{Name: name, Status: harness.CheckFail, Detail: "the config lists " + entry + ", which cannot be read: opencode loads no stopgate plugin",
			Fix: "run 'stopgate hook install opencode' again"}}
	}
	m := commandRE.FindSubmatch(src)
	var command string
	if m == nil || json.Unmarshal(m[1], &command) != nil {
		return []harness.Check{{Name: name, Status: harness.CheckFail, Detail: doctorkit.Tilde(env, u.Path) + " names no hook command",
			Fix: "run 'stopgate hook install opencode' again"}}
	}
	bin := doctorkit.CommandBinary(command)
	return []harness.Check{
		{Name: name, Status: harness.CheckOK, Detail: doctorkit.Tilde(env, u.Path) + " runs " + bin + " on session.idle"},
		doctorkit.BinaryCheck(ctx, env, where, bin),
	}
}

// isPackage reports whether a plugin entry of a config file in dir is the stopgate package:
// its npm name, or a path or file:// URL of a directory whose package.json names it.
func isPackage(entry, dir string) bool {
	if entry == PackageName || strings.HasPrefix(entry, PackageName+"@") {
		return true
	}
	root := packageDir(entry, dir)
	var pkg struct{ Name string }
	found, err := doctorkit.ReadJSON(filepath.Join(root, "package.json"), &pkg)
	return root != "" && found && err == nil && pkg.Name == PackageName
}

// packageDir returns the directory a path or file:// plugin entry names ("" for a package
// name).
func packageDir(entry, dir string) string {
	if u, err := url.Parse(entry); err == nil && u.Scheme == "file" {
		return u.Path
	}
	if filepath.IsAbs(entry) {
		return entry
	}
	if strings.HasPrefix(entry, "./") || strings.HasPrefix(entry, "../") {
		return filepath.Join(dir, entry)
	}
	return ""
}

// packageChecks checks the stopgate package a config at where lists and the binary its
// launcher finds. For an npm name it looks where opencode caches its packages
// ($XDG_CACHE_HOME/opencode, else ~/.cache/opencode, node_modules).
func packageChecks(ctx context.Context, env harness.Env, where, entry, dir string) []harness.Check {
	name := "plugin " + PackageName + " in " + where
	root := packageDir(entry, dir)
	if root == "" {
		cache := filepath.Join(env.Home, ".cache")
		if env.Getenv != nil && env.Getenv("XDG_CACHE_HOME") != "" {
			cache = env.Getenv("XDG_CACHE_HOME")
		}
		root = filepath.Join(cache, "opencode", "node_modules", filepath.FromSlash(PackageName))
		if _, err := os.Stat(filepath.Join(root, "package.json")); err != nil {
			return []harness.Check{{Name: name, Status: harness.CheckWarn, Detail: "listed as " + entry + "; opencode has not fetched it into " + doctorkit.Tilde(env, root) + " yet (it does on its next start)"}}
		}
	}
	var pkg struct{ Version string }
	if _, err := doctorkit.ReadJSON(filepath.Join(root, "package.json"), &pkg); err != nil {
		return []harness.Check{{Name: name, Status: harness.CheckFail, Detail: err.Error(), Fix: "reinstall it: opencode plugin --force " + PackageName}}
	}
	return []harness.Check{
		{Name: name, Status: harness.CheckOK, Detail: "version " + pkg.Version + " in " + doctorkit.Tilde(env, root)},
		doctorkit.LauncherCheck(ctx, env, "plugin "+PackageName, filepath.Join(root, "bin", "stopgate-hook"), ""),
	}
}
