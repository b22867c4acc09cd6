package session

import (
	"encoding/json"
	"fmt"
	"time"
)

// Session is the state of one agent session as reconstructed from its session file. The
// shapes are Claude Code's (its transcript is what the model was first written for); the Codex
// CLI reader fills the same types.
//
// Times are the entries' own timestamps; a zero time means the transcript did not say.
// Slices are in transcript order.
type Session struct {
	// ID is the sessionId of the first entry that carries one.
	ID string
	// AgentID is set when the transcript is a sub-agent's own file (its entries carry agentId).
	AgentID string
	// Versions lists the Claude Code versions that wrote the entries, in the order first seen.
	Versions []string
	// CWD and GitBranch are the first working directory and branch the entries report: where
	// the session started. Later entries may report others after a cd or a checkout.
	CWD       string
	GitBranch string
	// Start and End are the earliest and latest entry timestamps.
	Start, End time.Time

	// Lines counts the physical lines read, blank ones included.
	Lines int
	// Entries counts entries by kind. The key is the entry's type; for system, progress,
	// attachment and queue-operation entries it is "type/subtype" (for example
	// "system/stop_hook_summary", "progress/agent_progress", "queue-operation/enqueue").
	Entries map[string]int

	// Messages are the model messages, user and assistant. Claude Code writes one assistant
	// entry per content block; entries sharing message.id are merged into one Message, in
	// order. Each user entry is one Message.
	Messages []*Message
	// Turns splits the session at each user turn; see Turn.
	Turns []*Turn
	// Todos is the latest todo list: TodoWrite items first, then TaskCreate/TaskUpdate items.
	Todos []Todo
	// TodosUsed is set when the session's own chain (the sidechain for a sub-agent's file)
	// called a todo tool, so an empty Todos is a list emptied, not one never kept.
	TodosUsed bool
	// Shells are the background shells the agent started, in start order.
	Shells []*Shell
	// Subagents are the Task/Agent tool calls, in call order.
	Subagents []*Subagent
	// AgentFiles are the sub-agent transcripts read beside the session (Options.Subagents).
	AgentFiles []*AgentFile
	// StopHooks are the stop-hook records: where stop hooks ran and where they nudged.
	StopHooks []*StopHook
	// Compactions are the context compactions.
	Compactions []*Compaction

	// Skipped counts well-formed entries of a type this package does not know. They are
	// counted in Entries too.
	Skipped int
	// Malformed describes the lines that could not be read as an entry, up to
	// Options.MaxMalformed of them; MalformedCount counts all.
	Malformed      []LineError
	MalformedCount int
}

// LineError describes one transcript line that was skipped because it is not a well-formed
// entry. Err wraps ErrLineTooLong, ErrNotObject or ErrNoType, or is the JSON decoding error.
type LineError struct {
	Line int // 1-based
	Err  error
}

// Error implements error.
func (e LineError) Error() string { return fmt.Sprintf("transcript: line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e LineError) Unwrap() error { return e.Err }

// MessageKind says what a message is. Assistant messages are KindAssistant; a user entry is
// classified by its flags and by the harness markup that opens its text.
type MessageKind string

// The message kinds.
const (
	KindAssistant      MessageKind = "assistant"         // a model response
	KindPrompt         MessageKind = "prompt"            // text the user typed (starts a turn)
	KindCommand        MessageKind = "command"           // a slash command or a "!" shell line the user typed (starts a turn)
	KindNotification   MessageKind = "task-notification" // a background task's completion notice delivered to the model (starts a turn)
	KindToolResult     MessageKind = "tool-result"       // tool results returned to the model
	KindHookFeedback   MessageKind = "hook-feedback"     // "Stop hook feedback:" — a stop hook kept the agent going
	KindInterrupt      MessageKind = "interrupt"         // "[Request interrupted by user…]"
	KindCommandOutput  MessageKind = "command-output"    // output of a local command, or its caveat
	KindCompactSummary MessageKind = "compact-summary"   // the summary that replaces the history after a compaction
	KindMeta           MessageKind = "meta"              // other harness-injected text (isMeta, system reminders, skill bodies)
)

// StartsTurn reports whether a user message of this kind starts a new turn.
func (k MessageKind) StartsTurn() bool {
	return k == KindPrompt || k == KindCommand || k == KindNotification
}

// Message is one model message: a merged assistant response, or one user entry.
type Message struct {
	// ID is message.id for assistant messages, the entry uuid for user messages.
	ID   string
	Role string // "assistant" or "user"
	Kind MessageKind
	// Model is the model that wrote an assistant message.
	Model string
	// Text is the message's text blocks (or its string content), blocks separated by a blank
	// line. Thinking is never included; tool results are in ToolResults. The text of a user
	// message is cut to Options.MaxResultBytes (compact summaries and pasted text run long).
	Text string
	// ToolCalls are the tool_use blocks of an assistant message.
	ToolCalls []*ToolCall
	// ToolResults are the tool_result blocks of a user message.
	ToolResults []*ToolResult
	// StopReason is the last non-null stop_reason among the merged entries. Claude Code
	// usually writes null, so nil means "not recorded", not "no reason".
	StopReason *string
	// Usage is the token usage of the last merged entry that reports one.
	Usage Usage
	// Time is the timestamp of the first entry; Line its line number.
	Time time.Time
	Line int
	// Entries counts the JSONL entries merged into the message.
	Entries int
	// Sidechain is set for entries written by a sub-agent (isSidechain).
	Sidechain bool
	// APIError marks a synthetic assistant message carrying an API error (isApiErrorMessage).
	APIError bool
	// Synthetic marks an assistant message Claude Code wrote itself, with no model call
	// (model "<synthetic>"), that is no API error: "No response requested." after a local
	// slash command, or after the meta "Continue from where you left off." of a resumed
	// session. It is not the agent's output: a turn's FinalText and StopReason skip it.
	Synthetic bool

	// Dropped is set when a live read (ReadTail) let the message go: it is in no turn.
	Dropped bool
}

// SyntheticModel is the model Claude Code records on an assistant message it wrote itself.
const SyntheticModel = "<synthetic>"

// Usage is an assistant message's token usage.
type Usage struct {
	InputTokens              int64
	OutputTokens             int64
	CacheCreationInputTokens int64
	CacheReadInputTokens     int64
}

// ToolCall is one tool_use block.
type ToolCall struct {
	ID   string
	Name string
	// Input is the call's input object as the model wrote it.
	Input json.RawMessage
	// Time and Line are those of the entry holding the block.
	Time time.Time
	Line int
	// Result is the tool_result returned for the call; nil when none was written (yet).
	Result *ToolResult
}

// ToolResult is one tool_result block, with the entry's structured toolUseResult.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	// Text is the result's text content, cut to Options.MaxResultBytes (TextTruncated).
	Text          string
	TextTruncated bool
	// Structured is the entry's toolUseResult, the tool-specific structured result (an
	// object, or a string for some errors). It is nil when absent, or when larger than
	// Options.MaxResultBytes (StructuredDropped).
	Structured        json.RawMessage
	StructuredDropped bool
	Time              time.Time
	Line              int
}

// TodoStatus is a todo item's status as the agent set it.
type TodoStatus string

// The todo statuses Claude Code defines.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
)

// Todo is one item of the agent's todo list.
type Todo struct {
	// ID is the task id for TaskCreate items and the item id of 2025-era TodoWrite lists;
	// empty otherwise.
	ID string
	// Content is the TodoWrite content or the TaskCreate subject.
	Content    string
	Status     TodoStatus
	ActiveForm string
	// Tool is the tool that keeps the item: "TodoWrite" or "TaskCreate".
	Tool string
}

// Open reports whether the item is still to do: pending or in progress. An unknown status
// is not open, so it never holds a stop back.
func (t Todo) Open() bool { return t.Status == TodoPending || t.Status == TodoInProgress }

// ShellStatus is the state of a background shell.
type ShellStatus string

// The shell states. A notification may carry another word; it is kept as is.
const (
	ShellRunning   ShellStatus = "running"
	ShellCompleted ShellStatus = "completed"
	ShellFailed    ShellStatus = "failed"
	ShellKilled    ShellStatus = "killed"
)

// Actor says who did something.
type Actor string

// The actors.
const (
	ActorModel   Actor = "model"   // the agent, through a tool call
	ActorUser    Actor = "user"    // the person at the terminal
	ActorUnknown Actor = "unknown" // the transcript does not say
)

// Shell is a background shell: a Bash call run with run_in_background, or a foreground call
// Claude Code moved to the background when it hit its timeout.
type Shell struct {
	// ID is the background task id (backgroundTaskId, "bd0afab", or "bash_1" in 2.0 builds).
	// It is empty for a run_in_background call whose result was never written.
	ID string
	// Call is the Bash call that started the shell; nil when only its notification was seen.
	Call        *ToolCall
	Command     string
	Description string
	// AutoBackgrounded is set when the command was moved to the background after its
	// timeout rather than started with run_in_background.
	AutoBackgrounded bool
	// OutputFile is where Claude Code writes the output (2.0.64+).
	OutputFile string
	// Started is when the start result was written: the call time if there is no result,
	// zero when only its notification was seen.
	Started time.Time

	// Status is the latest known state; ExitCode the exit code once known.
	Status   ShellStatus
	ExitCode *int
	// Finished is the earliest evidence that the shell ended: the notification being queued,
	// delivered, or a read reporting a final status. Zero while running or unknown.
	Finished time.Time
	// Notified is when its task-notification was delivered to the model as a message.
	Notified time.Time
	// Summary is the notification's summary line.
	Summary string

	// Reads are the reads of its output: TaskOutput/BashOutput calls on its id, and Read or
	// Bash calls naming its output file.
	Reads []ShellRead
	// ReadAt is the time of the first read that saw the final output: a read without error
	// at or after Finished, or one whose result reported a final status. Zero if the final
	// output was never read.
	ReadAt time.Time

	// KilledBy says who stopped the shell (KillShell/TaskStop by the model, or the user);
	// empty when it was not killed.
	KilledBy Actor
	Killed   time.Time
}

// ShellRead is one read of a background shell's output.
type ShellRead struct {
	Tool   string // TaskOutput, BashOutput, Read or Bash
	CallID string
	// Time is the result's timestamp (the call's if no result was written).
	Time time.Time
	// Status and ExitCode are what the read reported, when it reported them.
	Status   ShellStatus
	ExitCode *int
	// Error is set when the read's result was an error (rejected, interrupted, unknown id);
	// such a read saw nothing.
	Error bool
}

// Running reports whether the shell has not been seen to end.
func (s *Shell) Running() bool { return s.Status == ShellRunning }

// Failed reports whether the shell ended in failure: status failed, or a non-zero exit code.
// A killed shell is not failed.
func (s *Shell) Failed() bool {
	if s.Status == ShellKilled {
		return false
	}
	return s.Status == ShellFailed || (s.ExitCode != nil && *s.ExitCode != 0)
}

// Unread reports whether the shell ended but its final output was never read. A killed
// shell is never unread: whoever killed it did not want its output.
func (s *Shell) Unread() bool {
	return !s.Running() && s.Status != ShellKilled && s.ReadAt.IsZero()
}

// Subagent is one Task (Agent since 2.1.63) tool call and what became of it.
type Subagent struct {
	Call *ToolCall
	// Tool is "Task" or "Agent".
	Tool string
	// Type is the subagent_type; empty means Claude Code's default (general-purpose).
	Type        string
	Description string
	// Background is set for run_in_background agents, whose call returns at once.
	Background bool
	// AgentID links the call to the agent's own transcript (subagents/agent-<id>.jsonl). It
	// comes from the tool result or from agent_progress entries.
	AgentID string
	Started time.Time
	// Status is the last reported state: "completed", "async_launched", a notification
	// status, "killed" after a successful TaskStop, or "error" when the tool result was an
	// error. Empty while no result exists.
	Status string
	// Finished is when the agent was seen to end; zero while running or unknown.
	Finished time.Time
	// Delivered is when its final result reached the parent: the tool result of a foreground
	// agent (an error result counts: the parent learned the call failed), or for a
	// background agent its delivered notification or a TaskOutput read reporting a final
	// status. Zero means the parent never received it.
	Delivered time.Time
	// Progress counts the agent_progress entries written for it in the parent transcript.
	Progress int
	// File is the agent's own transcript when it was read (Options.Subagents).
	File *AgentFile
}

// Pending reports whether the parent has not received the agent's final result.
func (a *Subagent) Pending() bool { return a.Delivered.IsZero() }

// AgentFile is a sub-agent transcript found beside the session file.
type AgentFile struct {
	// AgentID is the id in the file name (agent-<id>.jsonl).
	AgentID string
	// Path is the file read.
	Path string
	// Compaction is set for the summariser Claude Code runs to compact the context
	// (agent-acompact-*.jsonl); such files belong to no Task call.
	Compaction bool
	// Session is the agent's own transcript, read with the parent's Options.
	Session *Session
}

// StopHookKind says which record a StopHook comes from.
type StopHookKind string

// The stop-hook record kinds.
const (
	// StopHookSummary is a system entry of subtype stop_hook_summary: the Stop hooks ran.
	StopHookSummary StopHookKind = "summary"
	// StopHookFeedback is a user message opening "Stop hook feedback:": a hook blocked the
	// stop and its reason was handed to the model.
	StopHookFeedback StopHookKind = "feedback"
	// StopHookAttachment is an attachment entry (2.1.97+) reporting a Stop or SubagentStop
	// hook's outcome (hook_blocking_error, hook_success, hook_additional_context, …).
	StopHookAttachment StopHookKind = "attachment"
)

// StopHook is one stop-hook record.
type StopHook struct {
	Kind StopHookKind
	// Event is the hook event ("Stop", "SubagentStop") where the record names it.
	Event string
	// Attachment is the attachment type for StopHookAttachment records.
	Attachment string
	Time       time.Time
	Line       int
	// Turn is the index in Session.Turns of the turn the record falls in; -1 before any.
	Turn int
	// Commands are the hook commands a summary lists; Errors its hookErrors.
	Commands []string
	Errors   []string
	// PreventedContinuation is set when a hook stopped Claude outright (continue:false);
	// StopReason is the reason it gave.
	PreventedContinuation bool
	StopReason            string
	// Blocked is set when the hook refused the stop, so the agent went on: a feedback
	// message, a blocking error, or additional context handed to the model.
	Blocked bool
	// Active is what stop_hook_active would have been at this stop: the agent was already
	// continuing because an earlier stop in the same turn was blocked. Records written with
	// no assistant message between them belong to one stop. Transcripts do not record the
	// flag itself; it is derived.
	Active bool
	// Text is the feedback or blocking message, cut to Options.MaxResultBytes.
	Text string
}

// Compaction is one context compaction.
type Compaction struct {
	Time time.Time
	Line int
	// Trigger is "auto" or "manual"; PreTokens the context size before.
	Trigger   string
	PreTokens int64
	// Micro marks a microcompact_boundary (tool results cleared, no summary).
	Micro bool
	// Summary is the text of the compact summary message that followed, cut to
	// Options.MaxResultBytes.
	Summary string
	// Turn is the index in Session.Turns of the turn it happened in; -1 before any.
	Turn int
}

// Turn is one user turn: from a prompt, a slash command or a delivered task notification to
// just before the next one. Tool results, hook feedback, interrupts and harness messages do
// not start turns. Each turn ends at one stop of the agent loop (or at an interrupt).
type Turn struct {
	Index int
	// Trigger is the kind of message that started the turn: KindPrompt, KindCommand or
	// KindNotification; empty for a turn whose start is not in the file (the first messages
	// of a resumed or truncated transcript).
	Trigger MessageKind
	// Prompt is the starting message's text, cut to Options.MaxResultBytes.
	Prompt string
	// Line is the line of the starting entry.
	Line       int
	Start, End time.Time
	// Messages are the turn's messages, the starting one first.
	Messages []*Message
	// FinalText is the text of the turn's last assistant message that has text.
	FinalText string
	// ToolCalls counts the tool calls the assistant made in the turn.
	ToolCalls int
	// StopReason is the stop_reason of the turn's last assistant message (often nil).
	StopReason *string
	// Interrupted is set when the user interrupted the turn.
	Interrupted bool
	// Local is set when no model answered in the turn: it holds no assistant message, or
	// only Synthetic ones. That is a local slash command (/login, /model, /clear, /exit, /mcp
	// …) with its output and Claude Code's "No response requested.", a "!" shell line, or a
	// prompt the file ends before any reply. Claude Code calls no model there and fires no
	// Stop hook, so the turn ends on no stop of the agent.
	Local bool
	// StopHookBlocks counts the stop-hook records in the turn that kept the agent going.
	StopHookBlocks int
	// Duration is the turn duration Claude Code reported (system turn_duration); zero if none.
	Duration time.Duration

	// Book is the reader's bookkeeping while it builds the turn; it is not part of what a
	// session says.
	Book TurnBook
}

// TurnBook is a reader's stop-hook bookkeeping for one Turn, for StopHook.Active and
// Turn.StopHookBlocks.
type TurnBook struct {
	AssistantCount int  // assistant messages so far
	HookAt         int  // AssistantCount at the latest stop-hook record; -1 before any
	HookActive     bool // Active of the latest stop
	HookBlocked    bool // the latest stop has a blocking record
	BlockedBefore  bool // an earlier stop in the turn blocked
}
