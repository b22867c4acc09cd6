package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/stopgate/stopgate/internal/config"
	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/server"
	"github.com/stopgate/stopgate/server/dashboard"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/store"
)

// defaultServeAddr is where 'stopgate serve' listens by default: loopback only.
const defaultServeAddr = "127.0.0.1:7318"

// serveFlags are the flags of 'stopgate serve'.
type serveFlags struct {
	sf          supervisorFlags
	addr        string
	dsn         string
	token       string
	noRecord    bool
	groupCommit bool
	fullSync    bool
	maxBody     int64
	logLevel    string
	maxAge      time.Duration
	maxEvents   int64
	prof        profileFlags
}

func (f *serveFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "addr", defaultServeAddr, "listen on `HOST:PORT` (port 0 picks a free one); a non-loopback host requires a token")
	fs.StringVar(&f.dsn, "store", "", "the event log: a SQLite file `PATH` or a postgres:// URL (default: the config file's store, else $XDG_STATE_HOME/stopgate/events.db)")
	fs.StringVar(&f.token, "token", "", "require this bearer `TOKEN` on every request but /healthz (default $STOPGATE_TOKEN; required off loopback)")
	fs.BoolVar(&f.noRecord, "no-record", false, "do not record decisions (the event log is still read by /v1/events, /v1/stats and the dashboard)")
	fs.BoolVar(&f.groupCommit, "group-commit", true, "commit concurrent decisions' events in one transaction; false appends each decision on its own")
	fs.BoolVar(&f.fullSync, "full-sync", false, "SQLite: sync the log to disk at every commit, so recorded decisions survive a power cut too (without it they survive the process being killed)")
	fs.Int64Var(&f.maxBody, "max-body", server.DefaultMaxBodyBytes, "largest request body, in `BYTES`")
	fs.StringVar(&f.logLevel, "log-level", "info", "log at `LEVEL` and above: debug, info, warn or error (to stderr)")
	fs.DurationVar(&f.maxAge, "retain-age", 0, "delete events older than `D` (e.g. 720h), in the background every "+pruneEvery.String()+"; 0 keeps them")
	fs.Int64Var(&f.maxEvents, "retain-events", 0, "keep only the newest `N` events, pruned in the background every "+pruneEvery.String()+"; 0 keeps them all")
	f.prof.define(fs)
	f.sf.define(fs)
}

// pruneEvery is how often serve applies its retention bounds.
const pruneEvery = 10 * time.Minute

func serveCommand() *command {
	var f serveFlags
	return &command{
		name:    "serve",
		summary: "the HTTP API and dashboard, over the event log",
		usage:   "serve [--addr HOST:PORT] [--store PATH|URL] [--token TOKEN] [flags]",
		help: `Serve stopgate's operations over HTTP, record every decision in the event log, and show the
dashboard. The URL it listens on is printed on stdout as one line; logs go to stderr.

Endpoints (JSON in and out, the same shapes as the matching commands' lines):
  POST /v1/decide           a Turn in, a Decision out, recorded before it is answered
  POST /v1/classify/error   POST /v1/classify/stop   POST /v1/stall
  POST /v1/gate             POST /v1/salvage
  GET  /v1/events           recorded events, newest first; filters: kind, harness, session,
                            agent, check, verdict, category, provider, since, until (RFC 3339),
                            limit (default 100, at most 1000)
  GET  /v1/stats            decisions over time, termination categories, pending nudges;
                            filters: harness, since, until, bucket (a duration, default 1h)
  GET  /healthz             {"status":"ok"}
  GET  /metrics             Prometheus text format
  /                         the dashboard

Errors are answered with a 4xx or 5xx status and {"error": "what is wrong"}. A decision the
event log fails to take is still answered, with the header Stopgate-Recorded: false (true when
it was recorded, off with --no-record), and the failure is logged and counted in /metrics.

Security: by default the server listens on loopback and answers only requests addressed to a
loopback host. Listening anywhere else requires a token (--token, or STOPGATE_TOKEN, which
keeps it out of the process list); with a token, every request but /healthz must send
"Authorization: Bearer TOKEN" (a browser on the dashboard is asked for it as a password).
Request bodies are limited (--max-body).

SIGINT or SIGTERM shuts it down gracefully: no new connections, the requests in flight are
answered and their decisions recorded, and the event log is closed.

The supervisor flags are those of 'stopgate decide'; --model also serves POST /v1/stall.

Example:
  stopgate serve --addr 127.0.0.1:7318 &
  curl -s -H 'Content-Type: application/json' \
       -d '{"message":{"text":"Let me check the tests."}}' http://127.0.0.1:7318/v1/decide`,
		flags: f.define,
		run: func(ctx context.Context, e env, _ *flag.FlagSet, args []string) int {
			if len(args) > 0 {
				return usageError(e, "serve", fmt.Sprintf("unexpected arguments %q", args))
			}
			return runServe(ctx, e, &f)
		},
	}
}

func runServe(ctx context.Context, e env, f *serveFlags) int {
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(e.stderr, "stopgate serve: "+format+"\n", args...)
		return code
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return fail(exitUsage, "--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	if f.maxBody <= 0 {
		return fail(exitUsage, "--max-body %d: want a positive number of bytes", f.maxBody)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	token := f.token
	if token == "" {
		token = e.getenv("STOPGATE_TOKEN")
	}

	sup, err := f.sf.supervisor(e)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	file := f.sf.file // read by supervisor
	classifier, err := f.stallClassifier(e, file)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}

	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fail(1, "%v", err)
	}
	defer ln.Close() // Serve closes it; this covers the failures before Serve
	if err := server.CheckAddr(ln.Addr(), token); err != nil {
		if errors.Is(err, server.ErrTokenRequired) {
			return fail(exitUsage, "%v: set --token or STOPGATE_TOKEN, or listen on loopback (--addr 127.0.0.1:PORT)", err)
		}
		return fail(exitUsage, "%v", err)
	}

	dsn := f.sf.configStore(f.dsn)
	if dsn == "" {
		if dsn, err = store.DefaultPath(e.getenv); err != nil {
			return fail(1, "--store: %v", err)
		}
	}
	if f.maxAge < 0 || f.maxEvents < 0 {
		return fail(exitUsage, "--retain-age and --retain-events must not be negative")
	}
	st, err := store.Open(ctx, dsn, &store.Options{
		Logger: log, FullSync: f.fullSync,
		// Pruning deletes in small batches of short transactions, so writers wait one batch at
		// most; with no bound set it never runs.
		Retention:     store.Retention{MaxAge: f.maxAge, MaxEvents: f.maxEvents},
		PruneInterval: pruneEvery,
	})
	if err != nil {
		return fail(1, "%v", err)
	}
	stopProfile, err := f.prof.start()
	if err != nil {
		_ = st.Close()
		return fail(exitUsage, "%v", err)
	}
	code := serveOn(ctx, e, log, ln, server.Options{
		Supervisor: sup,
		Classifier: classifier,
		Store:      st,
		NoRecord:   f.noRecord || f.sf.configNoRecord(),
		AppendEach: !f.groupCommit,
		Writers:    logWriters(dsn),
		Token:      token,
		// The dashboard reads the same event log.
		Dashboard:    dashboard.New(st, &dashboard.Options{Logger: log}),
		MaxBodyBytes: f.maxBody,
		Logger:       log,
	}, redactDSN(dsn))
	if err := stopProfile(); err != nil {
		log.Error("writing the profile", "err", err)
		code = 1
	}
	if err := st.Close(); err != nil {
		log.Error("closing the event log", "err", err)
		return 1
	}
	log.Info("stopped")
	return code
}

// logWriters is how many group commits serve runs at once: four on PostgreSQL, where each
// waits on a round trip and a WAL flush, one on SQLite, whose writes take turns.
func logWriters(dsn string) int {
	if scheme, _, ok := strings.Cut(dsn, "://"); ok && (strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql")) {
		return 4
	}
	return 1
}

// serveOn runs the server on ln until ctx ends and returns the exit status.
func serveOn(ctx context.Context, e env, log *slog.Logger, ln net.Listener, opts server.Options, where string) int {
	srv, err := server.New(opts)
	if err != nil {
		fmt.Fprintf(e.stderr, "stopgate serve: %v\n", err)
		return exitUsage
	}
	u := "http://" + ln.Addr().String()
	fmt.Fprintln(e.stdout, u)
	log.Info("serving", "url", u, "store", where, "record", !opts.NoRecord, "group_commit", !opts.AppendEach, "token", opts.Token != "")
	err = srv.Serve(ctx, ln)
	// Every request is answered now; let the writer append what it holds.
	_ = srv.Close()
	if err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}

// stallClassifier returns the model classifier POST /v1/stall consults: the one --model or
// the configuration file names; nil for none.
func (f *serveFlags) stallClassifier(e env, file config.File) (*stall.ModelClassifier, error) {
	spec := f.sf.modelSpec
	if spec == "" {
		spec = file.Classifier
	}
	if spec == "" {
		return nil, nil
	}
	client, err := model.New(spec, &model.Options{Getenv: e.getenv})
	if err != nil {
		return nil, fmt.Errorf("classifier: %w", err)
	}
	timeout, err := file.Timeout()
	if err != nil {
		return nil, err
	}
	return &stall.ModelClassifier{Client: client, Timeout: timeout}, nil
}

// redactDSN hides the password of a database URL, for the log.
func redactDSN(dsn string) string { return store.RedactDSN(dsn) }
