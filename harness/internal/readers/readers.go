// Package readers holds what the harness packages' session readers for audit share: finding
// the first line of a file's head (FirstLine), a file's modification time (ModTime), and the
// stop-hook nudges recorded in a session.Session and what the agent did after each
// (HookNudges), which Claude Code transcripts and Codex rollouts both record.
package readers

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/internal/session"
)

// HookNudges reads the nudges a stop hook gave in s (a Claude Code transcript, or a Codex
// rollout's Session), and what the agent did after each: the assistant messages after the
// nudge and before the next one in the same turn (or the turn's end) are its continuation.
// Records with no assistant message between them belong to one stop and make one nudge.
func HookNudges(s *session.Session) []harness.Nudge {
	var out []harness.Nudge
	lastLine, lastTurn := -1, -1
	for k, h := range s.StopHooks {
		if !h.Blocked || h.Turn < 0 || h.Turn >= len(s.Turns) {
			continue
		}
		tr := s.Turns[h.Turn]
		if h.Turn == lastTurn && countReplies(tr, lastLine, h.Line) == 0 {
			if n := &out[len(out)-1]; n.Text == "" {
				n.Text = NudgeText(h.Text)
			}
			lastLine = h.Line
			continue
		}
		next := int(^uint(0) >> 1)
		for _, h2 := range s.StopHooks[k+1:] {
			if h2.Blocked && h2.Turn == h.Turn && countReplies(tr, h.Line, h2.Line) > 0 {
				next = h2.Line
				break
			}
		}
		n := harness.Nudge{Turn: h.Turn, Time: h.Time, Text: NudgeText(h.Text)}
		replies := 0
		for _, m := range tr.Messages {
			if m.Kind != session.KindAssistant || m.APIError || m.Line <= h.Line || m.Line >= next {
				continue
			}
			replies++
			n.ToolCalls += len(m.ToolCalls)
		}
		switch {
		case n.ToolCalls > 0:
			n.Outcome = harness.Acted
		case replies > 0:
			n.Outcome = harness.StoppedAgain
		case tr.Interrupted:
			n.Outcome = harness.Interrupted
		default:
			n.Outcome = harness.NoReply
		}
		out = append(out, n)
		lastLine, lastTurn = h.Line, h.Turn
	}
	return out
}

// countReplies counts the agent's messages in tr between two lines.
func countReplies(tr *session.Turn, after, before int) int {
	n := 0
	for _, m := range tr.Messages {
		if m.Kind == session.KindAssistant && !m.APIError && m.Line > after && m.Line < before {
			n++
		}
	}
	return n
}

// hookLabel is how Claude Code introduces a hook's message: "Stop hook feedback:", then
// "- [command]: " (a blocking error's text starts at the bracket).
var hookLabel = regexp.MustCompile(`^(?:Stop hook feedback:)?\s*(?:-\s*)?(?:\[[^\]\n]*\]:\s*)?`)

// NudgeText is the start of a nudge's message, without Claude Code's labels.
func NudgeText(s string) string {
	s = hookLabel.ReplaceAllString(strings.TrimSpace(s), "")
	return harness.Excerpt(s, harness.ExcerptRunes, false)
}

// FirstLine returns the first line of a file's head, blank lines and leading spaces skipped,
// when it starts a JSON object (ok); complete is false when the line goes on past the head.
func FirstLine(head []byte) (line []byte, complete, ok bool) {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return nil, false, false
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		return head[:i], true, true
	}
	return head, len(head) < harness.HeadBytes, true // shorter than the head: the whole file is one line
}

// ModTime returns the modification time of the file at path; zero when it cannot be read.
func ModTime(path string) time.Time {
	if fi, err := os.Stat(path); err == nil {
		return fi.ModTime()
	}
	return time.Time{}
}
