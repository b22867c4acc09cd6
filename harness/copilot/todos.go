package copilot

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/internal/sqliteread"
)

// DatabaseName is the session database's file name, beside events.jsonl in the session's
// folder (~/.copilot/session-state/ID/session.db). Copilot CLI 1.0.102 creates it, with its
// todos and todo_deps tables, the first time the agent calls the sql tool.
const DatabaseName = "session.db"

// DatabasePath returns the session database that goes with the events.jsonl at eventsPath.
func DatabasePath(eventsPath string) string {
	return filepath.Join(filepath.Dir(eventsPath), DatabaseName)
}

// ReadTodos reads the todo list from the session database at dbPath: the todos table, in the
// order the rows were inserted, each item's title (with its id when it has no title) and its
// status read as stopgate reads todo statuses (pending and in_progress open, done completed).
// A blocked item is left out: the agent has said it cannot proceed, and nothing it can do now
// closes it. A database that is not there means the agent kept no list: nil and no error.
func ReadTodos(ctx context.Context, dbPath string) ([]stopgate.Todo, error) {
	var out []stopgate.Todo
	err := sqliteread.Query(ctx, dbPath, `SELECT id, COALESCE(title, ''), COALESCE(status, 'pending') FROM todos ORDER BY rowid`, func(rows *sql.Rows) error {
		var id, title, status string
		if err := rows.Scan(&id, &title, &status); err != nil {
			return err
		}
		switch status {
		case "done":
			status = "completed"
		case "pending", "in_progress":
		default: // blocked, or a status Copilot CLI does not define
			return nil
		}
		out = append(out, stopgate.Todo{Content: firstNonEmpty(title, id), Status: status})
		return nil
	})
	if sqliteread.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the todo list: %w", err)
	}
	if out == nil {
		out = []stopgate.Todo{}
	}
	return out, nil
}
