package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/hook"
)

// promiseHook is a harness whose every stop ends on a trailing promise, answered as
// {"block":REASON}.
type promiseHook struct{}

func (promiseHook) Stop(_ context.Context, payload io.Reader, now time.Time) (*harness.Stop, error) {
	_, _ = io.Copy(io.Discard, payload)
	return &harness.Stop{
		Event: "Stop",
		Turn:  stopgate.Turn{Harness: "test", Session: "s1", Now: now, Message: &stopgate.Message{Text: "I found the bug. Let me check the tests."}},
		State: harness.StateKey{Session: "s1"},
	}, nil
}

func (promiseHook) Answer(d stopgate.Decision, _ *harness.Stop) ([]byte, string) {
	if d.Verdict != stopgate.Continue {
		return nil, ""
	}
	b, _ := json.Marshal(map[string]string{"block": d.Message})
	return append(b, '\n'), ""
}

type recorded struct{ decisions []stopgate.Decision }

func (r *recorded) Record(_ context.Context, _ stopgate.Turn, d stopgate.Decision) error {
	r.decisions = append(r.decisions, d)
	return nil
}

// TestShadow: in shadow mode the trailing promise is decided and recorded as it would be
// live, with verdict Shadow and the message that would have been handed on, while the hook
// writes nothing and keeps no nudge count; live, the same stop is blocked and counted.
func TestShadow(t *testing.T) {
	for _, tt := range []struct {
		name        string
		shadow      bool
		wantVerdict stopgate.Verdict
		wantStdout  bool
		wantState   bool
		wantStderr  string
	}{
		{"live", false, stopgate.Continue, true, true, ""},
		{"shadow", true, stopgate.Shadow, false, false, "shadow mode: would have kept the agent going (stall)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rec := &recorded{}
			var stdout, stderr bytes.Buffer
			code := hook.Run(context.Background(), strings.NewReader("{}"), &stdout, &stderr, promiseHook{},
				&hook.Options{StateDir: dir, Recorder: rec, Shadow: tt.shadow})
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			if got := stdout.Len() > 0; got != tt.wantStdout {
				t.Errorf("stdout %q, want an answer: %v", stdout.String(), tt.wantStdout)
			}
			if tt.wantStderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantStderr)
			}
			if len(rec.decisions) != 1 {
				t.Fatalf("recorded %d decisions, want 1", len(rec.decisions))
			}
			d := rec.decisions[0]
			if d.Verdict != tt.wantVerdict || d.Check != stopgate.CheckStall || !strings.Contains(d.Message, "Let me check the tests.") {
				t.Errorf("recorded %s by %s with message %q, want %s by stall quoting the promise", d.Verdict, d.Check, d.Message, tt.wantVerdict)
			}
			_, err := os.Stat(hook.StatePath(dir, "s1", ""))
			if got := err == nil; got != tt.wantState {
				t.Errorf("state file kept: %v, want %v", got, tt.wantState)
			}
		})
	}
}
