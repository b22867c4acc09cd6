// Package hook adapts stopgate to the stop hooks of agent harnesses: Claude Code (Stop and
// SubagentStop), Codex CLI (Stop and SubagentStop) and Gemini CLI (AfterAgent). It reads what
// the harness writes on the hook's stdin, builds a stopgate.Turn, asks a stopgate.Supervisor,
// and writes the answer the way the harness expects.
//
// # The driver
//
// ClaudeCode, Codex and GeminiCLI are each a whole hook invocation, and share one driver: a
// harness adds only its payload decoder (DecodePayload, DecodeCodexPayload,
// DecodeGeminiPayload), its transcript reader (package transcript), its Turn conversion
// (ClaudeCodeTurn, CodexTurn, GeminiCLITurn) and its answer. The driver decides within a time
// budget (Options.Timeout), carries the nudge budgets from one stop to the next in a small
// state file per session (Options.StateDir), records the decision (Options.Recorder), and
// fails open: any error inside it, a panic, a payload that is not JSON, or the time budget
// running out lets the stop proceed with exit 0, empty stdout, and one line on stderr
// beginning "stopgate:". No harness is answered with a non-zero status: each reads exit 2 as a
// block or denial with stderr as the agent's next instruction.
//
// To let the agent stop, every hook writes nothing. To keep it going:
//
//   - Claude Code: {"decision":"block","reason":MESSAGE} (StyleBlock, the default), or
//     {"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":MESSAGE}}
//     (StyleContext, Claude Code 2.1.163 and later; an older version would silently drop the
//     nudge, and the payload does not carry the version);
//   - Codex CLI: {"decision":"block","reason":MESSAGE}, which Codex hands to the model as the
//     next message of the same turn;
//   - Gemini CLI: {"decision":"deny","reason":MESSAGE}, which Gemini CLI answers with a retry
//     turn whose prompt is MESSAGE. Its stop_hook_active does not last through a continued run,
//     so a stop after one of the run's nudges counts as in a row whatever the flag says.
//
// No hook writes continue:false, which would end the session outright. Neither Codex nor
// Gemini CLI caps blocks in a row, so stopgate's budgets are what bound the nudges.
//
// SessionTurn builds the Turn of any turn of a recorded Claude Code session, for audits after
// the fact.
//
// # Settings
//
// One settings core edits each harness's hooks file, keeping every other key (byte for byte
// and in order), event and handler as it was, updating a stopgate handler in place, and
// writing atomically:
//
//   - Install and Uninstall: a Claude Code settings.json (`stopgate hook install claude-code`);
//   - InstallCodex and UninstallCodex: a Codex hooks.json (`stopgate hook install codex`), with
//     CodexTrust for the trust records Codex needs before it runs the hook;
//   - InstallGemini and UninstallGemini: a Gemini CLI settings.json
//     (`stopgate hook install gemini-cli`), with GeminiHooksDisabled for what would keep the
//     hook from running.
package hook
