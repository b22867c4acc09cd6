package stopgate

import (
	"strings"
	"time"

	"github.com/stopgate/stopgate/gate"
	"github.com/stopgate/stopgate/loopguard"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/termination"
)

// Turn is everything a harness knows at the moment its agent is about to stop. Every field is
// optional, and absent means unknown, which is not the same as empty: a nil list means the
// harness did not report that kind of thing, an empty non-nil list (JSON []) means it reported
// none. A harness that does not report background work is never read as having none; it just
// gives the checks that need it nothing to go on.
type Turn struct {
	// Harness names the agent harness ("claude-code", "codex", "gemini-cli", …).
	Harness string `json:"harness,omitempty"`
	// Session identifies the session.
	Session string `json:"session,omitempty"`
	// Agent is the stopping sub-agent's id when the agent stopping is a child; empty for the
	// main agent.
	Agent string `json:"agent,omitempty"`
	// Mode says whether a person will read the final message. Empty takes the supervisor's
	// configured mode.
	Mode stall.Mode `json:"mode,omitempty"`

	// Now is when the stop happens. Zero means unknown; one-shot schedules then count as
	// pending, since whether they are due cannot be told.
	Now time.Time `json:"now,omitzero"`
	// RunStartedAt is when the current run began (the user's prompt that started it). Zero
	// means unknown, and then no background process blocks (see gate.Input).
	RunStartedAt time.Time `json:"run_started_at,omitzero"`

	// Message is the final assistant message; nil means unknown.
	Message *Message `json:"message,omitempty"`
	// Steps are the run's recent tool steps, oldest first, for the loop guard.
	Steps []loopguard.Step `json:"steps,omitempty"`

	// Todos is the agent's todo list; nil means unknown (the final message's own checklist
	// is still read).
	Todos []Todo `json:"todos,omitempty"`
	// Processes are the background processes the harness knows of.
	Processes []gate.Process `json:"processes,omitempty"`
	// Subagents are the sub-agents the harness knows of.
	Subagents []gate.Subagent `json:"subagents,omitempty"`
	// Jobs are the background jobs that report back to the agent when they finish.
	Jobs []Job `json:"jobs,omitempty"`
	// Schedules are the agent's armed wake-ups.
	Schedules []Schedule `json:"schedules,omitempty"`
	// HostWakes says whether the host wakes the agent when background work finishes. Nil
	// means unknown, which for the main agent is taken as true (a run waiting on work is then
	// parked, because prodding it is the worse failure) and for a sub-agent (Agent set) as
	// false: a sub-agent's host does not wake it when its process ends, so a process it left
	// running unread blocks its completion. When true, running processes and sub-agents are
	// pending work, not unresolved work; exited ones still gate.
	HostWakes *bool `json:"host_wakes,omitempty"`

	// Error describes the error the run ended on, as data; nil when it did not end on one.
	Error *ErrorInfo `json:"error,omitempty"`
	// Err is the error the run ended on, for Go callers; it wins over Error.
	Err error `json:"-"`

	// Nudges counts the continuations already given.
	Nudges Nudges `json:"nudges,omitzero"`
}

// hostWakes reads HostWakes with its default: absent means true for the main agent and false
// for a sub-agent.
func (t Turn) hostWakes() bool {
	if t.HostWakes == nil {
		return t.Agent == ""
	}
	return *t.HostWakes
}

// Message is the final assistant message of a turn.
type Message struct {
	// Text is the visible text of the message.
	Text string `json:"text"`
	// Provider is the provider family that produced it, where known.
	Provider string `json:"provider,omitempty"`
	// FinishReason is the provider's raw stop or finish token, as received; empty when the
	// message carried none (or it is unknown).
	FinishReason string `json:"finish_reason,omitempty"`
	// Payload is the raw response (or its metadata) the message came in, read by the
	// metadata feeder when FinishReason is empty.
	Payload any `json:"payload,omitempty"`
	// ToolCalls is how many tool calls the message made.
	ToolCalls int `json:"tool_calls,omitempty"`
	// Metadata is the harness's metadata for the message; "livelocked": true marks a
	// livelock exit.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Todo is one item of an agent's todo list.
type Todo struct {
	// Content is the item's text.
	Content string `json:"content"`
	// Status is the harness's status word: "pending", "in_progress" or "completed" for
	// Claude Code's TodoWrite and task tools and Codex's update_plan, and also "cancelled" and
	// "blocked" for Gemini CLI's write_todos. Only the two that say the item is still to do
	// are open; see [Todo.Open].
	Status string `json:"status"`
}

// Open reports whether the item still needs doing: its status is pending or in progress, in
// any case, with "in-progress" and "in progress" read as "in_progress". Every other status is
// not open, an empty or unknown one included: "skipped", "blocked", "deleted" and words this
// package does not know do not say there is work to do, and when unsure, no nudge.
func (t Todo) Open() bool {
	s := strings.ToLower(strings.TrimSpace(t.Status))
	s = strings.NewReplacer("-", "_", " ", "_").Replace(s)
	return s == "pending" || s == "in_progress"
}

// Job is a background job that reports back to the agent when it finishes.
type Job struct {
	// ID identifies the job.
	ID string `json:"id,omitempty"`
	// Label names it for people ("npm test").
	Label string `json:"label,omitempty"`
	// Status is the job's state; only "running" means it will still report.
	Status string `json:"status,omitempty"`
	// Service marks a long-lived service (a preview or dev server) that does not represent
	// pending work.
	Service bool `json:"service,omitempty"`
}

// Schedule is a wake-up the agent armed.
type Schedule struct {
	// ID identifies the schedule.
	ID string `json:"id,omitempty"`
	// Trigger is "once" or "cron". A cron schedule is never a pending wake: it is periodic,
	// not a wake for the work in hand.
	Trigger string `json:"trigger,omitempty"`
	// At is when a one-shot schedule fires.
	At time.Time `json:"at,omitzero"`
}

// ErrorInfo describes, as data, the error a run ended on.
type ErrorInfo struct {
	Provider string `json:"provider,omitempty"`
	Status   int    `json:"status,omitempty"`
	Type     string `json:"type,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message,omitempty"`
	// Body is the raw response body, read in the provider's own shape.
	Body string `json:"body,omitempty"`
	// Name is an error class name ("RateLimitError", "AbortError").
	Name string `json:"name,omitempty"`
}

// apiError turns the description into the error the termination classifier reads.
func (e *ErrorInfo) apiError() *termination.APIError {
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

// Nudges counts the continuations a run has been given.
type Nudges struct {
	// Consecutive is how many continuations were given in a row, with no stop the agent was
	// allowed in between. Claude Code's stop_hook_active means at least 1.
	Consecutive int `json:"consecutive,omitempty"`
	// Given counts them per check this run.
	Given Budget `json:"given,omitzero"`
}
