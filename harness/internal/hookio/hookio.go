// Package hookio holds what the harness packages' stop hooks share and nothing above them
// needs: reading a payload object field by field (ReadPayload), starting a Stop from a decoded
// payload (NewStop), resolving a session file's path (ExpandPath), and encoding a
// continuation as one line of JSON (Answer), the message cut to MaxMessageBytes.
package hookio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
)

// MaxMessageBytes bounds the message handed to the agent. Claude Code caps hook output strings
// at 10,000 characters (a longer one is written to a file and only a preview passed on);
// counting bytes keeps any message under the cap however it counts characters, and the other
// harnesses are given the same bound.
const MaxMessageBytes = 10000

// NewStop starts the Stop of a decoded payload: the note on ignored fields, the hook event,
// and, when the event is none of want, a note that there is nothing to decide and Skip set.
func NewStop(ignored []string, event string, want ...string) *harness.Stop {
	s := &harness.Stop{Event: event}
	if n := IgnoredNote(ignored); n != "" {
		s.Notes = append(s.Notes, n)
	}
	for _, w := range want {
		if event == w {
			return s
		}
	}
	var names string
	switch len(want) {
	case 1:
		names = want[0]
	default:
		names = strings.Join(want[:len(want)-1], ", ") + " or " + want[len(want)-1]
	}
	s.Notes = append(s.Notes, fmt.Sprintf("hook event %q is not %s; nothing to decide", event, names))
	s.Skip = true
	return s
}

// IgnoredNote is the stderr note for payload fields read as absent; "" for none.
func IgnoredNote(ignored []string) string {
	if len(ignored) == 0 {
		return ""
	}
	return "payload fields of an unexpected type, read as absent: " + strings.Join(ignored, ", ")
}

// Answer returns the answer that keeps the agent going with d's message (cut to
// MaxMessageBytes), built by shape, as one line of JSON; nil, with a note, when d lets the
// agent stop though its verdict says otherwise.
func Answer(d stopgate.Decision, shape func(msg string) any) ([]byte, string) {
	switch d.Verdict {
	case stopgate.Continue:
	case stopgate.Retry:
		return nil, fmt.Sprintf("a retry was advised (%s), but a stop hook cannot resend a request; letting the agent stop", d.Check)
	default:
		return nil, ""
	}
	msg := CutMessage(d.Message)
	if strings.TrimSpace(msg) == "" {
		return nil, fmt.Sprintf("check %s continued the run without a message; letting the agent stop", d.Check)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shape(msg)); err != nil {
		return nil, fmt.Sprintf("encoding the answer: %v; letting the agent stop", err)
	}
	return b.Bytes(), ""
}

// DecisionReason is the {"decision":…,"reason":…} answer Claude Code, Codex and Copilot CLI
// (with "block") and Gemini CLI (with "deny") read.
type DecisionReason struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// Block is the {"decision":"block","reason":msg} answer.
func Block(msg string) any { return DecisionReason{Decision: "block", Reason: msg} }

// StopTranscriptPath returns the session file to read for a Stop or SubagentStop of a harness
// whose payload names the main agent's file (main) and, on SubagentStop, the sub-agent's own
// (agent, agent_transcript_path in Claude Code's and Codex CLI's payloads): on SubagentStop
// agent, noting in st when there is none, else main.
func StopTranscriptPath(st *harness.Stop, main, agent string) string {
	if st.Event != "SubagentStop" {
		return main
	}
	if agent == "" {
		st.Notes = append(st.Notes, "no agent_transcript_path in the SubagentStop payload; deciding on the payload alone")
	}
	return agent
}

// CutMessage bounds msg to MaxMessageBytes at a rune boundary, marking the cut.
func CutMessage(msg string) string {
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

// ExpandPath resolves a transcript path: a leading "~/" is the home directory, and a relative
// path is taken from the session's working directory.
func ExpandPath(path, cwd string) string {
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

// OneLine folds s onto one line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
