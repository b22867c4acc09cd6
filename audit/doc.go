// Package audit replays recorded agent sessions through the supervisor, after the fact: for
// every stop an agent made, what stopgate would have decided, and how each turn and each run
// ended.
//
// Run walks files and directories, reads each session file with the first Reader that knows
// it, builds the Turn a stop hook would have been asked about at the end of every turn, and
// decides it with a stopgate.Supervisor. The Report says, per session and in total: the
// turns and stops; how turns and runs ended (termination categories); the stops stopgate
// would have blocked, by check (a stall, with the sentence it would quote back; unread or
// failed background work; sub-agents; open todos; a livelock; a truncated answer; an error
// worth retrying); the stops it would have let happen because the run was parked on work that
// wakes it (pending_wake); and, where a stop hook really nudged the agent, whether the agent
// then acted (called a tool) or stopped again. WriteTable renders it for people, WriteJSON for
// tools; with Options.Store every decision is also written to the event log.
//
// # Formats
//
//   - Claude Code session transcripts (ClaudeCode): the turns of the session and of its
//     sub-agents, each Turn built by hook.SessionTurn.
//   - Codex CLI rollouts (Codex): the user turns of one session, each Turn built by
//     hook.CodexSessionTurn, ended by the turn's turn_aborted reason or error event.
//   - Gemini CLI chat sessions, JSONL and legacy JSON (GeminiCLI): the turns hook.GeminiTurns
//     splits the session into, each Turn built by hook.GeminiSessionTurn, ended by the error
//     and info records Gemini CLI writes after it.
//   - SWE-agent and mini-swe-agent trajectories (Trajectory): one run, ended by its
//     info.exit_status, mapped by ExitStatusReason.
//
// Other harnesses plug in as a Reader: one Reader, one line in DefaultReaders.
//
// # What is decided
//
// Each turn's final stop is decided on its own, as the transcript shows it then: the nudge
// budgets are fresh for every turn, since a transcript does not record how many a hook had
// spent. A turn the user interrupted is not decided (no stop hook runs on an interrupt); it
// ended cancelled. Stops in the middle of a turn, where a real stop hook nudged the agent on,
// are reported as nudges, not decided again.
package audit
