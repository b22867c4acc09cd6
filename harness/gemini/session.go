package gemini

import (
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/gemini/chat"
	"github.com/stopgate/stopgate/harness/internal/turns"
)

// geminiHarnessPrompts begin the user messages Gemini CLI writes itself, which start no turn:
// the session context it sends first, and the nudge it sends when the model answered a tool
// result with nothing.
var geminiHarnessPrompts = []string{
	"<session_context>",
	"[System: You successfully executed a tool but returned an empty response.",
}

// Turns splits the messages of s into turns, each the messages from one prompt to just
// before the next, the prompt first: each ends at one stop, where an AfterAgent hook runs.
// The user messages Gemini CLI writes itself (the session context, its nudge after an empty
// response) start no turn, nor do tool results. Messages before the first prompt make a turn
// of their own only when the model wrote one of them (a session whose start is not in the
// file). It returns nil when s is nil or holds no turn.
//
// Gemini CLI records a hook's continuation prompt as an ordinary user message, which cannot be
// told from one the user typed: it starts a turn too, and the stop before it ends the turn
// before.
func Turns(s *chat.GeminiSession) [][]*chat.GeminiMessage {
	if s == nil {
		return nil
	}
	spans := geminiTurnSpans(s.Messages)
	out := make([][]*chat.GeminiMessage, len(spans))
	for k, sp := range spans {
		out[k] = s.Messages[sp[0]:sp[1]]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// geminiTurnSpans returns the turns of msgs as [start, end) index pairs, as Turns splits
// them.
func geminiTurnSpans(msgs []*chat.GeminiMessage) [][2]int {
	var spans [][2]int
	start := -1 // the current turn's first message; -1 before the first prompt
	for k, m := range msgs {
		if !geminiTurnStart(m) {
			continue
		}
		if start >= 0 {
			spans = append(spans, [2]int{start, k})
		} else if geminiModelSpoke(msgs[:k]) {
			spans = append(spans, [2]int{0, k})
		}
		start = k
	}
	switch {
	case start >= 0:
		spans = append(spans, [2]int{start, len(msgs)})
	case geminiModelSpoke(msgs):
		spans = append(spans, [2]int{0, len(msgs)})
	}
	return spans
}

// geminiTurnStart reports whether m starts a turn: a prompt Gemini CLI did not write itself.
func geminiTurnStart(m *chat.GeminiMessage) bool {
	if !m.Prompt() {
		return false
	}
	text := strings.TrimSpace(m.Text)
	for _, p := range geminiHarnessPrompts {
		if strings.HasPrefix(text, p) {
			return false
		}
	}
	return true
}

// geminiModelSpoke reports whether msgs hold a model message.
func geminiModelSpoke(msgs []*chat.GeminiMessage) bool {
	for _, m := range msgs {
		if m.Type == chat.GeminiModel {
			return true
		}
	}
	return false
}

// SessionTurn builds the Turn of turn i of the Gemini CLI session s (turns as Turns
// splits them) as it stood when that turn ended, from the session file alone: what an
// AfterAgent hook would have been asked at that stop, for auditing a session after the fact.
// It returns the zero Turn when s is nil or i is out of range.
//
// It is the Turn Turn builds from the session as it stood at the stop (its messages up
// to the turn's end) and the payload Gemini CLI would have sent (the session id and the turn's
// prompt, no prompt_response, stop_hook_active unset), read as SessionTurn reads a past turn
// of a Claude Code session:
//
//   - Message, Steps, Error and RunStartedAt are Turn's for a run that starts at the
//     turn's prompt: a hook's continuation prompt cannot be told from the user's, so it is
//     taken to start a run of its own. FinishReason is not known.
//   - Processes: the background commands as they stood at the turn's end: one that ended later
//     is still running, a read made later has not happened.
//   - Todos: the last write_todos list, for the session's last turn only. The transcript keeps
//     only the last list, so for an earlier turn they are nil (unknown).
//   - HostWakes stays unknown and Subagents nil, as in Turn; Nudges are zero, since
//     the session file does not say which prompts a hook sent.
//
// Session is the metadata's sessionId; Now is the turn's end: the latest time its messages and
// their tool calls carry.
func SessionTurn(s *chat.GeminiSession, i int) stopgate.Turn {
	if s == nil {
		return stopgate.Turn{}
	}
	spans := geminiTurnSpans(s.Messages)
	if i < 0 || i >= len(spans) {
		return stopgate.Turn{}
	}
	sp := spans[i]
	run := s.Messages[sp[0]:sp[1]]
	end := geminiTurnEnd(run)

	cut := *s
	cut.Messages = s.Messages[:sp[1]]
	asOf := end
	if i < len(spans)-1 {
		cut.Todos = nil
	} else {
		asOf = time.Time{} // nothing happened after the last turn that belongs to another
	}
	p := Payload{SessionID: s.ID}
	if geminiTurnStart(run[0]) {
		prompt := run[0].Text
		p.Prompt = &prompt
	}
	t := Turn(p, &cut, end)
	t.Processes = turns.Processes(s.Shells, asOf)
	return t
}

// geminiTurnEnd returns the latest time the messages of run and their tool calls carry.
func geminiTurnEnd(run []*chat.GeminiMessage) time.Time {
	var end time.Time
	for _, m := range run {
		if m.Time.After(end) {
			end = m.Time
		}
		for _, c := range m.ToolCalls {
			if c.Time.After(end) {
				end = c.Time
			}
		}
	}
	return end
}
