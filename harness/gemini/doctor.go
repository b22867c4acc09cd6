package gemini

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/doctorkit"
)

// TestedVersion is the Gemini CLI release stopgate's AfterAgent hook is tested with end to
// end; an older one may lack the hooks system or AfterAgent's fields, so the doctor warns.
const TestedVersion = "0.61.0"

// Doctor checks a Gemini CLI installation for `stopgate doctor`: the CLI on PATH and its
// version, the stopgate AfterAgent hooks in the user and project settings and the binaries
// they run, whether hooks are enabled (hooksConfig.enabled, hooksConfig.disabled), whether
// the current folder is trusted (Gemini CLI reads a project's settings only in a trusted
// folder), and the stopgate extension with the binary its launcher finds.
type Doctor struct{}

type doctorSettings struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
	Security struct {
		FolderTrust struct {
			Enabled *bool `json:"enabled"`
		} `json:"folderTrust"`
	} `json:"security"`
}

// Checks implements harness.Doctor.
func (Doctor) Checks(ctx context.Context, env harness.Env) []harness.Check {
	cli, v := doctorkit.CLICheck(ctx, env, "Gemini CLI", "gemini", "0.0.0", "AfterAgent", "")
	if v != "" && doctorkit.Less(v, TestedVersion) {
		cli.Status = harness.CheckWarn
		cli.Detail += "; stopgate is tested with " + TestedVersion + " and older releases may lack the hooks system or AfterAgent"
		cli.Fix = "update Gemini CLI: 'npm install -g @google/gemini-cli'"
	}
	out := []harness.Check{cli}
	gdir := filepath.Join(env.Home, ".gemini")
	files := []struct{ scope, path string }{
		{"user", filepath.Join(gdir, "settings.json")},
		{"project", filepath.Join(env.CWD, ".gemini", "settings.json")},
	}
	installed, projectHook := false, false
	folderTrust := true // on by default in Gemini CLI 0.61
	for _, f := range files {
		where := doctorkit.Tilde(env, f.path)
		var s doctorSettings
		found, err := doctorkit.ReadJSON(f.path, &s)
		if err != nil {
			out = append(out, harness.Check{Name: "settings " + where, Status: harness.CheckFail, Detail: err.Error(), Fix: "fix the file's JSON"})
			continue
		}
		if !found {
			continue
		}
		if f.scope == "user" && s.Security.FolderTrust.Enabled != nil {
			folderTrust = *s.Security.FolderTrust.Enabled
		}
		if why, err := HooksDisabled(f.path); err == nil && why != "" {
			out = append(out, harness.Check{Name: "hooks enabled in " + where, Status: harness.CheckFail, Detail: why,
				Fix: "in " + where + " set \"hooksConfig\": {\"enabled\": true} and take stopgate out of hooksConfig.disabled"})
		}
		for _, g := range s.Hooks[EventAfterAgent] {
			for _, h := range g.Hooks {
				if h.Type != "command" || !IsHookCommand(h.Command) {
					continue
				}
				installed = true
				projectHook = projectHook || f.scope == "project"
				bin := doctorkit.CommandBinary(h.Command)
				out = append(out, harness.Check{Name: "hook in " + where, Status: harness.CheckOK, Detail: "runs " + bin + " on AfterAgent"},
					doctorkit.BinaryCheck(ctx, env, where, bin))
			}
		}
	}
	if projectHook && folderTrust {
		c := harness.Check{Name: "folder trust of " + env.CWD, Status: harness.CheckFail,
			Detail: "the project's .gemini/settings.json holds the hook, and Gemini CLI reads it only in a trusted folder; this one is not trusted",
			Fix:    "trust the folder when Gemini CLI asks (or with /permissions), or add \"" + env.CWD + "\": \"TRUST_FOLDER\" to " + doctorkit.Tilde(env, filepath.Join(gdir, "trustedFolders.json"))}
		if trusted(filepath.Join(gdir, "trustedFolders.json"), env.CWD) {
			c.Status, c.Detail, c.Fix = harness.CheckOK, "trusted in "+doctorkit.Tilde(env, filepath.Join(gdir, "trustedFolders.json")), ""
		}
		out = append(out, c)
	}
	// The extension.
	ext := filepath.Join(gdir, "extensions", "stopgate")
	var m struct {
		Name, Version string
	}
	if found, err := doctorkit.ReadJSON(filepath.Join(ext, "gemini-extension.json"), &m); err != nil {
		out = append(out, harness.Check{Name: "extension stopgate", Status: harness.CheckFail, Detail: err.Error(), Fix: "reinstall it: gemini extensions uninstall stopgate; gemini extensions install https://github.com/stopgate/stopgate"})
	} else if found {
		installed = true
		out = append(out, harness.Check{Name: "extension stopgate", Status: harness.CheckOK, Detail: "version " + m.Version + " in " + doctorkit.Tilde(env, ext)})
		if _, err := os.Stat(filepath.Join(ext, "hooks", "hooks.json")); err != nil {
			out = append(out, harness.Check{Name: "extension stopgate hooks", Status: harness.CheckFail, Detail: "the extension has no hooks/hooks.json", Fix: "reinstall the extension"})
		}
		out = append(out, doctorkit.LauncherCheck(ctx, env, "extension stopgate", filepath.Join(ext, "plugins", "stopgate-hook"), ""))
	}
	if !installed {
		st := harness.CheckFail
		if cli.Status == harness.CheckSkip {
			st = harness.CheckSkip
		}
		out = append(out, harness.Check{Name: "stopgate installed", Status: st, Detail: "no stopgate hook in the settings files and no stopgate extension",
			Fix: "run 'stopgate hook install gemini-cli', or 'gemini extensions install https://github.com/stopgate/stopgate'"})
	}
	return out
}

// trusted reports whether trustedFolders.json at path trusts dir: dir itself, or a parent
// marked TRUST_PARENT of a child, or an ancestor marked TRUST_FOLDER.
func trusted(path, dir string) bool {
	var m map[string]string
	if found, err := doctorkit.ReadJSON(path, &m); err != nil || !found {
		return false
	}
	for p, level := range m {
		p = filepath.Clean(p)
		switch level {
		case "TRUST_FOLDER":
			if dir == p || strings.HasPrefix(dir, p+string(filepath.Separator)) {
				return true
			}
		case "TRUST_PARENT":
			parent := filepath.Dir(p)
			if dir == parent || strings.HasPrefix(dir, parent+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}
