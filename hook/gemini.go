package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

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
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{err: fmt.Errorf("internal error: panic: %v", r)}
			}
		}()
		done <- geminiDecide(ctx, &o, stdin)
	}()
	var out outcome
	select {
	case out = <-done:
	case <-ctx.Done():
	}
	if err := parent.Err(); err != nil {
		failOpen(stderr, fmt.Errorf("interrupted before a decision: %w", err))
		return 0
	}
	if err := ctx.Err(); err != nil {
		failOpen(stderr, fmt.Errorf("no decision within %v: %w", o.Timeout, err))
		return 0
	}
	if out.err != nil {
		failOpen(stderr, out.err)
		return 0
	}
	for _, n := range out.notes {
		fmt.Fprintf(stderr, "stopgate: %s\n", n)
	}
	if !out.decided {
		return 0
	}

	answer, note := geminiAnswer(out.decision)
	if note != "" {
		fmt.Fprintf(stderr, "stopgate: %s\n", note)
	}
	if out.statePath != "" {
		if err := saveState(out.statePath, out.next); err != nil {
			if answer != nil {
				// A nudge that is not counted could be given again without bound.
				failOpen(stderr, fmt.Errorf("cannot save the nudge budget: %w", err))
				return 0
			}
			fmt.Fprintf(stderr, "stopgate: cannot save the nudge budget: %v\n", err)
		}
	}
	if answer != nil {
		if _, err := stdout.Write(answer); err != nil {
			fmt.Fprintf(stderr, "stopgate: writing the answer: %v\n", err)
		}
	}
	if o.Recorder != nil {
		if err := record(ctx, o.Recorder, out.turn, out.decision); err != nil {
			fmt.Fprintf(stderr, "stopgate: recording the decision: %v\n", err)
		}
	}
	return 0
}

// geminiStateKey is the session key of a Gemini CLI session's state file, kept apart from any
// other harness's session of the same id.
func geminiStateKey(session string) string { return "gemini-" + session }

// geminiDecide does everything that may fail or take time for one invocation: decoding,
// reading, deciding.
func geminiDecide(ctx context.Context, o *Options, stdin io.Reader) outcome {
	var out outcome
	p, err := DecodeGeminiPayload(stdin)
	if err != nil {
		out.err = err
		return out
	}
	if len(p.Ignored) > 0 {
		out.notes = append(out.notes, "payload fields of an unexpected type, read as absent: "+strings.Join(p.Ignored, ", "))
	}
	out.event = p.Event()
	if out.event != EventAfterAgent {
		out.notes = append(out.notes, fmt.Sprintf("hook event %q is not AfterAgent; nothing to decide", out.event))
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
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	t := GeminiCLITurn(p, s, now())

	if o.StateDir != "" && t.Session != "" {
		out.statePath = statePath(o.StateDir, geminiStateKey(t.Session), "")
	}
	var prev state
	var found bool
	var stateErr error
	if out.statePath != "" {
		prev, found, stateErr = loadState(out.statePath)
	}
	// The stop follows one of this run's nudges: a chain of them, whatever stop_hook_active
	// says. A run start either side does not know cannot tell runs apart, and counts as the
	// same run, as ClaudeCode counts a chain of blocked stops.
	chained := found && prev.Nudges.Consecutive > 0 &&
		(t.RunStartedAt.IsZero() || prev.Run.IsZero() || t.RunStartedAt.Equal(prev.Run))
	active := p.StopHookActive || chained
	switch {
	case out.statePath == "" && active:
		out.notes = append(out.notes, "stop_hook_active and no state kept for this session: not nudging twice in a row")
		return out
	case stateErr != nil && active:
		out.notes = append(out.notes, fmt.Sprintf("nudge budget unreadable (%s) and stop_hook_active: letting the agent stop", oneLine(stateErr.Error())))
		return out
	case stateErr != nil:
		out.notes = append(out.notes, fmt.Sprintf("nudge budget unreadable (%s); starting from none given", oneLine(stateErr.Error())))
	case !found && active:
		out.notes = append(out.notes, "stop_hook_active but no nudge budget on record for this session: letting the agent stop")
		return out
	}
	var sameRun bool
	t.Nudges, sameRun = carryNudges(t, prev, found, active)

	sup := o.Supervisor
	if sup == nil {
		sup = stopgate.New(stopgate.Config{})
	}
	out.turn, out.decision, out.decided = t, sup.Decide(ctx, t), true
	out.next = state{Run: t.RunStartedAt, Nudges: out.decision.Nudges}
	if out.next.Run.IsZero() && sameRun {
		out.next.Run = prev.Run
	}
	return out
}

// geminiAnswer returns what to write on stdout for d (nil to let the agent stop), and a note
// for stderr when the answer is not what the verdict says.
func geminiAnswer(d stopgate.Decision) ([]byte, string) {
	switch d.Verdict {
	case stopgate.Continue:
	case stopgate.Retry:
		return nil, fmt.Sprintf("a retry was advised (%s), but a stop hook cannot resend a request; letting the agent stop", d.Check)
	default:
		return nil, ""
	}
	msg := cutMessage(d.Message)
	if strings.TrimSpace(msg) == "" {
		return nil, fmt.Sprintf("check %s continued the run without a message; letting the agent stop", d.Check)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	v := struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"deny", msg}
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Sprintf("encoding the answer: %v; letting the agent stop", err)
	}
	return b.Bytes(), ""
}
