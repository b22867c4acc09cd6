package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// EventID returns the ID of the first event the audit records for turn i of the session with
// key key (Session.Key, or its default): "audit-" and 32 hex digits of a SHA-256 of the two.
// The turn's other events take the same ID followed by "-1", "-2", … in order. The IDs are
// stable, so recording a session again appends nothing for the turns already recorded.
func EventID(key string, i int) string {
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.Itoa(i)))
	return "audit-" + hex.EncodeToString(sum[:16])
}

// sessionKey is s.Key, or its default.
func sessionKey(s *Session) string {
	if s.Key != "" {
		return s.Key
	}
	if s.ID == "" {
		return "path\x00" + absPath(s.Path)
	}
	return s.Harness + "\x00" + s.ID + "\x00" + s.Agent
}

// turnEvents returns the events that record turn i of s: store.DecisionEvents of its decision
// d, or, for a turn with no decision (the user interrupted it), one termination event of its
// ending. Their time is the turn's end, else the session's Time, else now. IDs are EventID's.
// An event that cannot be encoded is left out; the store would refuse it anyway.
func turnEvents(s *Session, i int, d *stopgate.Decision) []store.Event {
	t := s.Turns[i]
	at := t.Turn.Now
	if at.IsZero() {
		at = s.Time
	}
	if at.IsZero() {
		at = time.Now()
	}
	var events []store.Event
	if d != nil {
		ev, err := store.DecisionEvents(t.Turn, *d, at)
		if err != nil {
			return nil
		}
		events = ev
	} else {
		o := store.Origin{Harness: s.Harness, Session: s.ID, Agent: s.Agent}
		ev, err := store.TerminationEvent(o, t.Ending, at)
		if err != nil {
			return nil
		}
		events = []store.Event{ev}
	}
	base := EventID(sessionKey(s), i)
	for k := range events {
		if k == 0 {
			events[k].ID = base
			continue
		}
		events[k].ID = base + "-" + strconv.Itoa(k)
		if events[k].Ref != "" {
			events[k].Ref = base
		}
	}
	return events
}

// record appends the sessions' events to st, one session in one call; a session the log
// already holds in part is appended turn by turn, and the turns already there are counted,
// not appended again.
func record(ctx context.Context, st store.Store, sessions []*sessionResult) (Recorded, error) {
	var rec Recorded
	for _, s := range sessions {
		var all []store.Event
		turns := 0
		for _, ev := range s.events {
			if len(ev) > 0 {
				all = append(all, ev...)
				turns++
			}
		}
		err := st.Append(ctx, all...)
		if err == nil {
			rec.Events += len(all)
			rec.Turns += turns
			continue
		}
		if !errors.Is(err, store.ErrDuplicate) {
			return rec, fmt.Errorf("audit: record %s: %w", s.report.Path, err)
		}
		for _, ev := range s.events {
			if len(ev) == 0 {
				continue
			}
			switch err := st.Append(ctx, ev...); {
			case err == nil:
				rec.Events += len(ev)
				rec.Turns++
			case errors.Is(err, store.ErrDuplicate):
				rec.Already++
			default:
				return rec, fmt.Errorf("audit: record %s: %w", s.report.Path, err)
			}
		}
	}
	return rec, nil
}
