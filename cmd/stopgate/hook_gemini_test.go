package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/harness/gemini"
)

// geminiPayload is an AfterAgent payload for session id with the final text msg and no
// session file.
func geminiPayload(id, msg string) string {
	return fmt.Sprintf(`{"session_id":%q,"hook_event_name":"AfterAgent","prompt":"Fix the parser.","prompt_response":%q,"stop_hook_active":false}`, id, msg)
}

const geminiDenyPrefix = `{"decision":"deny","reason":"Your last message ended with \"Let me run the tests.\"`

func TestHookGemini(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		vars   map[string]string
		msg    string
		prefix string // of stdout; "" for nothing
	}{
		{"a stall is denied", []string{"--state-dir", dir, "--no-record"}, nil, stalledMessage, geminiDenyPrefix},
		{"a completion stops", []string{"--state-dir", dir, "--no-record"}, nil, doneMessage, ""},
		{"flags after --", []string{"--", "--state-dir=" + dir, "--budget=stall=1", "--no-record"}, nil, stalledMessage, geminiDenyPrefix},
		{"the default state directory", nil, map[string]string{"XDG_STATE_HOME": dir}, stalledMessage, geminiDenyPrefix},
		{"a check turned off", []string{"--state-dir", dir, "--off", "stall", "--no-record"}, nil, stalledMessage, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"hook", "gemini-cli"}, tt.args...)
			stdout, stderr, code := runEnv(t, tt.vars, geminiPayload(fmt.Sprintf("gem-%d", i), tt.msg), args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			if tt.prefix == "" && stdout != "" || !strings.HasPrefix(stdout, tt.prefix) {
				t.Errorf("stdout = %q, want %q…", stdout, tt.prefix)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "stopgate", "hooks", "gemini-gem-3.json")); err != nil {
		t.Errorf("no state file under $XDG_STATE_HOME/stopgate/hooks: %v", err)
	}
}

// TestHookGeminiFailsOpen checks a bad flag or configuration never denies the stop, and never
// exits non-zero: Gemini CLI reads any status but 0 and 1 as a denial with stderr as the prompt.
func TestHookGeminiFailsOpen(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badConfig, []byte("mode = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a bad duration", []string{"--timeout=soon"}, "flag -timeout"},
		{"a bad budget", []string{"--budget", "stall"}, "flag -budget"},
		{"an invalid config file", []string{"--config", badConfig}, "bad.toml"},
		{"no style for Gemini CLI", []string{"--style", "context"}, "flag provided but not defined: -style"},
		{"an unknown flag after --", []string{"--", "--from-the-future"}, "flag provided but not defined: -from-the-future"},
		{"an argument after --", []string{"--", "extra"}, `unexpected arguments ["extra"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"hook", "gemini-cli", "--state-dir", dir}, tt.args...)
			stdout, stderr, code := runEnv(t, nil, geminiPayload("s", stalledMessage), args...)
			if code != 0 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout)
			}
			if !strings.HasPrefix(stderr, "stopgate: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) || !strings.HasSuffix(stderr, "letting the agent stop\n") {
				t.Errorf("stderr = %q, want one stopgate: line mentioning %q", stderr, tt.want)
			}
		})
	}
	stdout, stderr, code := runEnv(t, nil, "not json", "hook", "gemini-cli", "--state-dir", dir)
	if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "stopgate: hook payload is not a JSON object") {
		t.Errorf("not JSON: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestHookGeminiHelp(t *testing.T) {
	out, _, code := runEnv(t, nil, "", "help", "hook", "gemini-cli")
	for _, want := range []string{"Usage: stopgate hook gemini-cli", `{"decision":"deny","reason"`, "fails open", "-state-dir", "-timeout", "-config", "-budget", "stopgate hook install gemini-cli"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help hook gemini-cli (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "-style") {
		t.Errorf("help hook gemini-cli offers -style:\n%s", out)
	}
	out, _, code = runEnv(t, nil, "", "help", "hook", "install", "gemini-cli")
	for _, want := range []string{"-project", "-user", "-settings", "-state-dir", "absolute path", "60000 ms", "trust"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help hook install gemini-cli (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	out, _, code = runEnv(t, nil, "", "help", "hook", "uninstall", "gemini-cli")
	if code != 0 || !strings.Contains(out, "Usage: stopgate hook uninstall gemini-cli") {
		t.Errorf("help hook uninstall gemini-cli (exit %d):\n%s", code, out)
	}
}

// geminiInstalled returns the AfterAgent handlers of a Gemini CLI settings file.
func geminiInstalled(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]any
	for _, g := range s.Hooks[gemini.EventAfterAgent] {
		out = append(out, g.Hooks...)
	}
	return out
}

func TestHookInstallUninstallGemini(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, "custom.json")
	if err := os.WriteFile(settings, []byte(`{"model": {"name": "gemini-2.5-pro"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "gemini-cli", "--settings", "custom.json", "--state-dir", "state", "--budget", "stall=1")
	if code != 0 || strings.Contains(stderr, "hooksConfig") || !strings.Contains(stdout, "Installed the AfterAgent hook in "+settings) {
		t.Fatalf("install: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	want := gemini.Command(exe, "--", "--state-dir="+filepath.Join(dir, "state"), "--budget=stall=1")
	got := geminiInstalled(t, settings)
	if len(got) != 1 || got[0]["command"] != want || got[0]["name"] != "stopgate" || got[0]["timeout"] != float64(60000) || got[0]["type"] != "command" {
		t.Errorf("installed %v, want one handler running %q with a 60000 ms timeout", got, want)
	}
	stdout, _, code = runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "gemini-cli", "--settings", settings, "--state-dir", "state", "--budget", "stall=1")
	if code != 0 || !strings.HasPrefix(stdout, "Already installed in "+settings) {
		t.Errorf("install again: exit %d, stdout %q", code, stdout)
	}
	_, stderr, code = runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "gemini-cli", "--settings", settings, "--timeout", "2m")
	if code != 0 || !strings.Contains(stderr, "warning: -timeout 2m0s is not under the 1m0s Gemini CLI waits") {
		t.Errorf("install with a long timeout: exit %d, stderr %q; want a warning", code, stderr)
	}
	stdout, _, code = runEnv(t, nil, "", "hook", "uninstall", "gemini-cli", "--settings", settings)
	if code != 0 || stdout != "Removed the stopgate hook from "+settings+"\n" {
		t.Errorf("uninstall: exit %d, stdout %q", code, stdout)
	}
	if got := geminiInstalled(t, settings); len(got) != 0 {
		t.Errorf("left %v", got)
	}
	stdout, _, code = runEnv(t, nil, "", "hook", "uninstall", "gemini-cli", "--settings", settings)
	if code != 0 || stdout != "No stopgate hook in "+settings+"\n" {
		t.Errorf("uninstall again: exit %d, stdout %q", code, stdout)
	}

	// Hooks turned off in the file: installed, with a warning.
	off := filepath.Join(dir, "off.json")
	if err := os.WriteFile(off, []byte(`{"hooksConfig": {"enabled": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "gemini-cli", "--settings", off)
	if code != 0 || !strings.Contains(stderr, "warning: hooksConfig.enabled is false") || len(geminiInstalled(t, off)) != 1 {
		t.Errorf("install into a file that turns hooks off: exit %d, stderr %q", code, stderr)
	}

	// The settings file each flag names.
	home, geminiHome := filepath.Join(dir, "home"), filepath.Join(dir, "gemini-home")
	for _, tt := range []struct {
		flag string
		vars map[string]string
		want string
	}{
		{"", map[string]string{"HOME": home}, filepath.Join(home, ".gemini", "settings.json")},
		{"--user", map[string]string{"HOME": home}, filepath.Join(home, ".gemini", "settings.json")},
		{"--user", map[string]string{"HOME": home, "GEMINI_CLI_HOME": geminiHome}, filepath.Join(geminiHome, ".gemini", "settings.json")},
		{"--project", map[string]string{"HOME": home}, filepath.Join(dir, ".gemini", "settings.json")},
	} {
		args := []string{"hook", "install", "gemini-cli"}
		if tt.flag != "" {
			args = append(args, tt.flag)
		}
		_, stderr, code := runEnv(t, tt.vars, "", args...)
		if code != 0 || len(geminiInstalled(t, tt.want)) != 1 {
			t.Errorf("install %s %v: exit %d (%s), want %s written", tt.flag, tt.vars, code, stderr, tt.want)
		}
	}
}

func TestHookInstallGeminiErrors(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.json")
	if err := os.WriteFile(invalid, []byte(`{"hooks": `), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"two files", []string{"hook", "install", "gemini-cli", "--user", "--project"}, exitUsage, "choose one of"},
		{"no home", []string{"hook", "install", "gemini-cli"}, exitUsage, "neither GEMINI_CLI_HOME nor HOME is set"},
		{"a bad flag", []string{"hook", "install", "gemini-cli", "--settings", invalid, "--budget", "vibes=1"}, exitUsage, "vibes"},
		{"no style", []string{"hook", "install", "gemini-cli", "--settings", invalid, "--style", "block"}, exitUsage, "-style"},
		{"a missing config", []string{"hook", "install", "gemini-cli", "--settings", invalid, "--config", filepath.Join(dir, "none.toml")}, exitUsage, "none.toml"},
		{"invalid settings", []string{"hook", "install", "gemini-cli", "--settings", invalid}, 1, invalid},
		{"invalid settings, uninstall", []string{"hook", "uninstall", "gemini-cli", "--settings", invalid}, 1, invalid},
		{"an argument", []string{"hook", "uninstall", "gemini-cli", "extra"}, exitUsage, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", tt.args...)
			if code != tt.code || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d mentioning %q", code, stdout, stderr, tt.code, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(invalid); string(b) != `{"hooks": ` {
		t.Errorf("the invalid settings file was written: %q", b)
	}
}

// TestHookGeminiProcess runs the real binary as Gemini CLI does: the installed command line,
// through bash -c, with the payload on stdin.
func TestHookGeminiProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildStopgate(t, dir)
	e := isolatedEnv(dir)

	cmd := exec.Command(bin, "hook", "gemini-cli")
	cmd.Env = e
	stdout, stderr, code := runProcess(t, cmd, geminiPayload("proc-1", stalledMessage))
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, geminiDenyPrefix) || !strings.HasSuffix(stdout, "\"}\n") {
		t.Errorf("stall: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	cmd = exec.Command(bin, "hook", "gemini-cli")
	cmd.Env = e
	stdout, stderr, code = runProcess(t, cmd, "{\"session_id\":")
	if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "stopgate: hook payload is not a JSON object") {
		t.Errorf("bad payload: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Install, then run the installed command line through a shell from another directory.
	settings := filepath.Join(dir, "settings.json")
	cmd = exec.Command(bin, "hook", "install", "gemini-cli", "--settings", settings, "--state-dir", filepath.Join(dir, "my state"))
	cmd.Env = e
	if out, errOut, code := runProcess(t, cmd, ""); code != 0 {
		t.Fatalf("install: exit %d, %s %s", code, out, errOut)
	}
	handlers := geminiInstalled(t, settings)
	line, _ := handlers[0]["command"].(string)
	if len(handlers) != 1 || !strings.HasPrefix(line, bin+" hook gemini-cli -- ") {
		t.Fatalf("installed %v, want %s hook gemini-cli -- …", handlers, bin)
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		shell = "/bin/sh"
	}
	sh := exec.Command(shell, "-c", line)
	sh.Dir, sh.Env = t.TempDir(), e
	stdout, stderr, code = runProcess(t, sh, geminiPayload("proc-2", stalledMessage))
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, geminiDenyPrefix) {
		t.Errorf("installed command: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "my state", "gemini-proc-2.json")); err != nil {
		t.Errorf("the installed --state-dir was not used: %v", err)
	}

	cmd = exec.Command(bin, "hook", "uninstall", "gemini-cli", "--settings", settings)
	cmd.Env = e
	if out, errOut, code := runProcess(t, cmd, ""); code != 0 || len(geminiInstalled(t, settings)) != 0 {
		t.Errorf("uninstall: exit %d, %s %s", code, out, errOut)
	}
}
