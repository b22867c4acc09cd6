package hookio

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutMessage(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
	}{
		{"short", "Read the log."},
		{"exactly the cap", strings.Repeat("a", MaxMessageBytes)},
		{"ascii over", strings.Repeat("a", MaxMessageBytes+1)},
		{"multibyte over", strings.Repeat("é…", MaxMessageBytes)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := CutMessage(tt.in)
			if len(got) > MaxMessageBytes || !utf8.ValidString(got) {
				t.Errorf("%d bytes, valid UTF-8 %v; want at most %d, valid", len(got), utf8.ValidString(got), MaxMessageBytes)
			}
			if cut := len(tt.in) > MaxMessageBytes; cut != strings.HasSuffix(got, "[…]") || !cut && got != tt.in {
				t.Errorf("cut %v: got …%q", cut, got[max(0, len(got)-20):])
			}
		})
	}
}
