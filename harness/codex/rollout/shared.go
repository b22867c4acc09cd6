package rollout

import (
	"encoding/json"
	"io"
	"time"

	"github.com/stopgate/stopgate/harness/internal/session"
)

// The session model is shared with the other harness readers (package
// harness/internal/session); these are its names here.
type (
	// Session is the state of one session as reconstructed from its session file.
	Session = session.Session
	// Message is one model message, user or assistant.
	Message = session.Message
	// ToolCall is one tool_use block.
	ToolCall = session.ToolCall
	// ToolResult is one tool_result block.
	ToolResult = session.ToolResult
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
	// StopHook is one stop-hook record.
	StopHook = session.StopHook
	// Compaction is one context compaction.
	Compaction = session.Compaction
	// Turn is one user turn.
	Turn = session.Turn
	// Summary is a small JSON-serialisable digest of a Session.
	Summary = session.Summary
	// Options configures the reader.
	Options = session.Options
)

// The shared model's constants (see package harness/internal/session for each).
const (
	KindAssistant         = session.KindAssistant
	KindPrompt            = session.KindPrompt
	KindToolResult        = session.KindToolResult
	KindHookFeedback      = session.KindHookFeedback
	KindMeta              = session.KindMeta
	ShellRunning          = session.ShellRunning
	ShellCompleted        = session.ShellCompleted
	ShellFailed           = session.ShellFailed
	StopHookFeedback      = session.StopHookFeedback
	DefaultMaxResultBytes = session.DefaultMaxResultBytes
)

// The errors session.LineError wraps for lines that are skipped.
var (
	ErrLineTooLong = session.ErrLineTooLong // a line longer than Options.MaxLineBytes
	ErrNotObject   = session.ErrNotObject   // a line that holds JSON but not an object
	ErrNoType      = session.ErrNoType      // an object without a "type" string
)

// Flexible JSON scalars, shared with the other readers.
type (
	flexString = session.FlexString
	flexInt    = session.FlexInt
	flexBool   = session.FlexBool
)

func firstByte(b []byte) byte                { return session.FirstByte(b) }
func parseTime(s string) time.Time           { return session.ParseTime(s) }
func joinText(parts []string) string         { return session.JoinText(parts) }
func appendText(m *Message, s string)        { session.AppendText(m, s) }
func decodeLoose(raw json.RawMessage, v any) { session.DecodeLoose(raw, v) }

func scanLines(r io.Reader, max int, fn func(line []byte, tooLong bool)) error {
	return session.ScanLines(r, max, fn)
}

// entryKey is the key of Session.Entries while a rollout is read.
type entryKey struct{ typ, sub string }
