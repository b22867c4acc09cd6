// Command stopgate decides, when an LLM agent is about to stop, whether it may, and says why a
// run ended. It reads and writes JSON lines so any language and any shell can use it, plugs
// into the stop hooks of agent harnesses, and serves the same operations over HTTP.
//
// Run `stopgate help` for the list of commands and `stopgate help COMMAND` for one of them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// exitUsage is the exit status for a command line that cannot be understood, and for
// JSON-lines input with lines that could not be read (the others are still processed).
const exitUsage = 2

// env is what a command sees of the outside world, so tests can run commands in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one subcommand. A command with subcommands has a nil run.
type command struct {
	name    string
	summary string                 // one line, for the command list
	usage   string                 // the synopsis, after "stopgate "
	help    string                 // paragraphs after the synopsis
	flags   func(fs *flag.FlagSet) // defines the command's flags; nil for none
	run     func(ctx context.Context, e env, fs *flag.FlagSet, args []string) int
	subs    []*command
	// failOpen makes a command line that cannot be parsed exit 0 with the problem on stderr,
	// for commands a harness runs as a hook: any other exit status could block the agent.
	failOpen bool
}

// commands returns the command tree. It is built on each call so nothing is shared between
// in-process runs in tests.
func commands() []*command {
	return []*command{
		auditCommand(),
		doctorCommand(),
		classifyCommand(),
		decideCommand(),
		gateCommand(),
		hookCommand(),
		salvageCommand(),
		serveCommand(),
		stallCommand(),
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit status.
func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		printOverview(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		printOverview(e.stdout)
		return 0
	case "help":
		return runHelp(e, args[1:])
	case "-v", "-version", "--version", "version":
		fmt.Fprintln(e.stdout, "stopgate", version())
		return 0
	}
	cmd, rest, path := resolve(commands(), args)
	if cmd == nil {
		fmt.Fprintf(e.stderr, "stopgate: unknown command %q\nRun 'stopgate help' for the list of commands.\n", strings.Join(path, " "))
		return exitUsage
	}
	if cmd.run == nil {
		help := len(rest) > 0 && (rest[0] == "-h" || rest[0] == "--help" || rest[0] == "-help")
		if cmd.failOpen && !help {
			// A harness runs this as its hook: a name this binary does not know (a binary older
			// than the settings that call it) must let the agent stop, not block it with usage.
			what := "no harness named"
			if len(rest) > 0 {
				what = fmt.Sprintf("unknown harness %q", rest[0])
			}
			fmt.Fprintf(e.stderr, "stopgate: %s: %s (this binary knows %s); letting the agent stop\n", strings.Join(path, " "), what, subNames(cmd))
			return 0
		}
		if len(rest) > 0 && !help {
			fmt.Fprintf(e.stderr, "stopgate %s: unknown subcommand %q\n\n", strings.Join(path, " "), rest[0])
			printCommandHelp(e.stderr, cmd, path)
			return exitUsage
		}
		w, code := e.stderr, exitUsage
		if len(rest) > 0 {
			w, code = e.stdout, 0
		}
		printCommandHelp(w, cmd, path)
		return code
	}
	fs := flag.NewFlagSet("stopgate "+strings.Join(path, " "), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if cmd.flags != nil {
		cmd.flags(fs)
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(e.stdout, cmd, path)
			return 0
		}
		if cmd.failOpen {
			fmt.Fprintf(e.stderr, "stopgate: %s: %v; letting the agent stop\n", strings.Join(path, " "), err)
			return 0
		}
		fmt.Fprintf(e.stderr, "stopgate %s: %v\n\n", strings.Join(path, " "), err)
		printCommandHelp(e.stderr, cmd, path)
		return exitUsage
	}
	return cmd.run(ctx, e, fs, fs.Args())
}

// resolve walks args down the command tree. It returns the deepest command named, the
// remaining arguments, and the path of names it consumed (or tried).
func resolve(cmds []*command, args []string) (*command, []string, []string) {
	var cur *command
	var path []string
	for len(args) > 0 {
		next := find(cmds, args[0])
		if next == nil {
			if cur == nil {
				return nil, nil, []string{args[0]}
			}
			break
		}
		cur, cmds, path, args = next, next.subs, append(path, args[0]), args[1:]
		if cur.run != nil {
			break
		}
	}
	return cur, args, path
}

// subNames lists the names of cmd's subcommands that run, for a message.
func subNames(cmd *command) string {
	var names []string
	for _, s := range cmd.subs {
		if s.run != nil {
			names = append(names, s.name)
		}
	}
	return strings.Join(names, ", ")
}

func find(cmds []*command, name string) *command {
	for _, c := range cmds {
		if c.name == name {
			return c
		}
	}
	return nil
}

func runHelp(e env, args []string) int {
	if len(args) == 0 {
		printOverview(e.stdout)
		return 0
	}
	cmd, rest, path := resolve(commands(), args)
	if cmd == nil || len(rest) > 0 {
		fmt.Fprintf(e.stderr, "stopgate help: unknown command %q\nRun 'stopgate help' for the list of commands.\n", strings.Join(args, " "))
		return exitUsage
	}
	printCommandHelp(e.stdout, cmd, path)
	return 0
}

func printOverview(w io.Writer) {
	fmt.Fprint(w, `stopgate decides, when an LLM agent is about to stop, whether it may, and says why a run ended.

Usage:
  stopgate COMMAND [arguments]

Commands:
`)
	var lines [][2]string
	var walk func(prefix string, cmds []*command)
	walk = func(prefix string, cmds []*command) {
		for _, c := range cmds {
			name := strings.TrimSpace(prefix + " " + c.name)
			if c.run != nil {
				lines = append(lines, [2]string{name, c.summary})
			}
			walk(name, c.subs)
		}
	}
	walk("", commands())
	sort.SliceStable(lines, func(i, j int) bool { return lines[i][0] < lines[j][0] })
	width := 0
	for _, l := range lines {
		width = max(width, len(l[0]))
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s  %s\n", width, l[0], l[1])
	}
	fmt.Fprint(w, `
Commands that read JSON lines write one JSON line per input line, in order. A line that is not
valid JSON is answered with {"error": "line N: ..."}, the rest are still processed, and the exit
status is 2 at the end.

Run 'stopgate help COMMAND' for more about a command.
`)
}

func printCommandHelp(w io.Writer, cmd *command, path []string) {
	usage := cmd.usage
	if usage == "" {
		usage = strings.Join(path, " ")
	}
	fmt.Fprintf(w, "Usage: stopgate %s\n\n", usage)
	if cmd.help != "" {
		fmt.Fprintln(w, strings.TrimSpace(cmd.help))
	} else {
		fmt.Fprintln(w, cmd.summary)
	}
	if len(cmd.subs) > 0 {
		fmt.Fprintln(w, "\nSubcommands:")
		for _, s := range cmd.subs {
			fmt.Fprintf(w, "  %-12s %s\n", s.name, s.summary)
		}
	}
	if cmd.flags != nil {
		fs := flag.NewFlagSet("", flag.ContinueOnError)
		cmd.flags(fs)
		has := false
		fs.VisitAll(func(*flag.Flag) { has = true })
		if has {
			fmt.Fprintln(w, "\nFlags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
		}
	}
}
