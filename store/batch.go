package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Batcher is a [Store] that can hold one write transaction open while events arrive: a group
// commit inserts each decision's events as it comes instead of gathering them first and
// inserting them all at the end, so that the time it waits for more is spent inserting. The
// SQLite store is one; PostgreSQL, which appends a whole batch in one round trip, is not.
type Batcher interface {
	Store
	// BeginBatch begins a write transaction. It holds the store's write connection (and, for
	// SQLite, the database's write lock) until the batch is committed or rolled back, so the
	// caller keeps it short. ctx bounds the beginning; the batch's statements then run
	// to their end, their waits bounded by the store's busy timeout.
	BeginBatch(ctx context.Context) (Batch, error)
}

// Batch is an open write transaction of a [Batcher]. It is not safe for concurrent use.
type Batch interface {
	// Add validates events and inserts them in the transaction (gathering a few decisions'
	// rows into one statement: the last are inserted by Commit). An invalid event, or an ID
	// that appears twice among events, fails the call with an error wrapping
	// [ErrInvalidEvent] or [ErrDuplicate] and inserts none of events; the batch stays usable.
	// Any other failure, among them an ID already stored (an error wrapping
	// [ErrDuplicate] and [ErrBatchBroken], from Add or Commit), rolls the whole transaction back: every event
	// added before is lost too, and later calls fail.
	Add(events ...Event) error
	// Flush inserts the rows Add has gathered and not inserted yet, so that Commit has less
	// to do: the group commit calls it when it has nothing else to do. It fails as Add does
	// when the transaction breaks.
	Flush() error
	// Commit commits what was added. Once it returns nil the events are durable as
	// [Store.Append]'s are. The batch is over either way.
	Commit() error
	// Rollback discards what was added. Rolling back a batch that is over does nothing.
	Rollback() error
}

// ErrBatchBroken: an Add failed in a way that rolled back the whole batch; it, and every
// later call on that batch, returns an error wrapping it.
var ErrBatchBroken = errors.New("batch rolled back")

// sqliteStore is the SQLite store: the SQL store and batches.
type sqliteStore struct{ *sqlStore }

var _ Batcher = sqliteStore{}

// sqlBatch is a batch over the writer pool's one connection.
type sqlBatch struct {
	s       *sqlStore
	ctx     context.Context
	tx      *sql.Tx
	release func() // the store's close lock, held for the batch's life
	stmts   [insertSizes]*sql.Stmt
	txStmts [insertSizes]*sql.Stmt // stmts bound to tx, made on first use
	args    []any                  // the values of the rows added and not yet inserted
	rows    int                    // how many rows args holds
	ids     map[string]struct{}    // reused by Add's check for IDs given twice
	err     error                  // why the batch is broken or over
}

// BeginBatch implements [Batcher.BeginBatch].
func (s sqliteStore) BeginBatch(ctx context.Context) (Batch, error) {
	release, err := s.acquire()
	if err != nil {
		return nil, fmt.Errorf("store: begin batch: %w", err)
	}
	// Every INSERT size is prepared before the transaction takes the pool's one connection:
	// preparing on the pool during it would wait for that connection forever.
	stmts, err := s.insertStmts(ctx, 2*maxInsertRows-1)
	if err != nil {
		release()
		return nil, fmt.Errorf("store: begin batch: %w", err)
	}
	// The transaction and its statements run without ctx's deadline: with one, the driver
	// starts a goroutine to watch it for every statement, a large share of a small
	// statement's cost. SQLite's busy timeout bounds what they wait for; ctx bounds the
	// preparing above.
	tx, err := s.w.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		release()
		return nil, fmt.Errorf("store: begin batch: %w", err)
	}
	return &sqlBatch{s: s.sqlStore, ctx: context.WithoutCancel(ctx), tx: tx, release: release, stmts: stmts}, nil
}

// errBatchOver is what a call on a committed or rolled-back batch returns.
var errBatchOver = errors.New("store: batch: already committed or rolled back")

// Add implements [Batch.Add].
func (b *sqlBatch) Add(events ...Event) error {
	if b.err != nil {
		return b.err
	}
	for i := range events {
		if err := events[i].Validate(); err != nil {
			return fmt.Errorf("store: batch: event %d of %d (id %q): %w", i+1, len(events), events[i].ID, err)
		}
	}
	if len(events) > 1 {
		if b.ids == nil {
			b.ids = make(map[string]struct{}, len(events))
		}
		clear(b.ids)
		for i := range events {
			if _, ok := b.ids[events[i].ID]; ok {
				return fmt.Errorf("store: batch: event %d: %w %q", i+1, ErrDuplicate, events[i].ID)
			}
			b.ids[events[i].ID] = struct{}{}
		}
	}
	for i := range events {
		b.args = appendRow(b.args, &events[i])
	}
	b.rows += len(events)
	if b.rows >= batchFlushRows {
		return b.flush(false)
	}
	return nil
}

// Flush implements [Batch.Flush].
func (b *sqlBatch) Flush() error {
	if b.err != nil {
		return b.err
	}
	return b.flush(true)
}

// batchFlushRows is how many rows a batch gathers before it inserts them: one statement
// of 64 rows costs much less than a statement for each decision's two or three.
const batchFlushRows = 64

// flush inserts the rows gathered: all of them, or as many as statements of batchFlushRows
// take.
func (b *sqlBatch) flush(all bool) error {
	done := 0 // rows inserted
	for b.rows-done >= batchFlushRows || (all && done < b.rows) {
		rows, k := insertRows(b.rows - done)
		if b.txStmts[k] == nil {
			b.txStmts[k] = b.tx.StmtContext(b.ctx, b.stmts[k])
		}
		args := b.args[done*insertColumns : (done+rows)*insertColumns]
		if _, err := b.txStmts[k].ExecContext(b.ctx, args...); err != nil {
			// INSERT OR ROLLBACK has rolled the transaction back on a constraint; any other
			// failure leaves it in a state not worth keeping.
			if b.s.d.isDuplicate(err) {
				err = fmt.Errorf("%w: %w", ErrDuplicate, err)
			}
			b.fail(fmt.Errorf("store: batch: %w: %w", ErrBatchBroken, err))
			return b.err
		}
		done += rows
	}
	// Keep the rows left over at the front, and let the inserted values go.
	n := copy(b.args, b.args[done*insertColumns:])
	clear(b.args[n:])
	b.args = b.args[:n]
	b.rows -= done
	return nil
}

// fail ends the batch with err.
func (b *sqlBatch) fail(err error) {
	_ = b.tx.Rollback()
	b.err = err
	b.release()
}

// Commit implements [Batch.Commit].
func (b *sqlBatch) Commit() error {
	if b.err != nil {
		return b.err
	}
	if err := b.flush(true); err != nil {
		return err
	}
	err := b.tx.Commit()
	b.err = errBatchOver
	b.release()
	if err != nil {
		return fmt.Errorf("store: batch: commit: %w", err)
	}
	return nil
}

// Rollback implements [Batch.Rollback].
func (b *sqlBatch) Rollback() error {
	if b.err != nil {
		return nil
	}
	b.fail(errBatchOver)
	return nil
}
