package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/internal/config"
	"github.com/stopgate/stopgate/internal/wire"
	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/stall"
)

// supervisorFlags are the flags every command that decides shares.
type supervisorFlags struct {
	configPath string
	mode       string
	modelSpec  string
	budgets    config.BudgetFlag
	off        config.ListFlag

	// file and filePath are the configuration file supervisor read, for what a command takes
	// from it besides the supervisor (store, record).
	file     config.File
	filePath string
}

// configStore returns the event log a command records to: flagDSN when set, else the
// configuration file's store (a relative path taken from the file's directory), else "" (the
// default log). It is valid after supervisor.
func (f *supervisorFlags) configStore(flagDSN string) string {
	if flagDSN != "" || f.file.Store == "" {
		return flagDSN
	}
	dsn := f.file.Store
	if !strings.Contains(dsn, "://") && !filepath.IsAbs(dsn) && f.filePath != "" {
		dsn = filepath.Join(filepath.Dir(f.filePath), dsn)
	}
	return dsn
}

// configNoRecord reports whether the configuration file turns recording off (record = false).
// It is valid after supervisor.
func (f *supervisorFlags) configNoRecord() bool {
	return f.file.Record != nil && !*f.file.Record
}

func (f *supervisorFlags) define(fs *flag.FlagSet) {
	f.budgets = config.BudgetFlag{}
	fs.StringVar(&f.configPath, "config", "", "read the configuration `FILE` (TOML; default $XDG_CONFIG_HOME/stopgate/config.toml when it exists)")
	fs.StringVar(&f.mode, "mode", "", "`interactive` or autonomous, for turns that do not say (overrides the file)")
	fs.StringVar(&f.modelSpec, "model", "", "model stall classifier `SPEC`, consulted after the lexical one (overrides the file)")
	fs.Var(f.budgets, "budget", "continuations a check may give per run, as `CHECK=N` (repeatable)")
	fs.Var(&f.off, "off", "turn a `CHECK` off (repeatable, or comma-separated)")
}

// supervisor builds the Supervisor the flags and the configuration file describe.
func (f *supervisorFlags) supervisor(e env) (*stopgate.Supervisor, error) {
	path, optional := f.configPath, false
	if path == "" {
		path, optional = config.DefaultPath(e.getenv), true
	}
	file, err := config.Load(path, optional)
	if err != nil {
		return nil, err
	}
	f.file, f.filePath = file, path
	if f.mode != "" {
		file.Mode = f.mode
	}
	if f.modelSpec != "" {
		file.Classifier = f.modelSpec
	}
	for k, v := range f.budgets {
		if file.Budgets == nil {
			file.Budgets = map[string]int{}
		}
		file.Budgets[k] = v
	}
	for _, c := range f.off {
		if file.Checks == nil {
			file.Checks = map[string]bool{}
		}
		file.Checks[c] = false
	}
	cfg, err := file.Supervisor()
	if err != nil {
		return nil, err
	}
	if file.Classifier != "" {
		client, err := model.New(file.Classifier, &model.Options{Getenv: e.getenv})
		if err != nil {
			return nil, fmt.Errorf("classifier: %w", err)
		}
		timeout, err := file.Timeout()
		if err != nil {
			return nil, err
		}
		cfg.Classifier = &stall.ModelClassifier{Client: client, Timeout: timeout}
	}
	return stopgate.New(cfg), nil
}

func decideCommand() *command {
	var sf supervisorFlags
	var rf recordFlags
	return &command{
		name:    "decide",
		summary: "Turns in, Decisions out: may the agent stop?",
		usage:   "decide [flags] < turns.jsonl",
		help: `Read one Turn per line (what a harness knows when its agent is about to stop) and write the
Decision: stop, continue with a message for the agent, or retry after a remedy, with the trail
of every check that ran. The Turn's JSON is documented in the README; every field is optional
and an absent field means unknown.

Checks, in order: ` + checkList() + `.

Output:
  {"verdict": "stop|continue|retry", "check": "stall", "message": "...",
   "reason": {...termination reason, when the run ends...},
   "trail": [{"check": "error", "outcome": "pass", "why": "..."}, ...],
   "nudges": {"consecutive": 1, "given": {"stall": 1, ...}}}

Pass "nudges" back in the next Turn of the same run so the budgets hold.

Every decision is recorded in the event log (-store, else the configuration file's store;
-no-record, or record = false in the file, turns it off). A log that
cannot be written is reported on stderr once and the decisions are still written out.`,
		flags: func(fs *flag.FlagSet) {
			sf.define(fs)
			rf.define(fs)
		},
		run: func(ctx context.Context, e env, _ *flag.FlagSet, args []string) int {
			if len(args) > 0 {
				return usageError(e, "decide", "takes no arguments; it reads JSON lines on stdin")
			}
			sup, err := sf.supervisor(e)
			if err != nil {
				fmt.Fprintf(e.stderr, "stopgate decide: %v\n", err)
				return exitUsage
			}
			rec := rf.recorder(e, 0, &sf)
			defer rec.Close()
			var recErr error
			bad, err := eachLine(e.stdin, e.stdout, func(t stopgate.Turn) (any, error) {
				if err := wire.CheckTurn(t); err != nil {
					return nil, err
				}
				d := sup.Decide(ctx, t)
				if rec != nil && recErr == nil {
					if recErr = rec.Record(ctx, t, d); recErr != nil {
						fmt.Fprintf(e.stderr, "stopgate decide: %v; decisions from here on are not recorded\n", recErr)
					}
				}
				return d, nil
			})
			return finishLines(e, "decide", bad, err)
		},
	}
}

func checkList() string {
	var names []string
	for _, c := range stopgate.Checks() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}
