package gate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLabelRunes bounds a command or description quoted in a gate message, so one heredoc or
// essay-length description cannot swamp the instruction around it.
const maxLabelRunes = 160

// writeItem writes one bullet: "- id (label) — suffix", leaving out the parts that are empty.
func writeItem(b *strings.Builder, id, label, suffix string) {
	b.WriteString("- ")
	if id == "" {
		b.WriteString("(no id)")
	} else {
		b.WriteString(id)
	}
	if l := oneLine(label, maxLabelRunes); l != "" {
		b.WriteString(" (")
		b.WriteString(l)
		b.WriteString(")")
	}
	if suffix != "" {
		b.WriteString(" — ")
		b.WriteString(suffix)
	}
	b.WriteString("\n")
}

// writeIDs writes n ids as a quoted, bracketed list: ["a", "b"].
func writeIDs(b *strings.Builder, n int, id func(int) string) {
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(id(i)))
	}
	b.WriteString("]")
}

// oneLine collapses every run of white space in s (newlines included) to one space, trims it,
// and cuts it to at most max runes, the last of which is then "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
