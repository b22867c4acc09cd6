// Package hook adapts stopgate to the stop hooks of agent harnesses. It reads what the harness
// writes on the hook's stdin, builds a stopgate.Turn, asks a stopgate.Supervisor, and writes the
// answer the way the harness expects. It starts with Claude Code's Stop and SubagentStop hooks.
//
// # Claude Code
//
// ClaudeCode is a whole hook invocation: DecodePayload reads the stdin payload, the transcript
// it names is read with package transcript, ClaudeCodeTurn merges the two into a Turn, and the
// Supervisor's Decision is written back:
//
//   - to let the agent stop: exit 0 with nothing on stdout;
//   - to keep it going: exit 0 with {"decision":"block","reason":MESSAGE} (StyleBlock, the
//     default), or {"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":MESSAGE}}
//     (StyleContext).
//
// StyleBlock is the default because every Claude Code version since hooks exist reads it (and
// Codex CLI reads the same contract), while additionalContext on Stop needs 2.1.163 or later
// and an older version would silently drop the nudge; the payload does not carry the version. StyleContext is the better-labelled choice where the version is known to be
// recent. The hook never writes continue:false, which would end the session outright.
//
// The hook fails open. Any error inside it, a panic, a payload that is not JSON, or its time
// budget running out lets the stop proceed: exit 0, empty stdout, and one line on stderr
// beginning "stopgate:". Exit 2 would block with stderr as the agent's next instruction, and
// any other non-zero status is shown to the user as a hook error on every stop, so neither is
// used for failures. Budgets that hold across invocations are kept per session in a small
// state file (Options.StateDir); see ClaudeCode for how an unreadable one is handled.
//
// SessionTurn builds the Turn of any turn of a recorded session, for audits after the fact.
//
// # Settings
//
// Install and Uninstall add and remove the hook in a Claude Code settings.json, leaving every
// other key, event and handler as it was.
package hook
