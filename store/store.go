package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/internal/xdg"
	"github.com/stopgate/stopgate/termination"
)

// Store is an event log. Implementations are safe for concurrent use by many goroutines, and
// the SQLite one by many processes sharing its file.
type Store interface {
	// Append records events atomically: either all of them are stored or, when it returns an
	// error, none is. Every event is validated first (see [Event.Validate]); an invalid one,
	// or an ID already stored, fails the whole call with an error naming the event and the
	// problem. Once Append returns nil the events are durable: they survive the process
	// being killed (and, for SQLite with [Options.FullSync] and for PostgreSQL, a crash of
	// the machine). Appending no events does nothing.
	Append(ctx context.Context, events ...Event) error
	// Query returns the events f selects, oldest first (newest first with f.Newest); events
	// with the same time come in the order they were appended.
	Query(ctx context.Context, f Filter) ([]Event, error)
	// Stats aggregates the events f selects for the dashboard.
	Stats(ctx context.Context, f StatsFilter) (Stats, error)
	// Prune deletes the events r does not keep and returns how many it deleted. A zero r
	// means the store's [Options.Retention]; when that is zero too, Prune deletes nothing.
	// It deletes in small batches, each its own short transaction, so concurrent appends
	// wait for one batch at most; when ctx ends between batches it returns what it deleted
	// so far with ctx's error.
	Prune(ctx context.Context, r Retention) (int64, error)
	// Close stops the background pruner, waits for calls in progress to finish and releases
	// the database. Calls after Close fail with [ErrClosed]; closing again returns nil.
	Close() error
}

// Errors returned, wrapped, by the stores. Test for them with [errors.Is].
var (
	// ErrInvalidEvent: an event failed validation; the error names the event and the field.
	ErrInvalidEvent = errors.New("invalid event")
	// ErrDuplicate: an appended event's ID is already stored, or appears twice in one call.
	ErrDuplicate = errors.New("duplicate event id")
	// ErrInvalidFilter: a Filter, StatsFilter or Retention holds a value out of range (a
	// negative limit, bucket or bound).
	ErrInvalidFilter = errors.New("invalid filter")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store is closed")
	// ErrSchemaTooNew: the database's schema was migrated by a newer stopgate than this one;
	// the error names both versions.
	ErrSchemaTooNew = errors.New("database schema is newer than this binary")
	// ErrNoStateDir: neither $XDG_STATE_HOME nor $HOME is set, so there is no default path.
	ErrNoStateDir = errors.New("no state directory: set XDG_STATE_HOME or HOME")
)

// Filter selects events for [Store.Query]. Its zero value selects every event; each field
// that is set narrows the selection, and fields combine with AND.
type Filter struct {
	// Since and Until bound the events' time to [Since, Until); a zero bound is open.
	Since, Until time.Time
	// Kind selects one kind of event.
	Kind Kind
	// Harness, Session and Agent select by origin.
	Harness, Session, Agent string
	// Check, Verdict, Category and Provider select by the indexed columns of the same names.
	Check    stopgate.Check
	Verdict  stopgate.Verdict
	Category termination.Category
	Provider string
	// Limit caps how many events are returned; zero means no cap.
	Limit int
	// Newest returns the newest events first; with Limit, the newest Limit events.
	Newest bool
}

// validate checks the fields that have a range.
func (f Filter) validate() error {
	if f.Limit < 0 {
		return fmt.Errorf("%w: limit %d is negative", ErrInvalidFilter, f.Limit)
	}
	if f.Kind != "" && !f.Kind.Valid() {
		return fmt.Errorf("%w: unknown kind %q", ErrInvalidFilter, f.Kind)
	}
	return nil
}

// DefaultBucket is the width of a time bucket in [Stats.Decisions] when
// [StatsFilter.Bucket] is zero.
const DefaultBucket = time.Hour

// MaxBucket is the widest time bucket (about 146 years): bucketing computes with twice the
// width in int64 nanoseconds.
const MaxBucket = time.Duration(math.MaxInt64 / 2)

// StatsFilter selects the events [Store.Stats] aggregates. The zero value aggregates every
// event in hourly buckets.
type StatsFilter struct {
	// Since and Until bound the events' time to [Since, Until); a zero bound is open.
	Since, Until time.Time
	// Bucket is the width of the time buckets decisions are counted in; buckets are aligned
	// to multiples of Bucket since the Unix epoch (UTC). Zero means [DefaultBucket]; more
	// than [MaxBucket] is an error.
	Bucket time.Duration
	// Harness, when set, counts only that harness's events.
	Harness string
}

// Stats is what the dashboard shows: decisions over time by check and verdict, termination
// categories by provider and harness, and how many nudges were given while work was pending.
type Stats struct {
	// Decisions counts decision events per time bucket, check and verdict, ordered by
	// bucket, then check, then verdict. Buckets with no decisions are absent.
	Decisions []DecisionCount `json:"decisions"`
	// Terminations counts termination events per category, provider and harness, ordered by
	// category, then provider, then harness.
	Terminations []TerminationCount `json:"terminations"`
	// Nudges counts the decisions that did not let the agent stop (verdict continue or
	// retry), the continuations [stopgate.Nudges] counts.
	Nudges int64 `json:"nudges"`
	// PendingNudges counts the nudges given while work was pending ([Event.Pending]): a
	// job, process or sub-agent still running, or a one-shot schedule still to fire.
	PendingNudges int64 `json:"pending_nudges"`
}

// PendingShare returns the share of nudges given while work was pending, in [0, 1]; zero
// when there were no nudges.
func (s Stats) PendingShare() float64 {
	if s.Nudges == 0 {
		return 0
	}
	return float64(s.PendingNudges) / float64(s.Nudges)
}

// DecisionCount is one cell of the decisions-over-time table.
type DecisionCount struct {
	// Bucket is the start of the time bucket, in UTC.
	Bucket  time.Time        `json:"bucket"`
	Check   stopgate.Check   `json:"check"`
	Verdict stopgate.Verdict `json:"verdict"`
	Count   int64            `json:"count"`
}

// TerminationCount is one cell of the termination-categories table.
type TerminationCount struct {
	Category termination.Category `json:"category"`
	Provider string               `json:"provider"`
	Harness  string               `json:"harness"`
	Count    int64                `json:"count"`
}

// Retention bounds the log. Its zero value keeps everything; set either bound or both.
type Retention struct {
	// MaxAge deletes events whose time is more than MaxAge before now.
	MaxAge time.Duration
	// MaxEvents keeps the newest MaxEvents events (by time, then append order) and deletes
	// the rest.
	MaxEvents int64
}

// IsZero reports whether r keeps everything.
func (r Retention) IsZero() bool { return r == Retention{} }

func (r Retention) validate() error {
	if r.MaxAge < 0 || r.MaxEvents < 0 {
		return fmt.Errorf("%w: retention %+v has a negative bound", ErrInvalidFilter, r)
	}
	return nil
}

// DefaultBusyTimeout is how long a SQLite writer waits for another process's write lock when
// [Options.BusyTimeout] is zero.
const DefaultBusyTimeout = 10 * time.Second

// Options configures a store. The zero value (and a nil *Options) is the default: keep every
// event, never prune in the background, wait up to [DefaultBusyTimeout] for a lock, and sync
// SQLite's log the way that survives a killed process but not a power cut.
type Options struct {
	// Retention is what [Store.Prune] keeps when called with a zero Retention, and what the
	// background pruner keeps.
	Retention Retention
	// PruneInterval, when positive and Retention is not zero, prunes in the background: once
	// right after Open and then every PruneInterval, until Close. Meant for long-lived
	// processes (stopgate serve); a short-lived one calls [Store.Prune] when it sees fit.
	PruneInterval time.Duration
	// Logger receives the background pruner's reports (what it deleted, what failed); nil
	// discards them.
	Logger *slog.Logger

	// BusyTimeout (SQLite) is how long a write waits for another process holding the
	// database's write lock before failing; zero means [DefaultBusyTimeout].
	BusyTimeout time.Duration
	// FullSync (SQLite) syncs the log to disk at every commit (synchronous=FULL), so that
	// appended events survive a power cut or an operating-system crash too, at the cost of
	// one fsync per Append. Without it (synchronous=NORMAL in WAL mode) a commit is written
	// to the operating system before Append returns, which is what surviving a killed
	// process needs, and synced at checkpoints (every 200 ms in a process that keeps the
	// store open).
	FullSync bool
	// ConnectTimeout (PostgreSQL) bounds establishing a connection, the server's answer to the
	// startup included, when the URL sets no connect_timeout; zero means
	// [DefaultConnectTimeout].
	ConnectTimeout time.Duration
}

func (o *Options) orDefault() Options {
	if o == nil {
		return Options{}
	}
	return *o
}

// Open opens the event log dsn names, creating and migrating it as needed:
//
//   - a postgres:// or postgresql:// URL: the PostgreSQL database it names ([OpenPostgres]);
//   - any other string: the path of a SQLite file ([OpenSQLite]);
//   - the empty string: the SQLite file at [DefaultPath].
//
// Any other URL scheme (mysql://, file://, …) is an error.
func Open(ctx context.Context, dsn string, opts *Options) (Store, error) {
	switch scheme, _, ok := strings.Cut(dsn, "://"); {
	case ok && (strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql")):
		return OpenPostgres(ctx, dsn, opts)
	case ok && !strings.ContainsAny(scheme, `/\`):
		return nil, fmt.Errorf("store: open %q: unsupported scheme %q (want a file path or a postgres:// URL)", redact(dsn), scheme)
	}
	if dsn == "" {
		p, err := DefaultPath(nil)
		if err != nil {
			return nil, fmt.Errorf("store: open: %w", err)
		}
		dsn = p
	}
	return OpenSQLite(ctx, dsn, opts)
}

// DefaultPath returns where the embedded event log lives by default:
// $XDG_STATE_HOME/stopgate/events.db, or ~/.local/state/stopgate/events.db when
// XDG_STATE_HOME is unset or not absolute (as the XDG base-directory specification says). It
// reads the environment through getenv; nil means os.Getenv. It fails with [ErrNoStateDir]
// when neither variable helps.
func DefaultPath(getenv func(string) string) (string, error) {
	if d := xdg.StateHome(getenv); d != "" {
		return filepath.Join(d, "stopgate", "events.db"), nil
	}
	return "", ErrNoStateDir
}
