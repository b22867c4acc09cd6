package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stopgate/stopgate/hook"
)

// defineGeminiHookFlags defines the Gemini CLI hook's flags: the hook flags but -style, since
// an AfterAgent hook continues a turn only with {"decision":"deny"}.
func defineGeminiHookFlags(h *hookFlags, add func(f *flag.Flag)) {
	h.defineInto(func(f *flag.Flag) {
		if f.Name != "style" {
			add(f)
		}
	})
}

func hookGeminiCommand() *command {
	var h hookFlags
	var flagErrs []error
	return &command{
		failOpen: true,
		name:     "gemini-cli",
		summary:  "the Gemini CLI AfterAgent hook",
		usage:    "hook gemini-cli [flags] [-- flags]",
		help: `The Gemini CLI AfterAgent hook. Gemini CLI runs it when its agent has answered a prompt, with
a JSON payload on stdin: the session, the session file's path, the prompt, the text the model
wrote answering it, and stop_hook_active. The hook reads the session file for history (the
write_todos list, background commands, the run's tool calls), runs stopgate's checks in their
order:

  ` + checkList() + `

and answers:

  let the agent stop    exit 0, nothing on stdout
  keep it going         exit 0, {"decision":"deny","reason":"<what to do>"} on stdout; Gemini
                        CLI runs a retry turn with the reason as its prompt

It fails open: an error of any kind (a payload that is not JSON, a bad flag or configuration
file, a panic, no decision within --timeout) lets the agent stop, with exit 0, nothing on
stdout, and one line on stderr beginning "stopgate:" (Gemini CLI shows it as a hook system
message). It never exits 2 or any status but 0: Gemini CLI reads those as a denial, with stderr
as the retry prompt. A session file that cannot be read is not an error: the hook decides on
the payload alone and says so on stderr.

Gemini CLI does not limit how many times in a row an AfterAgent hook may deny, so stopgate's
budgets are what bound the nudges: per check per run and in a row (see 'stopgate help decide'),
kept between stops in a small JSON file per session under --state-dir. A stop in the same run
as a nudge counts as in a row even when stop_hook_active is false (Gemini CLI clears it once the
model has called a tool); when the file cannot be read in that case, the agent may stop.

Install it with 'stopgate hook install gemini-cli'.`,
		flags: func(fs *flag.FlagSet) {
			defineGeminiHookFlags(&h, func(f *flag.Flag) {
				fs.Var(&lenientValue{Value: f.Value, name: f.Name, errs: &flagErrs}, f.Name, f.Usage)
			})
		},
		run: func(ctx context.Context, e env, fs *flag.FlagSet, args []string) int {
			if len(args) > 0 {
				if err := fs.Parse(args); err != nil {
					flagErrs = append(flagErrs, err)
				} else if fs.NArg() > 0 {
					flagErrs = append(flagErrs, fmt.Errorf("unexpected arguments %q", fs.Args()))
				}
			}
			opts, err := h.options(e, flagErrs)
			if err != nil {
				fmt.Fprintf(e.stderr, "stopgate: %s; letting the agent stop\n", strings.Join(strings.Fields(err.Error()), " "))
				return 0
			}
			return hook.GeminiCLI(ctx, e.stdin, e.stdout, e.stderr, opts)
		},
	}
}

// geminiSettingsFlags choose the Gemini CLI settings file install and uninstall edit.
type geminiSettingsFlags struct {
	project, user bool
	file          string
}

func (g *geminiSettingsFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&g.user, "user", false, "edit ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini/settings.json when set), for every project (the default)")
	fs.BoolVar(&g.project, "project", false, "edit .gemini/settings.json in the current directory, for this project")
	fs.StringVar(&g.file, "settings", "", "edit the settings `FILE`")
}

// path returns the settings file the flags name.
func (g *geminiSettingsFlags) path(e env) (string, error) {
	n := 0
	for _, set := range []bool{g.project, g.user, g.file != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return "", errors.New("choose one of -user, -project and -settings")
	}
	switch {
	case g.file != "":
		return filepath.Abs(g.file)
	case g.project:
		cwd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(cwd, ".gemini", "settings.json"), nil
	}
	home := e.getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = e.getenv("HOME")
	}
	if home == "" {
		return "", errors.New("neither GEMINI_CLI_HOME nor HOME is set; name the settings file with -settings")
	}
	return filepath.Abs(filepath.Join(home, ".gemini", "settings.json"))
}

const geminiSettingsHelp = `The settings file is Gemini CLI's user settings by default (-user: ~/.gemini/settings.json, or
$GEMINI_CLI_HOME/.gemini/settings.json): the installed command holds the absolute path of this
stopgate binary, which is particular to this machine, so it belongs in a project's shared
.gemini/settings.json (-project) only if everyone has stopgate at that path.

Gemini CLI runs hooks only in folders it trusts (with security.folderTrust.enabled, its default,
a folder must be trusted in ~/.gemini/trustedFolders.json or by GEMINI_CLI_TRUST_WORKSPACE=true),
user hooks included, and not when hooksConfig.enabled is false. A settings file with comments,
which Gemini CLI accepts, is left alone and reported: stopgate does not rewrite comments.`

func hookInstallGeminiCommand() *command {
	var h hookFlags
	var g geminiSettingsFlags
	var embedded [][2]string
	return &command{
		name:    "gemini-cli",
		summary: "add the stopgate hook to a Gemini CLI settings file",
		usage:   "hook install gemini-cli [-user|-project|-settings FILE] [hook flags]",
		help: `Add "stopgate hook gemini-cli" as a command hook for Gemini CLI's AfterAgent event, named
"stopgate", with a timeout of ` + fmt.Sprint(hook.GeminiHandlerTimeout.Milliseconds()) + ` ms. Everything else in the settings file is kept: other
keys byte for byte and in order, other events and other hooks. Installing again changes
nothing; a stopgate hook already there with another command (a moved binary, other flags) is
updated. Nothing needs enabling in Gemini CLI 0.61.0 (hooksConfig.enabled defaults to true);
install warns when the file disables hooks or this one.

The command installed is this binary's absolute path, so it runs from any directory, followed
by the hook flags given here (-config, -mode, -model, -budget, -off, -state-dir, -timeout)
after "--". Relative -config and -state-dir paths are made absolute. The flags and the
configuration are checked now, so a mistake shows here rather than as a hook that lets every
stop through.

` + geminiSettingsHelp,
		flags: func(fs *flag.FlagSet) {
			g.define(fs)
			defineGeminiHookFlags(&h, func(f *flag.Flag) {
				fs.Var(&recordingValue{Value: f.Value, name: f.Name, set: &embedded}, f.Name, f.Usage)
			})
		},
		run: func(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
			const name = "hook install gemini-cli"
			if len(args) > 0 {
				return usageError(e, name, fmt.Sprintf("unexpected arguments %q", args))
			}
			path, err := g.path(e)
			if err != nil {
				return usageError(e, name, err.Error())
			}
			if _, err := h.options(e, nil); err != nil {
				fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
				return exitUsage
			}
			exe, err := os.Executable()
			if err != nil {
				fmt.Fprintf(e.stderr, "stopgate %s: cannot find this binary's path: %v\n", name, err)
				return 1
			}
			if limit := hook.GeminiHandlerTimeout; h.timeout >= limit {
				fmt.Fprintf(e.stderr, "stopgate %s: warning: -timeout %v is not under the %v Gemini CLI waits for the hook; it would kill the hook first and let the stop proceed\n", name, h.timeout, limit)
			}
			if strings.Contains(exe, "go-build") {
				fmt.Fprintf(e.stderr, "stopgate %s: warning: %s looks like a temporary 'go run' binary; install a built stopgate instead\n", name, exe)
			}
			var words []string
			for _, kv := range embedded {
				v := kv[1]
				if kv[0] == "config" || kv[0] == "state-dir" {
					if abs, err := filepath.Abs(v); err == nil {
						v = abs
					}
				}
				words = append(words, "--"+kv[0]+"="+v)
			}
			if len(words) > 0 {
				words = append([]string{"--"}, words...)
			}
			cmd := hook.GeminiCommand(exe, words...)
			changed, err := hook.InstallGemini(path, cmd)
			if err != nil {
				fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
				return 1
			}
			if changed {
				fmt.Fprintf(e.stdout, "Installed the AfterAgent hook in %s:\n  %s\n", path, cmd)
			} else {
				fmt.Fprintf(e.stdout, "Already installed in %s:\n  %s\n", path, cmd)
			}
			switch why, err := hook.GeminiHooksDisabled(path); {
			case err != nil:
				fmt.Fprintf(e.stderr, "stopgate %s: warning: %v\n", name, err)
			case why != "":
				fmt.Fprintf(e.stderr, "stopgate %s: warning: %s\n", name, why)
			}
			return 0
		},
	}
}

func hookUninstallGeminiCommand() *command {
	var g geminiSettingsFlags
	return &command{
		name:    "gemini-cli",
		summary: "remove the stopgate hook from a Gemini CLI settings file",
		usage:   "hook uninstall gemini-cli [-user|-project|-settings FILE]",
		help: `Remove every AfterAgent command hook that runs "stopgate hook gemini-cli" from a Gemini CLI
settings file, with the matcher groups, the event and the "hooks" object the removal leaves
empty. Everything else is kept as it was.

` + geminiSettingsHelp,
		flags: g.define,
		run: func(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
			const name = "hook uninstall gemini-cli"
			if len(args) > 0 {
				return usageError(e, name, fmt.Sprintf("unexpected arguments %q", args))
			}
			path, err := g.path(e)
			if err != nil {
				return usageError(e, name, err.Error())
			}
			changed, err := hook.UninstallGemini(path)
			if err != nil {
				fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
				return 1
			}
			if changed {
				fmt.Fprintf(e.stdout, "Removed the stopgate hook from %s\n", path)
			} else {
				fmt.Fprintf(e.stdout, "No stopgate hook in %s\n", path)
			}
			return 0
		},
	}
}
