package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
)

// decisionEvent returns the decision event of a real decision with its trail.
func decisionEvent(t testing.TB) Event {
	t.Helper()
	turn := stopgate.Turn{Harness: "claude-code", Session: "s", Message: &stopgate.Message{Text: "All done.", Provider: "anthropic", FinishReason: "end_turn"}}
	d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
	evs, err := DecisionEvents(turn, d, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	return evs[0]
}

// TestValidateEncodedPayload: a payload a constructor encoded is taken as JSON without a
// second parse only while it is still those bytes; one put in its place is checked.
func TestValidateEncodedPayload(t *testing.T) {
	e := decisionEvent(t)
	if !e.encodedHere() {
		t.Fatal("a constructed decision event does not know its payload as its own")
	}
	if err := e.Validate(); err != nil {
		t.Fatalf("constructed event: %v", err)
	}
	for name, p := range map[string]json.RawMessage{
		"a payload put in its place": json.RawMessage(`{"verdict":`),
		"the same bytes, copied":     append(json.RawMessage(nil), e.Payload[:len(e.Payload)-1]...),
		"a shortened payload":        e.Payload[:len(e.Payload)-1],
	} {
		f := e
		f.Payload = p
		if f.encodedHere() {
			t.Errorf("%s: still taken as the constructor's", name)
		}
		if err := f.Validate(); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s: Validate = %v, want ErrInvalidEvent", name, err)
		}
	}
	byHand := Event{ID: e.ID, Kind: e.Kind, Time: e.Time, Check: e.Check, Verdict: e.Verdict, Payload: e.Payload}
	if byHand.encodedHere() {
		t.Error("an event built by hand is taken as a constructor's")
	}
}

// BenchmarkValidate is Validate of a decision event as its constructor made it, and of the
// same event built by hand, whose payload is parsed.
func BenchmarkValidate(b *testing.B) {
	e := decisionEvent(b)
	byHand := e
	byHand.encoded = nil
	for _, c := range []struct {
		name string
		e    Event
	}{{"constructed", e}, {"by-hand", byHand}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.e.Payload)))
			for b.Loop() {
				if err := c.e.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
