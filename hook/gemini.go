package hook

import (
	"context"
	"fmt"
	"io"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/transcript"
)

// GeminiCLI runs one Gemini CLI AfterAgent hook invocation: it reads the payload from stdin
// (DecodeGeminiPayload), reads the session file it names (transcript.ReadGeminiFile), builds
// the Turn (GeminiCLITurn), decides, and writes the answer to stdout. It returns the
// process's exit status, which is always 0.
//
// To let the agent stop, it writes nothing: Gemini CLI reads empty stdout as "allow". To
// keep it going, it writes {"decision":"deny","reason":MESSAGE} (MESSAGE cut to
// MaxMessageBytes): Gemini CLI rejects the response and runs an automatic retry turn whose
// prompt is MESSAGE alone, as a user message of the same prompt. Options.Style is not read:
// AfterAgent has no other way to continue. The hook never writes continue:false, which would
// end the session outright. A Retry verdict is answered as a stop, as ClaudeCode answers it.
//
// It fails open as ClaudeCode does: an internal error, a panic, a payload that is not JSON, or
// the time budget running out lets the agent stop, with exit 0, empty stdout, and one line on
// stderr beginning "stopgate:". Exit 0 matters more here than anywhere: Gemini CLI 0.61.0
// reads exit 2, and every status other than 0 and 1 (127 for a command that cannot be found
// included), as a denial with stderr as the retry prompt. With exit 0 and empty stdout it
// parses stderr instead, and a stderr that is not JSON becomes a systemMessage shown to the
// user: the stop still proceeds. A session file that cannot be read is not fatal: the
// decision is made on the payload alone, and stderr says so.
//
// Budgets across invocations live in the same per-session state files as ClaudeCode's. Gemini
// CLI's stop_hook_active is not enough to count nudges in a row: it is false again once the
// model has called a tool after a denial. So a stop in the same run as a decision that kept
// the agent going counts as in a row whatever the flag says (the state file holds the run and
// the count), and the rules for an unreadable or missing state file apply to that case as
// they apply to stop_hook_active. Gemini CLI has no cap of its own on denials in a row (only
// its loop detector and its turn limit end such a chain), so stopgate's budgets are what
// bound the nudges.
func GeminiCLI(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts *Options) int {
	var o Options
	if opts != nil {
		o = *opts
	}
	return invokeHook(ctx, stdin, stdout, stderr, o, func(ctx context.Context, stdin io.Reader) outcome {
		return geminiDecide(ctx, &o, stdin)
	}, func(d stopgate.Decision, _ string) ([]byte, string) {
		return geminiAnswer(d)
	})
}

// geminiStateKey is the session key of a Gemini CLI session's state file, kept apart from any
// other harness's session of the same id.
func geminiStateKey(session string) string { return "gemini-" + session }

// geminiDecide does everything that may fail or take time for one invocation: decoding,
// reading, deciding.
func geminiDecide(ctx context.Context, o *Options, stdin io.Reader) outcome {
	p, err := DecodeGeminiPayload(stdin)
	if err != nil {
		return outcome{err: err}
	}
	out, ok := decodeNotes(p.Ignored, p.Event(), EventAfterAgent)
	if !ok {
		return out
	}
	var s *transcript.GeminiSession
	if p.TranscriptPath != "" {
		s, err = transcript.ReadGeminiFile(expandPath(p.TranscriptPath, p.CWD), nil)
		if err != nil {
			s = nil
			out.notes = append(out.notes, fmt.Sprintf("session file unreadable (%s); deciding on the payload alone", oneLine(err.Error())))
		}
	}
	t := GeminiCLITurn(p, s, o.now())
	// Gemini CLI clears stop_hook_active once the model has called a tool after a denial, so
	// a stop after one of this run's nudges counts as in a row whatever the flag says.
	return o.decideWithState(ctx, t, stateKey{geminiStateKey(t.Session), ""}, p.StopHookActive, true, out)
}

// geminiAnswer returns what to write on stdout for d (nil to let the agent stop), and a note
// for stderr when the answer is not what the verdict says.
func geminiAnswer(d stopgate.Decision) ([]byte, string) {
	return answerJSON(d, func(msg string) any { return decisionReason{"deny", msg} })
}
