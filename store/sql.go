package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// dialect is what differs between the SQL backends.
type dialect struct {
	// name is the backend's name, which is also its migrations directory.
	name string
	// numbered says placeholders are $1, $2, … rather than ?.
	numbered bool
	// insert begins the statement that appends events, up to the table's name.
	insert string
	// migrationLock is run first in every migration transaction to serialise concurrent
	// migrators; empty when beginning the transaction already does (SQLite's BEGIN IMMEDIATE).
	migrationLock string
	// isDuplicate reports whether err is a unique-constraint violation.
	isDuplicate func(err error) bool
	// arrayInsert, when set, is one statement that appends any number of events, each column
	// bound as one array (PostgreSQL's unnest); it runs on its own, atomic as every statement
	// is, so an append is one round trip whatever its size.
	arrayInsert string
}

// sqlStore is the Store over database/sql that both backends are.
type sqlStore struct {
	d    *dialect
	w    *sql.DB // writes (and, for PostgreSQL, everything)
	r    *sql.DB // reads
	opts Options

	mu     sync.RWMutex // held for reading by every call, for writing by Close
	closed bool

	stopPruner context.CancelFunc
	prunerDone chan struct{}

	// ck, when set, is the SQLite checkpointer's own connection, and stopCk stops it.
	ck     *sql.DB
	stopCk func()

	// inserts[k] is the INSERT of 1<<k rows, prepared on the writer pool when an append first
	// needs it and reused by every later one (database/sql prepares it again on another of
	// the pool's connections when a transaction holds that one); nil until then. insertMu
	// guards it.
	insertMu sync.Mutex
	inserts  [insertSizes]*sql.Stmt
	arrayIns *sql.Stmt // the dialect's arrayInsert, prepared on first use
}

// newSQLStore wraps migrated pools in a Store and starts the background pruner if asked.
func newSQLStore(d *dialect, w, r *sql.DB, opts Options) *sqlStore {
	s := &sqlStore{d: d, w: w, r: r, opts: opts}
	if opts.PruneInterval > 0 && !opts.Retention.IsZero() {
		ctx, cancel := context.WithCancel(context.Background())
		s.stopPruner, s.prunerDone = cancel, make(chan struct{})
		go s.pruneLoop(ctx)
	}
	return s
}

// pruneBatch is how many events one pruning transaction deletes at most.
const pruneBatch = 500

// maxInsertRows is the most rows one INSERT statement writes: 128 rows of 13 values bind 1,664
// parameters, well within SQLite's 32,766 and PostgreSQL's 65,535.
const maxInsertRows = 128

// insertSizes is how many INSERT statements a store prepares at most: one for each power of
// two from 1 to maxInsertRows rows.
const insertSizes = 8

// insertColumns is how many values one row of an INSERT binds.
const insertColumns = 13

// columns are the events table's columns in the order insert and scan use.
const columns = "id, ref, kind, at_ns, harness, session, agent, check_name, verdict, category, provider, pending, payload"

// acquire takes the read side of the close lock; it fails once the store is closed.
func (s *sqlStore) acquire() (release func(), err error) {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, ErrClosed
	}
	return s.mu.RUnlock, nil
}

// builder writes one statement and collects its arguments.
type builder struct {
	d    *dialect
	sb   strings.Builder
	args []any
}

func (b *builder) sql(s string) *builder { b.sb.WriteString(s); return b }

// arg writes a placeholder for v.
func (b *builder) arg(v any) *builder {
	b.args = append(b.args, v)
	if b.d.numbered {
		b.sb.WriteString("$" + strconv.Itoa(len(b.args)))
	} else {
		b.sb.WriteByte('?')
	}
	return b
}

// Append implements [Store.Append]: it validates every event, then inserts them all at once:
// for SQLite in one transaction of prepared multi-row INSERT statements, for PostgreSQL with
// one prepared INSERT of arrays.
func (s *sqlStore) Append(ctx context.Context, events ...Event) error {
	release, err := s.acquire()
	if err != nil {
		return fmt.Errorf("store: append: %w", err)
	}
	defer release()
	if len(events) == 0 {
		return nil
	}
	for i := range events {
		if err := events[i].Validate(); err != nil {
			return fmt.Errorf("store: append: event %d of %d (id %q): %w", i+1, len(events), events[i].ID, err)
		}
	}
	if len(events) > 1 {
		ids := make(map[string]int, len(events))
		for i := range events {
			if j, ok := ids[events[i].ID]; ok {
				return fmt.Errorf("store: append: events %d and %d: %w %q", j+1, i+1, ErrDuplicate, events[i].ID)
			}
			ids[events[i].ID] = i
		}
	}
	if err := s.insert(ctx, events); err != nil {
		if s.d.isDuplicate(err) {
			return fmt.Errorf("store: append: %w", s.whichDuplicate(ctx, events))
		}
		return fmt.Errorf("store: append: %w", err)
	}
	return nil
}

// insertRows returns how many rows the next INSERT of an append with n events left writes,
// and the index of its statement in sqlStore.inserts: the largest power of two that is at
// most n and maxInsertRows. So an append of n events runs n/128 statements of 128 rows and
// then one for each bit set in n%128.
func insertRows(n int) (rows, k int) {
	k = min(bits.Len(uint(n)), insertSizes) - 1
	return 1 << k, k
}

// insertSQL returns the INSERT statement of rows rows.
func insertSQL(d *dialect, rows int) string {
	var sb strings.Builder
	sb.Grow(64 + len(columns) + rows*insertColumns*6)
	sb.WriteString(d.insert + " events (" + columns + ") VALUES ")
	for i := range rows * insertColumns {
		switch {
		case i == 0:
			sb.WriteString("(")
		case i%insertColumns == 0:
			sb.WriteString("), (")
		default:
			sb.WriteString(", ")
		}
		if d.numbered {
			sb.WriteString("$" + strconv.Itoa(i+1))
		} else {
			sb.WriteByte('?')
		}
	}
	sb.WriteString(")")
	return sb.String()
}

// insertStmts returns the statements an append of n events uses (and others already
// prepared), preparing the missing ones on the writer pool. It runs before the append's
// transaction begins: with SQLite the pool's one connection is the transaction's while it
// lasts.
func (s *sqlStore) insertStmts(ctx context.Context, n int) ([insertSizes]*sql.Stmt, error) {
	s.insertMu.Lock()
	defer s.insertMu.Unlock()
	for n > 0 {
		rows, k := insertRows(n)
		if s.inserts[k] == nil {
			st, err := s.w.PrepareContext(ctx, insertSQL(s.d, rows))
			if err != nil {
				return [insertSizes]*sql.Stmt{}, err
			}
			s.inserts[k] = st
		}
		if rows == maxInsertRows {
			n %= maxInsertRows // every further full chunk uses the same statement
		} else {
			n -= rows
		}
	}
	return s.inserts, nil
}

// insertArrays writes events with the dialect's arrayInsert: one statement, its columns
// bound as arrays.
func (s *sqlStore) insertArrays(ctx context.Context, events []Event) error {
	s.insertMu.Lock()
	st := s.arrayIns
	if st == nil {
		var err error
		if st, err = s.w.PrepareContext(ctx, s.d.arrayInsert); err != nil {
			s.insertMu.Unlock()
			return err
		}
		s.arrayIns = st
	}
	s.insertMu.Unlock()
	n := len(events)
	var (
		text    = make([]string, 10*n) // the ten text columns but the payload, column by column
		atNS    = make([]int64, n)
		pending = make([]bool, n)
		payload = make([]string, n)
	)
	col := func(c int) []string { return text[c*n : (c+1)*n : (c+1)*n] }
	for i := range events {
		e := &events[i]
		for c, v := range [...]string{e.ID, e.Ref, string(e.Kind), e.Harness, e.Session, e.Agent,
			string(e.Check), string(e.Verdict), string(e.Category), e.Provider} {
			text[c*n+i] = v
		}
		atNS[i], pending[i], payload[i] = e.Time.UnixNano(), e.Pending, string(e.Payload)
	}
	_, err := st.ExecContext(ctx, col(0), col(1), col(2), atNS, col(3), col(4), col(5), col(6), col(7), col(8), col(9), pending, payload)
	return err
}

// insert writes events in one transaction.
func (s *sqlStore) insert(ctx context.Context, events []Event) (err error) {
	if s.d.arrayInsert != "" {
		return s.insertArrays(ctx, events)
	}
	stmts, err := s.insertStmts(ctx, len(events))
	if err != nil {
		return err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var txStmts [insertSizes]*sql.Stmt // closed by the commit or rollback
	args := make([]any, 0, insertColumns*min(len(events), maxInsertRows))
	for len(events) > 0 {
		rows, k := insertRows(len(events))
		if txStmts[k] == nil {
			txStmts[k] = tx.StmtContext(ctx, stmts[k])
		}
		args = args[:0]
		for i := range rows {
			args = appendRow(args, &events[i])
		}
		if _, err = txStmts[k].ExecContext(ctx, args...); err != nil {
			return err
		}
		events = events[rows:]
	}
	return tx.Commit()
}

// appendRow appends the values of e's row, in the order of columns.
//
// The payload, most of a row's bytes, is passed as a string that shares e.Payload's bytes
// rather than a copy of them: the drivers copy what they bind (modernc.org/sqlite into
// SQLite's memory, pgx into its wire buffer) before the statement returns, and the events
// are not changed while they are appended.
func appendRow(args []any, e *Event) []any {
	return append(args, e.ID, e.Ref, string(e.Kind), e.Time.UnixNano(), e.Harness, e.Session, e.Agent,
		string(e.Check), string(e.Verdict), string(e.Category), e.Provider, e.Pending,
		unsafe.String(unsafe.SliceData(e.Payload), len(e.Payload)))
}

// whichDuplicate names the IDs of events that are already stored, for the error of an append
// the unique constraint refused.
func (s *sqlStore) whichDuplicate(ctx context.Context, events []Event) error {
	b := &builder{d: s.d}
	b.sql("SELECT id FROM events WHERE id IN (")
	for i, e := range events {
		if i > 0 {
			b.sql(", ")
		}
		b.arg(e.ID)
	}
	b.sql(")")
	rows, err := s.r.QueryContext(ctx, b.sb.String(), b.args...)
	if err != nil {
		return ErrDuplicate
	}
	defer rows.Close()
	var dup []string
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil {
			dup = append(dup, strconv.Quote(id))
		}
	}
	slices.Sort(dup)
	if len(dup) == 0 {
		return fmt.Errorf("%w: stored meanwhile by another writer", ErrDuplicate)
	}
	return fmt.Errorf("%w: already stored: %s", ErrDuplicate, strings.Join(dup, ", "))
}

// where writes the WHERE clause of a time range, a kind and equality conditions on the
// columns named, skipping empty values. The kind, one of three constants (callers validate
// it), is written as a literal so that the planners can use the partial indexes on it.
func (b *builder) where(since, until time.Time, kind Kind, eq ...[2]string) *builder {
	kw := " WHERE "
	cond := func() { b.sql(kw); kw = " AND " }
	if kind != "" {
		cond()
		b.sql("kind = '" + string(kind) + "'")
	}
	if !since.IsZero() {
		cond()
		b.sql("at_ns >= ").arg(clampNanos(since))
	}
	if !until.IsZero() {
		cond()
		b.sql("at_ns < ").arg(clampNanos(until))
	}
	for _, c := range eq {
		if c[1] != "" {
			cond()
			b.sql(c[0] + " = ").arg(c[1])
		}
	}
	return b
}

// clampNanos returns t as int64 nanoseconds since the epoch, clamped to the range.
func clampNanos(t time.Time) int64 {
	switch {
	case t.Before(minTime):
		return minTime.UnixNano()
	case t.After(maxTime):
		return maxTime.UnixNano()
	}
	return t.UnixNano()
}

// Query implements [Store.Query].
func (s *sqlStore) Query(ctx context.Context, f Filter) ([]Event, error) {
	release, err := s.acquire()
	if err != nil {
		return nil, fmt.Errorf("store: query: %w", err)
	}
	defer release()
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("store: query: %w", err)
	}
	b := &builder{d: s.d}
	b.sql("SELECT " + columns + " FROM events")
	b.where(f.Since, f.Until, f.Kind,
		[2]string{"harness", f.Harness}, [2]string{"session", f.Session},
		[2]string{"agent", f.Agent}, [2]string{"check_name", string(f.Check)}, [2]string{"verdict", string(f.Verdict)},
		[2]string{"category", string(f.Category)}, [2]string{"provider", f.Provider})
	if f.Newest {
		b.sql(" ORDER BY at_ns DESC, seq DESC")
	} else {
		b.sql(" ORDER BY at_ns, seq")
	}
	if f.Limit > 0 {
		b.sql(" LIMIT ").arg(int64(f.Limit))
	}
	rows, err := s.r.QueryContext(ctx, b.sb.String(), b.args...)
	if err != nil {
		return nil, fmt.Errorf("store: query: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var (
			e                                       Event
			kind, check, verdict, category, payload string
			atNS                                    int64
		)
		if err := rows.Scan(&e.ID, &e.Ref, &kind, &atNS, &e.Harness, &e.Session, &e.Agent,
			&check, &verdict, &category, &e.Provider, &e.Pending, &payload); err != nil {
			return nil, fmt.Errorf("store: query: %w", err)
		}
		e.Kind, e.Time = Kind(kind), time.Unix(0, atNS).UTC()
		e.Check, e.Verdict, e.Category = stopgate.Check(check), stopgate.Verdict(verdict), termination.Category(category)
		e.Payload = []byte(payload)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: query: %w", err)
	}
	return out, nil
}

// Stats implements [Store.Stats] with three aggregate queries over the partial indexes.
func (s *sqlStore) Stats(ctx context.Context, f StatsFilter) (Stats, error) {
	release, err := s.acquire()
	if err != nil {
		return Stats{}, fmt.Errorf("store: stats: %w", err)
	}
	defer release()
	if f.Bucket < 0 {
		return Stats{}, fmt.Errorf("store: stats: %w: bucket %v is negative", ErrInvalidFilter, f.Bucket)
	}
	if f.Bucket > MaxBucket {
		return Stats{}, fmt.Errorf("store: stats: %w: bucket %v is wider than %v", ErrInvalidFilter, f.Bucket, MaxBucket)
	}
	if f.Bucket == 0 {
		f.Bucket = DefaultBucket
	}
	var st Stats
	// Decisions over time. The bucket is at_ns floored to a multiple of the width: the
	// double modulo keeps it a floor for instants before the epoch too. The width is an
	// int64 this code made, so it is written into the statement rather than bound three
	// times.
	w := strconv.FormatInt(int64(f.Bucket), 10)
	b := &builder{d: s.d}
	b.sql("SELECT at_ns - (((at_ns % " + w + ") + " + w + ") % " + w + ") AS bucket, check_name, verdict, COUNT(*) FROM events")
	b.where(f.Since, f.Until, KindDecision, [2]string{"harness", f.Harness})
	b.sql(" GROUP BY bucket, check_name, verdict")
	err = s.each(ctx, b, func(rows *sql.Rows) error {
		var (
			c              DecisionCount
			bucket         int64
			check, verdict string
		)
		if err := rows.Scan(&bucket, &check, &verdict, &c.Count); err != nil {
			return err
		}
		c.Bucket, c.Check, c.Verdict = time.Unix(0, bucket).UTC(), stopgate.Check(check), stopgate.Verdict(verdict)
		st.Decisions = append(st.Decisions, c)
		return nil
	})
	if err != nil {
		return Stats{}, fmt.Errorf("store: stats: decisions: %w", err)
	}

	b = &builder{d: s.d}
	b.sql("SELECT category, provider, harness, COUNT(*) FROM events")
	b.where(f.Since, f.Until, KindTermination, [2]string{"harness", f.Harness})
	b.sql(" GROUP BY category, provider, harness")
	err = s.each(ctx, b, func(rows *sql.Rows) error {
		var (
			c        TerminationCount
			category string
		)
		if err := rows.Scan(&category, &c.Provider, &c.Harness, &c.Count); err != nil {
			return err
		}
		c.Category = termination.Category(category)
		st.Terminations = append(st.Terminations, c)
		return nil
	})
	if err != nil {
		return Stats{}, fmt.Errorf("store: stats: terminations: %w", err)
	}

	b = &builder{d: s.d}
	b.sql("SELECT COUNT(*), COUNT(*) FILTER (WHERE pending) FROM events")
	b.where(f.Since, f.Until, KindDecision, [2]string{"harness", f.Harness})
	b.sql(" AND verdict IN (").arg(string(stopgate.Continue)).sql(", ").arg(string(stopgate.Retry)).sql(")")
	if err := s.r.QueryRowContext(ctx, b.sb.String(), b.args...).Scan(&st.Nudges, &st.PendingNudges); err != nil {
		return Stats{}, fmt.Errorf("store: stats: nudges: %w", err)
	}
	// Sorted here rather than by ORDER BY, so that the order is bytewise whatever the
	// database's collation.
	slices.SortFunc(st.Decisions, func(a, b DecisionCount) int {
		return cmp.Or(a.Bucket.Compare(b.Bucket), cmp.Compare(a.Check, b.Check), cmp.Compare(a.Verdict, b.Verdict))
	})
	slices.SortFunc(st.Terminations, func(a, b TerminationCount) int {
		return cmp.Or(cmp.Compare(a.Category, b.Category), cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Harness, b.Harness))
	})
	return st, nil
}

// each runs the query b built and calls fn for every row.
func (s *sqlStore) each(ctx context.Context, b *builder, fn func(*sql.Rows) error) error {
	rows, err := s.r.QueryContext(ctx, b.sb.String(), b.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Prune implements [Store.Prune].
func (s *sqlStore) Prune(ctx context.Context, r Retention) (int64, error) {
	release, err := s.acquire()
	if err != nil {
		return 0, fmt.Errorf("store: prune: %w", err)
	}
	defer release()
	if r.IsZero() {
		r = s.opts.Retention
	}
	if err := r.validate(); err != nil {
		return 0, fmt.Errorf("store: prune: %w", err)
	}
	var total int64
	if r.MaxAge > 0 {
		cutoff := clampNanos(time.Now().Add(-r.MaxAge))
		n, err := s.deleteBatches(ctx, func(b *builder) { b.sql("at_ns < ").arg(cutoff) })
		total += n
		if err != nil {
			return total, fmt.Errorf("store: prune by age: %w", err)
		}
	}
	if r.MaxEvents > 0 {
		// The newest event past the ones kept; it and everything older go.
		b := &builder{d: s.d}
		b.sql("SELECT at_ns, seq FROM events ORDER BY at_ns DESC, seq DESC LIMIT 1 OFFSET ").arg(r.MaxEvents)
		var at, seq int64
		switch err := s.r.QueryRowContext(ctx, b.sb.String(), b.args...).Scan(&at, &seq); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return total, fmt.Errorf("store: prune by count: %w", err)
		default:
			n, err := s.deleteBatches(ctx, func(b *builder) {
				b.sql("(at_ns < ").arg(at).sql(" OR (at_ns = ").arg(at).sql(" AND seq <= ").arg(seq).sql("))")
			})
			total += n
			if err != nil {
				return total, fmt.Errorf("store: prune by count: %w", err)
			}
		}
	}
	return total, nil
}

// deleteBatches deletes the events cond selects, oldest first, pruneBatch at a time, each
// batch in its own transaction, until none is left or ctx ends.
func (s *sqlStore) deleteBatches(ctx context.Context, cond func(*builder)) (int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		b := &builder{d: s.d}
		b.sql("DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE ")
		cond(b)
		b.sql(" ORDER BY at_ns, seq LIMIT ").arg(int64(pruneBatch)).sql(")")
		res, err := s.w.ExecContext(ctx, b.sb.String(), b.args...)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// pruneLoop prunes with the store's retention now and every PruneInterval until ctx ends.
func (s *sqlStore) pruneLoop(ctx context.Context) {
	defer close(s.prunerDone)
	log := s.opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := time.NewTicker(s.opts.PruneInterval)
	defer t.Stop()
	for {
		n, err := s.Prune(ctx, s.opts.Retention)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Warn("store: background prune failed", "backend", s.d.name, "deleted", n, "err", err)
		case n > 0:
			log.Info("store: pruned events", "backend", s.d.name, "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Close implements [Store.Close].
func (s *sqlStore) Close() error {
	if s.stopPruner != nil {
		s.stopPruner()
		<-s.prunerDone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.stopCk != nil {
		s.stopCk()
		errs = append(errs, s.ck.Close())
	}
	for _, st := range append(s.inserts[:], s.arrayIns) {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if s.r != s.w {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}
