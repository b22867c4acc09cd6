package chat

import (
	"time"

	"github.com/stopgate/stopgate/harness/internal/session"
)

// The session model is shared with the other harness readers (package
// harness/internal/session); these are its names here.
type (
	// LineError describes one line that was skipped.
	LineError = session.LineError
	// TodoStatus is a todo item's status.
	TodoStatus = session.TodoStatus
	// Todo is one todo item.
	Todo = session.Todo
	// ShellStatus is how a background shell stands.
	ShellStatus = session.ShellStatus
	// Shell is one background shell.
	Shell = session.Shell
	// ShellRead is one read of a shell's output.
	ShellRead = session.ShellRead
	// Summary is a small JSON-serialisable digest of a Session.
	Summary = session.Summary
	// Options configures the reader.
	Options = session.Options
)

// The shared model's constants (see package harness/internal/session for each).
const (
	KindPrompt     = session.KindPrompt
	TodoPending    = session.TodoPending
	TodoInProgress = session.TodoInProgress
	TodoCompleted  = session.TodoCompleted
	ShellRunning   = session.ShellRunning
	ShellCompleted = session.ShellCompleted
	ShellFailed    = session.ShellFailed
)

// The errors LineError wraps for lines that are skipped.
var (
	ErrLineTooLong = session.ErrLineTooLong // a line longer than Options.MaxLineBytes
	ErrNotObject   = session.ErrNotObject   // a line that holds JSON but not an object
)

// Flexible JSON scalars, shared with the other readers.
type (
	flexString = session.FlexString
)

func firstByte(b []byte) byte      { return session.FirstByte(b) }
func parseTime(s string) time.Time { return session.ParseTime(s) }
