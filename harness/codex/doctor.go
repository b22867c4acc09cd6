package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/doctorkit"
)

// Doctor checks a Codex CLI installation for `stopgate doctor`: the CLI on PATH and whether
// its hooks feature is on, and, as Codex itself reports them (its app server's hooks/list,
// what /hooks shows), the stopgate hooks it would run in the current directory, from
// hooks.json files or the stopgate plugin: whether each is enabled and trusted, and the
// binary each runs.
type Doctor struct{}

// ListedHook is one hook as Codex's app server lists it.
type ListedHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Source      string `json:"source"`
	PluginID    string `json:"pluginId"`
	Enabled     bool   `json:"enabled"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// ListHooks asks `codex app-server` (JSON-RPC on stdio) which hooks Codex would run in cwd,
// with their trust status.
func ListHooks(ctx context.Context, codex string, environ []string, cwd string) ([]ListedHook, error) {
	ctx, cancel := context.WithTimeout(ctx, doctorkit.RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir, cmd.Env = cwd, environ
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	defer func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	list, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{cwd}}})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"stopgate-doctor","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"initialized"}` + "\n" + string(list) + "\n"
	if _, err := io.WriteString(stdin, in); err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	dec := json.NewDecoder(stdout)
	for {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []ListedHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if err := dec.Decode(&msg); err != nil {
			return nil, fmt.Errorf("codex app-server hooks/list: %w", err)
		}
		if msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("codex app-server hooks/list: %s", msg.Error)
		}
		var out []ListedHook
		for _, d := range msg.Result.Data {
			out = append(out, d.Hooks...)
		}
		return out, nil
	}
}

// isStopgateHook reports whether a listed hook is stopgate's: `stopgate hook codex`, or the
// plugin's launcher.
func isStopgateHook(h ListedHook) bool {
	return IsHookCommand(h.Command) || strings.HasPrefix(h.PluginID, "stopgate@") || strings.Contains(h.Command, "stopgate-hook")
}

// Checks implements harness.Doctor.
func (Doctor) Checks(ctx context.Context, env harness.Env) []harness.Check {
	cli, _ := doctorkit.CLICheck(ctx, env, "Codex CLI", "codex", "0.0.0", "hooks", "")
	out := []harness.Check{cli}
	if cli.Status == harness.CheckSkip {
		return out
	}
	codex := doctorkit.LookPath(env, "codex")

	// The hooks feature.
	feat := harness.Check{Name: "Codex hooks feature"}
	if b, err := doctorkit.Run(ctx, env, "", codex, "features", "list"); err != nil {
		feat.Status, feat.Detail = harness.CheckWarn, "codex features list: "+err.Error()
	} else {
		feat.Status, feat.Detail = harness.CheckFail, "codex features list names no hooks feature: this Codex has no Stop hooks"
		feat.Fix = "update Codex: 'npm install -g @openai/codex'"
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 3 && f[0] == "hooks" {
				if f[len(f)-1] == "true" {
					feat.Status, feat.Detail, feat.Fix = harness.CheckOK, "hooks is on ("+f[1]+")", ""
				} else {
					feat.Detail = "hooks is off: Codex runs no hooks"
					feat.Fix = "add [features] hooks = true to " + doctorkit.Tilde(env, filepath.Join(codexHome(env), "config.toml"))
				}
			}
		}
	}
	out = append(out, feat)

	hooks, err := ListHooks(ctx, codex, doctorkit.Environ(env), env.CWD)
	if err != nil {
		return append(out, harness.Check{Name: "hooks Codex would run", Status: harness.CheckWarn, Detail: err.Error()})
	}
	found := false
	for _, h := range hooks {
		if !isStopgateHook(h) {
			continue
		}
		found = true
		where := doctorkit.Tilde(env, h.SourcePath)
		if h.PluginID != "" {
			where = "plugin " + h.PluginID + " (" + where + ")"
		}
		c := harness.Check{Name: h.EventName + " hook in " + where, Status: harness.CheckOK, Detail: "trusted and enabled: " + h.Command}
		switch {
		case !h.Enabled:
			c.Status, c.Detail = harness.CheckFail, "disabled: Codex does not run it"
			c.Fix = "enable it in Codex's /hooks"
		case h.TrustStatus != "trusted":
			c.Status = harness.CheckFail
			c.Detail = fmt.Sprintf("%s: Codex skips it without a word until it is trusted", h.TrustStatus)
			c.Fix = fmt.Sprintf("review it in Codex's /hooks, or add to %s: %s", doctorkit.Tilde(env, filepath.Join(codexHome(env), "config.toml")),
				strings.ReplaceAll(strings.TrimSpace(HookTrust{Key: h.Key, Hash: h.CurrentHash}.TOML()), "\n", " "))
		}
		out = append(out, c)
		if h.PluginID != "" || !IsHookCommand(h.Command) {
			root := filepath.Dir(filepath.Dir(h.SourcePath))
			out = append(out, doctorkit.LauncherCheck(ctx, env, "plugin "+h.PluginID, filepath.Join(root, "bin", "stopgate-hook"), ""))
		} else {
			out = append(out, doctorkit.BinaryCheck(ctx, env, where, doctorkit.CommandBinary(h.Command)))
		}
	}
	if !found {
		out = append(out, harness.Check{Name: "stopgate installed", Status: harness.CheckFail,
			Detail: "Codex would run no stopgate hook in " + env.CWD,
			Fix:    "run 'stopgate hook install codex', or 'codex plugin marketplace add stopgate/stopgate' and 'codex plugin add stopgate@stopgate'"})
	}
	return out
}

// codexHome is $CODEX_HOME, else ~/.codex.
func codexHome(env harness.Env) string {
	if d := env.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".codex")
}
