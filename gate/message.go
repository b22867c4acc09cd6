package gate

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxLabelRunes bounds a command or description quoted in a gate message, so one heredoc or
// essay-length description cannot swamp the instruction around it.
const maxLabelRunes = 160

// writeItem writes one bullet, "- id (label)", leaving out a label that is empty, and no line
// end: the caller may add to the line first.
func writeItem(b *strings.Builder, id, label string) {
	b.WriteString("- ")
	if id == "" {
		b.WriteString("(no id)")
	} else {
		b.WriteString(id)
	}
	if hasText(label) {
		b.WriteString(" (")
		writeOneLine(b, label, maxLabelRunes)
		b.WriteString(")")
	}
}

// writeIDs writes n ids as a quoted, bracketed list: ["a", "b"].
func writeIDs(b *strings.Builder, n int, id func(int) string) {
	var scratch [64]byte
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(strconv.AppendQuote(scratch[:0], id(i)))
	}
	b.WriteString("]")
}

// hasText reports whether s holds anything but white space.
func hasText(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) }) >= 0
}

// writeOneLine writes s with every run of white space (newlines included) collapsed to one
// space and surrounding white space trimmed, cut to at most limit runes, the last of which is
// then "…".
func writeOneLine(b *strings.Builder, s string, limit int) {
	fields := strings.FieldsFuncSeq(s, unicode.IsSpace)
	total := 0
	for f := range fields {
		if total > 0 {
			total++
		}
		total += utf8.RuneCountInString(f)
	}
	budget := total
	if total > limit {
		budget = limit - 1
	}
	n := 0
	for f := range fields {
		if n > 0 {
			if n == budget {
				break
			}
			b.WriteByte(' ')
			n++
		}
		for _, r := range f {
			if n == budget {
				break
			}
			b.WriteRune(r)
			n++
		}
	}
	if total > limit {
		b.WriteString("…")
	}
}

// pickInStartOrder returns the items at idx, ordered by start time, then id in byte order,
// then position in items. It sorts the indices rather than the (large) items, and copies each
// chosen item once.
func pickInStartOrder[T any](items []T, idx []int, key func(*T) (time.Time, string)) []T {
	if len(idx) == 0 {
		return nil
	}
	slices.SortFunc(idx, func(i, j int) int {
		si, di := key(&items[i])
		sj, dj := key(&items[j])
		return cmp.Or(si.Compare(sj), strings.Compare(di, dj), cmp.Compare(i, j))
	})
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = items[i]
	}
	return out
}
