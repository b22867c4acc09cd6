package harness

import (
	"context"
	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
	"testing"
)

// TestTurnEnding checks the order in which a Turn says how it ended.
func TestTurnEnding(t *testing.T) {
	tests := []struct {
		name        string
		turn        stopgate.Turn
		interrupted bool
		want        termination.Category
		site        termination.Site
	}{
		{"nothing said", stopgate.Turn{Harness: "claude-code"}, false, termination.Completed, termination.SiteHookClaudeCode},
		{"an interrupt wins", stopgate.Turn{Harness: "claude-code", Error: &stopgate.ErrorInfo{Status: 429}}, true, termination.Cancelled, termination.SiteHookClaudeCode},
		{"an error", stopgate.Turn{Harness: "gemini-cli", Error: &stopgate.ErrorInfo{Status: 429}}, false, termination.RateLimited, termination.SiteHookGeminiCLI},
		{"a Go error", stopgate.Turn{Err: context.Canceled}, false, termination.Cancelled, termination.SiteSupervisor},
		{"an error beats the stop token", stopgate.Turn{Error: &stopgate.ErrorInfo{Message: "API Error: 529 overloaded"}, Message: &stopgate.Message{FinishReason: "stop_sequence", Provider: "anthropic"}}, false, termination.ProviderError, termination.SiteSupervisor},
		{"a stop token", stopgate.Turn{Message: &stopgate.Message{FinishReason: "refusal", Provider: "anthropic"}}, false, termination.ContentRefusal, termination.SiteSupervisor},
		{"an unknown stop token", stopgate.Turn{Message: &stopgate.Message{FinishReason: "FINISH_REASON_UNSPECIFIED", Provider: "google"}}, false, termination.Unknown, termination.SiteSupervisor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := TurnEnding(tt.site, tt.turn, tt.interrupted)
			if r.Category != tt.want || r.Site != tt.site {
				t.Errorf("TurnEnding = %s, want %s at %s", r, tt.want, tt.site)
			}
		})
	}
}
