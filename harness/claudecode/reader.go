package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
	"github.com/stopgate/stopgate/harness/internal/readers"
	"github.com/stopgate/stopgate/termination"
)

// Format is the Format of Claude Code session transcripts.
const Format = "claude-code"

// NoStopLocal is the NoStop of a Claude Code turn no model answered.
const NoStopLocal = "local command: no reply from the model, no Stop hook"

// Reader reads Claude Code session transcripts (JSONL, CLI 2.0 and 2.1): the session and,
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
// A turn no model answered (transcript.Turn.Local: a local slash command such as /login,
// /model, /clear or /exit, with its output and the synthetic "No response requested.") is
// no stop: Claude Code fires no Stop hook there. It is counted as a turn, with NoStopLocal
// as its NoStop, and not decided. A synthetic "No response requested." after a resumed
// session's meta prompt is not the agent's final message either.
//
// A compaction summariser's transcript (agent-acompact-*.jsonl) is skipped: it is no agent
// that stops. A sub-agent transcript whose parent session file is missing is audited on its
// own.
type Reader struct{}

// Format implements harness.SessionReader.
func (Reader) Format() string { return Format }

// Detect implements harness.SessionReader: the first line of the file is a Claude Code entry, an object with
// a "type" and one of the envelope fields every entry type carries (sessionId, uuid, leafUuid,
// messageId). Codex rollout lines ({timestamp, type, payload}) and Gemini CLI records have
// none of these together.
func (Reader) Detect(_ string, head []byte) bool {
	line, complete, ok := readers.FirstLine(head)
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

// Read implements harness.SessionReader.
func (Reader) Read(path string) ([]*harness.Session, error) {
	if strings.HasPrefix(filepath.Base(path), "agent-acompact-") {
		return nil, fmt.Errorf("%w: compaction summariser transcript", harness.ErrSkip)
	}
	s, err := transcript.ReadFile(path, &transcript.Options{Subagents: true})
	if err != nil {
		return nil, fmt.Errorf("claude-code: %w", err)
	}
	mtime := readers.ModTime(path)
	var out []*harness.Session
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
		return nil, fmt.Errorf("%w: no turns", harness.ErrSkip)
	}
	return out, nil
}

// claudeSession converts one transcript, the session's own or a sub-agent's.
func claudeSession(s *transcript.Session, path string, mtime time.Time) *harness.Session {
	out := &harness.Session{
		Path: path, Format: Format, Harness: Name,
		ID: s.ID, Agent: s.AgentID, Time: s.End, Malformed: s.MalformedCount,
	}
	if out.Time.IsZero() {
		out.Time = mtime
	}
	out.Turns = make([]harness.Turn, len(s.Turns))
	for i, tr := range s.Turns {
		t := SessionTurn(s, i)
		out.Turns[i] = harness.Turn{Turn: t, Ending: harness.TurnEnding(termination.SiteHookClaudeCode, t, tr.Interrupted), Interrupted: tr.Interrupted, Trigger: string(tr.Trigger)}
		if tr.Local && !tr.Interrupted {
			out.Turns[i].NoStop = NoStopLocal
		}
	}
	out.Nudges = readers.HookNudges(s)
	return out
}
