package store

import (
	"context"
	"database/sql"
	"fmt"
)

// MigrateTo migrates db, a "sqlite" or "postgres" database, to the given schema version and no
// further, as the binary whose last migration that was would: the tests make databases of
// older schemas with it.
func MigrateTo(ctx context.Context, db *sql.DB, backend string, version int) error {
	d := map[string]*dialect{sqliteDialect.name: sqliteDialect, postgresDialect.name: postgresDialect}[backend]
	ms := migrations(backend)
	if d == nil || version < 1 || version > len(ms) {
		return fmt.Errorf("no version %d of the %q schema", version, backend)
	}
	for _, m := range ms[:version] {
		if err := applyMigration(ctx, db, d, m, version); err != nil {
			return err
		}
	}
	return nil
}
