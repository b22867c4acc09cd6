package server

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/stopgate/stopgate/store"
)

// appendTimeout bounds one append, so that a store that hangs (a lost database connection)
// fails the decisions waiting on it within seconds instead of holding them: the decision is
// answered all the same, with Stopgate-Recorded: false. A request that ends sooner (its client
// gone, the server's write timeout) stops waiting then.
const appendTimeout = 5 * time.Second

// errRecorderClosed is what recording a decision after Close returns.
var errRecorderClosed = errors.New("the event writer is closed")

// recorder appends the events of one decision to the event log and returns once they are
// durable, or with the reason they are not.
type recorder interface {
	// record validates events and appends them, waiting no longer than ctx allows; the error
	// wraps store.ErrInvalidEvent when they cannot be stored at all.
	record(ctx context.Context, events []store.Event) error
	// close stops the recorder after what is queued is appended.
	close()
}

// validate returns the first reason events cannot be stored.
func validate(events []store.Event) error {
	for _, e := range events {
		if err := e.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// appendEvents appends events in one Store.Append and counts it.
func appendEvents(ctx context.Context, st store.Store, m *metrics, events []store.Event) error {
	ctx, cancel := context.WithTimeout(ctx, appendTimeout)
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
}

func (d *directRecorder) close() {}

func (d *directRecorder) record(ctx context.Context, events []store.Event) error {
	if err := validate(events); err != nil {
		return err
	}
	return appendEvents(ctx, d.st, d.m, events)
}

// Group commit. Each decision's events are queued; one goroutine, the writer, takes everything
// queued, appends it in a single Store.Append (one transaction), and only then answers every
// decision in the batch, so no decision is acknowledged before its events are durable. While
// a commit runs, the next batch queues up: under load a commit carries many decisions and
// the store's per-commit cost (for SQLite, writing the touched index pages to the log, and
// with FullSync an fsync) is shared; under no load a batch is one decision, and nothing ever
// waits on a timer.
const (
	// queueLen bounds the decisions waiting for the writer; beyond it, handlers wait to queue.
	queueLen = 4096
	// maxBatchEvents bounds the events one commit carries.
	maxBatchEvents = 1024
)

// pending is one decision's events waiting for the writer.
type pending struct {
	events []store.Event
	done   chan error // buffered, so the writer never waits for the handler
}

var pendingPool = sync.Pool{New: func() any { return &pending{done: make(chan error, 1)} }}

// groupRecorder commits the events of concurrent decisions together.
type groupRecorder struct {
	st  store.Store
	m   *metrics
	log *slog.Logger

	mu     sync.RWMutex // held for reading while queueing, for writing by close
	closed bool
	queue  chan *pending
	done   chan struct{}
}

func newGroupRecorder(st store.Store, m *metrics, log *slog.Logger) *groupRecorder {
	g := &groupRecorder{st: st, m: m, log: log, queue: make(chan *pending, queueLen), done: make(chan struct{})}
	go g.run()
	return g
}

func (g *groupRecorder) record(ctx context.Context, events []store.Event) error {
	if err := validate(events); err != nil {
		return err
	}
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
		pendingPool.Put(p)
		return ctx.Err()
	}
	g.mu.RUnlock()
	select {
	case err := <-p.done:
		p.events = nil
		pendingPool.Put(p)
		return err
	case <-ctx.Done():
		// The writer still holds p and will answer into its buffered channel; p is left to
		// the collector, not put back in the pool.
		return ctx.Err()
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

// run is the writer: it commits batches until the queue is closed and drained.
func (g *groupRecorder) run() {
	defer close(g.done)
	var batch []*pending
	var events []store.Event
	for p := range g.queue {
		batch = append(batch[:0], p)
		n := len(p.events)
	fill:
		for n < maxBatchEvents {
			select {
			case q, ok := <-g.queue:
				if !ok {
					break fill
				}
				batch = append(batch, q)
				n += len(q.events)
			default:
				break fill
			}
		}
		events = events[:0]
		for _, q := range batch {
			events = append(events, q.events...)
		}
		g.commit(batch, events)
		clear(batch) // let the pool have the entries without this slice pinning them
		clear(events)
	}
}

// commit appends one batch and answers each of its decisions. When the batch fails because
// of one decision's events (a duplicate ID), it appends each decision's on its own, so that
// the others are still recorded.
func (g *groupRecorder) commit(batch []*pending, events []store.Event) {
	// A batch carries many requests' decisions, so it is bounded by appendTimeout alone.
	err := appendEvents(context.Background(), g.st, g.m, events)
	if err != nil && len(batch) > 1 && (errors.Is(err, store.ErrInvalidEvent) || errors.Is(err, store.ErrDuplicate)) {
		g.log.Warn("group commit failed on one decision's events; appending each decision on its own", "decisions", len(batch), "err", err)
		for _, p := range batch {
			p.done <- appendEvents(context.Background(), g.st, g.m, p.events)
		}
		return
	}
	for _, p := range batch {
		p.done <- err
	}
}
