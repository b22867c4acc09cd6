// Package rollout reads Codex CLI rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)
// into a CodexSession: the shared session model (Session, the types the Claude Code reader
// fills too; see harness/internal/session) with what only a rollout records (session_meta,
// the tasks Codex ran, the plan, error events).
//
// It reads line by line with the line builder it shares with the Claude Code reader
// (session.Builder). The reader never fails on content: unknown line and payload types are
// counted and skipped, a malformed line is counted and described; only an I/O error is an
// error.
package rollout
