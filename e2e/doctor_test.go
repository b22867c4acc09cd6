package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/harness/codex"
)

// The doctor's scenarios: real installs, made with stopgate's installer or the harness's own
// CLI in a temporary HOME, broken the way users break them, and `stopgate doctor` run on
// them with the real harness CLIs on PATH.

// doctorFinding is one check of `stopgate doctor --json`.
type doctorFinding struct {
	Name, Status, Detail, Fix string
}

// runDoctor runs `stopgate doctor --json harnesses…` in dir with env and returns the
// findings about each harness and the exit status.
func runDoctor(t *testing.T, dir string, env []string, harnesses ...string) (map[string][]doctorFinding, int) {
	t.Helper()
	cmd := exec.Command(stopgateBinary(t), append([]string{"doctor", "--json"}, harnesses...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Stopgate  struct{ Checks []doctorFinding }
		Harnesses []struct {
			Name   string
			Checks []doctorFinding
		}
		Problems int
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("stopgate doctor --json printed no JSON: %v\n%s", err, out)
	}
	m := map[string][]doctorFinding{"stopgate": r.Stopgate.Checks}
	for _, h := range r.Harnesses {
		m[h.Name] = h.Checks
	}
	t.Logf("stopgate doctor %s (exit %d):\n%s", strings.Join(harnesses, " "), code, out)
	return m, code
}

// failing returns the findings with status fail.
func failing(fs []doctorFinding) []doctorFinding {
	var out []doctorFinding
	for _, f := range fs {
		if f.Status == "fail" {
			out = append(out, f)
		}
	}
	return out
}

// assertOneProblem checks that the doctor found exactly one problem, whose detail contains
// detail and which says how to fix it, and exited 1.
func assertOneProblem(t *testing.T, fs []doctorFinding, code int, detail string) {
	t.Helper()
	bad := failing(fs)
	if code != 1 || len(bad) != 1 || !strings.Contains(bad[0].Detail, detail) || bad[0].Fix == "" {
		t.Errorf("doctor exited %d with problems %+v, want exit 1 and one problem saying %q with a fix", code, bad, detail)
	}
}

// TestDoctorClaudeCode: a hook installed with `stopgate hook install claude-code` whose
// binary has since gone, a Claude Code too old for the events, and the plugin installed with
// `claude plugin install` (no problem).
func TestDoctorClaudeCode(t *testing.T) {
	t.Parallel()
	d := newSessionDirs(t, "unused")
	claudeDir := filepath.Dir(claudeBinary(t))
	env := withoutStopgate(append(d.baseEnv(), "IS_SANDBOX=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"))
	env = withPath(env, claudeDir)

	t.Run("plugin", func(t *testing.T) {
		s := &session{sessionDirs: d, t: t, env: env}
		installClaudePlugin(t, s, stopgateBinary(t))
		fs, code := runDoctor(t, d.project, env, "claude-code")
		if code != 0 || len(failing(fs["claude-code"])) > 0 {
			t.Errorf("doctor exited %d with problems %+v, want none", code, failing(fs["claude-code"]))
		}
		found := false
		for _, f := range fs["claude-code"] {
			found = found || strings.HasPrefix(f.Name, "plugin stopgate@stopgate") && f.Status == "ok"
		}
		if !found {
			t.Errorf("doctor does not report the plugin installed: %+v", fs["claude-code"])
		}
	})

	t.Run("missing binary", func(t *testing.T) {
		moved := filepath.Join(d.base, "moved", "stopgate")
		b, err := os.ReadFile(stopgateBinary(t))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, moved, string(b))
		if err := os.Chmod(moved, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(moved, "hook", "install", "claude-code", "--project")
		cmd.Dir, cmd.Env = d.project, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("stopgate hook install: %v\n%s", err, out)
		}
		if err := os.Remove(moved); err != nil {
			t.Fatal(err)
		}
		fs, code := runDoctor(t, d.project, env, "claude-code")
		assertOneProblem(t, fs["claude-code"], code, moved+" does not exist")
	})

	t.Run("version without the events", func(t *testing.T) {
		old := filepath.Join(d.base, "old-claude")
		writeExecutable(t, filepath.Join(old, "claude"), `echo "2.0.10 (Claude Code)"`)
		fs, code := runDoctor(t, d.project, withPath(env, old), "claude-code")
		bad := failing(fs["claude-code"])
		ok := code == 1
		var versionProblem bool
		for _, f := range bad {
			versionProblem = versionProblem || strings.Contains(f.Detail, "2.0.10, older than 2.1.78") && strings.Contains(f.Fix, "claude update")
		}
		if !ok || !versionProblem {
			t.Errorf("doctor exited %d with problems %+v, want exit 1 and one naming 2.0.10 older than 2.1.78 with the update", code, bad)
		}
	})
}

// TestDoctorCodex: a hook installed with `stopgate hook install codex` is untrusted until
// its trust record is written, and the doctor says which record; once trusted, no problem.
func TestDoctorCodex(t *testing.T) {
	t.Parallel()
	s := newCodexSession(t, nil)
	s.env = withPath(withoutStopgate(s.env), filepath.Dir(codexBinary(t)))
	cmd := exec.Command(stopgateBinary(t), "hook", "install", "codex")
	cmd.Dir, cmd.Env = s.project, s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stopgate hook install codex: %v\n%s", err, out)
	}
	hooks := filepath.Join(s.codexHome, "hooks.json")
	recs, err := codex.Trust(hooks)
	if err != nil {
		t.Fatal(err)
	}
	var ours []codex.HookTrust
	for _, r := range recs {
		if codex.IsHookCommand(r.Command) {
			ours = append(ours, r)
		}
	}
	if len(ours) != 2 {
		t.Fatalf("hooks.json holds %d stopgate hooks, want 2", len(ours))
	}
	fs, code := runDoctor(t, s.project, s.env, "codex")
	bad := failing(fs["codex"])
	if code != 1 || len(bad) != 2 {
		t.Fatalf("doctor exited %d with problems %+v, want exit 1 and two (Stop and SubagentStop untrusted)", code, bad)
	}
	for _, f := range bad {
		if !strings.Contains(f.Detail, "untrusted") || !strings.Contains(f.Fix, "/hooks") {
			t.Errorf("problem %+v, want it untrusted, fixed in /hooks", f)
		}
		named := false
		for _, r := range ours {
			named = named || strings.Contains(f.Fix, r.Hash) && strings.Contains(f.Fix, r.Key)
		}
		if !named {
			t.Errorf("problem %+v does not give a trust record stopgate computes for the hook (%+v)", f, ours)
		}
	}
	s.trust(hooks)
	fs, code = runDoctor(t, s.project, s.env, "codex")
	if code != 0 || len(failing(fs["codex"])) > 0 {
		t.Errorf("after trusting, doctor exited %d with problems %+v, want none", code, failing(fs["codex"]))
	}
}

// TestDoctorGemini: hooks disabled in the user settings are found, and so is an untrusted
// project folder holding the hook; the extension installed with `gemini extensions install`
// is reported.
func TestDoctorGemini(t *testing.T) {
	t.Parallel()
	s := newGeminiSession(t, nil)
	s.env = withPath(withoutStopgate(s.env), filepath.Dir(geminiBinary(t)))
	installHook(t, s.sessionDirs, s.env, "gemini-cli")
	fs, code := runDoctor(t, s.project, s.env, "gemini-cli")
	if code != 0 || len(failing(fs["gemini-cli"])) > 0 {
		t.Fatalf("doctor exited %d with problems %+v, want none", code, failing(fs["gemini-cli"]))
	}

	user := filepath.Join(s.home, ".gemini", "settings.json")
	settings := geminiSettings(true)
	settings["hooksConfig"] = map[string]any{"enabled": false}
	s.writeSettings(user, settings)
	fs, code = runDoctor(t, s.project, s.env, "gemini-cli")
	assertOneProblem(t, fs["gemini-cli"], code, "hooksConfig.enabled is false")

	s.writeSettings(user, geminiSettings(true))
	writeFile(t, filepath.Join(s.home, ".gemini", "trustedFolders.json"), "{}")
	fs, code = runDoctor(t, s.project, s.env, "gemini-cli")
	assertOneProblem(t, fs["gemini-cli"], code, "not trusted")

	s.env = append(s.env, "STOPGATE_BIN="+stopgateBinary(t))
	installGeminiExtension(t, s)
	fs, code = runDoctor(t, s.project, s.env, "gemini-cli")
	if code != 0 || len(failing(fs["gemini-cli"])) > 0 {
		t.Errorf("doctor exited %d with problems %+v, want none", code, failing(fs["gemini-cli"]))
	}
	found := false
	for _, f := range fs["gemini-cli"] {
		found = found || f.Name == "extension stopgate" && f.Status == "ok"
	}
	if !found {
		t.Errorf("doctor does not report the extension: %+v", fs["gemini-cli"])
	}
}

// TestDoctorCopilot: a hook installed with `stopgate hook install copilot --project` in a
// folder Copilot CLI does not trust is found, and the fix says how to trust it; once the
// folder is in trustedFolders, no problem; a Copilot CLI older than agentStop is found; the
// plugin installed with `copilot plugin install` is reported, its launcher's missing binary
// found until stopgate is on PATH, and the plugin found disabled once
// `copilot plugin disable` turned it off.
func TestDoctorCopilot(t *testing.T) {
	t.Parallel()
	s := newCopilotSession(t, nil)
	cli, _ := copilotBinary(t)
	s.env = withPath(withoutStopgate(s.env), filepath.Dir(cli))
	// The session's capture hook is no stopgate hook; the doctor must pass over it.
	installHook(t, s.sessionDirs, s.env, "copilot")
	fs, code := runDoctor(t, s.project, s.env, "copilot")
	assertOneProblem(t, fs["copilot"], code, "this one is not trusted")
	if bad := failing(fs["copilot"]); len(bad) == 1 && !strings.Contains(bad[0].Fix, "--trust-folder") {
		t.Errorf("the trust problem's fix %q does not say how to trust the folder", bad[0].Fix)
	}

	writeFile(t, filepath.Join(s.home, ".copilot", "config.json"), `{"trustedFolders":[`+jsonString(s.project)+`]}`)
	fs, code = runDoctor(t, s.project, s.env, "copilot")
	if code != 0 || len(failing(fs["copilot"])) > 0 {
		t.Fatalf("in a trusted folder doctor exited %d with problems %+v, want none", code, failing(fs["copilot"]))
	}

	old := filepath.Join(s.base, "old-copilot")
	writeExecutable(t, filepath.Join(old, "copilot"), `echo "GitHub Copilot CLI 0.0.400."`)
	fs, code = runDoctor(t, s.project, withPath(s.env, old), "copilot")
	assertOneProblem(t, fs["copilot"], code, "0.0.400, older than 0.0.401, the first with agentStop")

	installCopilotPlugin(t, s)
	fs, code = runDoctor(t, s.project, s.env, "copilot")
	assertOneProblem(t, fs["copilot"], code, "finds no stopgate binary")
	s.env = withPath(s.env, filepath.Dir(stopgateBinary(t)))
	fs, code = runDoctor(t, s.project, s.env, "copilot")
	if code != 0 || len(failing(fs["copilot"])) > 0 {
		t.Errorf("with the plugin doctor exited %d with problems %+v, want none", code, failing(fs["copilot"]))
	}
	found := false
	for _, f := range fs["copilot"] {
		found = found || f.Name == "plugin stopgate@stopgate" && f.Status == "ok" && strings.Contains(f.Detail, filepath.Join("plugins", "copilot"))
	}
	if !found {
		t.Errorf("doctor does not report the plugin installed from plugins/copilot: %+v", fs["copilot"])
	}
	runCLI(t, s.project, s.env, cli, "plugin", "disable", "stopgate@stopgate")
	fs, code = runDoctor(t, s.project, s.env, "copilot")
	assertOneProblem(t, fs["copilot"], code, "installed but disabled")
}

// TestDoctorOpencode: the plugin `stopgate hook install opencode` writes is reported with the
// binary it runs, and found broken once that binary has gone; the package plugins/opencode
// installed with `opencode plugin` is reported, and its launcher's missing binary found.
func TestDoctorOpencode(t *testing.T) {
	t.Parallel()
	d := newSessionDirs(t, "unused")
	env := withPath(withoutStopgate(append(d.baseEnv(), "XDG_CONFIG_HOME="+filepath.Join(d.home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(d.home, ".cache"), "XDG_DATA_HOME="+filepath.Join(d.home, ".local", "share"))),
		filepath.Dir(opencodeCLI.binary(t)))

	moved := filepath.Join(d.base, "moved", "stopgate")
	b, err := os.ReadFile(stopgateBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, moved, string(b))
	if err := os.Chmod(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(moved, "hook", "install", "opencode", "--project")
	cmd.Dir, cmd.Env = d.project, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stopgate hook install opencode: %v\n%s", err, out)
	}
	fs, code := runDoctor(t, d.project, env, "opencode")
	if code != 0 || len(failing(fs["opencode"])) > 0 {
		t.Fatalf("doctor exited %d with problems %+v, want none", code, failing(fs["opencode"]))
	}
	if err := os.Remove(moved); err != nil {
		t.Fatal(err)
	}
	fs, code = runDoctor(t, d.project, env, "opencode")
	assertOneProblem(t, fs["opencode"], code, moved+" does not exist")
	cmd = exec.Command(stopgateBinary(t), "hook", "uninstall", "opencode", "--project")
	cmd.Dir, cmd.Env = d.project, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stopgate hook uninstall opencode: %v\n%s", err, out)
	}

	pkg := filepath.Join(repoRoot(t), "plugins", "opencode")
	runCLI(t, d.project, env, opencodeCLI.binary(t), "plugin", pkg)
	fs, code = runDoctor(t, d.project, env, "opencode")
	assertOneProblem(t, fs["opencode"], code, "finds no stopgate binary")
	found := false
	for _, f := range fs["opencode"] {
		found = found || strings.HasPrefix(f.Name, "plugin @stopgate/opencode in ") && f.Status == "ok"
	}
	if !found {
		t.Errorf("doctor does not report the package installed by opencode plugin: %+v", fs["opencode"])
	}
	fs, code = runDoctor(t, d.project, withPath(env, filepath.Dir(stopgateBinary(t))), "opencode")
	if code != 0 || len(failing(fs["opencode"])) > 0 {
		t.Errorf("with stopgate on PATH doctor exited %d with problems %+v, want none", code, failing(fs["opencode"]))
	}
}

// jsonString returns s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
