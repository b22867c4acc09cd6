package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrationFiles embed.FS

// migration is one numbered schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the backend's migrations in version order. Their files are named
// NNNN_name.sql, numbered from 1 without gaps; anything else is a build mistake and panics.
func migrations(backend string) []migration {
	dir := path.Join("migrations", backend)
	ents, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		panic(fmt.Sprintf("store: migrations for %s: %v", backend, err))
	}
	var ms []migration
	for _, e := range ents {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			panic(fmt.Sprintf("store: migration file %s/%s is not named NNNN_name.sql", dir, e.Name()))
		}
		b, err := fs.ReadFile(migrationFiles, path.Join(dir, e.Name()))
		if err != nil {
			panic(fmt.Sprintf("store: migration %s/%s: %v", dir, e.Name(), err))
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			panic(fmt.Sprintf("store: %s migrations are not numbered 1, 2, … without gaps (found %d at position %d)", backend, m.version, i+1))
		}
	}
	return ms
}

// SchemaVersion returns the schema version this binary migrates databases to: the number of
// its last migration.
func SchemaVersion() int { return len(migrations(sqliteDialect.name)) }

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version       INTEGER NOT NULL PRIMARY KEY,
	name          TEXT    NOT NULL,
	applied_at_ns BIGINT  NOT NULL
)`

// migrate brings db's schema up to the last of the dialect's migrations. When the schema is
// already there it costs one read. Otherwise each pending migration runs in its own
// transaction, which first takes the dialect's lock and re-reads the version, so that when
// several processes open a new database at once one of them applies each migration and the
// others find it applied.
func migrate(ctx context.Context, db *sql.DB, d *dialect) error {
	ms := migrations(d.name)
	latest := len(ms)
	var current int
	// The fast path: a database at the latest version needs no write lock. An error here
	// (no table yet) sends us down the locked path, which reports real errors.
	if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err == nil {
		if current > latest {
			return tooNew(current, latest)
		}
		if current == latest {
			return nil
		}
	}
	for _, m := range ms {
		if err := applyMigration(ctx, db, d, m, latest); err != nil {
			return err
		}
	}
	return nil
}

// applyMigration applies m in one transaction unless the database already has it.
func applyMigration(ctx context.Context, db *sql.DB, d *dialect, m migration, latest int) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate to version %d: %w", m.version, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if d.migrationLock != "" {
		if _, err := tx.ExecContext(ctx, d.migrationLock); err != nil {
			return fmt.Errorf("store: migrate to version %d: lock: %w", m.version, err)
		}
	}
	if _, err := tx.ExecContext(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("store: migrate: create schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("store: migrate: read the schema version: %w", err)
	}
	if current > latest {
		return tooNew(current, latest)
	}
	if current >= m.version {
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("store: migrate to version %d (%s): %w", m.version, m.name, err)
	}
	b := &builder{d: d}
	b.sql("INSERT INTO schema_migrations (version, name, applied_at_ns) VALUES (").
		arg(int64(m.version)).sql(", ").arg(m.name).sql(", ").arg(time.Now().UnixNano()).sql(")")
	if _, err := tx.ExecContext(ctx, b.sb.String(), b.args...); err != nil {
		return fmt.Errorf("store: migrate to version %d: record it: %w", m.version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate to version %d: commit: %w", m.version, err)
	}
	return nil
}

func tooNew(db, binary int) error {
	return fmt.Errorf("store: %w: the database is at schema version %d, this binary knows versions up to %d; upgrade stopgate",
		ErrSchemaTooNew, db, binary)
}
