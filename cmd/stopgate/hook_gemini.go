package main

import (
	"fmt"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/gemini"
)

func hookGeminiCommand() *command {
	return harnessHookCommand(&command{
		name:    "gemini-cli",
		summary: "the Gemini CLI AfterAgent hook",
		usage:   "hook gemini-cli [flags] [-- flags]",
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
	}, false, gemini.Name)
}

// geminiSettingsFlags returns the flags choosing the Gemini CLI settings file install and
// uninstall edit.
func geminiSettingsFlags() *scopeFlags {
	return &scopeFlags{
		inst: gemini.Installer{},
		scopes: []scopeFlag{
			{harness.ScopeUser, "edit ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini/settings.json when set), for every project (the default)"},
			{harness.ScopeProject, "edit .gemini/settings.json in the current directory, for this project"},
		},
		fileFlag:  "settings",
		fileUsage: "edit the settings `FILE`",
	}
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
	g := geminiSettingsFlags()
	return installCommand(&command{
		name:    "gemini-cli",
		summary: "add the stopgate hook to a Gemini CLI settings file",
		usage:   "hook install gemini-cli [-user|-project|-settings FILE] [hook flags]",
		help: `Add "stopgate hook gemini-cli" as a command hook for Gemini CLI's AfterAgent event, named
"stopgate", with a timeout of ` + fmt.Sprint(gemini.HandlerTimeout.Milliseconds()) + ` ms. Everything else in the settings file is kept: other
keys byte for byte and in order, other events and other hooks. Installing again changes
nothing; a stopgate hook already there with another command (a moved binary, other flags) is
updated. Nothing needs enabling in Gemini CLI 0.61.0 (hooksConfig.enabled defaults to true);
install warns when the file disables hooks or this one.

The command installed is this binary's absolute path, so it runs from any directory, followed
by the hook flags given here (-config, -mode, -model, -budget, -off, -state-dir, -timeout,
-store, -no-record) after "--". Relative -config, -state-dir and -store paths are made
absolute. The flags and the configuration are checked now, and the event log is opened once,
so a mistake shows here rather than as a hook that lets every stop through. A -store URL with
a password is refused; put it in the configuration file, or use PGPASSWORD or ~/.pgpass.

` + geminiSettingsHelp,
	}, installSpec{
		files:     g,
		harness:   "Gemini CLI",
		waits:     gemini.HandlerTimeout,
		stops:     "kill",
		installed: "the AfterAgent hook",
		after: func(e env, name, path string) int {
			switch why, err := gemini.HooksDisabled(path); {
			case err != nil:
				fmt.Fprintf(e.stderr, "stopgate %s: warning: %v\n", name, err)
			case why != "":
				fmt.Fprintf(e.stderr, "stopgate %s: warning: %s\n", name, why)
			}
			return 0
		},
	})
}

func hookUninstallGeminiCommand() *command {
	g := geminiSettingsFlags()
	return uninstallCommand(&command{
		name:    "gemini-cli",
		summary: "remove the stopgate hook from a Gemini CLI settings file",
		usage:   "hook uninstall gemini-cli [-user|-project|-settings FILE]",
		help: `Remove every AfterAgent command hook that runs "stopgate hook gemini-cli" from a Gemini CLI
settings file, with the matcher groups, the event and the "hooks" object the removal leaves
empty. Everything else is kept as it was.

` + geminiSettingsHelp,
		flags: g.define,
	}, g, "hook")
}
