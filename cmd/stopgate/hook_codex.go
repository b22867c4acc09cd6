package main

import (
	"fmt"
	"time"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/codex"
)

func hookCodexCommand() *command {
	return harnessHookCommand(&command{
		name:    "codex",
		summary: "the Codex CLI Stop and SubagentStop hook",
		usage:   "hook codex [flags] [-- flags]",
		help: `The Codex CLI Stop and SubagentStop hook. Codex runs it when its agent (or a sub-agent) is
about to end a turn, with a JSON payload on stdin: the session and turn ids, the rollout path,
the model, stop_hook_active and the final message. The hook reads the rollout for history (the
update_plan plan, background exec sessions and their write_stdin polls, the turn's tool calls),
runs stopgate's checks in their order:

  ` + checkList() + `

and answers:

  let the agent stop    exit 0, nothing on stdout
  keep it going         exit 0, {"decision":"block","reason":"<what to do>"} on stdout; Codex
                        hands the reason to the model as the next message of the same turn

It fails open: an error of any kind (a payload that is not JSON, a bad flag or configuration
file, a panic, no decision within --timeout) lets the agent stop, with exit 0, nothing on
stdout, and one line on stderr beginning "stopgate:". A rollout that cannot be read is not an
error: the hook decides on the payload alone and says so on stderr.

Codex does not limit how many times in a row a Stop hook may block, so stopgate's budgets are
what bound the nudges: per check per run and in a row (see 'stopgate help decide'), kept between
stops in a small JSON file per session under --state-dir. When that file cannot be read while
stop_hook_active is set, the agent may stop.

Install it with 'stopgate hook install codex'.`,
	}, false, codex.Name)
}

// codexHooksFlags returns the flags choosing the hooks.json install and uninstall edit.
func codexHooksFlags() *scopeFlags {
	return &scopeFlags{
		inst: codex.Installer{},
		scopes: []scopeFlag{
			{harness.ScopeUser, "edit $CODEX_HOME/hooks.json (default ~/.codex/hooks.json), for every project (the default)"},
			{harness.ScopeProject, "edit .codex/hooks.json in the current directory, for this project"},
		},
		fileFlag:  "hooks",
		fileUsage: "edit the hooks `FILE`",
	}
}

const codexHooksHelp = `The hooks file is Codex's user hooks.json by default (-user: $CODEX_HOME/hooks.json, else
~/.codex/hooks.json): the installed command holds the absolute path of this stopgate binary,
which is particular to this machine, so it belongs in a project's shared .codex/hooks.json
(-project) only if everyone has stopgate at that path.

Codex runs a hook from hooks.json only once you have trusted it, and skips an untrusted one
without a word; it reads a project's .codex/hooks.json only in a project you trust. Trust the
hook by reviewing it with /hooks in Codex, or by adding the [hooks.state] lines install prints
to $CODEX_HOME/config.toml (they hold the hash of the exact command, so a reinstall with other
flags needs trusting again). 'codex exec --dangerously-bypass-hook-trust' runs untrusted hooks
for one invocation.`

func hookInstallCodexCommand() *command {
	c := codexHooksFlags()
	return installCommand(&command{
		name:    "codex",
		summary: "add the stopgate hook to a Codex hooks.json",
		usage:   "hook install codex [-user|-project|-hooks FILE] [hook flags]",
		help: `Add "stopgate hook codex" as a command hook for Codex's Stop and SubagentStop events.
Everything else in the hooks file is kept: other keys byte for byte and in order, other events
and other hooks. Installing again changes nothing; a stopgate hook already there with another
command (a moved binary, other flags) is updated. A hooks file that is not valid JSON is left
alone and reported.

The command installed is this binary's absolute path, so it runs from any directory, followed
by the hook flags given here (-config, -mode, -model, -budget, -off, -state-dir, -timeout,
-store, -no-record) after "--". Relative -config, -state-dir and -store paths are made
absolute. The flags and the configuration are checked now, and the event log is opened once,
so a mistake shows here rather than as a hook that lets every stop through. A -store URL with
a password is refused; put it in the configuration file, or use PGPASSWORD or ~/.pgpass. Codex gives the hook ` + fmt.Sprint(codex.HandlerTimeout) + ` s before it cancels it.

` + codexHooksHelp,
	}, installSpec{
		files:     c,
		harness:   "Codex",
		waits:     time.Duration(codex.HandlerTimeout) * time.Second,
		stops:     "cancel",
		installed: "the Stop and SubagentStop hooks",
		after: func(e env, name, path string) int {
			recs, err := codex.Trust(path)
			if err != nil {
				fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
				return 1
			}
			fmt.Fprintf(e.stdout, "\nCodex runs these hooks only once you trust them: review them with /hooks in Codex,\nor add to $CODEX_HOME/config.toml (~/.codex/config.toml):\n\n")
			for _, r := range recs {
				if codex.IsHookCommand(r.Command) {
					fmt.Fprintf(e.stdout, "%s\n", r.TOML())
				}
			}
			if c.scope() == harness.ScopeProject {
				fmt.Fprintf(e.stdout, "Codex reads a project's .codex/hooks.json only in a project you trust.\n")
			}
			return 0
		},
	})
}

func hookUninstallCodexCommand() *command {
	c := codexHooksFlags()
	return uninstallCommand(&command{
		name:    "codex",
		summary: "remove the stopgate hook from a Codex hooks.json",
		usage:   "hook uninstall codex [-user|-project|-hooks FILE]",
		help: `Remove every Stop and SubagentStop command hook that runs "stopgate hook codex" from a Codex
hooks.json, with the matcher groups, events and "hooks" object the removal leaves empty.
Everything else is kept as it was. The [hooks.state] trust entries Codex keeps in config.toml
for the removed hooks are left alone; Codex ignores entries for hooks that no longer exist.

` + codexHooksHelp,
		flags: c.define,
	}, c, "hooks")
}
