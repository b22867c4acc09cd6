package main

import (
	"fmt"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/opencode"
)

func hookOpencodeCommand() *command {
	return harnessHookCommand(&command{
		name:    opencode.Name,
		summary: "the opencode plugin's session.idle hook",
		usage:   "hook opencode [flags] [-- flags]",
		help: `The opencode session.idle hook. stopgate's opencode plugin (installed by 'stopgate hook install
opencode') runs it when a session goes idle, with a JSON payload on stdin: the session's
messages and todo list as opencode's SDK client reports them, the continuations the plugin sent,
and stop_hook_active (the last user message is one of them). The hook runs stopgate's checks in
their order:

  ` + checkList() + `

and answers:

  let the agent stop    exit 0, nothing on stdout
  keep it going         exit 0, {"decision":"block","reason":"<what to do>"} on stdout; the
                        plugin prompts the session with the reason

It fails open: an error of any kind lets the session stop, with exit 0, nothing on stdout, and
one line on stderr beginning "stopgate:". The plugin fails open too: stopgate missing, a crash,
no answer within ` + fmt.Sprint(opencode.HandlerTimeout) + `, or output that is not JSON lets the session stop, and the
plugin never throws into opencode. Budgets are kept per session under --state-dir.`,
	}, false, opencode.Name)
}

// opencodeFileFlags returns the flags choosing the opencode config file install and uninstall
// edit.
func opencodeFileFlags() *scopeFlags {
	return &scopeFlags{
		inst: opencode.Installer{},
		scopes: []scopeFlag{
			{harness.ScopeUser, "edit ~/.config/opencode/opencode.json ($XDG_CONFIG_HOME/opencode when set), for every project (the default)"},
			{harness.ScopeProject, "edit opencode.json in the current directory, for this project"},
		},
		fileFlag:  "file",
		fileUsage: "edit the config `FILE`",
	}
}

const opencodeFilesHelp = `The plugin is written as ` + opencode.PluginFileName + ` beside the config file, and the config's "plugin" list
names it by its file:// URL: opencode loads it with no build step and no package to install. The
config file is the user's by default (-user); the plugin holds the absolute path of this stopgate
binary, so it belongs in a project's opencode.json (-project) only if everyone has stopgate at
that path. A config file with comments (JSONC) is left alone and reported: stopgate does not
rewrite comments. Other keys and plugins are kept.`

func hookInstallOpencodeCommand() *command {
	f := opencodeFileFlags()
	return installCommand(&command{
		name:    opencode.Name,
		summary: "add the stopgate plugin to an opencode config file",
		usage:   "hook install opencode [-user|-project|-file FILE] [hook flags]",
		help: `Write stopgate's opencode plugin, which runs "stopgate hook opencode" on session.idle, and add it
to an opencode config file. Installing again changes nothing; a plugin holding another command
(a moved binary, other flags) is rewritten.

The command the plugin runs is this binary's absolute path, followed by the hook flags given
here (-config, -mode, -model, -budget, -off, -state-dir, -timeout, -store, -no-record) after
"--". Relative -config, -state-dir and -store paths are made absolute. The flags and the
configuration are checked now, and the event log is opened once. A -store URL with a password
is refused; put it in the configuration file, or use PGPASSWORD or ~/.pgpass.

` + opencodeFilesHelp,
	}, installSpec{
		files:     f,
		harness:   "the plugin",
		waits:     opencode.HandlerTimeout,
		stops:     "kill",
		installed: "the session.idle plugin",
	})
}

func hookUninstallOpencodeCommand() *command {
	f := opencodeFileFlags()
	return uninstallCommand(&command{
		name:    opencode.Name,
		summary: "remove the stopgate plugin from an opencode config file",
		usage:   "hook uninstall opencode [-user|-project|-file FILE]",
		help: `Remove stopgate's plugin from an opencode config file's "plugin" list, and the plugin file beside
it. Everything else is kept.

` + opencodeFilesHelp,
		flags: f.define,
	}, f, "plugin")
}
