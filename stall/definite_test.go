package stall

import (
	"strings"
	"testing"

	"github.com/stopgate/stopgate/loopguard"
)

func TestDefiniteStallFor(t *testing.T) {
	const msg = "I stopped because I kept making the same call. Could you take a look?"
	tests := []struct {
		name     string
		metadata map[string]any
		want     bool
	}{
		{"nil metadata", nil, false},
		{"no key", map[string]any{"other": true}, false},
		{"true", map[string]any{loopguard.MetadataLivelocked: true}, true},
		{"false", map[string]any{loopguard.MetadataLivelocked: false}, false},
		{"string true", map[string]any{loopguard.MetadataLivelocked: "true"}, true},
		{"string TRUE with space", map[string]any{loopguard.MetadataLivelocked: " TRUE "}, true},
		{"string false", map[string]any{loopguard.MetadataLivelocked: "false"}, false},
		{"string yes", map[string]any{loopguard.MetadataLivelocked: "yes"}, false},
		{"number", map[string]any{loopguard.MetadataLivelocked: 1}, false},
		{"nil value", map[string]any{loopguard.MetadataLivelocked: nil}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nudge, ok := DefiniteStallFor(msg, tt.metadata)
			if ok != tt.want {
				t.Fatalf("ok = %t, want %t", ok, tt.want)
			}
			if !ok {
				if nudge != "" {
					t.Errorf("nudge %q without a definite stall", nudge)
				}
				return
			}
			if !strings.Contains(nudge, "repeating the same tool call") || !strings.Contains(nudge, `"Could you take a look?"`) {
				t.Errorf("nudge is not the livelock nudge quoting the last sentence: %q", nudge)
			}
		})
	}
	// An empty message still nudges, without a quote.
	nudge, ok := DefiniteStallFor("", map[string]any{loopguard.MetadataLivelocked: true})
	if !ok || strings.Contains(nudge, `"`) {
		t.Errorf("empty message: %q, %t", nudge, ok)
	}
}

func TestQuote(t *testing.T) {
	if got := quote("  a\n\tb  "); got != `"a b"` {
		t.Errorf("quote collapses whitespace: %q", got)
	}
	long := strings.Repeat("é", maxQuote+10)
	got := quote(long)
	if want := `"` + strings.Repeat("é", maxQuote) + `…"`; got != want {
		t.Errorf("quote cuts to %d runes: got %d bytes", maxQuote, len(got))
	}
	exact := strings.Repeat("a", maxQuote)
	if got := quote(exact); got != `"`+exact+`"` {
		t.Error("a sentence of exactly maxQuote runes is not cut")
	}
}
