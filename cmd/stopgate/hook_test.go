package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/internal/dataset"
)

const (
	stalledMessage = "I fixed the parser. Let me run the tests."
	doneMessage    = "All tests pass and the change is pushed."
)

// hookPayload is a Stop payload for session id with the final message msg and no transcript.
func hookPayload(id, msg string) string {
	return fmt.Sprintf(`{"session_id":%q,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":%q,"background_tasks":[]}`, id, msg)
}

// runEnv runs one command line in-process with the given environment.
func runEnv(t *testing.T, vars map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, env{
		stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		getenv: func(k string) string { return vars[k] },
	})
	return out.String(), errOut.String(), code
}

func TestHookClaudeCode(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		vars   map[string]string
		msg    string
		prefix string // of stdout; "" for nothing
	}{
		{"a stall is blocked", []string{"--state-dir", dir, "--no-record"}, nil, stalledMessage, `{"decision":"block","reason":"Your last message ended with \"Let me run the tests.\"`},
		{"a completion stops", []string{"--state-dir", dir, "--no-record"}, nil, doneMessage, ""},
		{"flags after --", []string{"--", "--state-dir=" + dir, "--style=context", "--no-record"}, nil, stalledMessage, `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Your last message`},
		{"the default state directory", nil, map[string]string{"XDG_STATE_HOME": dir}, stalledMessage, `{"decision":"block"`},
		{"a check turned off", []string{"--state-dir", dir, "--off", "stall", "--no-record"}, nil, stalledMessage, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"hook", "claude-code"}, tt.args...)
			stdout, stderr, code := runEnv(t, tt.vars, hookPayload(fmt.Sprintf("cli-%d", i), tt.msg), args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			if tt.prefix == "" && stdout != "" || !strings.HasPrefix(stdout, tt.prefix) {
				t.Errorf("stdout = %q, want %q…", stdout, tt.prefix)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "stopgate", "hooks", "cli-3.json")); err != nil {
		t.Errorf("no state file under $XDG_STATE_HOME/stopgate/hooks: %v", err)
	}
}

// TestHookClaudeCodeFailsOpen checks a bad flag or configuration never blocks the stop, and
// never exits non-zero: Claude Code would read exit 2 as a block with the error as the reason.
func TestHookClaudeCodeFailsOpen(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badConfig, []byte("mode = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unknownCheck := filepath.Join(dir, "unknown.toml")
	if err := os.WriteFile(unknownCheck, []byte("[budgets]\nnonsense = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a bad duration", []string{"--timeout=soon"}, "flag -timeout"},
		{"a bad budget", []string{"--budget", "stall"}, "flag -budget"},
		{"an unknown check", []string{"--off", "vibes"}, "flag -off"},
		{"an unknown style", []string{"--style", "loud"}, "unknown output style"},
		{"a missing config file", []string{"--config", filepath.Join(dir, "missing.toml")}, "missing.toml"},
		{"an invalid config file", []string{"--config", badConfig}, "bad.toml"},
		{"a config naming no check", []string{"--config", unknownCheck}, "nonsense"},
		{"an unknown mode", []string{"--mode", "sleepy"}, "sleepy"},
		{"an unknown flag after --", []string{"--", "--from-the-future"}, "flag provided but not defined: -from-the-future"},
		{"an argument after --", []string{"--", "extra"}, `unexpected arguments ["extra"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"hook", "claude-code", "--state-dir", dir}, tt.args...)
			stdout, stderr, code := runEnv(t, nil, hookPayload("s", stalledMessage), args...)
			if code != 0 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout)
			}
			if !strings.HasPrefix(stderr, "stopgate: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) || !strings.HasSuffix(stderr, "letting the agent stop\n") {
				t.Errorf("stderr = %q, want one stopgate: line mentioning %q", stderr, tt.want)
			}
		})
	}
	stdout, stderr, code := runEnv(t, nil, "not json", "hook", "claude-code", "--state-dir", dir)
	if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "stopgate: hook payload is not a JSON object") {
		t.Errorf("not JSON: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestHookHelp(t *testing.T) {
	out, _, code := runEnv(t, nil, "", "help", "hook", "claude-code")
	for _, want := range []string{"Usage: stopgate hook claude-code", `{"decision":"block","reason"`, "fails open", "-state-dir", "-timeout", "-style", "-config", "-budget", "stopgate hook install claude-code"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help hook claude-code (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	out, _, code = runEnv(t, nil, "", "help", "hook")
	for _, want := range []string{"claude-code", "install", "uninstall"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help hook (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	out, _, code = runEnv(t, nil, "", "help", "hook", "install", "claude-code")
	for _, want := range []string{"-project", "-user", "-local", "-settings", "-state-dir", "absolute path"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help hook install claude-code (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
}

// installedCommands returns the Stop and SubagentStop commands of a settings file.
func installedCommands(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var cmds []string
	for _, e := range []string{"Stop", "SubagentStop"} {
		for _, g := range s.Hooks[e] {
			for _, h := range g.Hooks {
				cmds = append(cmds, h.Command)
			}
		}
	}
	return cmds
}

func TestHookInstallUninstall(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, "custom.json")
	if err := os.WriteFile(settings, []byte(`{"model": "opus"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "claude-code", "--settings", "custom.json", "--state-dir", "state", "--budget", "stall=1", "--budget", "todos=0", "--style", "context")
	if code != 0 || !strings.Contains(stdout, "Installed the Stop and SubagentStop hooks in "+settings) {
		t.Fatalf("install: exit %d, stdout %q", code, stdout)
	}
	want := claudecode.Command(exe, "--", "--state-dir="+filepath.Join(dir, "state"), "--budget=stall=1", "--budget=todos=0", "--style=context")
	if got := installedCommands(t, settings); len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("installed %q, want %q twice", got, want)
	}
	stdout, _, code = runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "claude-code", "--settings", settings, "--state-dir", "state", "--budget", "stall=1", "--budget", "todos=0", "--style", "context")
	if code != 0 || !strings.HasPrefix(stdout, "Already installed in "+settings) {
		t.Errorf("install again: exit %d, stdout %q", code, stdout)
	}
	_, stderr, code := runEnv(t, map[string]string{"XDG_STATE_HOME": dir}, "", "hook", "install", "claude-code", "--settings", settings, "--timeout", "2m")
	if code != 0 || !strings.Contains(stderr, "warning: -timeout 2m0s is not under the 1m0s Claude Code waits") {
		t.Errorf("install with a long timeout: exit %d, stderr %q; want a warning", code, stderr)
	}
	stdout, _, code = runEnv(t, nil, "", "hook", "uninstall", "claude-code", "--settings", settings)
	if code != 0 || stdout != "Removed the stopgate hooks from "+settings+"\n" {
		t.Errorf("uninstall: exit %d, stdout %q", code, stdout)
	}
	if got := installedCommands(t, settings); len(got) != 0 {
		t.Errorf("left %q", got)
	}
	stdout, _, code = runEnv(t, nil, "", "hook", "uninstall", "claude-code", "--settings", settings)
	if code != 0 || stdout != "No stopgate hooks in "+settings+"\n" {
		t.Errorf("uninstall again: exit %d, stdout %q", code, stdout)
	}

	// The settings file each flag names.
	home := filepath.Join(dir, "home")
	for _, tt := range []struct {
		flag, want string
	}{
		{"", filepath.Join(home, ".claude", "settings.json")},
		{"--user", filepath.Join(home, ".claude", "settings.json")},
		{"--project", filepath.Join(dir, ".claude", "settings.json")},
		{"--local", filepath.Join(dir, ".claude", "settings.local.json")},
	} {
		args := []string{"hook", "install", "claude-code"}
		if tt.flag != "" {
			args = append(args, tt.flag)
		}
		_, stderr, code := runEnv(t, map[string]string{"HOME": home}, "", args...)
		if code != 0 || len(installedCommands(t, tt.want)) != 2 {
			t.Errorf("install %s: exit %d (%s), want %s written", tt.flag, code, stderr, tt.want)
		}
	}
}

func TestHookInstallErrors(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.json")
	if err := os.WriteFile(invalid, []byte(`{"hooks": `), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		vars map[string]string
		code int
		want string
	}{
		{"two files", []string{"hook", "install", "claude-code", "--user", "--project"}, nil, exitUsage, "choose one of"},
		{"no home", []string{"hook", "install", "claude-code"}, nil, exitUsage, "HOME is not set"},
		{"a bad flag", []string{"hook", "install", "claude-code", "--settings", invalid, "--budget", "vibes=1"}, nil, exitUsage, "vibes"},
		{"a bad style", []string{"hook", "install", "claude-code", "--settings", invalid, "--style", "loud"}, nil, exitUsage, "unknown output style"},
		{"a missing config", []string{"hook", "install", "claude-code", "--settings", invalid, "--config", filepath.Join(dir, "none.toml")}, nil, exitUsage, "none.toml"},
		{"invalid settings", []string{"hook", "install", "claude-code", "--settings", invalid}, map[string]string{"XDG_STATE_HOME": dir}, 1, invalid},
		{"invalid settings, uninstall", []string{"hook", "uninstall", "claude-code", "--settings", invalid}, nil, 1, invalid},
		{"an argument", []string{"hook", "uninstall", "claude-code", "extra"}, nil, exitUsage, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runEnv(t, tt.vars, "", tt.args...)
			if code != tt.code || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d mentioning %q", code, stdout, stderr, tt.code, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(invalid); string(b) != `{"hooks": ` {
		t.Errorf("the invalid settings file was written: %q", b)
	}
}

// buildStopgate builds the stopgate binary into dir and returns its path.
func buildStopgate(tb testing.TB, dir string) string {
	tb.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		tb.Fatalf("the go command is needed to build stopgate: %v", err)
	}
	bin := filepath.Join(dir, "stopgate")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// isolatedEnv is an environment in which the binary reads no configuration of the machine's.
func isolatedEnv(dir string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
	}
}

// runProcess runs a command with stdin and returns stdout, stderr and the exit status.
func runProcess(tb testing.TB, cmd *exec.Cmd, stdin string) (string, string, int) {
	tb.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	}
	tb.Fatalf("running %s: %v", cmd.Path, err)
	return "", "", -1
}

// TestHookProcess runs the real binary as Claude Code does: the installed command line,
// through a shell, with the payload on stdin.
func TestHookProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildStopgate(t, dir)
	e := isolatedEnv(dir)

	cmd := exec.Command(bin, "hook", "claude-code")
	cmd.Env = e
	stdout, stderr, code := runProcess(t, cmd, hookPayload("proc-1", stalledMessage))
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, `{"decision":"block","reason":"Your last message ended with \"Let me run the tests.\"`) || !strings.HasSuffix(stdout, "\"}\n") {
		t.Errorf("stall: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	cmd = exec.Command(bin, "hook", "claude-code")
	cmd.Env = e
	stdout, stderr, code = runProcess(t, cmd, "{\"session_id\":")
	if code != 0 || stdout != "" || !strings.HasPrefix(stderr, "stopgate: hook payload is not a JSON object") {
		t.Errorf("bad payload: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Install, then run the installed command line through a shell from another directory.
	settings := filepath.Join(dir, "settings.json")
	cmd = exec.Command(bin, "hook", "install", "claude-code", "--settings", settings, "--style", "context", "--state-dir", filepath.Join(dir, "my state"))
	cmd.Env = e
	if out, errOut, code := runProcess(t, cmd, ""); code != 0 {
		t.Fatalf("install: exit %d, %s %s", code, out, errOut)
	}
	cmds := installedCommands(t, settings)
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], bin+" hook claude-code -- ") {
		t.Fatalf("installed %q, want %s hook claude-code -- …", cmds, bin)
	}
	sh := exec.Command("/bin/sh", "-c", cmds[0])
	sh.Dir, sh.Env = t.TempDir(), e
	stdout, stderr, code = runProcess(t, sh, hookPayload("proc-2", stalledMessage))
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Your last message`) {
		t.Errorf("installed command: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "my state", "proc-2.json")); err != nil {
		t.Errorf("the installed --state-dir was not used: %v", err)
	}

	cmd = exec.Command(bin, "hook", "uninstall", "claude-code", "--settings", settings)
	cmd.Env = e
	if out, errOut, code := runProcess(t, cmd, ""); code != 0 || len(installedCommands(t, settings)) != 0 {
		t.Errorf("uninstall: exit %d, %s %s", code, out, errOut)
	}
}

// BenchmarkHookProcess runs the hook as Claude Code does, one process per stop, on the largest
// real session of the evaluation data set (3.4 MB; `make eval`): process start, reading the transcript, deciding,
// the state file.
func BenchmarkHookProcess(b *testing.B) {
	abs, err := filepath.Abs(dataset.Spotter(b, "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	bin := buildStopgate(b, dir)
	e := isolatedEnv(dir)
	n := 0
	for b.Loop() {
		n++
		payload := fmt.Sprintf(`{"session_id":"bench-%d","transcript_path":%q,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":%q,"background_tasks":[],"session_crons":[]}`, n, abs, stalledMessage)
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Env = e
		stdout, stderr, code := runProcess(b, cmd, payload)
		if code != 0 || stdout == "" {
			b.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}
