// Package session is the session model the harness readers share, and the line builder the
// JSONL readers build on.
//
// The model (Session, Message, Turn, ToolCall, Todo, Shell, Subagent, StopHook, …) was first
// written for Claude Code's transcripts (harness/claudecode/transcript); the Codex CLI reader
// (harness/codex/rollout) fills the same types, the Gemini CLI reader
// (harness/gemini/chat) uses its Todo and Shell, and harness/internal/turns and
// harness/internal/readers read it to build a stop's Turn and audit's sessions. Each reader
// package names these types under its own name (type aliases), so its users need not import
// this one.
//
// Builder is what the Claude Code and Codex readers share of reading a JSONL file line by
// line: the one line scanner (internal/jsonl) through ScanLines, malformed-line and entry
// bookkeeping, the text bound (Options.MaxResultBytes) and the splitting of messages into
// turns. Each reader embeds it and handles its own entry shapes.
package session
