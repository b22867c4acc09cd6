package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/store/storetest"
)

// postgresEnv names the variable holding the DSN of the PostgreSQL server the tests use.
const postgresEnv = "STOPGATE_TEST_POSTGRES"

// postgresAdmin connects to the test server, failing the test with how to start one when
// there is none.
var postgresAdmin = sync.OnceValues(func() (*sql.DB, error) {
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		return nil, fmt.Errorf("%s is not set: run scripts/postgres.sh, which starts a throwaway server and prints its DSN, and export it: export %s=\"$(scripts/postgres.sh)\"", postgresEnv, postgresEnv)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", postgresEnv, err)
	}
	db := stdlib.OpenDB(*cfg)
	if err := db.PingContext(context.Background()); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("%s: the server does not answer (run scripts/postgres.sh to start it): %w", postgresEnv, err)
	}
	return db, nil
})

// postgresDSN makes a fresh schema on the test server, dropped when the test ends, and returns
// a DSN whose search_path puts the store's tables in it: runs and tests never see each other's
// tables.
func postgresDSN(t testing.TB) string {
	t.Helper()
	db, err := postgresAdmin()
	if err != nil {
		t.Fatal(err)
	}
	schema := "stopgate_test_" + strings.ToLower(store.NewID())
	if _, err := db.Exec(`CREATE SCHEMA "` + schema + `"`); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec(`DROP SCHEMA "` + schema + `" CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(os.Getenv(postgresEnv))
	if err != nil {
		t.Fatalf("%s: %v", postgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// openPostgres opens a new PostgreSQL store in a fresh schema.
func openPostgres(t *testing.T) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), postgresDSN(t), nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestPostgresConformance(t *testing.T) {
	if _, err := postgresAdmin(); err != nil {
		t.Fatal(err)
	}
	storetest.Run(t, openPostgres)
}
