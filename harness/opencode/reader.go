package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/sqliteread"
	"github.com/stopgate/stopgate/termination"
)

// Format is the audit format name of opencode's storage.
const Format = "opencode"

// DatabaseName is opencode's storage: ~/.local/share/opencode/opencode.db (1.18 keeps every
// session there: the session, message, part and todo tables, message and part bodies as JSON).
const DatabaseName = "opencode.db"

// Reader is the audit's reader of opencode's storage.
type Reader struct{}

// Format implements harness.SessionReader.
func (Reader) Format() string { return Format }

// Detect implements harness.SessionReader: a SQLite file named opencode.db.
func (Reader) Detect(path string, head []byte) bool {
	return filepath.Base(path) == DatabaseName && bytes.HasPrefix(head, []byte("SQLite format 3\x00"))
}

// Read implements harness.SessionReader: every session in the database, each a Session whose
// turns are the points where the agent went idle (an assistant message followed by a user
// message, or the session's end). The todo list is known for each session's last turn only.
// The continuations a plugin sent are not told apart from the user's prompts: storage does not
// mark them, so Nudges stay empty and each one starts a run.
func (Reader) Read(path string) ([]*harness.Session, error) {
	return ReadDatabase(context.Background(), path)
}

// ReadDatabase reads every session of the opencode database at path.
func ReadDatabase(ctx context.Context, path string) ([]*harness.Session, error) {
	type row struct{ session, parent string }
	var sessions []row
	if err := sqliteread.Query(ctx, path, `SELECT id, COALESCE(parent_id, '') FROM session ORDER BY time_created`, func(r *sql.Rows) error {
		var s row
		if err := r.Scan(&s.session, &s.parent); err != nil {
			return err
		}
		sessions = append(sessions, s)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading the opencode sessions: %w", err)
	}
	var out []*harness.Session
	for _, s := range sessions {
		msgs, malformed, err := readMessages(ctx, path, s.session)
		if err != nil {
			return nil, err
		}
		var todos []Todo
		if err := sqliteread.Query(ctx, path, `SELECT content, status, priority FROM todo WHERE session_id = ? ORDER BY position`, func(r *sql.Rows) error {
			var td Todo
			if err := r.Scan(&td.Content, &td.Status, &td.Priority); err != nil {
				return err
			}
			todos = append(todos, td)
			return nil
		}, s.session); err != nil {
			return nil, err
		}
		hs := &harness.Session{Path: path, Format: Format, Harness: Name, ID: s.session, Malformed: malformed, Key: Name + ":" + s.session}
		if s.parent != "" {
			hs.ID, hs.Agent = s.parent, s.session
		}
		stops := Stops(msgs)
		for i, end := range stops {
			var td []Todo
			if i == len(stops)-1 {
				td = todos
			}
			now := msgs[end-1].Created()
			if c := millis(msgs[end-1].Info.Time.Completed); !c.IsZero() {
				now = c
			}
			t := Turn(s.session, msgs[:end], td, nil, now)
			if s.parent != "" {
				t.Session, t.Agent = s.parent, s.session
			}
			hs.Turns = append(hs.Turns, harness.Turn{Turn: t, Ending: harness.TurnEnding(termination.SiteHookOpencode, t, false), Trigger: "prompt"})
			hs.Time = now
		}
		if len(hs.Turns) > 0 {
			out = append(out, hs)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no session with an agent stop", harness.ErrSkip)
	}
	return out, nil
}

// readMessages reads one session's messages with their parts, in order; malformed counts
// bodies that are not JSON.
func readMessages(ctx context.Context, path, session string) ([]Message, int, error) {
	var msgs []Message
	index := map[string]int{}
	malformed := 0
	if err := sqliteread.Query(ctx, path, `SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id`, func(r *sql.Rows) error {
		var id, data string
		var created int64
		if err := r.Scan(&id, &created, &data); err != nil {
			return err
		}
		var m Message
		if json.Unmarshal([]byte(data), &m.Info) != nil {
			malformed++
			return nil
		}
		m.Info.ID, m.Info.SessionID = id, session
		if m.Info.Time.Created == 0 {
			m.Info.Time.Created = created
		}
		index[id] = len(msgs)
		msgs = append(msgs, m)
		return nil
	}, session); err != nil {
		return nil, 0, fmt.Errorf("reading the opencode messages: %w", err)
	}
	if err := sqliteread.Query(ctx, path, `SELECT message_id, data FROM part WHERE session_id = ? ORDER BY id`, func(r *sql.Rows) error {
		var mid, data string
		if err := r.Scan(&mid, &data); err != nil {
			return err
		}
		i, ok := index[mid]
		if !ok {
			return nil
		}
		var p Part
		if json.Unmarshal([]byte(data), &p) != nil {
			malformed++
			return nil
		}
		msgs[i].Parts = append(msgs[i].Parts, p)
		return nil
	}, session); err != nil {
		return nil, 0, fmt.Errorf("reading the opencode message parts: %w", err)
	}
	return msgs, malformed, nil
}

// Stops returns where the agent went idle in msgs: for each stop, the index just past its last
// assistant message (one followed by a user message, or the last message).
func Stops(msgs []Message) []int {
	var out []int
	for i, m := range msgs {
		if m.Info.Role != "assistant" {
			continue
		}
		if i == len(msgs)-1 || msgs[i+1].Info.Role == "user" {
			out = append(out, i+1)
		}
	}
	return out
}
