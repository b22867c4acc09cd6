package harness

import "strings"

// ExcerptRunes is the longest final-sentence excerpt kept per turn: by a session summary, by
// audit's table and by the session readers' nudge records.
const ExcerptRunes = 100

// Excerpt cuts s to n runes on one line, keeping its end when tail is set and its start
// otherwise, and marking the cut with "…".
func Excerpt(s string, n int, tail bool) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if tail {
		return "…" + string(r[len(r)-n+1:])
	}
	return string(r[:n-1]) + "…"
}
