package main

import (
	"errors"
	"fmt"
	"path/filepath"

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
func opencodeFileFlags() *fileFlags {
	return &fileFlags{
		userUsage:    "edit ~/.config/opencode/opencode.json ($XDG_CONFIG_HOME/opencode when set), for every project (the default)",
		projectUsage: "edit opencode.json in the current directory, for this project",
		fileFlag:     "file",
		fileUsage:    "edit the config `FILE`",
		projectFile:  "opencode.json",
		userFile: func(e env) (string, error) {
			if x := e.getenv("XDG_CONFIG_HOME"); x != "" {
				return filepath.Abs(filepath.Join(x, "opencode", "opencode.json"))
			}
			home := e.getenv("HOME")
			if home == "" {
				return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set; name the config file with -file")
			}
			return filepath.Abs(filepath.Join(home, ".config", "opencode", "opencode.json"))
		},
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
	in := opencode.Installer{}
	return installCommand(&command{
		name:    opencode.Name,
		summary: "add the stopgate plugin to an opencode config file",
		usage:   "hook install opencode [-user|-project|-file FILE] [hook flags]",
		help: `Write stopgate's opencode plugin, which runs "stopgate hook opencode" on session.idle, and add it
to an opencode config file. Installing again changes nothing; a plugin holding another command
(a moved binary, other flags) is rewritten.

The command the plugin runs is this binary's absolute path, followed by the hook flags given
here (-config, -mode, -model, -budget, -off, -state-dir, -timeout) after "--". Relative -config
and -state-dir paths are made absolute. The flags and the configuration are checked now.

` + opencodeFilesHelp,
	}, installSpec{
		defineFile: f.define,
		path:       f.path,
		harness:    "the plugin",
		waits:      opencode.HandlerTimeout,
		stops:      "kill",
		command:    in.Command,
		install:    in.Install,
		installed:  "the session.idle plugin",
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
	}, f.path, opencode.Installer{}.Uninstall, "plugin")
}
