package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/internal/config"
	"github.com/stopgate/stopgate/store"
)

func doctorCommand() *command {
	var jsonOut bool
	var configPath string
	return &command{
		name:    "doctor",
		summary: "check that the installed hooks would run, and say how to fix what would not",
		usage:   "doctor [--json] [--config FILE] [HARNESS...]",
		help: `Check each harness's stopgate installation, and stopgate's own: for every harness named
(all of them when none is), what is installed and where (a settings or hooks file entry, a
plugin, an extension), whether the binary each one runs exists and which version it is,
whether the harness would run the hook (Codex: the hook trusted, as Codex itself lists it;
Gemini CLI: hooksConfig.enabled, hooksConfig.disabled and the folder's trust; Claude Code:
disableAllHooks, the plugin enabled), and the harness's version on PATH and whether it has
the events stopgate uses. Then the configuration file, which a hook that cannot read it fails
open on, and the event log: where it is and whether it opens.

Each finding is one line: ok, warn, FAIL (a problem, with how to fix it after "fix:"), or
"-" (does not apply: the harness is not on PATH and nothing of stopgate's is installed for
it). The exit status is 1 when there is any problem, 0 otherwise. --json writes the findings
as one JSON object instead.

Harnesses: ` + strings.Join(doctorNames(), ", ") + `.`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&jsonOut, "json", false, "write the findings as JSON")
			fs.StringVar(&configPath, "config", "", "check the configuration `FILE` (default $XDG_CONFIG_HOME/stopgate/config.toml when it exists)")
		},
		run: func(ctx context.Context, e env, _ *flag.FlagSet, args []string) int {
			return runDoctor(ctx, e, args, configPath, jsonOut)
		},
	}
}

// doctorNames returns the harnesses that have a doctor, in registry order.
func doctorNames() []string {
	var out []string
	for _, h := range harnesses(claudecode.StyleBlock) {
		if h.Doctor != nil {
			out = append(out, h.Name)
		}
	}
	return out
}

// doctorReport is what --json writes.
type doctorReport struct {
	Stopgate  doctorSection   `json:"stopgate"`
	Harnesses []doctorSection `json:"harnesses"`
	Problems  int             `json:"problems"`
}

// doctorSection is the findings about one harness, or stopgate's own.
type doctorSection struct {
	Name   string        `json:"name"`
	Checks []doctorCheck `json:"checks"`
}

type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	Fix    string `json:"fix,omitempty"`
}

func runDoctor(ctx context.Context, e env, args []string, configPath string, jsonOut bool) int {
	want := map[string]bool{}
	known := doctorNames()
	for _, a := range args {
		found := false
		for _, n := range known {
			if a == n {
				found = true
			}
		}
		if !found {
			fmt.Fprintf(e.stderr, "stopgate doctor: unknown harness %q (want %s)\n", a, strings.Join(known, ", "))
			return exitUsage
		}
		want[a] = true
	}
	henv := harness.Env{Home: e.getenv("HOME"), Getenv: e.getenv}
	henv.CWD, _ = os.Getwd()
	henv.Executable, _ = os.Executable()

	report := doctorReport{Stopgate: doctorSection{Name: "stopgate", Checks: stopgateChecks(ctx, e, henv, configPath)}}
	for _, h := range harnesses(claudecode.StyleBlock) {
		if h.Doctor == nil || len(want) > 0 && !want[h.Name] {
			continue
		}
		checks := h.Doctor.Checks(ctx, henv)
		if want[h.Name] {
			// Named: a harness that is not there is a problem, not a check that does not apply.
			for i := range checks {
				if checks[i].Status == harness.CheckSkip && checks[i].Name == "stopgate installed" {
					checks[i].Status = harness.CheckFail
				}
			}
		}
		report.Harnesses = append(report.Harnesses, doctorSection{Name: h.Name, Checks: toDoctorChecks(checks)})
	}
	for _, s := range append([]doctorSection{report.Stopgate}, report.Harnesses...) {
		for _, c := range s.Checks {
			if c.Status == string(harness.CheckFail) {
				report.Problems++
			}
		}
	}
	if jsonOut {
		b, _ := json.MarshalIndent(report, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		writeDoctor(e.stdout, report)
	}
	if report.Problems > 0 {
		return 1
	}
	return 0
}

func toDoctorChecks(cs []harness.Check) []doctorCheck {
	out := make([]doctorCheck, len(cs))
	for i, c := range cs {
		out[i] = doctorCheck{Name: c.Name, Status: string(c.Status), Detail: c.Detail, Fix: c.Fix}
	}
	return out
}

// writeDoctor writes the report as text: one line per finding.
func writeDoctor(w io.Writer, r doctorReport) {
	label := map[string]string{"ok": "ok  ", "warn": "warn", "fail": "FAIL", "skip": "-   "}
	for i, s := range append([]doctorSection{r.Stopgate}, r.Harnesses...) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, s.Name)
		for _, c := range s.Checks {
			line := fmt.Sprintf("  %s  %s", label[c.Status], c.Name)
			if c.Detail != "" {
				line += ": " + c.Detail
			}
			if c.Fix != "" && c.Status != string(harness.CheckOK) {
				line += "; fix: " + c.Fix
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintln(w)
	switch r.Problems {
	case 0:
		fmt.Fprintln(w, "no problems found")
	case 1:
		fmt.Fprintln(w, "1 problem found")
	default:
		fmt.Fprintf(w, "%d problems found\n", r.Problems)
	}
}

// stopgateChecks are the findings about stopgate itself: this binary, the configuration file
// and the event log.
func stopgateChecks(ctx context.Context, e env, henv harness.Env, configPath string) []doctorCheck {
	out := []doctorCheck{{Name: "this binary", Status: "ok", Detail: henv.Executable + ": stopgate " + version()}}

	path, optional := configPath, false
	if path == "" {
		path, optional = config.DefaultPath(e.getenv), true
	}
	file, err := config.Load(path, optional)
	cc := doctorCheck{Name: "configuration " + path, Status: "ok"}
	switch {
	case err != nil:
		cc.Status, cc.Detail = "fail", err.Error()+": every hook fails open on it and lets the agent stop"
		cc.Fix = "correct the file (see 'stopgate help decide' for its keys)"
	case path == "":
		cc.Name, cc.Detail = "configuration", "no configuration file: the defaults"
	default:
		if _, statErr := os.Stat(path); statErr != nil {
			cc.Detail = "not there: the defaults"
		} else if _, err := file.Supervisor(); err != nil {
			cc.Status, cc.Detail = "fail", err.Error()+": every hook fails open on it"
			cc.Fix = "correct the file (see 'stopgate help decide' for its keys)"
		} else {
			cc.Detail = "reads"
		}
	}
	out = append(out, cc)
	out = append(out, eventLogCheck(ctx, e, file.Store))
	return out
}

// eventLogCheck reports where the event log is and whether it opens; a SQLite file not yet
// created is fine when its directory can be made.
func eventLogCheck(ctx context.Context, e env, dsn string) doctorCheck {
	c := doctorCheck{Name: "event log"}
	if dsn == "" {
		p, err := store.DefaultPath(e.getenv)
		if err != nil {
			c.Status, c.Detail = "fail", err.Error()
			c.Fix = "set HOME or XDG_STATE_HOME, or name a store with store = \"…\" in the configuration"
			return c
		}
		dsn = p
	}
	shown := dsn
	if strings.Contains(dsn, "://") {
		shown = dsn[:strings.Index(dsn, "://")+3] + "…"
	} else if _, err := os.Stat(dsn); errors.Is(err, os.ErrNotExist) {
		dir := filepath.Dir(dsn)
		for d := dir; ; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil {
				if !fi.IsDir() {
					c.Status, c.Detail = "fail", d+" is not a directory: the event log "+dsn+" cannot be created"
					c.Fix = "remove " + d + ", or name another store in the configuration"
					return c
				}
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
		c.Name = "event log " + dsn
		c.Status, c.Detail = "ok", "not created yet: the first decision recorded creates it"
		return c
	}
	c.Name = "event log " + shown
	st, err := store.Open(ctx, dsn, &store.Options{BusyTimeout: hookStoreBusy})
	if err != nil {
		c.Status, c.Detail = "fail", err.Error()+": decisions are made but not recorded"
		c.Fix = "move the file aside, or name another store with --store or store = \"…\""
		return c
	}
	_ = st.Close()
	c.Status, c.Detail = "ok", "opens"
	return c
}
