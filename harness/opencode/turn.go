package opencode

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/loopguard"
)

// Name is the harness's name: `stopgate hook opencode`, and the Turn.Harness of every Turn
// this package builds.
const Name = "opencode"

// MaxSteps bounds the loop-guard steps a Turn carries.
const MaxSteps = 100

// Turn builds the Turn stopgate decides on when an opencode session goes idle, from the
// session's messages msgs, its todo list todos (nil: unknown), the continuations the plugin
// sent it (nudges), and the time now.
//
//   - RunStartedAt: the last user message that is not one of nudges.
//   - Message: the run's last assistant message: its text (or the run's last text when it
//     has only tool calls) and its finish token, the AI SDK's ("stop", "tool-calls",
//     "length"), with no provider claimed, since opencode passes every provider's through
//     the AI SDK's vocabulary.
//   - Error: the last assistant message's error, when it failed.
//   - Steps: the run's tool calls and replies (the last MaxSteps).
//   - Todos: the todowrite list, as opencode keeps it (pending, in_progress, completed,
//     cancelled).
//   - Processes: bash calls still pending or running when the session went idle (opencode
//     1.18 runs bash in the foreground, so there are none unless a call was cut off).
//   - HostWakes is false: opencode does not wake an idle session when background work ends.
func Turn(session string, msgs []Message, todos []Todo, nudges []string, now time.Time) stopgate.Turn {
	t := stopgate.Turn{Harness: Name, Session: session, Now: now}
	wakes := false
	t.HostWakes = &wakes
	start := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Info.Role == "user" && !slices.Contains(nudges, msgs[i].Text()) {
			start = i
			break
		}
	}
	if start >= 0 {
		t.RunStartedAt = msgs[start].Created()
	}
	run := msgs[max(start, 0):]
	final := -1
	for i, m := range run {
		if m.Info.Role == "assistant" {
			final = i
		}
	}
	if final >= 0 {
		m := run[final]
		t.Message = &stopgate.Message{Text: m.Text(), FinishReason: m.Info.Finish, ToolCalls: len(m.Tools())}
		if strings.TrimSpace(t.Message.Text) == "" {
			t.Message.Text = lastText(run)
		}
		if e := m.Info.Error; e != nil {
			t.Error = &stopgate.ErrorInfo{Name: e.Name, Message: e.Data.Message, Status: e.Data.StatusCode}
		}
	}
	for _, m := range run {
		if m.Info.Role != "assistant" {
			continue
		}
		tools := m.Tools()
		if len(tools) == 0 {
			if text := m.Text(); strings.TrimSpace(text) != "" {
				t.Steps = appendStep(t.Steps, loopguard.Step{Text: text})
			}
			continue
		}
		for k, p := range tools {
			st := loopguard.Step{Tool: p.Tool, Args: string(p.State.Input)}
			if k == 0 {
				st.Text = m.Text()
			}
			switch p.State.Status {
			case "error":
				st.Error = firstNonEmpty(p.State.Error, "error")
			default:
				st.Result = p.State.Output
				if p.Tool == "bash" && p.State.Metadata.Exit != nil {
					// The exit status is in the part's metadata, not its output: carry it the
					// way the claims check reads a shell result.
					st.Result = strings.TrimRight(st.Result, "\n") + "\n\nExit code " + strconv.Itoa(*p.State.Metadata.Exit)
				}
			}
			t.Steps = appendStep(t.Steps, st)
			if p.Tool == "bash" && (p.State.Status == "running" || p.State.Status == "pending") {
				var in struct {
					Command string `json:"command"`
				}
				_ = json.Unmarshal(p.State.Input, &in)
				t.Processes = append(t.Processes, gate.Process{ID: p.CallID, Command: in.Command, StartedAt: millis(p.State.Time.Start), Status: gate.StatusRunning})
			}
		}
	}
	if todos != nil {
		t.Todos = make([]stopgate.Todo, 0, len(todos))
		for _, td := range todos {
			t.Todos = append(t.Todos, stopgate.Todo{Content: td.Content, Status: td.Status})
		}
	}
	return t
}

func lastText(run []Message) string {
	for i := len(run) - 1; i >= 0; i-- {
		if run[i].Info.Role == "assistant" && strings.TrimSpace(run[i].Text()) != "" {
			return run[i].Text()
		}
	}
	return ""
}

func appendStep(s []loopguard.Step, st loopguard.Step) []loopguard.Step {
	s = append(s, st)
	if len(s) > MaxSteps {
		s = s[len(s)-MaxSteps:]
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
