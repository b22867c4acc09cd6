package termination

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestNewFillsPostureFromTable(t *testing.T) {
	r := New(SiteTurnError, SourceException, Classification{Category: ContextOverflow, Provider: "openai", Detail: "ContextOverflowError"})
	if r.RetryableAsIs() || !r.RetryableAfterRemedy() || r.Remedy() != ReduceContext {
		t.Errorf("posture %+v, want false/true/reduce-context", r.Posture())
	}
	if r.Provider != "openai" || r.Detail != "ContextOverflowError" || r.Site != SiteTurnError || r.Source != SourceException {
		t.Errorf("fields not carried: %+v", r)
	}
}

func TestNewRecordsUnrecognisedCategoryAsUnknown(t *testing.T) {
	r := New(SiteSupervisor, SourceControl, Classification{Category: "exploded"})
	if r.Category != Unknown || r.Detail != "exploded" {
		t.Errorf("got %+v, want unknown with detail %q", r, "exploded")
	}
}

func TestReasonJSON(t *testing.T) {
	r := New(SiteClassifyError, SourceException, Classification{Category: RateLimited, Provider: "groq", Detail: "429"})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"category":"rate_limited","site":"classify.error","source":"exception","retryable_as_is":false,"retryable_after_remedy":true,"remedy":"back-off","provider":"groq","detail":"429"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Reason
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != r {
		t.Errorf("round trip: got %+v, want %+v", back, r)
	}
	// A forged posture on the wire cannot change what the category means.
	var forged Reason
	if err := json.Unmarshal([]byte(`{"category":"invalid_request","retryable_as_is":true,"remedy":"back-off"}`), &forged); err != nil {
		t.Fatal(err)
	}
	if forged.RetryableAsIs() || forged.Remedy() != "" {
		t.Errorf("forged posture leaked through: %+v", forged.Posture())
	}
	// A category a newer binary wrote reads as unknown, its spelling kept.
	var newer Reason
	if err := json.Unmarshal([]byte(`{"category":"exploded","site":"x","retry_after_ms":1500}`), &newer); err != nil {
		t.Fatal(err)
	}
	if newer.Category != Unknown || newer.Detail != "exploded" || newer.RetryAfter != 1500*time.Millisecond {
		t.Errorf("unknown category read as %+v", newer)
	}
}

func TestAttach(t *testing.T) {
	inner := New(SiteTurnError, SourceException, Classification{Category: AuthFailed, Detail: "401"})
	outer := New(SiteTurnError, SourceException, Classification{Category: Timeout})

	if Attach(nil, inner) != nil {
		t.Fatal("Attach(nil) must stay nil")
	}
	if Replace(nil, inner) != nil {
		t.Fatal("Replace(nil) must stay nil")
	}

	base := io.ErrUnexpectedEOF
	err := Attach(base, inner)
	if err.Error() != base.Error() {
		t.Errorf("Error() changed: %q", err.Error())
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("attached error no longer unwraps to the original")
	}
	if got, ok := ReasonOf(err); !ok || got != inner {
		t.Errorf("ReasonOf = %+v, %t", got, ok)
	}

	// First write wins: the same value comes back, still with the inner reason.
	again := Attach(err, outer)
	if again != err {
		t.Error("attaching to a chain that carries a reason must return it unchanged")
	}
	// Through a wrapper too.
	wrapped := fmt.Errorf("agent processing failed: %w", err)
	if Attach(wrapped, outer) != wrapped {
		t.Error("attaching through a wrapper must change nothing")
	}
	if got, _ := ReasonOf(wrapped); got != inner {
		t.Errorf("reason read through a wrapper = %+v, want the inner one", got)
	}

	// Replace is the one overwrite.
	replaced := Replace(wrapped, outer)
	if got, _ := ReasonOf(replaced); got != outer {
		t.Errorf("after Replace: %+v, want %+v", got, outer)
	}
	if replaced.Error() != wrapped.Error() || !errors.Is(replaced, io.ErrUnexpectedEOF) {
		t.Error("Replace changed the error's text or chain")
	}

	// errors.As still finds typed errors underneath.
	apiErr := &APIError{Provider: "openai", Status: 429, Message: "slow down"}
	carried := Attach(apiErr, inner)
	if got, ok := errors.AsType[*APIError](carried); !ok || got != apiErr {
		t.Error("errors.As lost the typed error underneath")
	}

	if _, ok := ReasonOf(errors.New("plain")); ok {
		t.Error("a plain error carries no reason")
	}
	if _, ok := ReasonOf(nil); ok {
		t.Error("nil carries no reason")
	}
	if !strings.Contains(inner.String(), "auth_failed@runner.turn-error") {
		t.Errorf("String() = %q", inner.String())
	}
}

func TestAPIErrorText(t *testing.T) {
	tests := []struct {
		err  *APIError
		want string
	}{
		{nil, "<nil>"},
		{&APIError{}, "provider: error"},
		{&APIError{Provider: "groq", Status: 400, Message: "Failed to call a function."}, "groq 400: Failed to call a function."},
		{&APIError{Provider: "ollama", Body: "model not found"}, "ollama: model not found"},
		// A JSON body is data, not a message: it can carry the model's own output.
		{&APIError{Provider: "groq", Status: 400, Body: `{"error":{"failed_generation":"rate limit"}}`}, "groq 400: error"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
