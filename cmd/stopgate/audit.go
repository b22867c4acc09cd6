package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/stopgate/stopgate/audit"
	"github.com/stopgate/stopgate/store"
)

// auditFlags are the flags of 'stopgate audit'.
type auditFlags struct {
	sf      supervisorFlags
	json    bool
	record  bool
	shadow  bool
	dsn     string
	workers int
}

func (f *auditFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "write one JSON document instead of the table")
	fs.BoolVar(&f.record, "record", false, "record every decision and termination reason in the event log (-store)")
	fs.BoolVar(&f.shadow, "shadow", false, "read from the event log (-store) the would-blocks the stop hook recorded in shadow mode for the audited sessions, shown apart (SHADOW)")
	fs.StringVar(&f.dsn, "store", "", "with -record or -shadow, the event log: a SQLite file `PATH` or a postgres:// URL (default: the config file's store, else $XDG_STATE_HOME/stopgate/events.db, where the hook records)")
	fs.IntVar(&f.workers, "workers", 0, "read and decide up to `N` files at once (default: one per CPU)")
	f.sf.define(fs)
}

func auditCommand() *command {
	var f auditFlags
	return &command{
		name:    "audit",
		summary: "session transcripts in, a report out: which stops stopgate would have blocked",
		usage:   "audit [--json] [--record] [--shadow] [--store DSN] [flags] PATH...",
		help: `Read agent session files (files, or directories walked recursively) and replay every stop
through the supervisor: how each turn and each run ended, the stops stopgate would have
blocked and why, the stops it would have let the agent make because the run waits on work
that will wake it (parked), and, where a stop hook really nudged the agent, whether the agent
then acted (called a tool) or stopped again. Flags go before the paths.

Formats:
  Claude Code session transcripts (JSONL, by content), with their sub-agents' transcripts
  (<session>/subagents/agent-*.jsonl are read with <session>.jsonl, not on their own)
  Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, by their session_meta
  first line), a sub-agent's rollout as that agent: a turn ends by its turn_aborted reason
  or its error event
  Gemini CLI sessions (~/.gemini/tmp/<project>/chats/session-*.jsonl, by their metadata
  record, and the legacy session-*.json files), a sub-agent's chat as that agent: a turn
  ends by the error and info records Gemini CLI writes after it; a hook's continuation
  prompt starts a turn, as the file does not tell it from the user's
  SWE-agent trajectories (*.traj) and mini-swe-agent trajectories (*.traj.json), one run
  each, ended by info.exit_status
How each format's endings map to termination categories (and GeminiCLI, ExitStatusReason):
  go doc github.com/stopgate/stopgate/audit Codex
Other files are skipped and counted; a file that cannot be read is reported and the others go
on. A turn the user interrupted ended cancelled, and is not decided: no stop hook runs then.

Output: a table, one row per session (TURNS, STOPS the agent made, how the RUN ENDED, the stops
stopgate would BLOCK and by which check, PARKED stops, real NUDGES and how many the agent
ACTED on or stopped AGAIN after), a total row, then the would-block stops with the check and
why (for a stall, the sentence), the real nudges, and an account of the files. With -json,
one JSON document: {"sessions": [...], "total": {...}, "files": {...}, "failures": [...]},
snake_case keys, every turn with its decision and trail.

With -record, every decision (and the termination reasons it carries, and the ending of
each interrupted turn) is appended to the event log at the turn's time, so the dashboard
shows the audited sessions. Event IDs derive from the session and the turn, so recording the
same sessions again appends nothing new:
  stopgate audit --record ~/.claude/projects

With -shadow, the event log the stop hook records to is read too: for each audited session,
the would-blocks a hook in shadow mode recorded there (verdict shadow: it decided to keep
the agent going and let it stop) are counted under SHADOW, apart from the real NUDGES, and
listed with the message the hook would have handed on. A session file cannot show them (the
agent stopped and nothing was handed on), and the replay's BLOCK column is what this
stopgate decides now, whichever mode the hook ran in:
  stopgate audit --shadow ~/.claude/projects

Progress is shown on stderr when it is a terminal. Exit status: 0, or 1 when a file could
not be read or the event log not written (the report is still written), 2 for a bad command
line.`,
		flags: f.define,
		run: func(ctx context.Context, e env, _ *flag.FlagSet, args []string) int {
			if len(args) == 0 {
				return usageError(e, "audit", "name at least one file or directory to audit")
			}
			sup, err := f.sf.supervisor(e)
			if err != nil {
				fmt.Fprintf(e.stderr, "stopgate audit: %v\n", err)
				return exitUsage
			}
			opts := &audit.Options{Supervisor: sup, Workers: f.workers, Readers: auditReaders()}
			if f.record || f.shadow {
				st, err := openAuditStore(ctx, e, f.sf.configStore(f.dsn))
				if err != nil {
					fmt.Fprintf(e.stderr, "stopgate audit: %v\n", err)
					return 1
				}
				defer st.Close()
				if f.record {
					opts.Store = st
				}
				if f.shadow {
					opts.HookLog = st
				}
			}
			if isTerminal(e.stderr) {
				opts.Progress = func(p audit.Progress) {
					fmt.Fprintf(e.stderr, "\rstopgate audit: %d/%d files, %.1f MB", p.Done, p.Files, float64(p.Bytes)/1e6)
				}
			}
			rep, runErr := audit.Run(ctx, args, opts)
			if opts.Progress != nil {
				fmt.Fprint(e.stderr, "\r\033[K")
			}
			if rep != nil {
				write := audit.WriteTable
				if f.json {
					write = audit.WriteJSON
				}
				if err := write(e.stdout, rep); err != nil {
					fmt.Fprintf(e.stderr, "stopgate audit: %v\n", err)
					return 1
				}
				if n := len(rep.Failures); n > 0 {
					fmt.Fprintf(e.stderr, "stopgate audit: %d file(s) could not be read; see the report\n", n)
				}
			}
			if runErr != nil {
				fmt.Fprintf(e.stderr, "stopgate audit: %v\n", runErr)
				return 1
			}
			if len(rep.Failures) > 0 {
				return 1
			}
			return 0
		},
	}
}

// openAuditStore opens the event log dsn names, or the default one.
func openAuditStore(ctx context.Context, e env, dsn string) (store.Store, error) {
	if dsn == "" {
		p, err := store.DefaultPath(e.getenv)
		if err != nil {
			return nil, fmt.Errorf("event log: %w (name one with -store)", err)
		}
		dsn = p
	}
	st, err := store.Open(ctx, dsn, nil)
	if err != nil {
		return nil, fmt.Errorf("event log: %w", err)
	}
	return st, nil
}

// isTerminal reports whether w is a terminal (a character device), where progress may be
// drawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
