package session

import (
	"testing"
	"unicode/utf8"
)

func TestLastSentence(t *testing.T) {
	cases := []struct {
		text string
		max  int
		want string
	}{
		{"", 100, ""},
		{"   \n  ", 100, ""},
		{"Done.", 100, "Done."},
		{"I fixed it. Let me check the tests.", 100, "Let me check the tests."},
		{"Fixed!  Now what? Shall I push?", 100, "Shall I push?"},
		{"Summary:\n\n- a\n- b\n\nAll 12 tests pass. Pushed to origin/main.\n", 100, "Pushed to origin/main."},
		{"Version 1.2 is out", 100, "Version 1.2 is out"},
		{"Trailing space. ", 100, "Trailing space."},
		{"One two three four five", 10, "…four five"},
		{"ééééé", 3, "…éé"},
		{"short", 0, "short"},
		// Real endings: a rule, a closing list of changes, a table, a list after a question.
		{"All 12 tests pass. Want me to push?\n\n---\n", 100, "Want me to push?"},
		{"Done. Here is what changed:\n\n- `a.go`: new flag\n- `b.go`: removed\n", 100, "Here is what changed:"},
		{"Results:\n\n| test | ok |\n|---|---|\n| a | yes |", 100, "Results:"},
		{"Which one should I keep?\n\n1. the cache\n2. the index", 100, "Which one should I keep?"},
		{"- only\n- a list", 100, "a list"},
		{"Run it:\n\n```\ngo test ./...\n```", 100, "Run it:"},
	}
	for _, c := range cases {
		if got := lastSentence(c.text, c.max); got != c.want {
			t.Errorf("lastSentence(%q, %d) = %q, want %q", c.text, c.max, got, c.want)
		}
	}
}

// FuzzLastSentence checks the excerpt on arbitrary text: it never exceeds its bound.
func FuzzLastSentence(f *testing.F) {
	f.Add("All 12 tests pass. Want me to push?\n\n---\n", 100)
	f.Add("ééééé", 3)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max < 0 || max > 1000 {
			return
		}
		got := lastSentence(text, max)
		if n := utf8.RuneCountInString(got); max > 0 && n > max {
			t.Errorf("lastSentence(%q, %d) has %d runes", text, max, n)
		}
	})
}
