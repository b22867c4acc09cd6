package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// MaxMessageBytes bounds the continuation the hook writes: the plugin prompts the session
// with it whole.
const MaxMessageBytes = 8 << 10

// Hook is stopgate's session.idle hook for opencode, run by the plugin (plugin.js).
//
// To let the session stop it writes nothing. To keep it going it writes
// {"decision":"block","reason":MESSAGE}, and the plugin prompts the session with MESSAGE.
// Budgets are kept per session under the state directory; stop_hook_active is the plugin's:
// the last user message is one of its continuations, which holds through the whole continued
// run (opencode keeps tool results in the assistant's messages).
type Hook struct{}

// Stop implements harness.Hook.
func (Hook) Stop(_ context.Context, payload io.Reader, now time.Time) (*harness.Stop, error) {
	p, err := DecodePayload(payload)
	if err != nil {
		return nil, err
	}
	st := &harness.Stop{Event: p.Event(), Active: p.StopHookActive}
	if len(p.Ignored) > 0 {
		st.Notes = append(st.Notes, "payload fields of an unexpected type, read as absent: "+strings.Join(p.Ignored, ", "))
	}
	if p.Event() != EventIdle {
		st.Skip = true
		st.Notes = append(st.Notes, fmt.Sprintf("hook event %q is not %s; nothing to decide", p.Event(), EventIdle))
		return st, nil
	}
	st.Turn = Turn(p.SessionID, p.Messages, p.Todos, p.Nudges, now)
	if p.SessionID != "" {
		st.State = harness.StateKey{Session: "opencode-" + p.SessionID}
	}
	return st, nil
}

// Answer implements harness.Hook.
func (Hook) Answer(d stopgate.Decision, _ *harness.Stop) ([]byte, string) {
	switch d.Verdict {
	case stopgate.Continue:
	case stopgate.Retry:
		return nil, fmt.Sprintf("a retry was advised (%s), but a stop hook cannot resend a request; letting the agent stop", d.Check)
	default:
		return nil, ""
	}
	msg := d.Message
	if len(msg) > MaxMessageBytes {
		cut := MaxMessageBytes
		for cut > 0 && msg[cut]&0xC0 == 0x80 {
			cut--
		}
		msg = msg[:cut]
	}
	if strings.TrimSpace(msg) == "" {
		return nil, fmt.Sprintf("check %s continued the run without a message; letting the agent stop", d.Check)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", msg}); err != nil {
		return nil, fmt.Sprintf("encoding the answer: %v; letting the agent stop", err)
	}
	return b.Bytes(), ""
}

// Harness describes opencode to cmd/stopgate.
func Harness() harness.Harness {
	return harness.Harness{
		Name:      Name,
		Summary:   "the opencode plugin's session.idle hook",
		Site:      termination.SiteHookOpencode,
		Hook:      Hook{},
		Installer: Installer{},
		Readers:   []harness.SessionReader{Reader{}},
		Doctor:    Doctor{},
	}
}
