package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/transcript"
)

// DefaultTimeout is the time budget of one hook invocation when Options.Timeout is zero.
// Claude Code waits up to 600 s for a command hook, and the agent waits with it; stopgate
// answers in milliseconds, so anything near this budget means something is stuck, and the
// stop proceeds.
const DefaultTimeout = 10 * time.Second

// MaxMessageBytes bounds the message handed to the agent. Claude Code caps hook output strings
// at 10,000 characters (a longer one is written to a file and only a preview passed on);
// counting bytes keeps any message under the cap however it counts characters.
const MaxMessageBytes = 10000

// Style is how a continuation is written for Claude Code.
type Style string

// The styles.
const (
	// StyleBlock, the default, writes {"decision":"block","reason":MESSAGE}. Every Claude Code
	// version with hooks reads it, and Codex CLI reads the same contract.
	StyleBlock Style = "block"
	// StyleContext writes {"hookSpecificOutput":{"hookEventName":EVENT,"additionalContext":
	// MESSAGE}}. Claude Code 2.1.163 and later continue the turn with it, labelled "Stop hook
	// feedback" rather than as a hook's blocking error; older versions ignore it, and the stop
	// proceeds.
	StyleContext Style = "context"
)

// ErrStyle is returned (wrapped) by ParseStyle for a name that is not a Style.
var ErrStyle = errors.New("unknown output style")

// ParseStyle returns the Style named s: "block" or "context"; "" is StyleBlock.
func ParseStyle(s string) (Style, error) {
	switch Style(s) {
	case "", StyleBlock:
		return StyleBlock, nil
	case StyleContext:
		return StyleContext, nil
	}
	return "", fmt.Errorf("%w %q (want block or context)", ErrStyle, s)
}

// Recorder records a decision the hook made, for an event log. ClaudeCode calls it after
// deciding, with what remains of the time budget in ctx; its error, or its panic, is reported
// on stderr and never changes the answer.
type Recorder interface {
	Record(ctx context.Context, t stopgate.Turn, d stopgate.Decision) error
}

// Options configures ClaudeCode. The zero value (or a nil *Options) decides with the default
// supervisor, keeps no state between invocations, answers in StyleBlock, and has
// DefaultTimeout to do it in.
type Options struct {
	// Supervisor makes the decision; nil means stopgate.New(stopgate.Config{}).
	Supervisor *stopgate.Supervisor
	// StateDir is the directory of the per-session state files that carry the nudge budgets
	// from one stop to the next. Empty keeps no state: every stop starts from no nudges given,
	// so to stay bounded the hook then lets the agent stop whenever stop_hook_active is set,
	// which gives at most one nudge in a row.
	StateDir string
	// Timeout is the time budget of one invocation, reading the transcript and any model call
	// included; zero means DefaultTimeout. Past it the stop proceeds.
	Timeout time.Duration
	// Style is how a continuation is written; empty means StyleBlock.
	Style Style
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Recorder, if set, is called with each decision, after the answer is written.
	Recorder Recorder
	// RecordTimeout bounds the Recorder's call, apart from Timeout; zero means
	// DefaultRecordTimeout. Past it the record is given up, with a note on stderr.
	RecordTimeout time.Duration
}

// ClaudeCode runs one Claude Code Stop or SubagentStop hook invocation: it reads the payload
// from stdin, reads the transcript it names, decides, and writes the answer to stdout. It
// returns the process's exit status, which is always 0.
//
// To let the agent stop, it writes nothing. To keep it going, it writes one JSON object in the
// configured Style, with the supervisor's message (cut to MaxMessageBytes). A Retry verdict is
// answered as a stop: a stop hook cannot resend a request, and Claude Code reports API errors
// through StopFailure, not Stop.
//
// It fails open: an internal error, a panic, a payload that is not JSON, or the time budget
// running out lets the stop proceed, with empty stdout and one line on stderr beginning
// "stopgate:" saying what went wrong. Exit status 0 is deliberate. Claude Code reads exit 2
// as a block (with stderr as the reason, so an error would be handed to the agent as its next
// instruction), and any other non-zero status as a hook error it shows the user on every stop;
// with 0 and empty stdout the stop just proceeds, and stderr still reaches the verbose output
// and the debug log. A transcript that cannot be read is not fatal: the decision is made on
// the payload alone, and stderr says so. On SubagentStop the transcript read is the
// sub-agent's own (agent_transcript_path); a payload without one is decided on alone, since the
// parent's transcript says nothing about the child's run.
//
// Budgets across invocations live in a JSON state file per session (and per sub-agent) in
// Options.StateDir: the run the last decision was in (its RunStartedAt) and the Nudges after
// it. A stop in another run starts from none given; stop_hook_active, which Claude Code sets
// while the agent continues because of a blocked stop, carries the in-a-row count. A state
// file that cannot be read is treated as empty, except when stop_hook_active is set: then
// the budgets this run has spent are unknown, and nudging again could go on without bound,
// so the stop proceeds. The same holds for a missing file while stop_hook_active is set (an
// earlier nudge whose state was lost, or another hook's block).
func ClaudeCode(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts *Options) int {
	var o Options
	if opts != nil {
		o = *opts
	}
	return invokeHook(ctx, stdin, stdout, stderr, o, o.decide, func(d stopgate.Decision, event string) ([]byte, string) {
		return encodeAnswer(d, event, o.Style)
	})
}

// failOpen reports err on stderr as the reason the stop proceeds.
func failOpen(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "stopgate: %s; letting the agent stop\n", oneLine(err.Error()))
}

// oneLine folds s onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// outcome is what the decision step produced.
type outcome struct {
	err     error
	notes   []string
	decided bool // false: let the agent stop without deciding (notes say why)
	event   string

	turn      stopgate.Turn
	decision  stopgate.Decision
	statePath string // "" when no state is kept
	next      state
}

// decide does everything that may fail or take time: decoding, reading, deciding.
func (o *Options) decide(ctx context.Context, stdin io.Reader) outcome {
	p, err := DecodePayload(stdin)
	if err != nil {
		return outcome{err: err}
	}
	out, ok := decodeNotes(p.Ignored, p.Event(), EventStop, EventSubagentStop)
	if !ok {
		return out
	}
	var s *transcript.Session
	if path := stopTranscriptPath(&out, p.TranscriptPath, p.AgentTranscriptPath); path != "" {
		s, err = transcript.ReadFile(expandPath(path, p.CWD), nil)
		if err != nil {
			s = nil
			out.notes = append(out.notes, fmt.Sprintf("transcript unreadable (%s); deciding on the payload alone", oneLine(err.Error())))
		}
	}
	t := ClaudeCodeTurn(p, s, o.now())
	return o.decideBudgeted(ctx, t, p.StopHookActive, out)
}

// stopTranscriptPath returns the transcript to read for a Stop or SubagentStop: on
// SubagentStop the sub-agent's own, agent (noting in out when there is none), else main.
func stopTranscriptPath(out *outcome, main, agent string) string {
	if out.event != EventSubagentStop {
		return main
	}
	if agent == "" {
		out.notes = append(out.notes, "no agent_transcript_path in the SubagentStop payload; deciding on the payload alone")
	}
	return agent
}

// carryNudges returns the turn's nudges given the state of the previous decision, and whether
// the turn is in the same run. The in-a-row count continues while stop_hook_active is set; the
// per-check counts continue within a run: the same known run start, or, when either start is
// unknown, a chain of blocked stops.
func carryNudges(t stopgate.Turn, prev state, found, active bool) (stopgate.Nudges, bool) {
	n := stopgate.Nudges{}
	if active {
		n.Consecutive = 1
		if found && prev.Nudges.Consecutive > 1 {
			n.Consecutive = prev.Nudges.Consecutive
		}
	}
	if !found {
		return n, false
	}
	sameRun := !t.RunStartedAt.IsZero() && !prev.Run.IsZero() && t.RunStartedAt.Equal(prev.Run)
	if (t.RunStartedAt.IsZero() || prev.Run.IsZero()) && active {
		sameRun = true
	}
	if sameRun {
		n.Given = prev.Nudges.Given
	}
	return n, sameRun
}

// record calls r, bounded by ctx even if r ignores it, and turns a panic into an error.
func record(ctx context.Context, r Recorder, t stopgate.Turn, d stopgate.Decision) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- r.Record(ctx, t, d)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// encodeAnswer returns what to write on stdout for d (nil to let the agent stop), and a note
// for stderr when the answer is not what the verdict says.
func encodeAnswer(d stopgate.Decision, event string, style Style) ([]byte, string) {
	return answerJSON(d, func(msg string) any {
		if style == StyleContext {
			type specific struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			}
			return struct {
				HookSpecificOutput specific `json:"hookSpecificOutput"`
			}{specific{event, msg}}
		}
		return decisionReason{"block", msg}
	})
}

// cutMessage bounds msg to MaxMessageBytes at a rune boundary, marking the cut.
func cutMessage(msg string) string {
	if len(msg) <= MaxMessageBytes {
		return msg
	}
	const mark = " […]"
	i := MaxMessageBytes - len(mark)
	for i > 0 && !utf8.RuneStart(msg[i]) {
		i--
	}
	return msg[:i] + mark
}

// expandPath resolves a transcript path: a leading "~/" is the home directory, and a relative
// path is taken from the session's working directory.
func expandPath(path, cwd string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(path) && cwd != "" {
		return filepath.Join(cwd, path)
	}
	return path
}
