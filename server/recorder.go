package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stopgate/stopgate/store"
)

// appendTimeout bounds one append, so that a store that hangs (a lost database connection)
// fails the decisions waiting on it instead of holding them forever. A SQLite store gives up
// sooner, after its busy timeout.
const appendTimeout = 30 * time.Second

// errRecorderClosed is what recording a decision after Close returns.
var errRecorderClosed = errors.New("the event writer is closed")

// recorder appends the events of one decision to the event log and returns once they are
// durable, or with the reason they are not.
type recorder interface {
	// announce says a decision is being made that will be recorded soon, so that the group
	// commit may wait a moment for it; withdraw takes the announcement back, which record
	// does itself as it takes the events.
	announce()
	withdraw()
	// record appends events (the store validates them: the error wraps
	// store.ErrInvalidEvent when they cannot be stored at all). It returns when they are
	// durable, when appending failed, or when ctx ends, whichever comes first: a slow store
	// never holds the request longer than ctx allows.
	record(ctx context.Context, events []store.Event) error
	// close stops the recorder after what is queued is appended.
	close()
}

// appendEvents appends events in one Store.Append and counts it.
func appendEvents(st store.Store, m *metrics, events []store.Event) error {
	ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
	defer cancel()
	err := st.Append(ctx, events...)
	m.appends.Add(1)
	if err != nil {
		m.storeErrors.inc("append")
		return err
	}
	m.appended.Add(uint64(len(events)))
	return nil
}

// directRecorder appends each decision's events in their own Store.Append call.
type directRecorder struct {
	st store.Store
	m  *metrics

	mu     sync.RWMutex // held for reading while starting an append, for writing by close
	closed bool
	wg     sync.WaitGroup // the appends under way
}

// close stops recording and waits for the appends under way, those whose decisions stopped
// waiting for them included.
func (d *directRecorder) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.wg.Wait()
}

func (d *directRecorder) announce() {}
func (d *directRecorder) withdraw() {}

// record appends in a goroutine of its own, so that ctx bounds the wait even for a store
// whose Append does not heed it.
func (d *directRecorder) record(ctx context.Context, events []store.Event) error {
	done := make(chan error, 1)
	d.mu.RLock()
	if d.closed {
		d.mu.RUnlock()
		return errRecorderClosed
	}
	d.wg.Go(func() { done <- appendEvents(d.st, d.m, events) })
	d.mu.RUnlock()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("waiting for the event log: %w", context.Cause(ctx))
	}
}

// Group commit. Each decision's events are queued; one goroutine, the writer, takes everything
// queued, appends it in a single Store.Append (one transaction), and only then answers every
// decision in the batch, so no decision is acknowledged before its events are durable. The
// store's cost per commit (for SQLite, writing every touched page of the table and its five
// indexes to the log; for PostgreSQL, a round trip and a WAL flush) is shared by the batch,
// so the writer gathers what it can: what is queued, and, while other decisions are still
// being decided (announced but not yet queued), what arrives within groupWait more. Under no
// load nothing is being decided besides the one decision queued, and it is committed at once.
// With a store.Batcher (SQLite) the writer opens the transaction first and inserts each
// decision's events as it takes them, so that the wait is spent inserting and only the commit
// is left at its end; a decision whose events are invalid is answered at once and left out.
const (
	// queueLen bounds the decisions waiting for the writer; beyond it, handlers wait to queue.
	queueLen = 4096
	// maxBatchEvents bounds the events one commit carries.
	maxBatchEvents = 1024
	// groupWait bounds how long the writer waits for announced decisions before it commits
	// what it has. It is a small share of the latency a commit adds anyway.
	groupWait = time.Millisecond
)

// pending is one decision's events waiting for the writer.
type pending struct {
	events []store.Event
	done   chan error // buffered, so the writer never waits for the handler
}

var pendingPool = sync.Pool{New: func() any { return &pending{done: make(chan error, 1)} }}

// groupRecorder commits the events of concurrent decisions together.
type groupRecorder struct {
	st   store.Store
	m    *metrics
	log  *slog.Logger
	wait time.Duration // groupWait; zero in tests that want no waiting

	coming atomic.Int64 // decisions announced and not yet queued

	mu     sync.RWMutex // held for reading while queueing, for writing by close
	closed bool
	queue  chan *pending
	done   chan struct{}
}

// newGroupRecorder starts a group commit with writers writers (at least one): each takes
// the next batch from the queue, so that as many commits run at once. One suits SQLite,
// whose writes take turns anyway; a server database commits several at once, each waiting on
// its round trip and WAL flush while the others gather.
func newGroupRecorder(st store.Store, m *metrics, log *slog.Logger, writers int) *groupRecorder {
	g := &groupRecorder{st: st, m: m, log: log, wait: groupWait, queue: make(chan *pending, queueLen), done: make(chan struct{})}
	var wg sync.WaitGroup
	for range max(writers, 1) {
		wg.Go(g.run)
	}
	go func() {
		wg.Wait()
		close(g.done)
	}()
	return g
}

func (g *groupRecorder) announce() { g.coming.Add(1) }
func (g *groupRecorder) withdraw() { g.coming.Add(-1) }

// record queues events for the writer and waits for their commit. When ctx ends first, it
// returns at once; the writer still commits the events, and the pending entry, which it may
// still hold, is left to the garbage collector rather than reused.
func (g *groupRecorder) record(ctx context.Context, events []store.Event) error {
	p := pendingPool.Get().(*pending)
	p.events = events
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		pendingPool.Put(p)
		return errRecorderClosed
	}
	select {
	case g.queue <- p:
	case <-ctx.Done():
		g.mu.RUnlock()
		p.events = nil
		pendingPool.Put(p)
		return fmt.Errorf("waiting to queue for the event log: %w", context.Cause(ctx))
	}
	g.mu.RUnlock()
	select {
	case err := <-p.done:
		p.events = nil
		pendingPool.Put(p)
		return err
	case <-ctx.Done():
		return fmt.Errorf("waiting for the event log: %w", context.Cause(ctx))
	}
}

// close stops queueing, waits for the writer to commit what was queued, and returns.
func (g *groupRecorder) close() {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		close(g.queue)
	}
	g.mu.Unlock()
	<-g.done
}

// run is a writer: it commits batches until the queue is closed and drained.
func (g *groupRecorder) run() {
	var (
		batch  []*pending
		events []store.Event
	)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	lastBatch := 0 // decisions in the last commit
	bs, _ := g.st.(store.Batcher)
	for p := range g.queue {
		// With a store that can hold its transaction open (SQLite), each decision's events are
		// inserted as they are taken, so the wait for more is spent inserting, and only the
		// commit is left once the batch is complete. tx is nil otherwise, or when beginning
		// failed: then the batch is appended at the end in one Store.Append.
		var tx store.Batch
		var txErr error // why tx broke; nil while it holds every event taken
		cancel := func() {}
		if bs != nil {
			var ctx context.Context
			ctx, cancel = context.WithTimeout(context.Background(), appendTimeout)
			if tx, txErr = bs.BeginBatch(ctx); txErr != nil {
				tx, txErr = nil, nil
			}
		}
		batch = batch[:0]
		n := 0
		take := func(q *pending) {
			if tx != nil && txErr == nil {
				if err := tx.Add(q.events...); err != nil {
					if !errors.Is(err, store.ErrBatchBroken) {
						// These events alone cannot be stored; the batch goes on without them.
						g.m.storeErrors.inc("append")
						q.done <- err
						return
					}
					txErr = err
				}
			}
			batch = append(batch, q)
			n += len(q.events)
		}
		take(p)
		waiting := false
	fill:
		for n < maxBatchEvents {
			select {
			case q, ok := <-g.queue:
				if !ok {
					break fill
				}
				take(q)
				continue
			default:
			}
			// Nothing more is queued. Under load, wait a little for more: while decisions
			// are being made, or when the last commit carried several (the clients whose
			// decisions it answered are likely to send the next ones at once).
			if g.wait <= 0 || (g.coming.Load() <= 0 && lastBatch < 2) {
				break
			}
			// Insert what was taken while waiting, so the commit has only itself to do.
			if tx != nil && txErr == nil {
				txErr = tx.Flush()
			}
			if !waiting {
				timer.Reset(g.wait)
				waiting = true
			}
			select {
			case q, ok := <-g.queue:
				if !ok {
					break fill
				}
				take(q)
			case <-timer.C:
				waiting = false
				break fill
			}
		}
		if waiting {
			timer.Stop()
		}
		switch {
		case len(batch) == 0:
			// Every decision taken was refused by Add and has its answer.
			if tx != nil {
				_ = tx.Rollback()
			}
		case tx != nil && txErr == nil:
			err := g.commitBatch(tx, n)
			if errors.Is(err, store.ErrDuplicate) && len(batch) > 1 {
				// One decision's ID is stored already (the last rows are inserted by the
				// commit): each decision on its own, so that the others are still recorded.
				g.log.Warn("group commit failed on one decision's events; appending each decision on its own", "decisions", len(batch), "err", err)
				for _, p := range batch {
					p.done <- appendEvents(g.st, g.m, p.events)
				}
				break
			}
			g.answer(batch, err)
		default:
			if tx != nil {
				_ = tx.Rollback()
			}
			events = events[:0]
			for _, q := range batch {
				events = append(events, q.events...)
			}
			g.commit(batch, events)
			clear(events)
		}
		cancel()
		lastBatch = len(batch)
		clear(batch) // let the pool have the entries without this slice pinning them
	}
}

// commitBatch commits a batch of n events that every decision's events were added to, and
// counts it as one append.
func (g *groupRecorder) commitBatch(tx store.Batch, n int) error {
	err := tx.Commit()
	g.m.appends.Add(1)
	if err != nil {
		g.m.storeErrors.inc("append")
		return fmt.Errorf("store: append: %w", err)
	}
	g.m.appended.Add(uint64(n))
	return nil
}

// answer gives every decision of batch the outcome of its commit.
func (g *groupRecorder) answer(batch []*pending, err error) {
	for _, p := range batch {
		p.done <- err
	}
}

// commit appends one batch and answers each of its decisions. When the batch fails because
// of one decision's events (a duplicate ID), it appends each decision's on its own, so that
// the others are still recorded.
func (g *groupRecorder) commit(batch []*pending, events []store.Event) {
	err := appendEvents(g.st, g.m, events)
	if err != nil && len(batch) > 1 && (errors.Is(err, store.ErrInvalidEvent) || errors.Is(err, store.ErrDuplicate)) {
		g.log.Warn("group commit failed on one decision's events; appending each decision on its own", "decisions", len(batch), "err", err)
		for _, p := range batch {
			p.done <- appendEvents(g.st, g.m, p.events)
		}
		return
	}
	for _, p := range batch {
		p.done <- err
	}
}
