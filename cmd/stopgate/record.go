package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// recordFlags are the flags of every command that records its decisions in the event log.
type recordFlags struct {
	dsn      string
	noRecord bool
}

func (f *recordFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.dsn, "store", "", "record decisions in the event log at `DSN`: a SQLite file path or a postgres:// URL (default: the config file's store, else $XDG_STATE_HOME/stopgate/events.db)")
	fs.BoolVar(&f.noRecord, "no-record", false, "do not record decisions in the event log")
}

// recorder returns the recorder the flags ask for, or nil with -no-record or when the
// configuration file sf read says record = false. -store names the log, else the file's
// store, else the default one. The store is opened on the first Record, so a command that
// decides nothing opens nothing, and an answer a harness waits for is never held up by opening
// the log. busy bounds a SQLite write lock wait and a PostgreSQL connection (zero: the store's
// defaults).
func (f *recordFlags) recorder(e env, busy time.Duration, sf *supervisorFlags) *storeRecorder {
	if f.noRecord || sf.configNoRecord() {
		return nil
	}
	return &storeRecorder{dsn: sf.configStore(f.dsn), getenv: e.getenv, busy: busy}
}

// storeRecorder appends each decision, with its termination reasons, to the event log.
type storeRecorder struct {
	dsn    string
	getenv func(string) string
	busy   time.Duration

	mu  sync.Mutex
	st  store.Store
	err error // the error opening the store, returned by every Record
}

func (r *storeRecorder) open(ctx context.Context) (store.Store, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st != nil || r.err != nil {
		return r.st, r.err
	}
	dsn := r.dsn
	if dsn == "" {
		p, err := store.DefaultPath(r.getenv)
		if err != nil {
			r.err = fmt.Errorf("event log: %w (name one with -store, or pass -no-record)", err)
			return nil, r.err
		}
		dsn = p
	}
	r.st, r.err = store.Open(ctx, dsn, &store.Options{BusyTimeout: r.busy, ConnectTimeout: r.busy})
	if r.err != nil {
		r.err = fmt.Errorf("event log: %w", r.err)
	}
	return r.st, r.err
}

// Record appends the events of decision d for turn t, and the finish-reason observation of
// the turn's final message. The time recorded is the turn's, or the
// current time when the turn has none.
func (r *storeRecorder) Record(ctx context.Context, t stopgate.Turn, d stopgate.Decision) error {
	st, err := r.open(ctx)
	if err != nil {
		return err
	}
	at := t.Now
	if at.IsZero() {
		at = time.Now()
	}
	events, err := store.DecisionEvents(t, d, at)
	if err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	if obs, ok, err := store.FinalMessageObservation(t, at); err != nil {
		return fmt.Errorf("event log: %w", err)
	} else if ok {
		events = append(events, obs)
	}
	if err := st.Append(ctx, events...); err != nil {
		return fmt.Errorf("event log: %w", err)
	}
	return nil
}

// Close closes the store if it was opened.
func (r *storeRecorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		return nil
	}
	return r.st.Close()
}
