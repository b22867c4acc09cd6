package hook

import (
	"bytes"
	"context"
	"strings"
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
// message give, at the StopFailure site, never blocks, and exits 0 with nothing on stdout.
func TestStopFailure(t *testing.T) {
	tests := []struct {
		harness string
		run     func(context.Context, *bytes.Reader, *bytes.Buffer, *bytes.Buffer, *Options) int
		payload string
		want    termination.Category
		site    termination.Site
	}{
		{"claude-code", func(ctx context.Context, in *bytes.Reader, out, errw *bytes.Buffer, o *Options) int {
			return ClaudeCode(ctx, in, out, errw, o)
		}, `{"session_id":"s1","hook_event_name":"StopFailure","error":"rate_limit","last_assistant_message":"API Error: Request rejected (429)"}`,
			termination.RateLimited, termination.SiteHookClaudeCodeStopFailure},
		{"claude-code", func(ctx context.Context, in *bytes.Reader, out, errw *bytes.Buffer, o *Options) int {
			return ClaudeCode(ctx, in, out, errw, o)
		}, `{"session_id":"s2","hook_event_name":"StopFailure","error":"billing_error","error_details":"Your credit balance is too low"}`,
			termination.AuthFailed, termination.SiteHookClaudeCodeStopFailure},
		{"claude-code", func(ctx context.Context, in *bytes.Reader, out, errw *bytes.Buffer, o *Options) int {
			return ClaudeCode(ctx, in, out, errw, o)
		}, `{"session_id":"s3","hook_event_name":"StopFailure","error":"overloaded"}`,
			termination.ProviderError, termination.SiteHookClaudeCodeStopFailure},
		{"claude-code", func(ctx context.Context, in *bytes.Reader, out, errw *bytes.Buffer, o *Options) int {
			return ClaudeCode(ctx, in, out, errw, o)
		}, `{"session_id":"s4","hook_event_name":"StopFailure","error":"max_output_tokens"}`,
			termination.OutputTruncated, termination.SiteHookClaudeCodeStopFailure},
		{"claude-code", func(ctx context.Context, in *bytes.Reader, out, errw *bytes.Buffer, o *Options) int {
			return ClaudeCode(ctx, in, out, errw, o)
		}, `{"session_id":"s5","hook_event_name":"StopFailure","error":"model_not_found","error_details":{"message":"model: claude-9 not found"}}`,
			termination.InvalidRequest, termination.SiteHookClaudeCodeStopFailure},
		{"codex", func(ctx context.Context, in *bytes.Reader, out, errw *bytes.Buffer, o *Options) int {
			return Codex(ctx, in, out, errw, o)
		}, `{"session_id":"s6","hook_event_name":"StopFailure","error":"server_error"}`,
			termination.ProviderError, termination.SiteHookCodexStopFailure},
	}
	for _, tc := range tests {
		spy := &recordingSpy{}
		var out, errw bytes.Buffer
		code := tc.run(context.Background(), bytes.NewReader([]byte(tc.payload)), &out, &errw, &Options{Recorder: spy, StateDir: t.TempDir()})
		if code != 0 || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q; want 0 and nothing", tc.payload, code, out.String())
		}
		if len(spy.decisions) != 1 {
			t.Fatalf("%s: %d decisions recorded (stderr %s)", tc.payload, len(spy.decisions), errw.String())
		}
		d := spy.decisions[0]
		if d.Verdict != stopgate.Stop || d.Reason == nil || d.Reason.Category != tc.want || d.Reason.Site != tc.site {
			t.Errorf("%s: decision %+v reason %v", tc.payload, d, d.Reason)
		}
		if !strings.HasPrefix(spy.turns[0].Session, "s") || spy.turns[0].Harness != tc.harness {
			t.Errorf("%s: turn %+v", tc.payload, spy.turns[0])
		}
	}
}
