package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/stopgate/stopgate/store"
)

func TestDefaultPath(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
		err  error
	}{
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/stopgate/events.db", nil},
		{"HOME", map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/stopgate/events.db", nil},
		{"a relative XDG_STATE_HOME is ignored", map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"}, "/home/u/.local/state/stopgate/events.db", nil},
		{"neither", map[string]string{}, "", store.ErrNoStateDir},
		{"only a relative XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "state"}, "", store.ErrNoStateDir},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := store.DefaultPath(func(k string) string { return c.env[k] })
			if got != filepath.FromSlash(c.want) || !errors.Is(err, c.err) {
				t.Errorf("DefaultPath = %q, %v; want %q, %v", got, err, c.want, c.err)
			}
		})
	}
}

func TestOpenChoosesTheBackend(t *testing.T) {
	ctx := context.Background()
	t.Run("an empty DSN opens the default file", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv("XDG_STATE_HOME", dir)
		s, err := store.Open(ctx, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "stopgate", "events.db")); err != nil {
			t.Errorf("the default file was not made: %v", err)
		}
	})
	for _, c := range []struct{ dsn, want string }{
		{"mysql://u@h/db", `unsupported scheme "mysql"`},
		{"file:///tmp/x.db", `unsupported scheme "file"`},
		{"sqlite://x.db", `unsupported scheme "sqlite"`},
		{"postgres://u:secret@127.0.0.1:1/db?connect_timeout=1", "store: open postgres postgres://u:xxxxx@127.0.0.1:1/db"},
		{"postgresql://u@127.0.0.1:1/db?sslmode=bogus", "store: open postgres"},
		{":memory:", "want a file path"},
		{"file:x.db?mode=memory", "want a file path"},
	} {
		t.Run(c.dsn, func(t *testing.T) {
			s, err := store.Open(ctx, c.dsn, nil)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open(%q) succeeded", c.dsn)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open(%q): %v, want it to say %q", c.dsn, err, c.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("Open(%q): the error shows the password: %v", c.dsn, err)
			}
		})
	}
}

func TestSQLiteFile(t *testing.T) {
	ctx := context.Background()
	// Characters a URI would read as syntax, and a directory that does not exist yet.
	path := filepath.Join(t.TempDir(), "a dir?x=1#frag%20", "new", "events.db")
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Event{ID: "1", Kind: store.KindObservation, Time: time.Unix(1, 0), Payload: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	// The file is where it was asked to be, private, and in WAL mode.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the database is not at %s: %v", path, err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode %v, want 0600", perm)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory: %v, %v; want mode 0700", fi.Mode().Perm(), err)
	}
	// WAL mode: the write-ahead log beside the file, as private as it.
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the WAL file: %v; want one with mode 0600", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Opening again keeps what was there.
	s, err = store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Query(ctx, store.Filter{}); err != nil || len(got) != 1 {
		t.Errorf("after reopening: %d events, %v", len(got), err)
	}
}

// rawSQLite opens path with the SQLite driver directly, closed when the test ends.
func rawSQLite(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// rawPostgres opens dsn with pgx directly, closed when the test ends.
func rawPostgres(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		// dsn returns a DSN for a new database and a connection to it that bypasses the store.
		dsn func(t *testing.T) (string, *sql.DB)
	}{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			p := filepath.Join(t.TempDir(), "events.db")
			return p, rawSQLite(t, p)
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			d := postgresDSN(t)
			return d, rawPostgres(t, d)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn, db := c.dsn(t)
			// Two opens: the first migrates, the second finds the schema current.
			for range 2 {
				s, err := store.Open(ctx, dsn, nil)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			rows, err := db.Query("SELECT version, name FROM schema_migrations ORDER BY version")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var v int
				var name string
				if err := rows.Scan(&v, &name); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%d:%s", v, name))
			}
			rows.Close()
			if len(got) != store.SchemaVersion() || got[0] != "1:events" {
				t.Errorf("schema_migrations holds %v, want versions 1 to %d, once each", got, store.SchemaVersion())
			}

			// A database a newer binary migrated is refused, naming both versions.
			newer := store.SchemaVersion() + 7
			if _, err := db.Exec("INSERT INTO schema_migrations (version, name, applied_at_ns) VALUES (" + strconv.Itoa(newer) + ", 'future', 0)"); err != nil {
				t.Fatal(err)
			}
			s, err := store.Open(ctx, dsn, nil)
			if err == nil {
				_ = s.Close()
				t.Fatal("Open accepted a database from the future")
			}
			want := fmt.Sprintf("the database is at schema version %d, this binary knows versions up to %d", newer, store.SchemaVersion())
			if !errors.Is(err, store.ErrSchemaTooNew) || !strings.Contains(err.Error(), want) {
				t.Errorf("Open: %v; want ErrSchemaTooNew saying %q", err, want)
			}
		})
	}
}

// signalHandler passes the background pruner's "pruned" reports to a channel.
type signalHandler struct{ pruned chan int64 }

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h signalHandler) WithGroup(string) slog.Handler            { return h }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "deleted" && r.Level == slog.LevelInfo {
			h.pruned <- a.Value.Int64()
		}
		if a.Key == "err" {
			h.pruned <- -1
		}
		return true
	})
	return nil
}

func TestBackgroundPruner(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "events.db") }},
		{"postgres", func(t *testing.T) string { return postgresDSN(t) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := c.dsn(t)
			s, err := store.Open(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			var events []store.Event
			for i := range 10 {
				events = append(events, store.Event{ID: strconv.Itoa(i), Kind: store.KindObservation,
					Time: time.Unix(int64(i), 0), Payload: json.RawMessage(`{}`)})
			}
			if err := s.Append(ctx, events...); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			h := signalHandler{pruned: make(chan int64, 1)}
			s, err = store.Open(ctx, dsn, &store.Options{
				Retention: store.Retention{MaxEvents: 3}, PruneInterval: time.Hour, Logger: slog.New(h),
			})
			if err != nil {
				t.Fatal(err)
			}
			// The first prune runs right after Open; wait for its report, not for a time.
			if n := <-h.pruned; n != 7 {
				t.Errorf("the background pruner reported %d deleted, want 7", n)
			}
			got, err := s.Query(ctx, store.Filter{})
			if err != nil || len(got) != 3 {
				t.Errorf("after the background prune: %d events, %v; want 3", len(got), err)
			}
			// A zero Retention passed to Prune means the store's.
			if err := s.Append(ctx, store.Event{ID: "new", Kind: store.KindObservation, Time: time.Unix(100, 0), Payload: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Prune(ctx, store.Retention{}); n != 1 || err != nil {
				t.Errorf("Prune with the store's retention: %d, %v; want 1, nil", n, err)
			}
			// Close stops the pruner before it runs again.
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestConcurrentOpen opens one new database from several goroutines at once, as replicas
// starting together (or hooks firing together) do: each must succeed, and each migration must
// be applied once.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		dsn  func(t *testing.T) (string, *sql.DB)
	}{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			p := filepath.Join(t.TempDir(), "events.db")
			return p, rawSQLite(t, p)
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			d := postgresDSN(t)
			return d, rawPostgres(t, d)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn, db := c.dsn(t)
			const openers = 8
			errs := make(chan error, openers)
			var wg sync.WaitGroup
			for i := range openers {
				wg.Go(func() {
					s, err := store.Open(ctx, dsn, nil)
					if err != nil {
						errs <- err
						return
					}
					err = s.Append(ctx, store.Event{ID: strconv.Itoa(i), Kind: store.KindObservation, Time: time.Unix(int64(i), 0), Payload: json.RawMessage(`{}`)})
					errs <- errors.Join(err, s.Close())
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("concurrent Open: %v", err)
				}
			}
			var rows, events int
			if err := db.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&rows); err != nil || rows != store.SchemaVersion() {
				t.Errorf("schema_migrations has %d rows, %v; want %d", rows, err, store.SchemaVersion())
			}
			if err := db.QueryRow("SELECT COUNT(*) FROM events").Scan(&events); err != nil || events != openers {
				t.Errorf("events has %d rows, %v; want %d", events, err, openers)
			}
		})
	}
}
