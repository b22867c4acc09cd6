package hook

import (
	"context"
	"fmt"
	"io"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
	"github.com/stopgate/stopgate/transcript"
)

// Codex runs one Codex CLI Stop or SubagentStop hook invocation: it reads the payload from
// stdin (DecodeCodexPayload), reads the rollout it names (transcript.ReadCodexFile), builds
// the Turn (CodexTurn), decides, and writes the answer to stdout. It returns the process's
// exit status, which is always 0.
//
// To let the agent stop, it writes nothing. To keep it going, it writes
// {"decision":"block","reason":MESSAGE} (MESSAGE cut to MaxMessageBytes): Codex ends the stop
// and hands the reason to the model as the next user message of the same turn, wrapped in
// <hook_prompt hook_run_id="…">…</hook_prompt> with <, > and & escaped. Options.Style is not
// read: Codex has no other way to continue a turn from a Stop hook. A Retry verdict is
// answered as a stop, as ClaudeCode answers it.
//
// It fails open as ClaudeCode does: an internal error, a panic, a payload that is not JSON,
// or the time budget running out lets the stop proceed, with exit 0, empty stdout, and one
// line on stderr beginning "stopgate:". Codex reads exit 2 with stderr as a block (the error
// would become the model's next instruction) and any other status, or stdout that is not a
// JSON object, as a failed hook that blocks nothing. A rollout that cannot be read is not
// fatal: the decision is made on the payload alone, and stderr says so. On SubagentStop the
// rollout read is the sub-agent's own (agent_transcript_path).
//
// Budgets across invocations live in the same per-session state files as ClaudeCode's, with
// the same rules. They matter more here: Codex has no cap of its own on consecutive blocks
// (a hook that always blocks loops the turn for ever), so stopgate's budgets are what bound
// the nudges.
func Codex(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts *Options) int {
	var o Options
	if opts != nil {
		o = *opts
	}
	decide := o.withStopFailure(HarnessCodex, ProviderOpenAI, termination.SiteHookCodexStopFailure, o.decideCodex)
	return invokeHook(ctx, stdin, stdout, stderr, o, decide, func(d stopgate.Decision, event string) ([]byte, string) {
		return encodeAnswer(d, event, StyleBlock)
	})
}

// decideCodex does everything that may fail or take time for one Codex invocation.
func (o *Options) decideCodex(ctx context.Context, stdin io.Reader) outcome {
	p, err := DecodeCodexPayload(stdin)
	if err != nil {
		return outcome{err: err}
	}
	out, ok := decodeNotes(p.Ignored, p.Event(), EventStop, EventSubagentStop)
	if !ok {
		return out
	}
	var s *transcript.CodexSession
	if path := stopTranscriptPath(&out, p.TranscriptPath, p.AgentTranscriptPath); path != "" {
		s, err = transcript.ReadCodexFile(expandPath(path, p.CWD), nil)
		if err != nil {
			s = nil
			out.notes = append(out.notes, fmt.Sprintf("rollout unreadable (%s); deciding on the payload alone", oneLine(err.Error())))
		}
	}
	t := CodexTurn(p, s, o.now())
	return o.decideBudgeted(ctx, t, p.StopHookActive, out)
}
