package store

import (
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

func TestFinalMessageObservation(t *testing.T) {
	at := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		turn     stopgate.Turn
		ok       bool
		token    string
		present  bool
		category termination.Category
	}{
		{name: "no message: nothing observed", turn: stopgate.Turn{}},
		{name: "a token", turn: stopgate.Turn{Session: "s", Message: &stopgate.Message{Text: "x", FinishReason: "MAX_TOKENS", Provider: "google"}},
			ok: true, token: "max_tokens", present: true, category: termination.OutputTruncated},
		{name: "a payload's token", turn: stopgate.Turn{Message: &stopgate.Message{Payload: map[string]any{"stop_reason": "refusal"}}},
			ok: true, token: "refusal", present: true, category: termination.ContentRefusal},
		{name: "absence recorded as absence", turn: stopgate.Turn{Message: &stopgate.Message{Text: "hi"}}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok, err := FinalMessageObservation(tt.turn, at)
			if err != nil || ok != tt.ok {
				t.Fatalf("ok=%t err=%v, want ok=%t", ok, err, tt.ok)
			}
			if !ok {
				return
			}
			if err := e.Validate(); err != nil {
				t.Fatalf("invalid event: %v", err)
			}
			if e.Kind != KindObservation || !e.Time.Equal(at) || e.Category != tt.category {
				t.Errorf("event %+v", e)
			}
			var obs termination.Observation
			if err := obs.UnmarshalJSON(e.Payload); err != nil {
				t.Fatal(err)
			}
			if obs.Token != tt.token || obs.Present != tt.present || obs.Path != PathFinalMessage {
				t.Errorf("observation %+v, want token %q present %t", obs, tt.token, tt.present)
			}
		})
	}
}
