package gemini

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/gemini/chat"
	"github.com/stopgate/stopgate/harness/internal/hookio"
)

// Hook is the Gemini CLI AfterAgent hook, for the driver in package hook (hook.Run): it
// reads the payload from stdin (DecodePayload), reads the session file it names
// (chat.ReadTail, going on from the checkpoint the last stop kept in the state file), builds
// the Turn (Turn), and encodes the answer.
//
// To let the agent stop, the driver writes nothing: Gemini CLI reads empty stdout as
// "allow". To keep it going, Answer writes {"decision":"deny","reason":MESSAGE} (MESSAGE cut
// to hookio.MaxMessageBytes): Gemini CLI rejects the response and runs an automatic retry turn whose
// prompt is MESSAGE alone, as a user message of the same prompt. AfterAgent has no other way
// to continue. The hook never writes continue:false, which would
// end the session outright. A Retry verdict is answered as a stop, as Claude Code's hook answers it.
//
// The driver fails open: an internal error, a panic, a payload that is not JSON, or
// the time budget running out lets the agent stop, with exit 0, empty stdout, and one line on
// stderr beginning "stopgate:". Exit 0 matters more here than anywhere: Gemini CLI 0.61.0
// reads exit 2, and every status other than 0 and 1 (127 for a command that cannot be found
// included), as a denial with stderr as the retry prompt. With exit 0 and empty stdout it
// parses stderr instead, and a stderr that is not JSON becomes a systemMessage shown to the
// user: the stop still proceeds. A session file that cannot be read is not fatal: the
// decision is made on the payload alone, and stderr says so.
//
// Budgets across invocations live in the same per-session state files as Claude Code's. Gemini
// CLI's stop_hook_active is not enough to count nudges in a row: it is false again once the
// model has called a tool after a denial. So a stop in the same run as a decision that kept
// the agent going counts as in a row whatever the flag says (the state file holds the run and
// the count), and the rules for an unreadable or missing state file apply to that case as
// they apply to stop_hook_active. Gemini CLI has no cap of its own on denials in a row (only
// its loop detector and its turn limit end such a chain), so stopgate's budgets are what
// bound the nudges.
type Hook struct{}

// Stop implements harness.Hook.
func (Hook) Stop(ctx context.Context, stdin io.Reader, now time.Time) (*harness.Stop, error) {
	p, err := DecodePayload(stdin)
	if err != nil {
		return nil, err
	}
	st := hookio.NewStop(p.Ignored, p.Event(), EventAfterAgent)
	if st.Skip {
		return st, nil
	}
	var s *chat.GeminiSession
	if p.TranscriptPath != "" {
		var key harness.StateKey
		if p.SessionID != "" {
			key.Session = geminiStateKey(p.SessionID)
		}
		s, st.Checkpoint, err = readSession(hookio.ExpandPath(p.TranscriptPath, p.CWD), harness.Checkpoint(ctx, key), p.Prompt)
		if err != nil {
			s, st.Checkpoint = nil, nil
			st.Notes = append(st.Notes, fmt.Sprintf("session file unreadable (%s); deciding on the payload alone", hookio.OneLine(err.Error())))
		}
	}
	st.Turn = Turn(p, s, now)
	st.Active = p.StopHookActive
	st.State = harness.StateKey{Session: geminiStateKey(st.Turn.Session)}
	// Gemini CLI clears stop_hook_active once the model has called a tool after a denial, so
	// a stop after one of this run's nudges counts as in a row whatever the flag says.
	st.Chain = true
	return st, nil
}

// Answer implements harness.Hook.
func (Hook) Answer(d stopgate.Decision, _ *harness.Stop) ([]byte, string) {
	return geminiAnswer(d)
}

// geminiStateKey is the session key of a Gemini CLI session's state file, kept apart from any
// other harness's session of the same id.
func geminiStateKey(session string) string { return "gemini-" + session }

// geminiAnswer returns what to write on stdout for d (nil to let the agent stop), and a note
// for stderr when the answer is not what the verdict says.
func geminiAnswer(d stopgate.Decision) ([]byte, string) {
	return hookio.Answer(d, func(msg string) any { return hookio.DecisionReason{Decision: "deny", Reason: msg} })
}

// readSession reads the session file at path for a stop, going on from checkpoint
// (chat.ReadTail). A tail read keeps only the last prompts: when the payload's prompt starts
// none of them and older ones were left out, the run may start at one of those, and the
// file is read whole (with the tail read's checkpoint kept for the next stop).
func readSession(path string, checkpoint []byte, prompt *string) (*chat.GeminiSession, []byte, error) {
	s, next, err := chat.ReadTail(path, checkpoint, nil)
	if err != nil || !needsWhole(s, prompt) {
		return s, next, err
	}
	whole, err := chat.ReadGeminiFile(path, nil)
	if err != nil {
		return nil, nil, err
	}
	return whole, next, nil
}

// needsWhole reports whether the run of prompt may start before the messages the tail read s
// kept: older prompts were left out, and none of those kept starts with prompt.
func needsWhole(s *chat.GeminiSession, prompt *string) bool {
	return s.PromptsLeftOut && prompt != nil && strings.TrimSpace(*prompt) != "" && geminiRunStart(s.Messages, prompt) < 0
}
