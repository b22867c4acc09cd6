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
// Run reads the formats of the Readers it is given (Options.Readers): each harness package
// under harness/ has one (claudecode.Reader, codex.Reader, gemini.Reader, sweagent.Reader),
// and cmd/stopgate hands Run all of them. The package imports no harness package: a Reader is
// harness.SessionReader, and Session, Turn and Nudge are the contract's types.
//
// # What is decided
//
// Each turn's final stop is decided on its own, as the transcript shows it then: the nudge
// budgets are fresh for every turn, since a transcript does not record how many a hook had
// spent. A turn the user interrupted is not decided (no stop hook runs on an interrupt); it
// ended cancelled. Stops in the middle of a turn, where a real stop hook nudged the agent on,
// are reported as nudges, not decided again.
package audit
