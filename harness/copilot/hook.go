package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// MaxMessageBytes bounds the block reason the hook writes: Copilot CLI queues it whole as the
// agent's next user message.
const MaxMessageBytes = 8 << 10

// Hook is stopgate's agentStop and subagentStop hook for GitHub Copilot CLI.
//
// To let the agent stop it writes nothing. To keep it going it writes
// {"decision":"block","reason":MESSAGE}: Copilot CLI 1.0.102 queues MESSAGE as the next user
// message and runs another turn; for a subagentStop the sub-agent goes on. Copilot CLI ends the
// turn itself after 8 blocks in a row, and sets stop_hook_active on a stop that follows a
// block; stopgate's own budgets (kept per session under the state directory) stop well before.
// A Retry verdict is answered as a stop, since a hook cannot resend a request.
type Hook struct{}

// stateKey is the session key of a Copilot CLI session's state file, kept apart from any other
// harness's session of the same id.
func stateKey(session string) string { return "copilot-" + session }

// Stop implements harness.Hook: it decodes the payload, reads the session's event log and todo
// list, and builds the Turn.
func (Hook) Stop(ctx context.Context, payload io.Reader, now time.Time) (*harness.Stop, error) {
	p, err := DecodePayload(payload)
	if err != nil {
		return nil, err
	}
	st := &harness.Stop{Event: p.Event(), Active: p.StopHookActive}
	if len(p.Ignored) > 0 {
		st.Notes = append(st.Notes, "payload fields of an unexpected type, read as absent: "+strings.Join(p.Ignored, ", "))
	}
	var s *Session
	var todos []stopgate.Todo
	if p.TranscriptPath != "" {
		path := p.TranscriptPath
		if !filepath.IsAbs(path) && p.CWD != "" {
			path = filepath.Join(p.CWD, path)
		}
		key := harness.StateKey{Session: stateKey(p.SessionID)}
		if p.SessionID == "" {
			key = harness.StateKey{}
		}
		if p.Event() == EventSubagentStop {
			key.Agent = firstNonEmpty(p.AgentID, p.AgentName)
		}
		var lags bool
		s, st.Checkpoint, lags, err = readCaughtUp(ctx, path, p, harness.Checkpoint(ctx, key))
		switch {
		case err != nil:
			s, st.Checkpoint = nil, nil
			st.Notes = append(st.Notes, fmt.Sprintf("session log unreadable (%s); deciding on the payload alone", oneLine(err.Error())))
		case lags:
			st.Notes = append(st.Notes, fmt.Sprintf("the session log had not recorded this stop after %v; deciding on what it holds", LogWait))
		}
		if p.Event() == EventAgentStop {
			todos, err = ReadTodos(ctx, DatabasePath(path))
			if err != nil {
				todos = nil
				st.Notes = append(st.Notes, fmt.Sprintf("todo list unreadable (%s); reading it as unknown", oneLine(err.Error())))
			}
		}
	}
	st.Turn = Turn(p, s, todos, now)
	st.State = harness.StateKey{Session: stateKey(st.Turn.Session), Agent: st.Turn.Agent}
	if st.Turn.Session == "" {
		st.State = harness.StateKey{}
	}
	return st, nil
}

// LogWait bounds how long the hook waits for the event log to record the stop it is asked
// about. Copilot CLI 1.0.102 writes events.jsonl behind the session, a few tens of
// milliseconds after the events: at the first stop of a session the file may not exist yet
// when the hook starts.
const LogWait = 3 * time.Second

// logPoll is how often the hook looks at the event log again while it waits.
const logPoll = 25 * time.Millisecond

// readCaughtUp reads the event log at path (ReadTail, going on from checkpoint, what the last
// stop kept) once it records the agentStop hook run p is the payload of (a subagentStop, or a
// payload without a timestamp, is read at once), waiting at most LogWait and no longer than
// ctx allows. lags reports that it never did: s is then the log as it last stood, or err why
// it could not be read. next is the checkpoint for the next stop.
func readCaughtUp(ctx context.Context, path string, p Payload, checkpoint []byte) (s *Session, next []byte, lags bool, err error) {
	deadline := time.Now().Add(LogWait)
	for {
		s, next, err = ReadTail(path, checkpoint)
		if p.Event() != EventAgentStop || p.Timestamp <= 0 || err == nil && s.HasStop(p.Timestamp) {
			return s, next, false, err
		}
		if err == nil {
			// Go on from what this read reached: the next poll reads only what was appended.
			checkpoint = next
		}
		if time.Now().After(deadline) {
			return s, next, err == nil, err
		}
		select {
		case <-ctx.Done():
			return s, next, err == nil, err
		case <-time.After(logPoll):
		}
	}
}

// Answer implements harness.Hook.
func (Hook) Answer(d stopgate.Decision, _ *harness.Stop) ([]byte, string) {
	switch d.Verdict {
	case stopgate.Continue:
	case stopgate.Retry:
		return nil, fmt.Sprintf("a retry was advised (%s), but a stop hook cannot resend a request; letting the agent stop", d.Check)
	default:
		return nil, ""
	}
	msg := cutMessage(d.Message)
	if strings.TrimSpace(msg) == "" {
		return nil, fmt.Sprintf("check %s continued the run without a message; letting the agent stop", d.Check)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", msg}); err != nil {
		return nil, fmt.Sprintf("encoding the answer: %v; letting the agent stop", err)
	}
	return b.Bytes(), ""
}

// Harness describes GitHub Copilot CLI to cmd/stopgate.
func Harness() harness.Harness {
	return harness.Harness{
		Name:      Name,
		Summary:   "the GitHub Copilot CLI agentStop and subagentStop hook",
		Site:      termination.SiteHookCopilot,
		Hook:      Hook{},
		Installer: Installer{},
		Readers:   []harness.SessionReader{Reader{}},
		Doctor:    Doctor{},
	}
}

// cutMessage cuts msg to MaxMessageBytes on a rune boundary.
func cutMessage(msg string) string {
	if len(msg) <= MaxMessageBytes {
		return msg
	}
	cut := MaxMessageBytes
	for cut > 0 && !utf8Start(msg[cut]) {
		cut--
	}
	return msg[:cut]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// oneLine joins s's lines with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
