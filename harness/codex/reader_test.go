package codex

import (
	"github.com/stopgate/stopgate/termination"
	"testing"
)

// TestCodexErrors checks how Codex's own error messages are classified, and that others are
// left to termination.Classify.
func TestCodexErrors(t *testing.T) {
	tests := []struct {
		msg  string
		want termination.Category // "" when the table does not know it
		code string
	}{
		{"stream disconnected before completion: Incomplete response returned, reason: max_output_tokens", termination.StreamCut, "response_stream_disconnected"},
		{"Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.", termination.ContextOverflow, "context_window_exceeded"},
		{"You've hit your usage limit. Upgrade to Pro or try again in 2 days.", termination.RateLimited, "usage_limit_exceeded"},
		{"Quota exceeded. Check your plan and billing details.", termination.RateLimited, "quota_exceeded"},
		{"We're currently experiencing high demand, which may cause temporary errors.", termination.ProviderError, "server_overloaded"},
		{"unexpected status 401 Unauthorized: Missing bearer", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			c, ok := codexError(tt.msg)
			if ok != (tt.want != "") || c.Category != tt.want || c.Detail != tt.code || ok && c.Provider != "openai" {
				t.Errorf("codexError = %+v, %v; want %s (%s)", c, ok, tt.want, tt.code)
			}
		})
	}
}
