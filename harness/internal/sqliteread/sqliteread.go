// Package sqliteread opens a harness's own SQLite database read-only, for the session readers
// whose harness keeps part of a session there (Copilot CLI's todos, opencode's sessions). It
// never writes the file, creates no file that is not there, and waits a little for a writer's
// lock, since the harness may be writing the database while its stop hook runs.
package sqliteread

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go driver, registered as "sqlite"
)

// BusyTimeout is how long a query waits for a writer's lock before it fails.
const BusyTimeout = "2000"

// Open opens the database at path read-only. A missing file is an error wrapping
// fs.ErrNotExist; Open does not create one.
func Open(path string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	u := url.URL{Path: abs}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?mode=ro&_busy_timeout="+BusyTimeout+"&_query_only=1")
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Query opens the database at path, runs query with args, hands each row to scan, and closes
// the database.
func Query(ctx context.Context, path, query string, scan func(*sql.Rows) error, args ...any) error {
	db, err := Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// IsNotExist reports whether err says the database file is not there.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
