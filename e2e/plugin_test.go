package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	fa "github.com/stopgate/stopgate/e2e/internal/fakeanthropic"
	fc "github.com/stopgate/stopgate/e2e/internal/fakechat"
	fg "github.com/stopgate/stopgate/e2e/internal/fakegemini"
	fo "github.com/stopgate/stopgate/e2e/internal/fakeopenai"
	"github.com/stopgate/stopgate/harness/codex"
)

// The scenarios below install stopgate the way each harness's users install things, with the
// harness's own CLI, offline, in the session's temporary HOME: the Claude Code plugin from the
// repository's marketplace (.claude-plugin/marketplace.json), the Codex plugin from its
// marketplace (.agents/plugins/marketplace.json), the Gemini CLI extension from a local path.
// Each then runs the trailing-promise scenario through the hook the plugin registered: the
// launcher plugins/stopgate-hook, which finds the binary and runs `stopgate hook HARNESS`
// with its default state directory and event log under the session's HOME.

// The trailing-promise scenario's messages.
const (
	tpPrompt  = "Fix the off-by-one in the parser."
	tpPromise = "Let me check the tests."
	tpStalled = "I read the parser and found the off-by-one. " + tpPromise
	tpActing  = "Right, running them now."
	tpSummary = "I fixed the off-by-one in the parser and ran the tests: they pass."
)

// pluginState is the hook's default state directory under home, where a plugin-installed hook
// keeps its nudge budgets.
func pluginState(home string) string {
	return filepath.Join(home, ".local", "state", "stopgate", "hooks")
}

// runCLI runs the harness CLI bin with args in dir and env, failing the test if it fails, and
// returns its combined output.
func runCLI(t *testing.T, dir string, env []string, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	t.Logf("%s %s:\n%s", filepath.Base(bin), strings.Join(args, " "), out)
	return string(out)
}

// readJSON reads the JSON file at path into v, failing the test if it cannot.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
}

// installClaudePlugin validates the repository's marketplace and plugin with `claude plugin
// validate`, adds the marketplace and installs the plugin with the stopgate_path option set to
// bin (empty: left unset), and checks that Claude Code recorded it at this release.
func installClaudePlugin(t *testing.T, s *session, bin string) {
	t.Helper()
	claude, root := claudeBinary(t), repoRoot(t)
	for _, p := range []string{root, filepath.Join(root, "plugins", "claude-code")} {
		if out := runCLI(t, s.project, s.env, claude, "plugin", "validate", p); !strings.Contains(out, "Validation passed") {
			t.Fatalf("claude plugin validate %s did not pass:\n%s", p, out)
		}
	}
	runCLI(t, s.project, s.env, claude, "plugin", "marketplace", "add", root)
	args := []string{"plugin", "install", "stopgate@stopgate"}
	if bin != "" {
		args = append(args, "--config", "stopgate_path="+bin)
	}
	runCLI(t, s.project, s.env, claude, args...)
	var installed struct {
		Plugins map[string][]struct {
			InstallPath, Version string
		}
	}
	readJSON(t, filepath.Join(s.home, ".claude", "plugins", "installed_plugins.json"), &installed)
	got := installed.Plugins["stopgate@stopgate"]
	if len(got) != 1 || got[0].Version != stopgate.Version {
		t.Fatalf("installed_plugins.json records stopgate@stopgate as %+v, want one install at version %s", got, stopgate.Version)
	}
	if _, err := os.Stat(filepath.Join(got[0].InstallPath, "bin", "stopgate-hook")); err != nil {
		t.Fatalf("the installed plugin has no launcher: %v", err)
	}
}

// TestClaudeCodePlugin: the plugin, installed with `claude plugin install` and the binary's
// path given as its option, blocks a trailing promise once and then lets the agent stop.
func TestClaudeCodePlugin(t *testing.T) {
	t.Parallel()
	const checkID = "toolu_check"
	s := newSession(t, func(r *fa.Request) fa.Response {
		switch {
		case !isAgentRequest(r):
			return sideRequest()
		case hasResult(r, checkID):
			return fa.Reply(fa.Text(tpSummary))
		case len(pendingNudges(r)) > 0:
			return fa.Reply(fa.Text(tpActing), bash(checkID, "echo ok", "Run the tests"))
		default:
			return fa.Reply(fa.Text(tpStalled))
		}
	})
	installClaudePlugin(t, s, stopgateBinary(t))
	res := s.run(tpPrompt)

	assertCompleted(t, res, tpSummary)
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	if got := pendingNudges(reqs[1]); len(got) != 1 || !quotes(got[0], tpPromise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, tpPromise)
	}
	if all := s.lastNudges(); len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertPayloads(t, s, []bool{false, true}, []string{tpStalled, tpSummary})
	blocks := 0
	for _, o := range s.hookOutcomes() {
		if o.kind == "hook_blocking_error" {
			blocks++
		} else {
			t.Errorf("the plugin's hook run was recorded as %+v, want only blocks and silent allows", o)
		}
	}
	if blocks != 1 {
		t.Errorf("the transcript records %d blocks by the plugin's hook, want 1", blocks)
	}
	assertStateKept(t, pluginState(s.home), s.payloads())
}

// TestClaudeCodePluginMissingBinary: with no stopgate binary anywhere the launcher looks, the
// plugin's hook lets the agent stop on its trailing promise and says how to install stopgate.
func TestClaudeCodePluginMissingBinary(t *testing.T) {
	t.Parallel()
	s := newSession(t, func(r *fa.Request) fa.Response {
		if !isAgentRequest(r) {
			return sideRequest()
		}
		return fa.Reply(fa.Text(tpStalled))
	})
	s.env = withoutStopgate(s.env)
	installClaudePlugin(t, s, "")
	res := s.run(tpPrompt)

	assertCompleted(t, res, tpStalled)
	if n := len(s.agentRequests()); n != 1 {
		t.Errorf("the model was asked %d times, want 1: a missing binary must not block", n)
	}
	outcomes := s.hookOutcomes()
	if len(outcomes) != 1 || outcomes[0].kind == "hook_blocking_error" || outcomes[0].exitCode != 0 ||
		!strings.Contains(outcomes[0].stderr, "go install github.com/stopgate/stopgate/cmd/stopgate@v"+stopgate.Version) {
		t.Errorf("the plugin's hook ran as %+v, want one run, exit 0, saying on stderr how to install stopgate", outcomes)
	}
}

// TestCodexPlugin: the Codex plugin, installed from its marketplace with `codex plugin
// marketplace add` and `codex plugin add` and trusted the way a review in /hooks trusts it,
// blocks a trailing promise once under `codex exec` and then lets the agent stop.
func TestCodexPlugin(t *testing.T) {
	t.Parallel()
	const checkID = "call_check"
	s := newCodexSession(t, func(r *fo.Request) fo.Response {
		switch {
		case !isCodexAgentRequest(r):
			return fo.Reply(fo.Text("OK"))
		case hasOutput(r, checkID):
			return fo.Reply(fo.Text(tpSummary))
		case len(codexPending(r)) > 0:
			return fo.Reply(fo.Text(tpActing), fo.FunctionCall(checkID, "exec_command", map[string]any{"cmd": "echo ok"}))
		default:
			return fo.Reply(fo.Text(tpStalled))
		}
	})
	s.env = withPath(s.env, filepath.Dir(stopgateBinary(t)))
	installCodexPlugin(t, s, true)
	final := s.run(tpPrompt)
	if final != tpSummary {
		s.dump()
		t.Fatalf("final message %q, want %q", final, tpSummary)
	}
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	if got := codexPending(reqs[1]); len(got) != 1 || !quotes(got[0], tpPromise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, tpPromise)
	}
	if all := s.lastNudges(); len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertCodexPayloads(t, s, []bool{false, true}, []string{tpStalled, tpSummary})
	if n := strings.Count(s.stderr, "hook: Stop Blocked\n"); n != 1 || strings.Contains(s.stderr, "hook: Stop Failed") {
		t.Errorf("codex reports %d blocked Stop hook runs (want 1) or a failed one:\n%s", n, s.stderr)
	}
	assertStateKept(t, pluginState(s.home), s.payloads())
}

// TestCodexPluginUntrusted: installed but never reviewed, the plugin's hooks do not run:
// `codex exec` ends on the trailing promise with one model request.
func TestCodexPluginUntrusted(t *testing.T) {
	t.Parallel()
	s := newCodexSession(t, func(r *fo.Request) fo.Response {
		if !isCodexAgentRequest(r) {
			return fo.Reply(fo.Text("OK"))
		}
		return fo.Reply(fo.Text(tpStalled))
	})
	s.env = withPath(s.env, filepath.Dir(stopgateBinary(t)))
	installCodexPlugin(t, s, false)
	if final := s.run(tpPrompt); final != tpStalled {
		t.Errorf("final message %q, want the stall %q: an untrusted plugin hook must not run", final, tpStalled)
	}
	if n := len(s.agentRequests()); n != 1 {
		t.Errorf("the model was asked %d times, want 1", n)
	}
	if strings.Contains(s.stderr, "hook: Stop Blocked") {
		t.Errorf("an untrusted plugin hook blocked:\n%s", s.stderr)
	}
	if names, _ := filepath.Glob(filepath.Join(pluginState(s.home), "*.json")); len(names) > 0 {
		t.Errorf("the untrusted plugin's hook ran and kept state: %v", names)
	}
}

// installCodexPlugin adds the repository's Codex marketplace and installs the plugin from it,
// and checks that Codex installed it at this release and lists its hooks untrusted; with
// trust it then records them trusted, as a review in /hooks does, and checks Codex lists them
// trusted.
func installCodexPlugin(t *testing.T, s *codexSession, trust bool) {
	t.Helper()
	cli, root := codexBinary(t), repoRoot(t)
	runCLI(t, s.project, s.env, cli, "plugin", "marketplace", "add", root)
	if out := runCLI(t, s.project, s.env, cli, "plugin", "list"); !strings.Contains(out, "stopgate@stopgate") {
		t.Fatalf("codex plugin list does not offer stopgate@stopgate:\n%s", out)
	}
	runCLI(t, s.project, s.env, cli, "plugin", "add", "stopgate@stopgate")
	// `codex plugin` recorded the marketplace and the enabled plugin in config.toml; the
	// session's config keeps them when it writes the trust records below.
	added, err := os.ReadFile(filepath.Join(s.codexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(added), `[plugins."stopgate@stopgate"]`) || !strings.Contains(string(added), "enabled = true") {
		t.Fatalf("codex plugin add did not enable stopgate@stopgate in config.toml:\n%s", added)
	}
	if i := strings.Index(string(added), "[marketplaces."); i >= 0 {
		s.kept = "\n" + string(added[i:])
	}
	manifest := filepath.Join(s.codexHome, "plugins", "cache", "stopgate", "stopgate", stopgate.Version, ".codex-plugin", "plugin.json")
	var m struct{ Name, Version string }
	readJSON(t, manifest, &m)
	if m.Name != "stopgate" || m.Version != stopgate.Version {
		t.Fatalf("the installed plugin's manifest names %s %s, want stopgate %s", m.Name, m.Version, stopgate.Version)
	}
	// Codex runs a plugin's hooks, like any others, only once they are trusted. The trust
	// record of a plugin hook is keyed by the plugin and its hash covers the plugin's contents,
	// so the test asks Codex itself (the app server's hooks/list, what /hooks shows) and writes
	// the records a review in /hooks writes.
	var recs []codex.HookTrust
	for _, h := range codexListHooks(t, s.env, s.project) {
		if h.PluginID != "stopgate@stopgate" {
			continue
		}
		if h.TrustStatus != "untrusted" {
			t.Errorf("the plugin's %s hook is %q before review, want untrusted", h.EventName, h.TrustStatus)
		}
		recs = append(recs, codex.HookTrust{Key: h.Key, Hash: h.CurrentHash})
	}
	if len(recs) != 2 {
		t.Fatalf("Codex lists %d hooks of the plugin, want 2 (Stop, SubagentStop)", len(recs))
	}
	if !trust {
		return
	}
	s.trusted["plugin:stopgate@stopgate"] = recs
	s.writeConfig()
	for _, h := range codexListHooks(t, s.env, s.project) {
		if h.PluginID == "stopgate@stopgate" && h.TrustStatus != "trusted" {
			t.Fatalf("the plugin's %s hook is %q after its trust was recorded, want trusted", h.EventName, h.TrustStatus)
		}
	}
}

// codexListedHook is one hook as Codex's app server lists it (hooks/list).
type codexListedHook struct {
	Key, EventName, Command, SourcePath, Source string
	PluginID                                    string `json:"pluginId"`
	CurrentHash                                 string `json:"currentHash"`
	TrustStatus                                 string `json:"trustStatus"`
}

// codexListHooks asks `codex app-server` (JSON-RPC on stdio) for the hooks Codex would run in
// cwd, with their trust status.
func codexListHooks(t *testing.T, env []string, cwd string) []codexListedHook {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codexBinary(t), "app-server")
	cmd.Dir, cmd.Env = cwd, env
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"stopgate-e2e","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":[%q]}}`, cwd),
	}, "\n") + "\n"
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if _, err := io.WriteString(stdin, in); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(stdout)
	for {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []codexListedHook
				}
			}
			Error json.RawMessage
		}
		if err := dec.Decode(&msg); err != nil {
			t.Fatalf("codex app-server hooks/list: %v", err)
		}
		if msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			t.Fatalf("codex app-server hooks/list: %s", msg.Error)
		}
		var out []codexListedHook
		for _, d := range msg.Result.Data {
			out = append(out, d.Hooks...)
		}
		return out
	}
}

// withPath returns env with dir put first on its PATH.
func withPath(env []string, dir string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + dir + string(os.PathListSeparator) + v
		}
		out = append(out, kv)
	}
	return out
}

// withoutStopgate returns env with every PATH directory that holds a stopgate dropped, so a
// stopgate the machine has installed cannot stand in for a missing one.
func withoutStopgate(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			var keep []string
			for _, dir := range filepath.SplitList(v) {
				if _, err := os.Stat(filepath.Join(dir, "stopgate")); err != nil {
					keep = append(keep, dir)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(os.PathListSeparator))
		}
		out = append(out, kv)
	}
	return out
}

// geminiExtensionSource copies the files the Gemini CLI extension is made of (the manifest,
// hooks/hooks.json and the launcher it runs) from the repository into a fresh directory, laid
// out as in the repository, and returns it: `gemini extensions install` copies the whole
// source directory, and the repository's holds build caches.
func geminiExtensionSource(t *testing.T, dir string) string {
	t.Helper()
	root := repoRoot(t)
	src := filepath.Join(dir, "stopgate-extension")
	for _, f := range []string{"gemini-extension.json", "hooks/hooks.json", "plugins/stopgate-hook"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(root, f))
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// installGeminiExtension validates the extension with `gemini extensions validate` and
// installs it with `gemini extensions install PATH --consent` from a trusted folder, and
// checks that Gemini CLI installed it at this release.
func installGeminiExtension(t *testing.T, s *geminiSession) {
	t.Helper()
	gemini := geminiBinary(t)
	src := geminiExtensionSource(t, s.base)
	trusted, err := json.Marshal(map[string]string{s.project: "TRUST_FOLDER", src: "TRUST_FOLDER"})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.home, ".gemini", "trustedFolders.json"), string(trusted))
	if out := runCLI(t, s.project, s.env, gemini, "extensions", "validate", src); !strings.Contains(out, "successfully validated") {
		t.Fatalf("gemini extensions validate did not pass:\n%s", out)
	}
	runCLI(t, s.project, s.env, gemini, "extensions", "install", src, "--consent")
	var m struct{ Name, Version string }
	readJSON(t, filepath.Join(s.home, ".gemini", "extensions", "stopgate", "gemini-extension.json"), &m)
	if m.Name != "stopgate" || m.Version != stopgate.Version {
		t.Fatalf("the installed extension names %s %s, want stopgate %s", m.Name, m.Version, stopgate.Version)
	}
}

// TestGeminiExtension: the extension, installed with `gemini extensions install`, the binary
// named by STOPGATE_BIN, blocks a trailing promise once and then lets the agent stop.
func TestGeminiExtension(t *testing.T) {
	t.Parallel()
	s := newGeminiSession(t, func(r *fg.Request) fg.Response {
		switch {
		case !isGeminiAgentRequest(r):
			return fg.Reply(fg.Text("OK"))
		case hasResponse(r, "run_shell_command"):
			return fg.Reply(fg.Text(tpSummary))
		case len(geminiPending(r)) > 0:
			return fg.Reply(fg.Text(tpActing), shellCall("echo ok", "Run the tests"))
		default:
			return fg.Reply(fg.Text(tpStalled))
		}
	})
	s.env = append(s.env, "STOPGATE_BIN="+stopgateBinary(t))
	installGeminiExtension(t, s)
	res := s.run(tpPrompt)

	assertGeminiCompleted(t, s, res, tpSummary)
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	if got := geminiPending(reqs[1]); len(got) != 1 || !quotes(got[0], tpPromise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, tpPromise)
	}
	if all := s.lastNudges(); len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertGeminiPayloads(t, s, tpPrompt, []bool{false, false}, []string{tpStalled, tpSummary})
	if names, _ := filepath.Glob(filepath.Join(pluginState(s.home), "gemini-*")); len(names) == 0 {
		t.Errorf("the extension's hook kept no state in %s", pluginState(s.home))
	}
}

// TestLauncher: the launcher the plugins ship finds the binary in STOPGATE_BIN, on PATH, or in
// ~/go/bin, passes the harness and flags on, and, when there is none or the named one is not
// executable, exits 0 with nothing on stdout and one line on stderr saying how to install it.
func TestLauncher(t *testing.T) {
	t.Parallel()
	launcher := filepath.Join(repoRoot(t), "plugins", "stopgate-hook")
	dir := t.TempDir()
	// A stand-in stopgate that prints its arguments and the payload it was given.
	fake := writeExecutable(t, filepath.Join(dir, "fakebin", "stopgate"), `echo "args: $*"; cat`)
	home := filepath.Join(dir, "home")
	goBin := filepath.Join(home, "go", "bin")
	mkdirs(t, goBin)
	gohome := filepath.Join(dir, "gohome")
	writeExecutable(t, filepath.Join(gohome, "go", "bin", "stopgate"), `echo "from go bin: $*"`)
	install := "go install github.com/stopgate/stopgate/cmd/stopgate@v" + stopgate.Version
	tests := []struct {
		name           string
		env            []string
		args           []string
		stdout, stderr string // stdout exactly; stderr must contain it ("" = empty)
	}{
		{"STOPGATE_BIN", []string{"STOPGATE_BIN=" + fake, "PATH=/usr/bin:/bin", "HOME=" + home}, []string{"codex"}, "args: hook codex --\n{}", ""},
		{"Claude Code option", []string{"CLAUDE_PLUGIN_OPTION_STOPGATE_PATH=" + fake, "PATH=/usr/bin:/bin", "HOME=" + home}, []string{"claude-code", "--shadow"}, "args: hook claude-code -- --shadow\n{}", ""},
		{"PATH", []string{"PATH=" + filepath.Dir(fake) + ":/usr/bin:/bin", "HOME=" + home}, []string{"gemini-cli"}, "args: hook gemini-cli --\n{}", ""},
		{"go bin", []string{"PATH=/usr/bin:/bin", "HOME=" + gohome}, []string{"codex"}, "from go bin: hook codex --\n", ""},
		{"missing", []string{"PATH=/usr/bin:/bin", "HOME=" + home}, []string{"codex"}, "", install},
		{"named but missing", []string{"STOPGATE_BIN=" + filepath.Join(dir, "nope"), "PATH=" + filepath.Dir(fake) + ":/usr/bin:/bin", "HOME=" + home}, []string{"codex"}, "", "is not an executable file"},
		{"no harness", []string{"STOPGATE_BIN=" + fake, "PATH=/usr/bin:/bin", "HOME=" + home}, nil, "", "without a harness name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", append([]string{launcher}, tt.args...)...)
			cmd.Env = tt.env
			cmd.Stdin = strings.NewReader("{}")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("launcher: %v (stderr %s)", err, stderr.String())
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.stdout)
			}
			if tt.stderr == "" && stderr.Len() > 0 || tt.stderr != "" && !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
			if tt.stderr != "" && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line", stderr.String())
			}
		})
	}
}

// writeExecutable writes a sh script with body at path, executable, and returns path.
func writeExecutable(t *testing.T, path, body string) string {
	t.Helper()
	writeFile(t, path, "#!/bin/sh\n"+body+"\n")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// installCopilotPlugin adds the repository's Copilot CLI marketplace
// (.github/plugin/marketplace.json) with `copilot plugin marketplace add` and installs the
// plugin from it with `copilot plugin install stopgate@stopgate`, and checks that Copilot CLI
// lists it, enabled, at this release.
func installCopilotPlugin(t *testing.T, s *copilotSession) {
	t.Helper()
	cli, _ := copilotBinary(t)
	root := repoRoot(t)
	runCLI(t, s.project, s.env, cli, "plugin", "marketplace", "add", root)
	if out := runCLI(t, s.project, s.env, cli, "plugin", "marketplace", "browse", "stopgate"); !strings.Contains(out, "agentStop") {
		t.Fatalf("copilot plugin marketplace browse stopgate does not offer the Copilot CLI plugin:\n%s", out)
	}
	runCLI(t, s.project, s.env, cli, "plugin", "install", "stopgate@stopgate")
	if out := runCLI(t, s.project, s.env, cli, "plugin", "list"); !strings.Contains(out, "stopgate@stopgate (v"+stopgate.Version+") (enabled)") {
		t.Fatalf("copilot plugin list does not show stopgate@stopgate %s enabled:\n%s", stopgate.Version, out)
	}
	var settings struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	readJSON(t, filepath.Join(s.home, ".copilot", "settings.json"), &settings)
	if !settings.EnabledPlugins["stopgate@stopgate"] {
		t.Fatalf("~/.copilot/settings.json does not enable stopgate@stopgate: %+v", settings)
	}
}

// TestCopilotPlugin: the Copilot CLI plugin, installed with `copilot plugin install` and the
// binary found on PATH by the launcher, blocks a trailing promise once and then lets the
// agent stop.
func TestCopilotPlugin(t *testing.T) {
	t.Parallel()
	s := newCopilotSession(t, func(r *fc.Request) fc.Response {
		switch {
		case !r.HasTool("bash"):
			return fc.Reply("OK")
		case hasToolResult(r, "bash"):
			return fc.Reply(tpSummary)
		case len(copilotPending(r)) > 0:
			return fc.Reply(tpActing, bashCall("call_run", "echo ok"))
		default:
			return fc.Reply(tpStalled)
		}
	})
	s.env = withPath(s.env, filepath.Dir(stopgateBinary(t)))
	installCopilotPlugin(t, s)
	final := s.run(tpPrompt)
	if final != tpSummary {
		s.dump()
		t.Fatalf("the run ended on %q, want the summary %q", final, tpSummary)
	}
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	if got := copilotPending(reqs[1]); len(got) != 1 || !quotes(got[0], tpPromise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, tpPromise)
	}
	if all := s.lastNudges(); len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertCopilotPayloads(t, s, []bool{false, true}, false)
	ps := s.payloads()
	if len(ps) > 0 {
		session, _ := ps[0]["sessionId"].(string)
		if names, _ := filepath.Glob(filepath.Join(pluginState(s.home), "copilot-"+session+"*")); len(names) == 0 {
			t.Errorf("the plugin's hook kept no state for session %s in %s", session, pluginState(s.home))
		}
	}
}

// TestCopilotPluginMissingBinary: with no stopgate binary anywhere the launcher looks, the
// plugin's hook lets the agent stop on its trailing promise.
func TestCopilotPluginMissingBinary(t *testing.T) {
	t.Parallel()
	s := newCopilotSession(t, func(r *fc.Request) fc.Response {
		if !r.HasTool("bash") {
			return fc.Reply("OK")
		}
		return fc.Reply(tpStalled)
	})
	s.env = withoutStopgate(s.env)
	installCopilotPlugin(t, s)
	if final := s.run(tpPrompt); final != tpStalled {
		s.dump()
		t.Fatalf("the run ended on %q, want the stall %q: a missing binary must not block", final, tpStalled)
	}
	if n := len(s.agentRequests()); n != 1 {
		t.Errorf("the model was asked %d times, want 1: a missing binary must not block", n)
	}
	assertCopilotPayloads(t, s, []bool{false}, false)
}

// TestOpencodePlugin: the package plugins/opencode, installed with `opencode plugin PATH`,
// runs the shared launcher on session.idle, which finds stopgate on PATH: a trailing promise
// is blocked once, then the session stops. The stopgate on PATH is a wrapper that saves each
// payload before handing it to the real binary, so the test sees what the plugin sent.
func TestOpencodePlugin(t *testing.T) {
	t.Parallel()
	s := newOpencodeSession(t, reply(func(r *fc.Request) fc.Response {
		switch {
		case hasToolResult(r, "bash"):
			return fc.Reply(tpSummary)
		case len(opencodePending(r)) > 0:
			return fc.Reply(tpActing, fc.ToolCall("call_run", "bash", map[string]any{"command": "echo ok", "description": "Run the tests"}))
		default:
			return fc.Reply(tpStalled)
		}
	}))
	wrapper := filepath.Join(s.base, "wrapper")
	writeExecutable(t, filepath.Join(wrapper, "stopgate"), fmt.Sprintf(`f=%s/idle-$(date +%%s%%N).json; cat > "$f"; %s "$@" < "$f"; rc=$?; : > "$f.done"; exit $rc`,
		shellQuote(s.capture), shellQuote(stopgateBinary(t))))
	s.env = withPath(withoutStopgate(s.env), wrapper)
	s.hookTimeout = time.Minute
	out := runCLI(t, s.project, s.env, opencodeCLI.binary(t), "plugin", filepath.Join(repoRoot(t), "plugins", "opencode"))
	s.releaseDeadLocks()
	var cfg struct{ Plugin []string }
	readJSON(t, filepath.Join(s.project, ".opencode", "opencode.json"), &cfg)
	if len(cfg.Plugin) != 1 || cfg.Plugin[0] != filepath.Join(repoRoot(t), "plugins", "opencode") {
		t.Fatalf("opencode plugin recorded plugins %q in .opencode/opencode.json, want the package's path:\n%s", cfg.Plugin, out)
	}
	if final := s.run(tpPrompt); final != tpSummary {
		s.dump()
		t.Fatalf("the session ended on %q, want %q", final, tpSummary)
	}
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	if got := opencodePending(reqs[1]); len(got) != 1 || !quotes(got[0], tpPromise) {
		t.Errorf("after the stalled stop the model received %q, want one nudge quoting %q", got, tpPromise)
	}
	if all := s.lastNudges(); len(all) != 1 {
		t.Errorf("the session held %d nudges, want 1: %q", len(all), all)
	}
	s.assertPayloads([]bool{false, true}, false)
	if names, _ := filepath.Glob(filepath.Join(pluginState(s.home), "*opencode-"+s.id+"*")); len(names) == 0 {
		t.Errorf("the plugin's hook kept no state for session %s in %s", s.id, pluginState(s.home))
	}
}
