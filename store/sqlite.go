package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

var sqliteDialect = &dialect{
	name: "sqlite",
	// OR ROLLBACK: a row that breaks a constraint (a duplicate ID) rolls the whole transaction
	// back, which is what Append does on any error anyway. With the default, ABORT, SQLite
	// must be able to undo one statement of many rows alone, and so copies every page the
	// statement changes to a statement journal first.
	insert: "INSERT OR ROLLBACK INTO",
	// BEGIN IMMEDIATE (the writer pool's _txlock) already holds the write lock.
	migrationLock: "",
	isDuplicate: func(err error) bool {
		var e *sqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	},
}

// readers is how many connections the SQLite store reads on at most. In WAL mode they read
// while the one writer writes.
const readers = 4

// OpenSQLite opens the SQLite event log at path, creating the file (mode 0600) and its
// directory (mode 0700) when missing, and migrating its schema.
//
// The file is in WAL mode, so readers never block the writer nor it them, and several
// processes may append to it at once: each write transaction begins IMMEDIATE, taking the
// database's write lock up front, and waits up to [Options.BusyTimeout] for another
// process's. Within the process, writes go through one connection and reads through up to
// four.
//
// Durability: with synchronous=NORMAL, the default, a commit has reached the operating system
// (the WAL file) before Append returns, so acknowledged events survive the process being
// killed, SIGKILL included. The writer leaves checkpoints to a connection of the store's
// own, which copies the WAL into the database file every 200 ms, beside the writer instead of
// inside one of its commits, and syncs the WAL to the disk first. So a power cut can lose the
// commits of the last 200 ms or so (the database stays sound); [Options.FullSync]
// (synchronous=FULL) syncs at every commit instead.
func OpenSQLite(ctx context.Context, path string, opts *Options) (Store, error) {
	o := opts.orDefault()
	if path == "" {
		return nil, errors.New("store: open sqlite: empty path")
	}
	if path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("store: open sqlite %q: want a file path (an in-memory database is not shared between connections, and URIs are not accepted)", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	// Create the file ourselves so that it is private: the log holds what agents said.
	// SQLite gives its -wal and -shm files the database file's permissions.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}

	busy := o.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	sync := "NORMAL"
	if o.FullSync {
		sync = "FULL"
	}
	base := sqliteURI(abs) + "?_busy_timeout=" + strconv.FormatInt(busy.Milliseconds(), 10)
	w, err := sql.Open("sqlite", base+"&_journal_mode=WAL&_synchronous="+sync+"&_txlock=immediate&_pragma=wal_autocheckpoint("+strconv.Itoa(writerCheckpointPages)+")")
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %s: %w", abs, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := migrate(ctx, w, sqliteDialect); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", abs, err)
	}
	r, err := sql.Open("sqlite", base+"&_query_only=1")
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", abs, err)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	ck, err := sql.Open("sqlite", base)
	if err != nil {
		_ = w.Close()
		_ = r.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", abs, err)
	}
	ck.SetMaxOpenConns(1)
	s := newSQLStore(sqliteDialect, w, r, o)
	s.ck = ck
	s.stopCk = startCheckpointer(ck, checkpointInterval)
	return sqliteStore{s}, nil
}

// writerCheckpointPages is the WAL size, in pages, at which the writer checkpoints itself
// (40 MB; SQLite's default is 1,000 pages).
const writerCheckpointPages = 10_000

// checkpointInterval is how often the checkpointer copies what the WAL holds into the
// database file.
const checkpointInterval = 200 * time.Millisecond

// startCheckpointer checkpoints the WAL on db every interval until the returned function is
// called, which waits for it to stop.
//
// The writer connection leaves checkpoints to it: SQLite's automatic checkpoint runs inside
// the commit that crosses its threshold, a thousand pages copied and two fsyncs by default,
// while every decision of that commit waits. A PASSIVE checkpoint on a connection of its own
// runs beside the writer and never blocks it, nor readers; it syncs the WAL before it
// copies, as the automatic one does, so durability is the same. The writer keeps an
// automatic checkpoint at writerCheckpointPages, far beyond what the checkpointer lets
// the WAL reach, for processes that never live long enough for a tick (hooks that follow
// one another closely, none of them the last to close the file).
func startCheckpointer(db *sql.DB, interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// A failure (the database busy, say) is retried at the next tick; nothing is
			// lost meanwhile, the WAL only grows.
			_, _ = db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		}
	}()
	return func() { cancel(); <-done }
}

// sqliteURI returns the file: URI of the absolute path abs, escaping what a URI would read as
// syntax, so that a path holding ? or # names the right file.
func sqliteURI(abs string) string {
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(abs))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/…
	}
	return "file://" + p
}
