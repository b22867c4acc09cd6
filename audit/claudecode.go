package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/stopgate/stopgate/hook"
	"github.com/stopgate/stopgate/transcript"
)

// FormatClaudeCode is the Format of Claude Code session transcripts.
const FormatClaudeCode = "claude-code"

// ClaudeCode reads Claude Code session transcripts (JSONL, CLI 2.0 and 2.1): the session and,
// with it, the transcripts of its sub-agents (<session>/subagents/agent-*.jsonl, or
// agent-*.jsonl beside the session file for older builds), each one audited as its own
// Session with its agent id.
//
// Each turn's Turn is hook.SessionTurn's. A turn ends cancelled when the user interrupted it,
// on its API error when an API error message ended it, on its stop_reason when one was
// recorded (Claude Code mostly writes null), completed otherwise. Nudges are the stop-hook
// records that refused a stop (a "Stop hook feedback:" message, a blocking attachment); the
// records of one stop count once.
//
// A compaction summariser's transcript (agent-acompact-*.jsonl) is skipped: it is no agent
// that stops. A sub-agent transcript whose parent session file is missing is audited on its
// own.
type ClaudeCode struct{}

// Format implements Reader.
func (ClaudeCode) Format() string { return FormatClaudeCode }

// Detect implements Reader: the first line of the file is a Claude Code entry, an object with
// a "type" and one of the envelope fields every entry type carries (sessionId, uuid, leafUuid,
// messageId). Codex rollout lines ({timestamp, type, payload}) and Gemini CLI records have
// none of these together.
func (ClaudeCode) Detect(_ string, head []byte) bool {
	line, complete, ok := firstLine(head)
	if !ok {
		return false
	}
	if complete {
		var e struct {
			Type      string          `json:"type"`
			SessionID json.RawMessage `json:"sessionId"`
			UUID      json.RawMessage `json:"uuid"`
			LeafUUID  json.RawMessage `json:"leafUuid"`
			MessageID json.RawMessage `json:"messageId"`
		}
		if json.Unmarshal(line, &e) != nil {
			return false
		}
		return e.Type != "" && (e.SessionID != nil || e.UUID != nil || e.LeafUUID != nil || e.MessageID != nil)
	}
	// A first line longer than the head (a pasted prompt, a large tool result): read the
	// envelope fields Claude Code writes before the message.
	if !bytes.Contains(line, []byte(`"type":"`)) {
		return false
	}
	for _, k := range []string{`"sessionId":"`, `"uuid":"`, `"parentUuid":`, `"leafUuid":"`, `"messageId":"`} {
		if bytes.Contains(line, []byte(k)) {
			return true
		}
	}
	return false
}

// firstLine returns the first line of a file's head, blank lines and leading spaces skipped,
// when it starts a JSON object (ok); complete is false when the line goes on past the head.
func firstLine(head []byte) (line []byte, complete, ok bool) {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return nil, false, false
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		return head[:i], true, true
	}
	return head, len(head) < HeadBytes, true // shorter than the head: the whole file is one line
}

// Read implements Reader.
func (ClaudeCode) Read(path string) ([]*Session, error) {
	if strings.HasPrefix(filepath.Base(path), "agent-acompact-") {
		return nil, fmt.Errorf("%w: compaction summariser transcript", ErrSkip)
	}
	s, err := transcript.ReadFile(path, &transcript.Options{Subagents: true})
	if err != nil {
		return nil, fmt.Errorf("claude-code: %w", err)
	}
	mtime := modTime(path)
	var out []*Session
	if len(s.Turns) > 0 {
		out = append(out, claudeSession(s, path, mtime))
	}
	for _, af := range s.AgentFiles {
		if af.Compaction || af.Session == nil || len(af.Session.Turns) == 0 {
			continue
		}
		out = append(out, claudeSession(af.Session, af.Path, mtime))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no turns", ErrSkip)
	}
	return out, nil
}

// claudeSession converts one transcript, the session's own or a sub-agent's.
func claudeSession(s *transcript.Session, path string, mtime time.Time) *Session {
	out := &Session{
		Path: path, Format: FormatClaudeCode, Harness: hook.Harness,
		ID: s.ID, Agent: s.AgentID, Time: s.End, Malformed: s.MalformedCount,
	}
	if out.Time.IsZero() {
		out.Time = mtime
	}
	out.Turns = make([]Turn, len(s.Turns))
	for i, tr := range s.Turns {
		t := hook.SessionTurn(s, i)
		out.Turns[i] = Turn{Turn: t, Ending: TurnEnding(t, tr.Interrupted), Interrupted: tr.Interrupted, Trigger: string(tr.Trigger)}
	}
	out.Nudges = hookNudges(s)
	return out
}

// hookNudges reads the nudges a stop hook gave in s (a Claude Code transcript, or a Codex
// rollout's Session), and what the agent did after each: the assistant messages after the
// nudge and before the next one in the same turn (or the turn's end) are its continuation.
// Records with no assistant message between them belong to one stop and make one nudge.
func hookNudges(s *transcript.Session) []Nudge {
	var out []Nudge
	lastLine, lastTurn := -1, -1
	for k, h := range s.StopHooks {
		if !h.Blocked || h.Turn < 0 || h.Turn >= len(s.Turns) {
			continue
		}
		tr := s.Turns[h.Turn]
		if h.Turn == lastTurn && countReplies(tr, lastLine, h.Line) == 0 {
			if n := &out[len(out)-1]; n.Text == "" {
				n.Text = nudgeText(h.Text)
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
		n := Nudge{Turn: h.Turn, Time: h.Time, Text: nudgeText(h.Text)}
		replies := 0
		for _, m := range tr.Messages {
			if m.Kind != transcript.KindAssistant || m.APIError || m.Line <= h.Line || m.Line >= next {
				continue
			}
			replies++
			n.ToolCalls += len(m.ToolCalls)
		}
		switch {
		case n.ToolCalls > 0:
			n.Outcome = Acted
		case replies > 0:
			n.Outcome = StoppedAgain
		case tr.Interrupted:
			n.Outcome = Interrupted
		default:
			n.Outcome = NoReply
		}
		out = append(out, n)
		lastLine, lastTurn = h.Line, h.Turn
	}
	return out
}

// countReplies counts the agent's messages in tr between two lines.
func countReplies(tr *transcript.Turn, after, before int) int {
	n := 0
	for _, m := range tr.Messages {
		if m.Kind == transcript.KindAssistant && !m.APIError && m.Line > after && m.Line < before {
			n++
		}
	}
	return n
}

// hookLabel is how Claude Code introduces a hook's message: "Stop hook feedback:", then
// "- [command]: " (a blocking error's text starts at the bracket).
var hookLabel = regexp.MustCompile(`^(?:Stop hook feedback:)?\s*(?:-\s*)?(?:\[[^\]\n]*\]:\s*)?`)

// nudgeText is the start of a nudge's message, without Claude Code's labels.
func nudgeText(s string) string {
	s = hookLabel.ReplaceAllString(strings.TrimSpace(s), "")
	return excerpt(s, transcript.ExcerptRunes, false)
}

// excerpt cuts s to n runes on one line, keeping its end when tail is set and its start
// otherwise, and marking the cut with "…".
func excerpt(s string, n int, tail bool) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if tail {
		return "…" + string(r[len(r)-n+1:])
	}
	return string(r[:n-1]) + "…"
}
