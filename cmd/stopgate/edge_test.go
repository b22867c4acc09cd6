package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stopgate/stopgate/hook"
	"github.com/stopgate/stopgate/store"
)

// TestMain widens the hooks' recording budget for the tests that do not measure it: under the
// race detector, creating and migrating a SQLite log can take longer than the 1 s a hook gives
// it. TestHookSilentStore puts the real budget back.
func TestMain(m *testing.M) {
	hookStoreBusy = 15 * time.Second
	os.Exit(m.Run())
}

// oneStopgateLine fails the test unless stderr is exactly one line beginning "stopgate:".
func oneStopgateLine(t *testing.T, stderr string) {
	t.Helper()
	if !strings.HasPrefix(stderr, "stopgate:") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr = %q, want one line beginning \"stopgate:\"", stderr)
	}
}

// TestHookUnknownHarness checks that a hook this binary cannot run (a harness name it does not
// know, as in settings written by a newer stopgate) lets the agent stop: exit 0, nothing on
// stdout, one line on stderr. Exit 2 would be read as a block, with the usage as the reason.
func TestHookUnknownHarness(t *testing.T) {
	for _, args := range [][]string{
		{"hook", "claude-codx"},
		{"hook", "claude-codx", "--state-dir", "x"},
		{"hook", "--", "claude-code"},
		{"hook"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, code := runEnv(t, nil, "{}", args...)
			if code != 0 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout)
			}
			oneStopgateLine(t, stderr)
			if !strings.Contains(stderr, "letting the agent stop") || !strings.Contains(stderr, "claude-code, codex, gemini-cli") {
				t.Errorf("stderr = %q, want the harnesses this binary knows and that the agent may stop", stderr)
			}
		})
	}
	// Help is still help, and install is still strict: a person types those.
	if out, _, code := runEnv(t, nil, "", "hook", "--help"); code != 0 || !strings.Contains(out, "Usage: stopgate hook") {
		t.Errorf("hook --help: exit %d, %q", code, out)
	}
	if _, stderr, code := runEnv(t, nil, "", "hook", "install", "claude-codx"); code != exitUsage || !strings.Contains(stderr, "unknown subcommand") {
		t.Errorf("hook install claude-codx: exit %d, stderr %q; want a usage error", code, stderr)
	}
}

// silentServer accepts TCP connections on loopback and never answers; it closes them when the
// test ends.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestHookSilentStore checks that an event log that accepts connections and never answers
// costs a stop at most about a second more than a stop that records nothing: recording has a
// budget of its own (hook.DefaultRecordTimeout), apart from the decision's, and its failure is
// one line on stderr. The stop is compared with the same stop run with --no-record rather than
// with a fixed wall-clock bound, so a loaded machine that slows the decision itself does not
// fail the test; without the budget the hook would wait for the store's 5 s connect timeout.
func TestHookSilentStore(t *testing.T) {
	defer func(d time.Duration) { hookStoreBusy = d }(hookStoreBusy)
	hookStoreBusy = hook.DefaultRecordTimeout
	addr := silentServer(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		vars map[string]string
	}{
		{"--store", []string{"--state-dir", dir, "--store", "postgres://stopgate@" + addr + "/events?sslmode=disable"}, nil},
		{"the config's store", []string{"--state-dir", dir}, map[string]string{"XDG_CONFIG_HOME": writeConfig(t, `store = "postgres://stopgate@`+addr+`/events?sslmode=disable"`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			runEnv(t, tt.vars, hookPayload("silent-base-"+tt.name, stalledMessage), append([]string{"hook", "claude-code", "--no-record"}, tt.args...)...)
			base := time.Since(start)
			start = time.Now()
			stdout, stderr, code := runEnv(t, tt.vars, hookPayload("silent-"+tt.name, stalledMessage), append([]string{"hook", "claude-code"}, tt.args...)...)
			took := time.Since(start)
			if extra := took - base; extra > hook.DefaultRecordTimeout+time.Second {
				t.Errorf("the stop took %v, %v more than the same stop not recorded; want at most the record budget %v (and a second's slack)", took, extra, hook.DefaultRecordTimeout)
			}
			if code != 0 || !strings.HasPrefix(stdout, `{"decision":"block"`) {
				t.Errorf("exit %d, stdout %q; want the block answered whatever the store does", code, stdout)
			}
			oneStopgateLine(t, stderr)
			if !strings.Contains(stderr, "recording the decision") {
				t.Errorf("stderr = %q, want the recording failure", stderr)
			}
		})
	}
}

// writeConfig writes body as stopgate/config.toml under a new directory and returns that
// directory, for XDG_CONFIG_HOME.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "stopgate"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stopgate", "config.toml"), []byte(body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// countDecisions returns how many decision events the SQLite log at path holds for session.
func countDecisions(t *testing.T, path, session string) int {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	st, err := store.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Query(context.Background(), store.Filter{Session: session, Kind: store.KindDecision})
	if err != nil {
		t.Fatal(err)
	}
	return len(evs)
}

// TestConfigStore checks that the hook and decide record to the configuration file's store (a
// relative path taken from the file's directory), that record = false turns recording off, and
// that -store still wins over the file.
func TestConfigStore(t *testing.T) {
	cfg := writeConfig(t, `store = "events.db"`)
	fromFile := filepath.Join(cfg, "stopgate", "events.db")
	off := writeConfig(t, "record = false\nstore = \"events.db\"")
	state := t.TempDir()
	flagStore := filepath.Join(t.TempDir(), "flag.db")
	turn := `{"session":"decide-cfg","harness":"claude-code","message":{"text":"Let me run the tests."}}`

	for _, tt := range []struct {
		name    string
		vars    map[string]string
		args    []string
		stdin   string
		session string
		file    string // where the decision must land; "" for nowhere
		other   string // a log that must stay without it
	}{
		{"hook, the file's store", map[string]string{"XDG_CONFIG_HOME": cfg, "XDG_STATE_HOME": state}, []string{"hook", "claude-code"}, hookPayload("hook-cfg", stalledMessage), "hook-cfg", fromFile, filepath.Join(state, "stopgate", "events.db")},
		{"hook, -store wins", map[string]string{"XDG_CONFIG_HOME": cfg, "XDG_STATE_HOME": state}, []string{"hook", "claude-code", "--", "--store=" + flagStore}, hookPayload("hook-flag", stalledMessage), "hook-flag", flagStore, fromFile},
		{"hook, record = false", map[string]string{"XDG_CONFIG_HOME": off, "XDG_STATE_HOME": state}, []string{"hook", "claude-code"}, hookPayload("hook-off", stalledMessage), "hook-off", "", filepath.Join(off, "stopgate", "events.db")},
		{"decide, the file's store", map[string]string{"XDG_CONFIG_HOME": cfg, "XDG_STATE_HOME": state}, []string{"decide"}, turn, "decide-cfg", fromFile, filepath.Join(state, "stopgate", "events.db")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runEnv(t, tt.vars, tt.stdin, tt.args...)
			if code != 0 || stderr != "" || stdout == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if tt.file != "" {
				if n := countDecisions(t, tt.file, tt.session); n != 1 {
					t.Errorf("%s holds %d decisions of %s, want 1", tt.file, n, tt.session)
				}
			}
			if n := countDecisions(t, tt.other, tt.session); n != 0 {
				t.Errorf("%s holds %d decisions of %s, want none", tt.other, n, tt.session)
			}
		})
	}
}

// TestHookInstallStore checks what install does with -store: a URL with a password is refused
// without printing it or writing the settings; a relative path is made absolute; the store is
// opened once, so one that cannot be opened fails the install.
func TestHookInstallStore(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	vars := map[string]string{"XDG_STATE_HOME": dir, "XDG_CONFIG_HOME": dir}
	settings := filepath.Join(dir, "settings.json")

	for _, dsn := range []string{"postgres://u:secret@db/events", "postgres://u:secret@db:port/events", "postgresql://db/events?password=secret"} {
		stdout, stderr, code := runEnv(t, vars, "", "hook", "install", "claude-code", "--settings", settings, "--store", dsn)
		if code != exitUsage || stdout != "" || strings.Contains(stderr, "secret") || !strings.Contains(stderr, "password") || !strings.Contains(stderr, "configuration file") {
			t.Errorf("--store %s: exit %d, stdout %q, stderr %q; want a refusal that hides the password and names the configuration file", dsn, code, stdout, stderr)
		}
		if _, err := os.Stat(settings); err == nil {
			t.Fatalf("--store %s: the settings file was written", dsn)
		}
	}

	stdout, stderr, code := runEnv(t, vars, "", "hook", "install", "claude-code", "--settings", settings, "--store", "logs/events.db")
	abs := filepath.Join(dir, "logs", "events.db")
	if code != 0 || !strings.Contains(stdout, "--store="+abs) {
		t.Fatalf("relative --store: exit %d, stdout %q, stderr %q; want --store=%s installed", code, stdout, stderr, abs)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Errorf("install did not open the store: %v", err)
	}

	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.json")
	_, stderr, code = runEnv(t, vars, "", "hook", "install", "claude-code", "--settings", other, "--store", filepath.Join(blocked, "events.db"))
	if code != 1 || !strings.Contains(stderr, "could not record") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("a store that cannot be opened: exit %d, stderr %q; want exit 1 and one line", code, stderr)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("the settings file was written though the store cannot be opened")
	}
}

// TestDefaultStateDirXDG checks that a relative XDG_STATE_HOME is ignored for the hooks' state.
func TestDefaultStateDirXDG(t *testing.T) {
	for _, tt := range []struct{ xdg, home, want string }{
		{"/var/state", "/home/u", "/var/state/stopgate/hooks"},
		{"state", "/home/u", "/home/u/.local/state/stopgate/hooks"},
		{"", "", ""},
	} {
		env := map[string]string{"XDG_STATE_HOME": tt.xdg, "HOME": tt.home}
		if got := defaultStateDir(func(k string) string { return env[k] }); got != tt.want {
			t.Errorf("XDG_STATE_HOME=%q HOME=%q: %q, want %q", tt.xdg, tt.home, got, tt.want)
		}
	}
}
