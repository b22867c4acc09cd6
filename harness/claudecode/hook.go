package claudecode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
	"github.com/stopgate/stopgate/harness/internal/hookio"
)

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

// Hook is the Claude Code Stop and SubagentStop hook, for the driver in package hook
// (hook.Run): it reads the payload from stdin (DecodePayload), reads the transcript it names
// (transcript.ReadTail, going on from the checkpoint the last stop kept in the state file),
// builds the Turn (Turn), and writes the answer in Style.
//
// To let the agent stop, the driver writes nothing. To keep it going, Answer writes one JSON
// object in Style (empty means StyleBlock), with the supervisor's message cut to
// hookio.MaxMessageBytes. A Retry verdict is answered as a stop: a stop hook cannot resend a
// request, and Claude Code reports API errors through StopFailure, not Stop. A StopFailure
// payload is not decided: its Stop carries the run's ending (harness.Stop.Ended, from
// StopFailureReason), which the driver records, and the hook writes nothing.
//
// A transcript that cannot be read is not fatal: the decision is made on the payload alone,
// and stderr says so. On SubagentStop the transcript read is the sub-agent's own
// (agent_transcript_path); a payload without one is decided on alone, since the parent's
// transcript says nothing about the child's run. stop_hook_active, which Claude Code sets while
// the agent continues because of a blocked stop, carries the in-a-row count (Stop.Active);
// the state file is per session and per sub-agent.
type Hook struct {
	// Style is how a continuation is written; empty means StyleBlock.
	Style Style
}

// Stop implements harness.Hook.
func (Hook) Stop(ctx context.Context, stdin io.Reader, now time.Time) (*harness.Stop, error) {
	p, err := DecodePayload(stdin)
	if err != nil {
		return nil, err
	}
	st := hookio.NewStop(p.Ignored, p.Event(), EventStop, EventSubagentStop, EventStopFailure)
	if st.Skip {
		return st, nil
	}
	if st.Event == EventStopFailure {
		return stopFailure(st, p, now), nil
	}
	var s *transcript.Session
	if path := hookio.StopTranscriptPath(st, p.TranscriptPath, p.AgentTranscriptPath); path != "" {
		key := harness.StateKey{Session: p.SessionID}
		if p.Event() == EventSubagentStop {
			key.Agent = p.AgentID
		}
		s, st.Checkpoint, err = transcript.ReadTail(hookio.ExpandPath(path, p.CWD), harness.Checkpoint(ctx, key), nil)
		if err != nil {
			s, st.Checkpoint = nil, nil
			st.Notes = append(st.Notes, fmt.Sprintf("transcript unreadable (%s); deciding on the payload alone", hookio.OneLine(err.Error())))
		}
	}
	st.Turn = Turn(p, s, now)
	st.Active = p.StopHookActive
	st.State = harness.StateKey{Session: st.Turn.Session, Agent: st.Turn.Agent}
	return st, nil
}

// Answer implements harness.Hook.
func (h Hook) Answer(d stopgate.Decision, s *harness.Stop) ([]byte, string) {
	return encodeAnswer(d, s.Event, h.Style)
}

// encodeAnswer returns what to write on stdout for d, decided on a stop of the given hook
// event (nil to let the agent stop), in style, and a note for stderr when the answer is not
// what the verdict says.
func encodeAnswer(d stopgate.Decision, event string, style Style) ([]byte, string) {
	return hookio.Answer(d, func(msg string) any {
		if style == StyleContext {
			type specific struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			}
			return struct {
				HookSpecificOutput specific `json:"hookSpecificOutput"`
			}{specific{event, msg}}
		}
		return hookio.Block(msg)
	})
}
