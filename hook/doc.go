// Package hook is the stop-hook driver every harness shares. Run takes one invocation of a
// harness's stop hook, given as a harness.Hook (the harness packages under harness/ each
// have one: claudecode.Hook, codex.Hook, gemini.Hook), and does everything that is not
// particular to the harness: it decides within a time budget (Options.Timeout), carries the
// nudge budgets from one stop to the next in a small state file per session
// (Options.StateDir, StatePath, LoadState), records the decision (Options.Recorder), writes
// the answer the Hook encodes, and fails open: any error, a panic, a payload that is not JSON,
// or the time budget running out lets the stop proceed with exit 0, empty stdout, and one line
// on stderr beginning "stopgate:". Recording has a budget of its own, apart from the
// decision's (Options.RecordTimeout, DefaultRecordTimeout). No harness is answered with a non-zero status: each reads
// exit 2 as a block or denial with stderr as the agent's next instruction.
//
// The package imports no harness package; cmd/stopgate chooses the Hook by the harness's
// name. DESIGN.md at the repository's root draws the layout.
package hook
