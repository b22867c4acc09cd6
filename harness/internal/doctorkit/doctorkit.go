// Package doctorkit holds what the harness packages' doctors share: finding a program on the
// PATH of the environment a doctor is given, running it with a time limit, reading the
// version it reports, comparing versions, and checking the binary a hook command names.
package doctorkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/hooksfile"
)

// RunTimeout bounds each program a doctor runs.
const RunTimeout = 30 * time.Second

// InstallStopgate is how to install the stopgate binary, for a Fix.
var InstallStopgate = "install it with 'go install github.com/stopgate/stopgate/cmd/stopgate@v" + stopgate.Version + "' or from https://github.com/stopgate/stopgate/releases/tag/v" + stopgate.Version

// LookPath finds the program name on the PATH env gives; "" when it is not there.
func LookPath(env harness.Env, name string) string {
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if IsExecutable(p) {
			return p
		}
	}
	return ""
}

// IsExecutable reports whether path is a regular file someone may execute.
func IsExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Run runs path with args in env's current directory and environment (Environ), with stdin
// on its standard input, within RunTimeout, and returns its stdout.
func Run(ctx context.Context, env harness.Env, stdin string, path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = env.CWD
	cmd.Env = Environ(env)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return stdout.Bytes(), fmt.Errorf("%s: %w (%s)", filepath.Base(path), err, msg)
		}
		return stdout.Bytes(), fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return stdout.Bytes(), nil
}

// environVars are the variables a doctor hands on to the programs it runs.
var environVars = []string{"HOME", "PATH", "TMPDIR", "USER", "LANG", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "COPILOT_HOME", "COPILOT_OFFLINE", "COPILOT_AUTO_UPDATE", "GEMINI_CLI_NO_RELAUNCH", "NO_COLOR"}

// Environ returns the environment of a program a doctor runs, read through env.Getenv.
func Environ(env harness.Env) []string {
	var out []string
	for _, k := range environVars {
		if v := env.Getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	if env.Getenv("HOME") == "" && env.Home != "" {
		out = append(out, "HOME="+env.Home)
	}
	return out
}

var versionRE = regexp.MustCompile(`\d+\.\d+\.\d+`)

// Version returns the first MAJOR.MINOR.PATCH in out ("" when there is none).
func Version(out []byte) string {
	return versionRE.FindString(string(out))
}

// Less reports whether version a is older than b, both MAJOR.MINOR.PATCH.
func Less(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < 3 && i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return false
}

// CLICheck runs `name --version` from env's PATH and checks the version against min, the
// first release with the events stopgate uses (events names them for the messages). It
// returns the check and the version found ("" when the CLI is not on PATH or said none).
func CLICheck(ctx context.Context, env harness.Env, title, name, min, events, upgrade string) (harness.Check, string) {
	c := harness.Check{Name: title + " on PATH"}
	path := LookPath(env, name)
	if path == "" {
		c.Status, c.Detail = harness.CheckSkip, name+" is not on PATH"
		return c, ""
	}
	out, err := Run(ctx, env, "", path, "--version")
	v := Version(out)
	switch {
	case err != nil:
		c.Status, c.Detail = harness.CheckWarn, fmt.Sprintf("%s --version: %v", path, err)
	case v == "":
		c.Status, c.Detail = harness.CheckWarn, fmt.Sprintf("%s --version printed no version: %q", path, strings.TrimSpace(string(out)))
	case Less(v, min):
		c.Status = harness.CheckFail
		c.Detail = fmt.Sprintf("%s is %s %s, older than %s, the first with %s", path, title, v, min, events)
		c.Fix = upgrade
	default:
		c.Status, c.Detail = harness.CheckOK, fmt.Sprintf("%s is %s %s (%s since %s)", path, title, v, events, min)
	}
	return c, v
}

// CommandBinary returns the program a hook command line runs: its first word after any
// VAR=value assignments; "" when the line cannot be read.
func CommandBinary(command string) string {
	words, ok := hooksfile.ShellWords(command)
	if !ok {
		return ""
	}
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.ContainsAny(words[0][:strings.IndexByte(words[0], '=')], "/\\") {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	return words[0]
}

// BinaryCheck checks the stopgate binary a hook entry at where runs: that it exists, is
// executable, and which version it reports.
func BinaryCheck(ctx context.Context, env harness.Env, where, bin string) harness.Check {
	c := harness.Check{Name: "stopgate binary of the hook in " + where}
	if bin == "" {
		c.Status, c.Detail = harness.CheckFail, "the hook's command line cannot be read"
		c.Fix = "reinstall the hook with 'stopgate hook install'"
		return c
	}
	if !filepath.IsAbs(bin) {
		if p := LookPath(env, bin); p != "" {
			bin = p
		}
	}
	if !IsExecutable(bin) {
		c.Status = harness.CheckFail
		c.Detail = bin + " does not exist or is not executable: the hook fails and the agent stops unchecked"
		c.Fix = InstallStopgate + ", then run 'stopgate hook install' again to point the hook at it"
		return c
	}
	return VersionOf(ctx, env, c, bin)
}

// VersionOf completes c with the version the stopgate binary at bin reports, warning when it
// is not this release.
func VersionOf(ctx context.Context, env harness.Env, c harness.Check, bin string) harness.Check {
	out, err := Run(ctx, env, "", bin, "--version")
	if err != nil {
		c.Status, c.Detail = harness.CheckFail, fmt.Sprintf("%s --version: %v", bin, err)
		c.Fix = InstallStopgate
		return c
	}
	got := strings.TrimSpace(string(out))
	c.Status, c.Detail = harness.CheckOK, bin+": "+got
	if v := Version(out); v != "" && v != stopgate.Version {
		c.Status = harness.CheckWarn
		c.Detail += fmt.Sprintf(" (this doctor is %s)", stopgate.Version)
		c.Fix = "update it: " + InstallStopgate
	}
	return c
}

// FindStopgate returns the stopgate binary the plugins' launcher would run given env:
// $STOPGATE_BIN (or named), else stopgate on PATH, else the go install directories and
// ~/.local/bin; "" when there is none.
func FindStopgate(env harness.Env, named string) string {
	if named == "" {
		named = env.Getenv("STOPGATE_BIN")
	}
	if named != "" {
		if IsExecutable(named) {
			return named
		}
		return ""
	}
	if p := LookPath(env, "stopgate"); p != "" {
		return p
	}
	home := env.Getenv("HOME")
	var dirs []string
	if d := env.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	if d := env.Getenv("GOPATH"); d != "" {
		dirs = append(dirs, filepath.Join(filepath.SplitList(d)[0], "bin"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, "go", "bin"), filepath.Join(home, ".local", "bin"))
	}
	for _, d := range dirs {
		if p := filepath.Join(d, "stopgate"); IsExecutable(p) {
			return p
		}
	}
	return ""
}

// LauncherCheck checks a plugin's launcher at path and the stopgate binary it would find.
func LauncherCheck(ctx context.Context, env harness.Env, where, path, named string) harness.Check {
	c := harness.Check{Name: "stopgate binary of the " + where}
	if !IsExecutable(path) {
		c.Status, c.Detail = harness.CheckFail, "the plugin's launcher "+path+" is missing or not executable"
		c.Fix = "reinstall the plugin"
		return c
	}
	bin := FindStopgate(env, named)
	if bin == "" {
		c.Status = harness.CheckFail
		c.Detail = "the plugin's launcher finds no stopgate binary (not in $STOPGATE_BIN, on PATH, in ~/go/bin or ~/.local/bin): every stop goes through unchecked"
		c.Fix = InstallStopgate + " (or set STOPGATE_BIN to its path)"
		return c
	}
	return VersionOf(ctx, env, c, bin)
}

// ErrNotJSON is wrapped by ReadJSON for a file that is not JSON.
var ErrNotJSON = errors.New("not JSON")

// ReadJSON reads the JSON file at path into v; found is false for a missing file.
func ReadJSON(path string, v any) (found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return true, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("%s: %w: %w", path, ErrNotJSON, err)
	}
	return true, nil
}

// Tilde writes path with the home directory as ~.
func Tilde(env harness.Env, path string) string {
	if env.Home != "" && strings.HasPrefix(path, env.Home+string(filepath.Separator)) {
		return "~" + path[len(env.Home):]
	}
	return path
}
