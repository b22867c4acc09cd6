package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/harness/codex"
)

// codexPayload is a Codex Stop payload for session id with the final message msg and no
// rollout.
func codexPayload(id, msg string) string {
	return fmt.Sprintf(`{"session_id":%q,"turn_id":"t1","transcript_path":null,"cwd":"/w","hook_event_name":"Stop","model":"gpt-5","permission_mode":"default","stop_hook_active":false,"last_assistant_message":%q}`, id, msg)
}

func TestHookCodex(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"XDG_STATE_HOME": dir, "HOME": dir}
	tests := []struct {
		name   string
		args   []string
		vars   map[string]string
		msg    string
		prefix string // of stdout; "" for nothing
	}{
		{"a stall is blocked", []string{"--state-dir", dir}, vars, stalledMessage, `{"decision":"block","reason":"Your last message ended with \"Let me run the tests.\"`},
		{"a completion stops", []string{"--state-dir", dir}, vars, doneMessage, ""},
		{"flags after --", []string{"--", "--state-dir=" + dir, "--budget=stall=0"}, vars, stalledMessage, ""},
		{"the default state directory", nil, vars, stalledMessage, `{"decision":"block"`},
		{"a check turned off", []string{"--state-dir", dir, "--off", "stall"}, vars, stalledMessage, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"hook", "codex"}, tt.args...)
			stdout, stderr, code := runEnv(t, tt.vars, codexPayload(fmt.Sprintf("cx-%d", i), tt.msg), args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			if tt.prefix == "" && stdout != "" || !strings.HasPrefix(stdout, tt.prefix) {
				t.Errorf("stdout = %q, want %q…", stdout, tt.prefix)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "stopgate", "hooks", "cx-3.json")); err != nil {
		t.Errorf("no state file under $XDG_STATE_HOME/stopgate/hooks: %v", err)
	}
}

// TestHookCodexFailsOpen checks a bad flag or configuration never blocks the stop and never
// exits non-zero: Codex reads exit 2 as a block with stderr as the continuation prompt.
func TestHookCodexFailsOpen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a bad duration", []string{"--timeout=soon"}, "flag -timeout"},
		{"a bad budget", []string{"--budget", "stall"}, "flag -budget"},
		{"no -style for Codex", []string{"--style", "context"}, "flag provided but not defined: -style"},
		{"a missing config file", []string{"--config", filepath.Join(dir, "missing.toml")}, "missing.toml"},
		{"an unknown flag after --", []string{"--", "--from-the-future"}, "flag provided but not defined: -from-the-future"},
		{"an argument after --", []string{"--", "extra"}, `unexpected arguments ["extra"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"hook", "codex", "--state-dir", dir}, tt.args...)
			stdout, stderr, code := runEnv(t, map[string]string{"XDG_STATE_HOME": dir, "HOME": dir}, codexPayload("s", stalledMessage), args...)
			if code != 0 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout)
			}
			if !strings.HasPrefix(stderr, "stopgate: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) || !strings.HasSuffix(stderr, "letting the agent stop\n") {
				t.Errorf("stderr = %q, want one stopgate: line mentioning %q", stderr, tt.want)
			}
		})
	}
	stdout, stderr, code := runEnv(t, nil, "not json", "hook", "codex", "--state-dir", dir)
	if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "stopgate: hook payload is not a JSON object") {
		t.Errorf("not JSON: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestHookCodexHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"help", "hook", "codex"}, []string{"Usage: stopgate hook codex", `{"decision":"block","reason"`, "fails open", "does not limit", "-state-dir", "-timeout", "-budget"}},
		{[]string{"help", "hook", "install", "codex"}, []string{"-project", "-user", "-hooks", "CODEX_HOME", "trust", "/hooks", "[hooks.state]"}},
		{[]string{"help", "hook", "uninstall", "codex"}, []string{"-project", "-user", "-hooks"}},
		{[]string{"help", "hook"}, []string{"codex"}},
	} {
		out, _, code := runEnv(t, nil, "", tt.args...)
		for _, want := range tt.want {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("%s (exit %d) lacks %q:\n%s", strings.Join(tt.args, " "), code, want, out)
			}
		}
	}
	if out, _, _ := runEnv(t, nil, "", "help", "hook", "codex"); strings.Contains(out, "-style") {
		t.Errorf("help hook codex offers -style:\n%s", out)
	}
}

// codexHookCommands returns the Stop and SubagentStop commands of a Codex hooks file.
func codexHookCommands(t *testing.T, path string) []string {
	t.Helper()
	recs, err := codex.Trust(path)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, r := range recs {
		cmds = append(cmds, r.Command)
	}
	return cmds
}

func TestHookInstallCodex(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "custom.json")
	if err := os.WriteFile(file, []byte(`{"description": "mine", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "codex", "--hooks", "custom.json", "--state-dir", "state", "--budget", "stall=1")
	if code != 0 || !strings.Contains(stdout, "Installed the Stop and SubagentStop hooks in "+file) {
		t.Fatalf("install: exit %d, stdout %q", code, stdout)
	}
	want := codex.Command(exe, "--", "--state-dir="+filepath.Join(dir, "state"), "--budget=stall=1")
	if got := codexHookCommands(t, file); len(got) != 3 || got[0] != "notify" || got[1] != want || got[2] != want {
		t.Errorf("installed %q, want notify, then %q twice", got, want)
	}
	recs, _ := codex.Trust(file)
	for _, r := range recs[1:] {
		if !strings.Contains(stdout, r.TOML()) {
			t.Errorf("install did not print the trust record\n%s\nin:\n%s", r.TOML(), stdout)
		}
	}
	if strings.Contains(stdout, recs[0].Key) {
		t.Errorf("install printed the trust record of a hook not its own:\n%s", stdout)
	}
	stdout, _, code = runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "codex", "--hooks", file, "--state-dir", "state", "--budget", "stall=1")
	if code != 0 || !strings.HasPrefix(stdout, "Already installed in "+file) {
		t.Errorf("install again: exit %d, stdout %q", code, stdout)
	}
	_, stderr, code := runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "codex", "--hooks", file, "--timeout", "2m")
	if code != 0 || !strings.Contains(stderr, "warning: -timeout 2m0s is not under the 1m0s Codex waits") {
		t.Errorf("install with a long timeout: exit %d, stderr %q; want a warning", code, stderr)
	}
	stdout, _, code = runEnv(t, nil, "", "hook", "uninstall", "codex", "--hooks", file)
	if code != 0 || stdout != "Removed the stopgate hooks from "+file+"\n" {
		t.Errorf("uninstall: exit %d, stdout %q", code, stdout)
	}
	var after map[string]any
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &after); err != nil || after["description"] != "mine" || len(codexHookCommands(t, file)) != 1 {
		t.Errorf("after uninstall: %s", b)
	}
	stdout, _, code = runEnv(t, nil, "", "hook", "uninstall", "codex", "--hooks", file)
	if code != 0 || stdout != "No stopgate hooks in "+file+"\n" {
		t.Errorf("uninstall again: exit %d, stdout %q", code, stdout)
	}

	// The hooks file each flag names.
	home := filepath.Join(dir, "home")
	codexHome := filepath.Join(dir, "codex-home")
	for _, tt := range []struct {
		flag string
		vars map[string]string
		want string
	}{
		{"", map[string]string{"HOME": home}, filepath.Join(home, ".codex", "hooks.json")},
		{"--user", map[string]string{"HOME": home, "CODEX_HOME": codexHome}, filepath.Join(codexHome, "hooks.json")},
		{"--project", map[string]string{"HOME": home}, filepath.Join(dir, ".codex", "hooks.json")},
	} {
		args := []string{"hook", "install", "codex"}
		if tt.flag != "" {
			args = append(args, tt.flag)
		}
		stdout, stderr, code := runEnv(t, tt.vars, "", args...)
		if code != 0 || len(codexHookCommands(t, tt.want)) != 2 {
			t.Errorf("install %s: exit %d (%s), want %s written", tt.flag, code, stderr, tt.want)
		}
		if project := strings.Contains(stdout, "only in a project you trust"); project != (tt.flag == "--project") {
			t.Errorf("install %s: the project trust note printed: %v", tt.flag, project)
		}
	}
}

func TestHookInstallCodexErrors(t *testing.T) {
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
		{"two files", []string{"hook", "install", "codex", "--user", "--project"}, exitUsage, "choose one of"},
		{"no home", []string{"hook", "install", "codex"}, exitUsage, "neither CODEX_HOME nor HOME"},
		{"a bad flag", []string{"hook", "install", "codex", "--hooks", invalid, "--budget", "vibes=1"}, exitUsage, "vibes"},
		{"no -style", []string{"hook", "install", "codex", "--hooks", invalid, "--style", "context"}, exitUsage, "-style"},
		{"invalid hooks file", []string{"hook", "install", "codex", "--hooks", invalid}, 1, invalid},
		{"invalid hooks file, uninstall", []string{"hook", "uninstall", "codex", "--hooks", invalid}, 1, invalid},
		{"an argument", []string{"hook", "uninstall", "codex", "extra"}, exitUsage, "unexpected arguments"},
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
		t.Errorf("the invalid hooks file was written: %q", b)
	}
}

// TestHookCodexProcess runs the real binary as Codex does: the installed command line,
// through a shell, with the payload on stdin.
func TestHookCodexProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildStopgate(t, dir)
	e := isolatedEnv(dir)
	file := filepath.Join(dir, "hooks.json")
	cmd := exec.Command(bin, "hook", "install", "codex", "--hooks", file, "--state-dir", filepath.Join(dir, "my state"))
	cmd.Env = e
	if out, errOut, code := runProcess(t, cmd, ""); code != 0 {
		t.Fatalf("install: exit %d, %s %s", code, out, errOut)
	}
	cmds := codexHookCommands(t, file)
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], bin+" hook codex -- ") {
		t.Fatalf("installed %q, want %s hook codex -- …", cmds, bin)
	}
	sh := exec.Command("/bin/sh", "-c", cmds[0])
	sh.Dir, sh.Env = t.TempDir(), e
	stdout, stderr, code := runProcess(t, sh, codexPayload("proc-cx", stalledMessage))
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, `{"decision":"block","reason":"Your last message`) || !strings.HasSuffix(stdout, "\"}\n") {
		t.Errorf("installed command: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "my state", "proc-cx.json")); err != nil {
		t.Errorf("the installed --state-dir was not used: %v", err)
	}
	cmd = exec.Command(bin, "hook", "uninstall", "codex", "--hooks", file)
	cmd.Env = e
	if out, errOut, code := runProcess(t, cmd, ""); code != 0 || len(codexHookCommands(t, file)) != 0 {
		t.Errorf("uninstall: exit %d, %s %s", code, out, errOut)
	}
}
