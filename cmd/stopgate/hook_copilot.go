package main

import (
	"fmt"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/copilot"
)

func hookCopilotCommand() *command {
	return harnessHookCommand(&command{
		name:    copilot.Name,
		summary: "the GitHub Copilot CLI agentStop and subagentStop hook",
		usage:   "hook copilot [flags] [-- flags]",
		help: `The GitHub Copilot CLI agentStop and subagentStop hook. Copilot CLI runs it when its agent (or
a sub-agent) has gone idle, with a JSON payload on stdin: the session, the path of its event log
(events.jsonl), the stop reason and stop_hook_active. The hook reads the event log for history
(the run's tool calls, async shells and the notifications that they finished, task calls) and
the session database beside it for the todo list, runs stopgate's checks in their order:

  ` + checkList() + `

and answers:

  let the agent stop    exit 0, nothing on stdout
  keep it going         exit 0, {"decision":"block","reason":"<what to do>"} on stdout; Copilot
                        CLI queues the reason as the next user message

It fails open: an error of any kind (a payload that is not JSON, a bad flag or configuration
file, a panic, no decision within --timeout) lets the agent stop, with exit 0, nothing on
stdout, and one line on stderr beginning "stopgate:". An event log or session database that
cannot be read is not an error: the hook decides on what it has and says so on stderr.

Copilot CLI ends a turn itself after 8 blocks in a row; stopgate's budgets (per check per run
and in a row, see 'stopgate help decide', kept in a small JSON file per session under
--state-dir) stop well before.

Install it with 'stopgate hook install copilot'.`,
	}, false, copilot.Name)
}

// copilotFileFlags returns the flags choosing the Copilot CLI hooks file install and uninstall
// edit.
func copilotFileFlags() *scopeFlags {
	return &scopeFlags{
		inst: copilot.Installer{},
		scopes: []scopeFlag{
			{harness.ScopeUser, "write ~/.copilot/hooks/" + copilot.HooksFileName + " ($COPILOT_HOME/hooks when set), for every project (the default)"},
			{harness.ScopeProject, "write .github/hooks/" + copilot.HooksFileName + " in the current directory, for this repository"},
		},
		fileFlag:  "file",
		fileUsage: "edit the hooks `FILE`",
	}
}

const copilotFilesHelp = `The hooks file is stopgate's own, ` + copilot.HooksFileName + `, in Copilot CLI's user hooks folder by default
(-user: ~/.copilot/hooks, or $COPILOT_HOME/hooks), so every other hooks file there is left alone.
The installed command holds the absolute path of this stopgate binary, which is particular to this
machine, so it belongs in a repository's .github/hooks (-project) only if everyone has stopgate at
that path. Copilot CLI runs a repository's hooks only in a folder it trusts (answer its trust
prompt, or run with --trust-folder or COPILOT_ALLOW_ALL=true); disableAllHooks in its settings
turns every hook off.`

func hookInstallCopilotCommand() *command {
	f := copilotFileFlags()
	return installCommand(&command{
		name:    copilot.Name,
		summary: "add the stopgate hook to a GitHub Copilot CLI hooks folder",
		usage:   "hook install copilot [-user|-project|-file FILE] [hook flags]",
		help: `Add "stopgate hook copilot" as a command hook for Copilot CLI's agentStop and subagentStop
events, with a timeoutSec of ` + fmt.Sprint(int(copilot.HandlerTimeout.Seconds())) + `. Installing again changes nothing; a stopgate hook already
there with another command (a moved binary, other flags) is replaced.

The command installed is this binary's absolute path, so it runs from any directory, followed
by the hook flags given here (-config, -mode, -model, -budget, -off, -state-dir, -timeout,
-store, -no-record) after "--". Relative -config, -state-dir and -store paths are made
absolute. The flags and the configuration are checked now, and the event log is opened once,
so a mistake shows here rather than as a hook that lets every stop through. A -store URL with
a password is refused; put it in the configuration file, or use PGPASSWORD or ~/.pgpass.

` + copilotFilesHelp,
	}, installSpec{
		files:     f,
		harness:   "Copilot CLI",
		waits:     copilot.HandlerTimeout,
		stops:     "kill",
		installed: "the agentStop and subagentStop hooks",
	})
}

func hookUninstallCopilotCommand() *command {
	f := copilotFileFlags()
	return uninstallCommand(&command{
		name:    copilot.Name,
		summary: "remove the stopgate hook from a GitHub Copilot CLI hooks folder",
		usage:   "hook uninstall copilot [-user|-project|-file FILE]",
		help: `Remove every agentStop and subagentStop command hook that runs "stopgate hook copilot" from a
Copilot CLI hooks file, and the file when nothing else is left in it. Other hooks files are not
touched.

` + copilotFilesHelp,
		flags: f.define,
	}, f, "hook")
}
