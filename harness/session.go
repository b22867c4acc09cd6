package harness

import (
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// ReaderFunc is a SessionReader made of functions, for plugging in a reader without declaring
// a type.
type ReaderFunc struct {
	// Name is what Format returns.
	Name string
	// DetectFunc implements Detect; nil detects nothing.
	DetectFunc func(path string, head []byte) bool
	// ReadFunc implements Read; nil reads nothing (every file is skipped).
	ReadFunc func(path string) ([]*Session, error)
}

// Format implements SessionReader.
func (r ReaderFunc) Format() string { return r.Name }

// Detect implements SessionReader.
func (r ReaderFunc) Detect(path string, head []byte) bool {
	return r.DetectFunc != nil && r.DetectFunc(path, head)
}

// Read implements SessionReader.
func (r ReaderFunc) Read(path string) ([]*Session, error) {
	if r.ReadFunc == nil {
		return nil, ErrSkip
	}
	return r.ReadFunc(path)
}

// Session is one agent session as a SessionReader hands it to the audit, whatever its harness: the
// Turn a stop hook would have been asked about at the end of each turn, how each turn
// ended, and the nudges the real session was given.
type Session struct {
	// Path is the file the session was read from.
	Path string
	// Format is the SessionReader's Format.
	Format string
	// Harness, ID and Agent identify the session as the event log does: the harness name,
	// the session id, and a sub-agent's id (empty for the main agent).
	Harness, ID, Agent string
	// Key identifies the session's events in the event log across runs of the audit, so that
	// recording again adds nothing. Empty means Harness, ID and Agent (or Path, when ID is
	// empty).
	Key string
	// Time stands in for the time of a turn whose Turn.Now is zero when its events are
	// recorded; a reader sets the session's last timestamp, else the file's modification time.
	Time time.Time
	// Turns are the session's turns, in order.
	Turns []Turn
	// Nudges are the continuations a stop hook really gave in the session, in order.
	Nudges []Nudge
	// Malformed counts lines or records of the file that could not be read and were skipped.
	Malformed int
}

// Turn is one turn of a Session: the stop it ended on.
type Turn struct {
	// Turn is what a stop hook would have been asked at the turn's end.
	Turn stopgate.Turn
	// Ending is how the turn ended, by the session file's own account: an interrupt, an
	// error, the provider's stop token, the runner's exit status; completed otherwise.
	Ending termination.Reason
	// Interrupted reports that the user ended the turn. No stop hook runs then (Claude
	// Code's Stop does not fire on an interrupt), so the audit makes no decision for it.
	Interrupted bool
	// NoStop, when set, says why the turn ended on no stop of the agent, so that no stop hook
	// was asked about it and the audit makes no decision for it: a Claude Code local command
	// that called no model, a Codex turn the rollout ends in the middle of. An interrupted
	// turn leaves it empty (Interrupted says so).
	NoStop string
	// Trigger says what started the turn ("prompt", "task-notification", …); empty when the
	// file does not say.
	Trigger string
}

// NudgeOutcome says what an agent did after a stop hook refused its stop.
type NudgeOutcome string

// The nudge outcomes.
const (
	// Acted: the agent called a tool before it next stopped.
	Acted NudgeOutcome = "acted"
	// StoppedAgain: the agent replied without calling a tool, and stopped again.
	StoppedAgain NudgeOutcome = "stopped_again"
	// Interrupted: the user interrupted the turn before the agent called a tool.
	Interrupted NudgeOutcome = "interrupted"
	// NoReply: the session file holds no reply to the nudge (the session ended there).
	NoReply NudgeOutcome = "no_reply"
)

// Nudge is one continuation a stop hook gave in a real session, and what came of it.
type Nudge struct {
	// Turn is the index of the turn it was given in.
	Turn int `json:"turn"`
	// Time is when it was given; zero when the file does not say.
	Time time.Time `json:"time,omitzero"`
	// Text is the start of the message the agent was handed.
	Text string `json:"text,omitempty"`
	// Outcome is what the agent did next.
	Outcome NudgeOutcome `json:"outcome"`
	// ToolCalls counts the tool calls the agent made before it stopped again (or the turn
	// ended).
	ToolCalls int `json:"tool_calls"`
}

// SessionOf builds a Session from the Turns a harness's own Turn builder made for each turn of
// one session file, for a reader that has no more to say: Harness, ID and Agent come from the
// first Turn, Time from the last Turn's Now, and each turn's Ending from TurnEnding at site
// (none is taken as interrupted).
func SessionOf(site termination.Site, path, format string, turns []stopgate.Turn) *Session {
	s := &Session{Path: path, Format: format}
	for _, t := range turns {
		s.Turns = append(s.Turns, Turn{Turn: t, Ending: TurnEnding(site, t, false)})
		if !t.Now.IsZero() {
			s.Time = t.Now
		}
	}
	if len(turns) > 0 {
		s.Harness, s.ID, s.Agent = turns[0].Harness, turns[0].Session, turns[0].Agent
	}
	return s
}

// TurnEnding says how a turn ended from what its Turn holds, in this order: an interrupt is
// cancelled; an error is what termination.Classify makes of it; a stop token is what
// termination.ClassifyStop makes of it (an unrecognised token is unknown, not
// completed); anything else is completed. site is where the stop is decided: the harness's
// stop hook (Harness.Site), the supervisor's for a harness stopgate has no hook for.
func TurnEnding(site termination.Site, t stopgate.Turn, interrupted bool) termination.Reason {
	switch {
	case interrupted:
		return termination.Control(site, termination.Cancelled)
	case t.Err != nil:
		if r, ok := termination.ReasonOf(t.Err); ok {
			return r
		}
		return termination.New(site, termination.SourceException, termination.Classify(t.Err))
	case t.Error != nil:
		return termination.New(site, termination.SourceException, termination.Classify(apiError(t.Error)))
	case t.Message != nil && t.Message.FinishReason != "":
		if c, ok := termination.ClassifyStop(t.Message.Provider, t.Message.FinishReason); ok {
			return termination.New(site, termination.SourceMetadata, c)
		}
	}
	return termination.Control(site, termination.Completed)
}

// apiError turns an error description into the error the classifier reads, as the supervisor
// does.
func apiError(e *stopgate.ErrorInfo) *termination.APIError {
	a := termination.ParseErrorBody(e.Provider, e.Status, e.Body)
	if e.Type != "" {
		a.Type = e.Type
	}
	if e.Code != "" {
		a.Code = e.Code
	}
	if e.Message != "" {
		a.Message = e.Message
	}
	if e.Name != "" {
		a.Name = e.Name
	}
	return a
}
