package gemini

import (
	"cmp"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/gemini/chat"
	"github.com/stopgate/stopgate/harness/internal/turns"
	"github.com/stopgate/stopgate/loopguard"
)

// Name is the Turn.Harness of every Turn Turn builds.
const Name = "gemini-cli"

// ProviderGoogle is the Message.Provider of every final message Turn builds, and the
// ErrorInfo.Provider of the errors it reads: Gemini CLI talks to the Gemini API.
const ProviderGoogle = "google"

// Turn builds the Turn a Gemini CLI AfterAgent hook decides on, from the hook's
// payload p, the session file s, and the time now. s may be nil when there is no session file
// or it could not be read; the Turn then holds what the payload alone says.
//
// The run is the answer to p.Prompt: it starts at the session's last user message whose text
// is the prompt (or begins with it, when a BeforeAgent hook added context), and its time is
// RunStartedAt. The continuation prompts a hook's denials sent since are part of the run, not
// new ones. When the payload has no prompt, or the session none that matches, the run start
// is unknown and the run is taken from the last user prompt of the session.
//
//   - Message: the run's last model message (its text, or the run's last text when it has
//     none). Gemini CLI records it before it runs the hook. prompt_response is the fallback,
//     when there is no session file or it lags (a user message follows the last model
//     message, unanswered): in 0.61.0 it joins every response of the prompt, and each
//     response's streamed chunks with spaces, which splits words, so it is not the final text.
//     FinishReason is never known: the session file does not record it.
//   - Steps: the run's tool calls and model replies (the last MaxSteps); a failed or
//     cancelled call is a step with an error.
//   - Todos: the session's last write_todos list, nil when it never wrote one. Items Gemini
//     CLI marks "blocked" (or with a status it does not define) are left out: nothing can be
//     done about them now, and the stopgate Turn would read them as open.
//   - Processes: the commands the session ran in the background, with what
//     list_background_processes last reported and the read_background_output reads.
//   - Error: an error message the session recorded after the run's last model message.
//   - HostWakes stays unknown: Gemini CLI hands a finished background command's output to
//     the agent only with tools.shell.backgroundCompletionBehavior "inject", a setting the
//     hook does not read.
//
// Nudges.Consecutive is 1 when stop_hook_active is set; the rest is the caller's to fill in
// (GeminiCLI keeps it in a state file).
func Turn(p Payload, s *chat.GeminiSession, now time.Time) stopgate.Turn {
	t := stopgate.Turn{Harness: Name, Session: p.SessionID, Now: now}
	var run []*chat.GeminiMessage
	if s != nil {
		if t.Session == "" {
			t.Session = s.ID
		}
		start := geminiRunStart(s.Messages, p.Prompt)
		if start >= 0 {
			t.RunStartedAt = s.Messages[start].Time
		} else {
			start = geminiLastPrompt(s.Messages)
		}
		run = s.Messages[max(start, 0):]
	}

	var final *chat.GeminiMessage // the run's last model message
	finalAt := -1
	for i, m := range run {
		if m.Type == chat.GeminiModel {
			final, finalAt = m, i
		}
	}
	for _, m := range run[finalAt+1:] {
		if m.Type == chat.GeminiError && strings.TrimSpace(m.Text) != "" {
			t.Error = &stopgate.ErrorInfo{Provider: ProviderGoogle, Message: m.Text}
		}
	}

	steps := geminiSteps(run)
	resp := p.Response()
	// The session file lags when a user message (a continuation prompt, tool results) follows
	// the run's last model message: the reply to it is not recorded yet.
	lags := final == nil || finalAt < len(run)-1 && geminiAnswered(run[finalAt+1:])
	switch {
	case final != nil && !lags:
		t.Message = &stopgate.Message{Text: final.Text, Provider: ProviderGoogle, ToolCalls: len(final.ToolCalls)}
		if strings.TrimSpace(t.Message.Text) == "" {
			t.Message.Text = geminiLastText(run)
		}
	case strings.TrimSpace(resp) != "":
		t.Message = &stopgate.Message{Text: resp, Provider: ProviderGoogle}
		// The final reply is not in the session's steps yet.
		steps = turns.AppendStep(steps, loopguard.Step{Text: resp})
	case final != nil:
		t.Message = &stopgate.Message{Text: final.Text, Provider: ProviderGoogle, ToolCalls: len(final.ToolCalls)}
	case p.PromptResponse != nil:
		t.Message = &stopgate.Message{Provider: ProviderGoogle}
	}
	t.Steps = steps

	if s != nil {
		t.Todos = geminiTurnTodos(s.Todos)
		t.Processes = turns.Processes(s.Shells, time.Time{})
	}
	if p.StopHookActive {
		t.Nudges.Consecutive = 1
	}
	return t
}

// geminiRunStart returns the index of the last user prompt whose text is prompt (or begins
// with it); -1 when prompt is absent or no message matches.
func geminiRunStart(msgs []*chat.GeminiMessage, prompt *string) int {
	if prompt == nil {
		return -1
	}
	want := strings.TrimSpace(*prompt)
	if want == "" {
		return -1
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Prompt() && strings.HasPrefix(strings.TrimSpace(m.Text), want) {
			return i
		}
	}
	return -1
}

// geminiLastPrompt returns the index of the session's last user prompt; -1 when it has none.
func geminiLastPrompt(msgs []*chat.GeminiMessage) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Prompt() {
			return i
		}
	}
	return -1
}

// geminiAnswered reports whether msgs hold a user message the model answers: a prompt or
// tool results.
func geminiAnswered(msgs []*chat.GeminiMessage) bool {
	for _, m := range msgs {
		if m.Type == chat.GeminiUser && (m.Prompt() || m.ToolResponses > 0) {
			return true
		}
	}
	return false
}

// geminiLastText returns the text of the last model message of run that has any.
func geminiLastText(run []*chat.GeminiMessage) string {
	for i := len(run) - 1; i >= 0; i-- {
		if m := run[i]; m.Type == chat.GeminiModel && strings.TrimSpace(m.Text) != "" {
			return m.Text
		}
	}
	return ""
}

// geminiSteps returns the loop-guard steps of run, as steps does for Claude Code: one per
// tool call (the message's text goes with its first call) and one per reply without a call.
func geminiSteps(run []*chat.GeminiMessage) []loopguard.Step {
	var out []loopguard.Step
	for _, m := range run {
		if m.Type != chat.GeminiModel {
			continue
		}
		if len(m.ToolCalls) == 0 {
			if strings.TrimSpace(m.Text) != "" {
				out = turns.AppendStep(out, loopguard.Step{Text: m.Text})
			}
			continue
		}
		for k, c := range m.ToolCalls {
			st := loopguard.Step{Tool: c.Name, Args: string(c.Args)}
			if k == 0 {
				st.Text = m.Text
			}
			switch {
			case c.Failed():
				st.Error = cmp.Or(c.Result, c.Status)
			default:
				st.Result = c.Result
			}
			out = turns.AppendStep(out, st)
		}
	}
	return out
}

// geminiTurnTodos converts a write_todos list; nil stays nil (never written). Only the
// statuses both sides read alike are carried: pending and in_progress (open), completed and
// cancelled (closed).
func geminiTurnTodos(todos []chat.Todo) []stopgate.Todo {
	if todos == nil {
		return nil
	}
	out := make([]stopgate.Todo, 0, len(todos))
	for _, td := range todos {
		switch td.Status {
		case chat.TodoPending, chat.TodoInProgress, chat.TodoCompleted, "cancelled":
			out = append(out, stopgate.Todo{Content: td.Content, Status: string(td.Status)})
		}
	}
	return out
}
