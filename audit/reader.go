package audit

import "github.com/stopgate/stopgate/harness"

// HeadBytes is how much of the start of a file Run hands to Reader.Detect.
const HeadBytes = harness.HeadBytes

// ErrSkip marks a file a Reader recognised but has nothing to audit in (a compaction
// summariser's transcript, say). Run names the file as skipped, with the error's text as the
// reason, and does not report it as a failure. It is harness.ErrSkip.
var ErrSkip = harness.ErrSkip

// Reader reads one session-file format into Sessions: harness.SessionReader. Run asks each
// Reader in Options.Readers in turn whether it knows a file, and the first that does reads
// it. Each harness package under harness/ has one; cmd/stopgate lists them.
type Reader = harness.SessionReader

// ReaderFunc is a Reader made of functions: harness.ReaderFunc.
type ReaderFunc = harness.ReaderFunc

// Session is one agent session as a Reader hands it to the audit: harness.Session.
type Session = harness.Session

// Turn is one turn of a Session: harness.Turn.
type Turn = harness.Turn

// Nudge is one continuation a stop hook gave in a real session: harness.Nudge.
type Nudge = harness.Nudge

// NudgeOutcome says what an agent did after a stop hook refused its stop.
type NudgeOutcome = harness.NudgeOutcome

// The nudge outcomes.
const (
	Acted        = harness.Acted
	StoppedAgain = harness.StoppedAgain
	Interrupted  = harness.Interrupted
	NoReply      = harness.NoReply
)
