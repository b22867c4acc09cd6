package gemini

import (
	"github.com/stopgate/stopgate/termination"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiNotices checks the records that say how a turn ended, and that others say nothing.
func TestGeminiNotices(t *testing.T) {
	tests := []struct {
		typ, text string
		want      termination.Category // "" for a finish-reason notice, "-" for no notice
		detail    string
	}{
		{"info", "User cancelled the request.", termination.Cancelled, "user_cancelled"},
		{"info", "⚠️  Response truncated due to token limits.", "", "MAX_TOKENS"},
		{"info", "⚠️  Response stopped due to safety reasons.", "", "SAFETY"},
		{"info", "⚠️  Response stopped because no image was generated.", "", "NO_IMAGE"},
		{"info", "The session has reached the maximum number of turns: 100. Please update this limit in your setting.json file.", termination.RecursionLimit, "max_session_turns"},
		{"info", "A potential loop was detected. This can happen due to repetitive tool calls or other model behavior. The request has been halted.", termination.ToolLoopGuard, "loop_detected"},
		{"info", "Sending this message (90000 tokens) might exceed the context window limit (1,000 tokens left).", termination.ContextOverflow, "context_window_will_overflow"},
		{"error", "The model returned reasoning thoughts but no final response text. If your context window is near capacity, try using /compress.", termination.EmptyResponse, "THINKING_ONLY_RESPONSE"},
		{"error", "Model response was truncated because it exceeded the token limit. Try using /compress to free up context space.", termination.OutputTruncated, "MAX_TOKENS_EXCEEDED"},
		{"error", "The model response was blocked due to recitation/copyright filters.", termination.ContentRefusal, "RECITATION_BLOCKED"},
		{"error", "User cancelled the request.", "-", ""},
		{"info", "The model response was blocked due to safety settings.", "-", ""},
		{"info", "Agent execution stopped: the hook said so", "-", ""},
		{"warning", "Response truncated due to token limits.", "-", ""},
		{"error", "[API Error: 500 Internal error]", "-", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.text, func(t *testing.T) {
			n := findNotice(tt.typ, tt.text)
			switch {
			case tt.want == "-":
				if n != nil {
					t.Errorf("notice %+v, want none", n)
				}
			case n == nil || n.category != tt.want || n.detail != tt.detail:
				t.Errorf("notice %+v, want %q (%s)", n, tt.want, tt.detail)
			}
		})
	}
}

// TestGeminiEndingOrder checks that the last record that says how a turn ended wins, and that
// records before the turn's last model message say nothing of its end.
func TestGeminiEndingOrder(t *testing.T) {
	head := `{"sessionId":"9e0d0000-0000-4000-8000-0000000000f1","projectHash":"h","startTime":"2026-03-03T09:00:00.000Z","lastUpdated":"2026-03-03T09:00:00.000Z","kind":"main"}` + "\n" +
		`{"id":"u1","timestamp":"2026-03-03T09:00:01.000Z","type":"user","content":[{"text":"Go."}]}` + "\n"
	model := `{"id":"%s","timestamp":"2026-03-03T09:00:02.000Z","type":"gemini","content":"Done."}` + "\n"
	rec := func(id, typ, text string) string {
		return `{"id":"` + id + `","timestamp":"2026-03-03T09:00:03.000Z","type":"` + typ + `","content":"` + text + `"}` + "\n"
	}
	tests := []struct {
		name        string
		body        string
		want        termination.Category
		interrupted bool
	}{
		{"an API error, then the user's cancel", rec("e", "error", "[API Error: 500 boom]") + rec("i", "info", "User cancelled the request."), termination.Cancelled, true},
		{"a cancel, then an API error", rec("i", "info", "User cancelled the request.") + rec("e", "error", "[API Error: 429 Too Many Requests]"), termination.RateLimited, false},
		{"a notice before the last model message", rec("i", "info", "User cancelled the request.") + strings.Replace(model, "%s", "m2", 1), termination.Completed, false},
		{"a notice that says nothing of the end", strings.Replace(model, "%s", "m2", 1) + rec("i", "info", "Agent execution stopped: enough"), termination.Completed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(head+tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			ss, err := (Reader{}).Read(path)
			if err != nil {
				t.Fatal(err)
			}
			tr := ss[0].Turns[0]
			if tr.Ending.Category != tt.want || tr.Interrupted != tt.interrupted {
				t.Errorf("ending %s, interrupted %v; want %s, %v", tr.Ending, tr.Interrupted, tt.want, tt.interrupted)
			}
		})
	}
}
