package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// migrationLockKey is the PostgreSQL advisory lock migrations hold: "stopgate" in ASCII, as a
// bigint. It is per database, so migrations of different schemas in one database serialise
// too, which costs nothing.
const migrationLockKey = 0x73746f7067617465

var postgresDialect = &dialect{
	name:          "postgres",
	numbered:      true,
	insert:        "INSERT INTO",
	migrationLock: fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", int64(migrationLockKey)),
	isDuplicate: func(err error) bool {
		var e *pgconn.PgError
		return errors.As(err, &e) && e.Code == "23505" // unique_violation
	},
	// One statement for any number of events: a round trip per append instead of one per
	// INSERT of a power of two rows plus BEGIN and COMMIT. WITH ORDINALITY keeps the order
	// of the events, which seq records.
	arrayInsert: "INSERT INTO events (" + columns + ") SELECT " +
		"id, ref, kind, at_ns, harness, session, agent, check_name, verdict, category, provider, pending, payload::json " +
		"FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], " +
		"$9::text[], $10::text[], $11::text[], $12::boolean[], $13::text[]) WITH ORDINALITY " +
		"AS u(" + columns + ", ord) ORDER BY ord",
}

// postgresConns bounds the PostgreSQL pool.
const postgresConns = 8

// OpenPostgres opens the event log in the PostgreSQL database that the postgres:// or
// postgresql:// URL dsn names, creating and migrating its tables as needed. The tables go in
// the first schema of the connection's search_path, which the URL may set
// (…?search_path=stopgate); several replicas may open the same database at once. Give the
// log a database or schema of its own: its tables are named events and schema_migrations,
// names other tools use too.
//
// It talks to PostgreSQL through pgx's database/sql adapter, so that it shares every query
// with the SQLite store; a pool of up to eight connections serves all calls.
func OpenPostgres(ctx context.Context, dsn string, opts *Options) (Store, error) {
	o := opts.orDefault()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, scrub(fmt.Errorf("store: open postgres %s: %w", redact(dsn), err), dsn)
	}
	if cfg.ConnectTimeout == 0 {
		// connect_timeout in the URL (or PGCONNECT_TIMEOUT) wins; else the options' bound, so a
		// server that accepts and never answers fails the open instead of holding it.
		cfg.ConnectTimeout = o.connectTimeout()
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(postgresConns)
	db.SetMaxIdleConns(postgresConns)
	if err := migrate(ctx, db, postgresDialect); err != nil {
		_ = db.Close()
		return nil, scrub(fmt.Errorf("store: open postgres %s: %w", redact(dsn), err), dsn)
	}
	return newSQLStore(postgresDialect, db, db, o), nil
}

// redact returns dsn with any password in it replaced, for error messages.
func redact(dsn string) string { return RedactDSN(dsn) }

// DefaultConnectTimeout bounds connecting to PostgreSQL when neither the URL's connect_timeout
// nor [Options.ConnectTimeout] says otherwise.
const DefaultConnectTimeout = 5 * time.Second

func (o Options) connectTimeout() time.Duration {
	if o.ConnectTimeout > 0 {
		return o.ConnectTimeout
	}
	return DefaultConnectTimeout
}
