package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/hook"
	"github.com/stopgate/stopgate/internal/config"
	"github.com/stopgate/stopgate/internal/xdg"
	"github.com/stopgate/stopgate/store"
)

func hookCommand() *command {
	return &command{
		name:    "hook",
		summary: "stop hooks for agent harnesses",
		usage:   "hook claude-code|codex|gemini-cli | hook install HARNESS | hook uninstall HARNESS",
		help: `Stop hooks for agent harnesses: the harness runs the hook when its agent is about to stop,
and the hook answers whether it may.

  stopgate hook claude-code              the Claude Code Stop and SubagentStop hook
  stopgate hook install claude-code      add it to a Claude Code settings file
  stopgate hook uninstall claude-code    remove it again

  stopgate hook codex                    the Codex CLI Stop and SubagentStop hook
  stopgate hook install codex            add it to a Codex hooks.json
  stopgate hook uninstall codex          remove it again

  stopgate hook gemini-cli               the Gemini CLI AfterAgent hook
  stopgate hook install gemini-cli       add it to a Gemini CLI settings file
  stopgate hook uninstall gemini-cli     remove it again

A harness name this binary does not know (say, settings written by a newer stopgate) fails
open like any other hook error: exit 0, nothing on stdout, one "stopgate:" line on stderr.

Run 'stopgate help hook HARNESS' for what a hook reads and answers, and
'stopgate help hook install HARNESS' for where it is installed.`,
		failOpen: true,
		subs: []*command{
			hookClaudeCodeCommand(),
			hookCodexCommand(),
			hookGeminiCommand(),
			hookCopilotCommand(),
			hookOpencodeCommand(),
			{
				name:    "install",
				summary: "add a stop hook to a harness's settings",
				usage:   "hook install claude-code|codex|gemini-cli|copilot|opencode [flags]",
				subs:    []*command{hookInstallCommand(), hookInstallCodexCommand(), hookInstallGeminiCommand(), hookInstallCopilotCommand(), hookInstallOpencodeCommand()},
			},
			{
				name:    "uninstall",
				summary: "remove a stop hook from a harness's settings",
				usage:   "hook uninstall claude-code|codex|gemini-cli|copilot|opencode [flags]",
				subs:    []*command{hookUninstallCommand(), hookUninstallCodexCommand(), hookUninstallGeminiCommand(), hookUninstallCopilotCommand(), hookUninstallOpencodeCommand()},
			},
		},
	}
}

// hookFlags are the flags of the hook itself, which install also embeds in the command it
// installs.
type hookFlags struct {
	sf       supervisorFlags
	rf       recordFlags
	stateDir string
	timeout  time.Duration
	style    string
	shadow   bool
	live     bool
}

// defineFor hands add the hook's flags, -style only when withStyle: Codex and Gemini CLI have
// only one way to continue, so their hooks take no -style.
func (h *hookFlags) defineFor(withStyle bool, add func(f *flag.Flag)) {
	h.defineInto(func(f *flag.Flag) {
		if withStyle || f.Name != "style" {
			add(f)
		}
	})
}

// defineInto defines the hook's flags on a scratch FlagSet and hands each one to add.
func (h *hookFlags) defineInto(add func(f *flag.Flag)) {
	tmp := flag.NewFlagSet("", flag.ContinueOnError)
	h.sf.define(tmp)
	h.rf.define(tmp)
	tmp.StringVar(&h.stateDir, "state-dir", "", "keep the per-session nudge budgets in `DIR` (default $XDG_STATE_HOME/stopgate/hooks, else ~/.local/state/stopgate/hooks)")
	tmp.DurationVar(&h.timeout, "timeout", hook.DefaultTimeout, "let the agent stop if no decision is made within `D`")
	tmp.BoolVar(&h.shadow, "shadow", false, "shadow mode: make and record every decision, would-blocks included, and always let the agent stop")
	tmp.BoolVar(&h.live, "live", false, "block for real even when the configuration says shadow = true")
	tmp.StringVar(&h.style, "style", string(claudecode.StyleBlock), "answer a continuation as `block` ({\"decision\":\"block\"}) or context (hookSpecificOutput.additionalContext, Claude Code 2.1.163+)")
	tmp.VisitAll(add)
}

// defaultStateDir returns $XDG_STATE_HOME/stopgate/hooks, else ~/.local/state/stopgate/hooks
// (a relative XDG_STATE_HOME is ignored); "" when neither variable helps.
func defaultStateDir(getenv func(string) string) string {
	if d := xdg.StateHome(getenv); d != "" {
		return filepath.Join(d, "stopgate", "hooks")
	}
	return ""
}

// lenientValue wraps a flag.Value so that a bad value is recorded instead of failing the
// parse: the hook must fail open, and a usage error (exit 2) would block the agent's stop with
// the usage text as its next instruction.
type lenientValue struct {
	flag.Value
	name string
	errs *[]error
}

func (v *lenientValue) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		*v.errs = append(*v.errs, fmt.Errorf("flag -%s: %w", v.name, err))
	}
	return nil
}

func (v *lenientValue) String() string {
	if v == nil || v.Value == nil {
		return ""
	}
	return v.Value.String()
}

func (v *lenientValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func hookClaudeCodeCommand() *command {
	return harnessHookCommand(&command{
		name:    "claude-code",
		summary: "the Claude Code Stop and SubagentStop hook",
		usage:   "hook claude-code [flags] [-- flags]",
		help: `The Claude Code Stop and SubagentStop hook. Claude Code runs it when its agent (or a
sub-agent) is about to stop, with a JSON payload on stdin: the session, the transcript path,
stop_hook_active, the final message, and on newer versions the background tasks and scheduled
prompts. The hook reads the transcript for history (todos, background shells, sub-agents, the
run's tool calls), runs stopgate's checks in their order:

  ` + checkList() + `

and answers:

  let the agent stop    exit 0, nothing on stdout
  keep it going         exit 0, {"decision":"block","reason":"<what to do>"} on stdout
                        (or, with --style context, {"hookSpecificOutput":{"hookEventName":
                        "Stop","additionalContext":"<what to do>"}}, Claude Code 2.1.163+)

It fails open: an error of any kind (a payload that is not JSON, a bad flag or configuration
file, a panic, no decision within --timeout) lets the agent stop, with exit 0, nothing on
stdout, and one line on stderr beginning "stopgate:". A transcript that cannot be read is
not an error: the hook decides on the payload alone and says so on stderr.

Nudges are budgeted per check per run and in a row (see 'stopgate help decide'); the counts
are kept between stops in a small JSON file per session under --state-dir. When that file
cannot be read while stop_hook_active is set, the agent may stop.

Flags may also come after "--", which is how 'stopgate hook install claude-code' writes
them: a flag this binary does not know (after an upgrade or a downgrade) then fails open too.

Install it with 'stopgate hook install claude-code'.`,
	}, true, claudecode.Name)
}

// harnessHookCommand completes c, the command that runs the hook of the harness named name (in
// the registry, harnesses), with the hook flags (-style only when withStyle), parsed
// leniently, and a run that fails open: a bad flag or configuration lets the agent stop, with
// one line on stderr, before the hook is run.
func harnessHookCommand(c *command, withStyle bool, name string) *command {
	var h hookFlags
	var flagErrs []error
	c.failOpen = true
	c.flags = func(fs *flag.FlagSet) {
		h.defineFor(withStyle, func(f *flag.Flag) {
			fs.Var(&lenientValue{Value: f.Value, name: f.Name, errs: &flagErrs}, f.Name, f.Usage)
		})
	}
	c.run = func(ctx context.Context, e env, fs *flag.FlagSet, args []string) int {
		if len(args) > 0 {
			if err := fs.Parse(args); err != nil {
				flagErrs = append(flagErrs, err)
			} else if fs.NArg() > 0 {
				flagErrs = append(flagErrs, fmt.Errorf("unexpected arguments %q", fs.Args()))
			}
		}
		opts, style, err := h.options(e, flagErrs)
		if err != nil {
			fmt.Fprintf(e.stderr, "stopgate: %s; letting the agent stop\n", strings.Join(strings.Fields(err.Error()), " "))
			return 0
		}
		hk := hookOf(name, style)
		if hk == nil {
			fmt.Fprintf(e.stderr, "stopgate: no hook for harness %q; letting the agent stop\n", name)
			return 0
		}
		return hook.Run(ctx, e.stdin, e.stdout, e.stderr, hk, opts)
	}
	return c
}

// options builds the hook driver's options and Claude Code's answer style from the flags.
func (h *hookFlags) options(e env, flagErrs []error) (*hook.Options, claudecode.Style, error) {
	if err := errors.Join(flagErrs...); err != nil {
		return nil, "", err
	}
	style, err := claudecode.ParseStyle(h.style)
	if err != nil {
		return nil, "", fmt.Errorf("flag -style: %w", err)
	}
	sup, err := h.sf.supervisor(e)
	if err != nil {
		return nil, "", err
	}
	dir := h.stateDir
	if dir == "" {
		dir = defaultStateDir(e.getenv)
	}
	shadow, err := h.shadowMode(e)
	if err != nil {
		return nil, "", err
	}
	opts := &hook.Options{Supervisor: sup, StateDir: dir, Timeout: h.timeout, RecordTimeout: hookStoreBusy, Shadow: shadow}
	if rec := h.rf.recorder(e, hookStoreBusy, &h.sf); rec != nil {
		opts.Recorder = rec
	}
	return opts, style, nil
}

// shadowMode reports whether the hook runs in shadow mode: -shadow, or shadow = true in the
// configuration file unless -live.
func (h *hookFlags) shadowMode(e env) (bool, error) {
	switch {
	case h.shadow && h.live:
		return false, errors.New("-shadow and -live contradict each other")
	case h.shadow:
		return true, nil
	case h.live:
		return false, nil
	}
	path, optional := h.sf.configPath, false
	if path == "" {
		path, optional = config.DefaultPath(e.getenv), true
	}
	file, err := config.Load(path, optional)
	if err != nil {
		return false, err
	}
	return file.Shadow, nil
}

// hookStoreBusy is a hook's recording budget: how long it waits for another process holding
// the event log's write lock, for a PostgreSQL connection, and for the record as a whole. The
// harness waits for the hook, and a decision is worth more than its record. (A variable only so
// that tests under the race detector, where creating a SQLite log takes longer, can widen it.)
var hookStoreBusy = hook.DefaultRecordTimeout

// scopeFlags choose the file install and uninstall edit: one flag per scope the harness has
// (the first the default), or -FILEFLAG FILE. Where a scope's file is, the harness's
// Installer.Path says: the path logic is in the harness package alone.
type scopeFlags struct {
	inst   harness.Installer
	scopes []scopeFlag
	// fileFlag names the flag of an explicit file ("settings", "hooks"), fileUsage its usage.
	fileFlag, fileUsage string

	file string
	set  []bool // by scope, in order
}

// scopeFlag is one scope's flag: -user, -project, -local.
type scopeFlag struct {
	scope harness.Scope
	usage string
}

func (f *scopeFlags) define(fs *flag.FlagSet) {
	f.set = make([]bool, len(f.scopes))
	for i, sc := range f.scopes {
		fs.BoolVar(&f.set[i], string(sc.scope), false, sc.usage)
	}
	fs.StringVar(&f.file, f.fileFlag, "", f.fileUsage)
}

// scope returns the scope the flags choose; the first (the default) when none is set, and ""
// when -FILEFLAG names the file.
func (f *scopeFlags) scope() harness.Scope {
	if f.file != "" {
		return ""
	}
	for i, set := range f.set {
		if set {
			return f.scopes[i].scope
		}
	}
	return f.scopes[0].scope
}

// path returns the file the flags name.
func (f *scopeFlags) path(e env) (string, error) {
	n, names := 0, []string{}
	for i, set := range f.set {
		names = append(names, "-"+string(f.scopes[i].scope))
		if set {
			n++
		}
	}
	if f.file != "" {
		n++
	}
	if n > 1 {
		return "", fmt.Errorf("choose one of %s and -%s", strings.Join(names, ", "), f.fileFlag)
	}
	if f.file != "" {
		return filepath.Abs(f.file)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	p, err := f.inst.Path(f.scope(), harness.Env{Home: e.getenv("HOME"), CWD: cwd, Getenv: e.getenv})
	if err != nil {
		return "", fmt.Errorf("%w; name the %s file with -%s", err, f.fileFlag, f.fileFlag)
	}
	return p, nil
}

// recordingValue wraps a flag.Value and records every value it is set to, so install can
// write the same flags into the command it installs.
type recordingValue struct {
	flag.Value
	name string
	set  *[][2]string
}

func (v *recordingValue) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		return err
	}
	*v.set = append(*v.set, [2]string{v.name, s})
	return nil
}

// IsBoolFlag lets a boolean hook flag (-shadow, -live) be given without a value at install.
func (v *recordingValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func (v *recordingValue) String() string {
	if v == nil || v.Value == nil {
		return ""
	}
	return v.Value.String()
}

const settingsHelp = `The settings file is ~/.claude/settings.json by default (-user): the installed command holds
the absolute path of this stopgate binary, which is particular to this machine, so it does not
belong in a project's shared .claude/settings.json (-project) unless everyone has stopgate at
that path. -local edits the project's .claude/settings.local.json, which Claude Code keeps out
of version control.`

// claudeSettingsFlags returns the flags choosing the Claude Code settings file install and
// uninstall edit.
func claudeSettingsFlags() *scopeFlags {
	return &scopeFlags{
		inst: claudecode.Installer{},
		scopes: []scopeFlag{
			{harness.ScopeUser, "edit ~/.claude/settings.json, for every project (the default)"},
			{harness.ScopeProject, "edit .claude/settings.json in the current directory (shared with the project)"},
			{harness.ScopeLocal, "edit .claude/settings.local.json in the current directory (this machine only)"},
		},
		fileFlag:  "settings",
		fileUsage: "edit the settings `FILE`",
	}
}

func hookInstallCommand() *command {
	s := claudeSettingsFlags()
	return installCommand(&command{
		name:    "claude-code",
		summary: "add the stopgate hook to a Claude Code settings file",
		usage:   "hook install claude-code [-user|-project|-local|-settings FILE] [hook flags]",
		help: `Add "stopgate hook claude-code" as a command hook for Claude Code's Stop and SubagentStop
events. Everything else in the settings file is kept: other keys byte for byte and in order,
other events and other hooks. Installing again changes nothing; a stopgate hook already there
with another command (a moved binary, other flags) is updated. A settings file that is not
valid JSON is left alone and reported, with the line and column where it stops being JSON.

The command installed is this binary's absolute path, so it runs from any directory, followed
by the hook flags given here (-config, -mode, -model, -budget, -off, -state-dir, -timeout,
-style, -store, -no-record) after "--". Relative -config, -state-dir and -store paths are made
absolute. The flags and the configuration are checked now, and the event log is opened once,
so a mistake shows here rather than as a hook that lets every stop through. A -store URL with
a password is refused: the settings file would hold it in clear (and a project's is often
committed); put store = "postgres://..." in the configuration file instead, or give the
password by PGPASSWORD or ~/.pgpass. Claude Code gives the hook ` + fmt.Sprint(claudecode.HandlerTimeout) + ` s before it cancels it.

` + settingsHelp,
	}, installSpec{
		files:     s,
		withStyle: true,
		harness:   "Claude Code",
		waits:     time.Duration(claudecode.HandlerTimeout) * time.Second,
		stops:     "cancel",
		installed: "the Stop and SubagentStop hooks",
	})
}

// installSpec is what one harness adds to the shared `stopgate hook install` command.
type installSpec struct {
	files     *scopeFlags   // the flags choosing the file to edit, and the harness's Installer
	withStyle bool          // whether the hook takes -style
	harness   string        // the harness's name, for the timeout warning
	waits     time.Duration // how long the harness waits for the hook
	stops     string        // what the harness does to a hook past waits: "cancel", "kill"
	installed string        // what install adds, for the message: "the AfterAgent hook"
	// after, if set, runs once the file is written, and returns the exit status.
	after func(e env, name, path string) int
}

// installCommand completes c, the `hook install HARNESS` command: it checks the hook flags and
// configuration, refuses a -store URL carrying a password, opens the event log once, builds
// the command line (this binary's absolute path, then the flags given after "--", relative
// -config, -state-dir and -store made absolute) and installs it in the file.
func installCommand(c *command, spec installSpec) *command {
	var h hookFlags
	var embedded [][2]string
	c.flags = func(fs *flag.FlagSet) {
		spec.files.define(fs)
		h.defineFor(spec.withStyle, func(f *flag.Flag) {
			fs.Var(&recordingValue{Value: f.Value, name: f.Name, set: &embedded}, f.Name, f.Usage)
		})
	}
	c.run = func(ctx context.Context, e env, _ *flag.FlagSet, args []string) int {
		name := "hook install " + c.name
		if len(args) > 0 {
			return usageError(e, name, fmt.Sprintf("unexpected arguments %q", args))
		}
		path, err := spec.files.path(e)
		if err != nil {
			return usageError(e, name, err.Error())
		}
		if _, _, err := h.options(e, nil); err != nil {
			fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
			return exitUsage
		}
		if store.HasPassword(h.rf.dsn) {
			fmt.Fprintf(e.stderr, "stopgate %s: --store %s carries a password, which would be written into %s in clear; put the URL in the configuration file (store = \"...\" in %s) or give the password by PGPASSWORD or ~/.pgpass\n",
				name, store.RedactDSN(h.rf.dsn), path, configPathFor(e, &h.sf))
			return exitUsage
		}
		if code := checkStore(ctx, e, name, &h); code != 0 {
			return code
		}
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(e.stderr, "stopgate %s: cannot find this binary's path: %v\n", name, err)
			return 1
		}
		if h.timeout >= spec.waits {
			fmt.Fprintf(e.stderr, "stopgate %s: warning: -timeout %v is not under the %v %s waits for the hook; it would %s the hook first and let the stop proceed\n", name, h.timeout, spec.waits, spec.harness, spec.stops)
		}
		if strings.Contains(exe, "go-build") {
			fmt.Fprintf(e.stderr, "stopgate %s: warning: %s looks like a temporary 'go run' binary; install a built stopgate instead\n", name, exe)
		}
		var words []string
		for _, kv := range embedded {
			v := kv[1]
			if kv[0] == "config" || kv[0] == "state-dir" || kv[0] == "store" && !strings.Contains(v, "://") {
				if abs, err := filepath.Abs(v); err == nil {
					v = abs
				}
			}
			words = append(words, "--"+kv[0]+"="+v)
		}
		if len(words) > 0 {
			words = append([]string{"--"}, words...)
		}
		cmd := spec.files.inst.Command(exe, words...)
		changed, err := spec.files.inst.Install(path, cmd)
		if err != nil {
			fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
			return 1
		}
		if changed {
			fmt.Fprintf(e.stdout, "Installed %s in %s:\n  %s\n", spec.installed, path, cmd)
		} else {
			fmt.Fprintf(e.stdout, "Already installed in %s:\n  %s\n", path, cmd)
		}
		if spec.after != nil {
			return spec.after(e, name, path)
		}
		return 0
	}
	return c
}

// installStoreCheck bounds install's check of the event log.
const installStoreCheck = 10 * time.Second

// checkStore opens, once, the event log the hook h describes will record to, and returns 0, or
// the exit status after saying on stderr why it cannot be opened: a hook that records nothing
// should show at install, not on every stop.
func checkStore(ctx context.Context, e env, name string, h *hookFlags) int {
	rec := h.rf.recorder(e, installStoreCheck, &h.sf)
	if rec == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, installStoreCheck)
	defer cancel()
	_, err := rec.open(ctx)
	if cerr := rec.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "stopgate %s: %s; the hook could not record its decisions\n", name, oneLineText(err.Error()))
		return 1
	}
	return 0
}

// configPathFor returns the configuration file the supervisor flags read, for a message.
func configPathFor(e env, sf *supervisorFlags) string {
	if sf.configPath != "" {
		return sf.configPath
	}
	if p := config.DefaultPath(e.getenv); p != "" {
		return p
	}
	return "the configuration file"
}

// oneLineText folds s onto one line.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

func hookUninstallCommand() *command {
	s := claudeSettingsFlags()
	return uninstallCommand(&command{
		name:    "claude-code",
		summary: "remove the stopgate hook from a Claude Code settings file",
		usage:   "hook uninstall claude-code [-user|-project|-local|-settings FILE]",
		help: `Remove every Stop and SubagentStop command hook that runs "stopgate hook claude-code" from a
Claude Code settings file, with the matcher groups, events and "hooks" object the removal
leaves empty. Everything else keeps its content, every other value as it was and in order; the
file may be re-indented. A file that does not parse is left alone and reported with the line and
column where it stops being JSON.

` + settingsHelp,
		flags: s.define,
	}, s, "hooks")
}

// uninstallCommand completes c, the `hook uninstall HARNESS` command whose flags c.flags
// defines: it removes the stopgate hook from the file files names with the harness's
// Installer. noun is "hook" or "hooks", for the message.
func uninstallCommand(c *command, files *scopeFlags, noun string) *command {
	c.run = func(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
		name := "hook uninstall " + c.name
		if len(args) > 0 {
			return usageError(e, name, fmt.Sprintf("unexpected arguments %q", args))
		}
		file, err := files.path(e)
		if err != nil {
			return usageError(e, name, err.Error())
		}
		changed, err := files.inst.Uninstall(file)
		if err != nil {
			fmt.Fprintf(e.stderr, "stopgate %s: %v\n", name, err)
			return 1
		}
		if changed {
			fmt.Fprintf(e.stdout, "Removed the stopgate %s from %s\n", noun, file)
		} else {
			fmt.Fprintf(e.stdout, "No stopgate %s in %s\n", noun, file)
		}
		return 0
	}
	return c
}
