package copilot

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// Format is the audit format name of a Copilot CLI event log.
const Format = "copilot"

// Reader is the audit's reader of Copilot CLI event logs
// (~/.copilot/session-state/ID/events.jsonl).
type Reader struct{}

// Format implements harness.SessionReader.
func (Reader) Format() string { return Format }

// Detect implements harness.SessionReader: a JSON-lines file whose head holds a Copilot CLI
// session.start event (producer "copilot-agent").
func (Reader) Detect(path string, head []byte) bool {
	return strings.HasSuffix(path, ".jsonl") && bytes.Contains(head, []byte(`"type":"session.start"`)) &&
		bytes.Contains(head, []byte(`"producer":"copilot-agent"`))
}

// Read implements harness.SessionReader: one Session, a Turn for each of the main agent's stops
// (see Stops), the nudges the agentStop hooks gave, and the todo list read from the session
// database for the last stop only (the database keeps only the latest list).
func (Reader) Read(path string) ([]*harness.Session, error) {
	s, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := &harness.Session{Path: path, Format: Format, Harness: Name, ID: s.ID, Malformed: s.Malformed}
	stops := Stops(s)
	if len(stops) == 0 {
		return nil, fmt.Errorf("%w: no stop of the agent in the log", harness.ErrSkip)
	}
	todos, todoErr := ReadTodos(context.Background(), DatabasePath(path))
	for i, end := range stops {
		asOf := time.Time{}
		if i < len(stops)-1 && end > 0 {
			asOf = s.Messages[end-1].Time
		}
		t := stopAt(s, end, asOf)
		if i == len(stops)-1 && todoErr == nil {
			t.Todos = todos
		}
		for _, h := range s.StopHooks {
			if h.Message == end && h.Active {
				t.Nudges.Consecutive = 1
			}
		}
		interrupted := end < len(s.Messages) && s.Messages[end].Kind == KindInterrupt
		out.Turns = append(out.Turns, harness.Turn{
			Turn:        t,
			Ending:      harness.TurnEnding(termination.SiteHookCopilot, t, interrupted),
			Interrupted: interrupted,
			Trigger:     trigger(s.Messages[:end]),
		})
		if !t.Now.IsZero() {
			out.Time = t.Now
		}
	}
	out.Nudges = nudges(s, stops)
	return []*harness.Session{out}, nil
}

// Stops returns where the main agent stopped in s: for each stop, the index in s.Messages
// just past the stop's last event. The agent stops when an assistant message with no tool
// request (or an error) is followed by a user message, a notification, an interrupt, or the
// end of the log.
func Stops(s *Session) []int {
	var out []int
	pending := false // an input the agent has not stopped after yet
	for i, m := range s.Messages {
		switch m.Kind {
		case KindUser, KindNotification:
			if pending {
				out = append(out, i)
			}
			pending = true
		case KindInterrupt:
			if pending {
				out = append(out, i)
				pending = false
			}
		}
	}
	if pending && len(s.Messages) > 0 {
		out = append(out, len(s.Messages))
	}
	// A stop needs an answer from the agent since its input.
	kept := out[:0]
	prev := 0
	for _, end := range out {
		if answered(s.Messages[prev:end]) {
			kept = append(kept, end)
		}
		prev = end
	}
	return kept
}

// answered reports whether msgs hold an assistant message or an error.
func answered(msgs []*Message) bool {
	for _, m := range msgs {
		if m.Kind == KindAssistant || m.Kind == KindError {
			return true
		}
	}
	return false
}

// trigger says what started the turn that ends at the end of msgs.
func trigger(msgs []*Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch m := msgs[i]; m.Kind {
		case KindUser:
			if m.Continuation {
				return "stop-hook"
			}
			return "prompt"
		case KindNotification:
			return "notification"
		}
	}
	return ""
}

// nudges returns the continuations the agentStop hooks gave, each with what the agent did
// next.
func nudges(s *Session, stops []int) []harness.Nudge {
	var out []harness.Nudge
	for _, h := range s.StopHooks {
		if !h.Blocked {
			continue
		}
		turn := 0
		for i, end := range stops {
			if end <= h.Message {
				turn = i
			}
		}
		n := harness.Nudge{Turn: turn, Time: h.Time, Text: cutText(h.Reason, 200), Outcome: harness.NoReply}
		for _, m := range s.Messages[min(h.Message, len(s.Messages)):] {
			if m.Kind == KindUser && m.Continuation {
				continue
			}
			if m.Kind == KindInterrupt {
				n.Outcome = harness.Interrupted
				break
			}
			if m.Kind != KindAssistant {
				break
			}
			n.ToolCalls += len(m.ToolCalls)
			if len(m.ToolCalls) == 0 {
				break
			}
		}
		switch {
		case n.Outcome == harness.Interrupted:
		case n.ToolCalls > 0:
			n.Outcome = harness.Acted
		case h.Message+1 < len(s.Messages):
			n.Outcome = harness.StoppedAgain
		}
		out = append(out, n)
	}
	return out
}

// cutText cuts s to at most n runes.
func cutText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
