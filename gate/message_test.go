package gate

import (
	"strings"
	"testing"
)

func TestWriteOneLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"", 5, ""},
		{"  pnpm   test \n", 20, "pnpm test"},
		{"a\tb\r\nc", 20, "a b c"},
		{"abcde", 5, "abcde"},
		{"abcdef", 5, "abcd…"},
		{"ééééé", 5, "ééééé"},
		{"éééééé", 5, "éééé…"},
		{"ab    cdef", 5, "ab c…"},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeOneLine(&b, tt.in, tt.max)
		if got := b.String(); got != tt.want {
			t.Errorf("writeOneLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestWriteIDs(t *testing.T) {
	var b strings.Builder
	ids := []string{"a", `q"uote`, ""}
	writeIDs(&b, len(ids), func(i int) string { return ids[i] })
	if got, want := b.String(), `["a", "q\"uote", ""]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
