package session

import (
	"strings"

	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/stall"
)

// Summary is a small, stable digest of a Session, for audits, golden files and the CLI.
// It marshals to JSON with snake_case keys; map keys marshal sorted.
type Summary struct {
	SessionID string   `json:"session_id"`
	AgentID   string   `json:"agent_id,omitempty"`
	Versions  []string `json:"versions"`
	Lines     int      `json:"lines"`
	// Entries counts entries by kind, as Session.Entries.
	Entries map[string]int `json:"entries"`

	Messages          int `json:"messages"`
	AssistantMessages int `json:"assistant_messages"`
	Turns             int `json:"turns"`
	// ToolCalls counts tool calls by tool name; ToolErrors the results marked is_error.
	ToolCalls  map[string]int `json:"tool_calls"`
	ToolErrors int            `json:"tool_errors"`

	TodosOpen   int `json:"todos_open"`
	TodosClosed int `json:"todos_closed"`

	ShellsStarted int `json:"shells_started"`
	ShellsRunning int `json:"shells_running"`
	ShellsUnread  int `json:"shells_unread"`
	ShellsFailed  int `json:"shells_failed"`
	ShellsKilled  int `json:"shells_killed"`

	Subagents        int `json:"subagents"`
	SubagentsPending int `json:"subagents_pending"`
	AgentFiles       int `json:"agent_files"`

	StopHooks      int `json:"stop_hooks"`
	StopHookBlocks int `json:"stop_hook_blocks"`
	Compactions    int `json:"compactions"`

	Skipped   int `json:"skipped"`
	Malformed int `json:"malformed"`

	TurnEndings []TurnEnding `json:"turn_endings"`
}

// TurnEnding is how one turn ended.
type TurnEnding struct {
	Trigger     MessageKind `json:"trigger"`
	ToolCalls   int         `json:"tool_calls"`
	Interrupted bool        `json:"interrupted,omitempty"`
	StopReason  string      `json:"stop_reason,omitempty"`
	// Final is the last sentence of the turn's final assistant text, at most harness.ExcerptRunes
	// runes, cut at the front with "…" when longer.
	Final string `json:"final"`
}

// Summary digests the session. Sub-agent transcripts count only in AgentFiles.
func (s *Session) Summary() Summary {
	sum := Summary{
		SessionID:   s.ID,
		AgentID:     s.AgentID,
		Versions:    append([]string{}, s.Versions...),
		Lines:       s.Lines,
		Entries:     make(map[string]int, len(s.Entries)),
		Messages:    len(s.Messages),
		Turns:       len(s.Turns),
		ToolCalls:   make(map[string]int),
		Subagents:   len(s.Subagents),
		AgentFiles:  len(s.AgentFiles),
		StopHooks:   len(s.StopHooks),
		Compactions: len(s.Compactions),
		Skipped:     s.Skipped,
		Malformed:   s.MalformedCount,
		TurnEndings: make([]TurnEnding, 0, len(s.Turns)),
	}
	for k, n := range s.Entries {
		sum.Entries[k] = n
	}
	for _, m := range s.Messages {
		if m.Role == "assistant" {
			sum.AssistantMessages++
		}
		for _, c := range m.ToolCalls {
			sum.ToolCalls[c.Name]++
		}
		for _, r := range m.ToolResults {
			if r.IsError {
				sum.ToolErrors++
			}
		}
	}
	for _, t := range s.Todos {
		if t.Open() {
			sum.TodosOpen++
		} else {
			sum.TodosClosed++
		}
	}
	for _, sh := range s.Shells {
		sum.ShellsStarted++
		switch {
		case sh.Running():
			sum.ShellsRunning++
		case sh.Status == ShellKilled:
			sum.ShellsKilled++
		}
		if sh.Unread() {
			sum.ShellsUnread++
		}
		if sh.Failed() {
			sum.ShellsFailed++
		}
	}
	for _, a := range s.Subagents {
		if a.Pending() {
			sum.SubagentsPending++
		}
	}
	for _, t := range s.Turns {
		sum.StopHookBlocks += t.StopHookBlocks
		e := TurnEnding{
			Trigger:     t.Trigger,
			ToolCalls:   t.ToolCalls,
			Interrupted: t.Interrupted,
			Final:       lastSentence(t.FinalText, harness.ExcerptRunes),
		}
		if t.StopReason != nil {
			e.StopReason = *t.StopReason
		}
		sum.TurnEndings = append(sum.TurnEndings, e)
	}
	return sum
}

// lastSentence returns a short excerpt of the end of text: its last sentence or question, as
// stall.FinalSentence finds it (passing over a closing list, rule, table or code block), at
// most max runes, cut at the front with "…" when longer.
func lastSentence(text string, max int) string {
	r := []rune(strings.TrimSpace(stall.FinalSentence(text)))
	if max > 0 && len(r) > max {
		r = append([]rune("…"), r[len(r)-max+1:]...)
	}
	return string(r)
}
