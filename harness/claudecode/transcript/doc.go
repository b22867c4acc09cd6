// Package transcript is Claude Code's session reader: it reconstructs the state of a session
// from Claude Code's JSONL transcripts (CLI 2.0 and 2.1 shapes), into the session model it
// shares with the Codex CLI reader (harness/internal/session; Session and the other model
// types are named here as aliases).
//
// A transcript is an append-only log, one JSON entry a line: user and assistant messages,
// system records (compactions, stop-hook summaries, turn durations), progress records,
// queue operations and a growing list of bookkeeping types. [Read] makes one streaming pass
// over it and returns a [Session]:
//
//   - Messages: assistant entries merged by message.id (Claude Code writes one entry per
//     content block), thinking left out of the text, tool calls linked to their results.
//   - Turns: the session split at each user turn, with the final assistant text, the number
//     of tool calls and the last stop_reason of each.
//   - Todos: the latest todo list, from TodoWrite or the TaskCreate/TaskUpdate task tools.
//   - Shells: background shells, when they ended and how (task notifications, TaskOutput and
//     BashOutput reads), whether their final output was read, and who killed them.
//   - Subagents: Task/Agent calls, whether their result reached the parent, and with
//     [ReadFile] and [Options.Subagents] the agents' own transcripts.
//   - StopHooks and Compactions: where stop hooks ran and nudged, where the context was
//     compacted.
//
// [Session.Summary] digests a session into a small JSON-serialisable [Summary].
//
// The reader never fails on content: unknown entry types and fields are skipped, and a
// malformed line is counted and skipped. Only an I/O error is an error. Tool results can be
// tens of megabytes; lines are read through one reused buffer, and the text kept per result
// is bounded by [Options.MaxResultBytes].
//
// The transcript is written asynchronously by the harness: when a Stop hook runs, the file
// may not yet hold the final assistant message. Use the hook's own last_assistant_message
// for the final text, and the transcript for history.
package transcript
