package claudecode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// recordingSpy keeps what the hook recorded.
type recordingSpy struct {
	turns     []stopgate.Turn
	decisions []stopgate.Decision
}

func (r *recordingSpy) Record(_ context.Context, t stopgate.Turn, d stopgate.Decision) error {
	r.turns, r.decisions = append(r.turns, t), append(r.decisions, d)
	return nil
}

// TestStopFailure: a StopFailure payload is recorded with the reason its error type and
// message give, at the StopFailure site, never blocks, keeps no state, and exits 0 with
// nothing on stdout.
func TestStopFailure(t *testing.T) {
	tests := []struct {
		payload string
		want    termination.Category
		message string
	}{
		{`{"session_id":"s1","hook_event_name":"StopFailure","error":"rate_limit","last_assistant_message":"API Error: Request rejected (429)"}`,
			termination.RateLimited, "API Error: Request rejected (429)"},
		{`{"session_id":"s2","hook_event_name":"StopFailure","error":"billing_error","error_details":"Your credit balance is too low"}`,
			termination.AuthFailed, "Your credit balance is too low"},
		{`{"session_id":"s3","hook_event_name":"StopFailure","error":"overloaded"}`,
			termination.ProviderError, ""},
		{`{"session_id":"s4","hook_event_name":"StopFailure","error":"max_output_tokens"}`,
			termination.OutputTruncated, ""},
		{`{"session_id":"s5","hook_event_name":"StopFailure","error":"model_not_found","error_details":{"message":"model: claude-9 not found"}}`,
			termination.InvalidRequest, "model: claude-9 not found"},
		{`{"session_id":"s6","hook_event_name":"StopFailure","error_type":"authentication_failed","error_message":"invalid x-api-key"}`,
			termination.AuthFailed, "invalid x-api-key"},
		{`{"session_id":"s7","hook_event_name":"StopFailure","error":"server_error","error_details":{"error":{"message":"Internal server error"}},"agent_id":"a1"}`,
			termination.ProviderError, "Internal server error"},
	}
	for _, tc := range tests {
		spy := &recordingSpy{}
		dir := t.TempDir()
		var out, errw bytes.Buffer
		code := ClaudeCode(context.Background(), bytes.NewReader([]byte(tc.payload)), &out, &errw, &Options{Recorder: spy, StateDir: dir})
		if code != 0 || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q; want 0 and nothing", tc.payload, code, out.String())
		}
		if len(spy.decisions) != 1 {
			t.Fatalf("%s: %d decisions recorded (stderr %s)", tc.payload, len(spy.decisions), errw.String())
		}
		d, turn := spy.decisions[0], spy.turns[0]
		if d.Verdict != stopgate.Stop || d.Reason == nil || d.Reason.Category != tc.want || d.Reason.Site != termination.SiteHookClaudeCodeStopFailure {
			t.Errorf("%s: decision %+v reason %+v; want Stop, %s at %s", tc.payload, d, d.Reason, tc.want, termination.SiteHookClaudeCodeStopFailure)
		}
		if turn.Harness != Name || turn.Session == "" || turn.Error == nil || turn.Error.Message != tc.message {
			t.Errorf("%s: turn %+v error %+v; want message %q", tc.payload, turn, turn.Error, tc.message)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: a StopFailure wrote state: %v", tc.payload, filepath.Join(dir, entries[0].Name()))
		}
	}
}
