package stall

import (
	"strings"
)

// OpenTodos returns the open items of the message's own todo list: the checklist in its
// last <todo>…</todo> block (an unclosed <todo> runs to the end of the message), each item's
// text trimmed, in order. It returns nil when there is no block or nothing in it is open.
//
// Items are the checklist spellings models write: "- [ ] item", "* [ ] item", "+ [ ] item",
// a bare "[ ] item", and numbered "1. [ ] item" or "1) [ ] item", at any indentation. "[ ]"
// and the sloppier "[]" are open, as is "[~]" (in progress); "[x]" and "[X]" are done. Any
// other mark ("[-]", cancelled in some conventions) is not read as open: when unsure, no
// nudge. Items with no text are skipped. Tags and checklists inside ``` or ~~~ fenced code
// are ignored: a message that quotes an example list is not carrying one.
func OpenTodos(text string) []string {
	var (
		open   []string // open items of the current (last seen) block
		inTodo bool
		fence  byte
		fLen   int
	)
	for pos := 0; pos < len(text); {
		lineEnd, next := nextLine(text, pos)
		a, b := trimSpan(text, pos, lineEnd)
		rest := text[a:b]
		pos = next
		if fence != 0 {
			if isFenceClose(rest, fence, fLen) {
				fence = 0
			}
			continue
		}
		if c, n, ok := fenceOpen(rest); ok {
			fence, fLen = c, n
			continue
		}
		// Walk the line's tags in order; the segments inside a block are checklist text.
		for rest != "" {
			if !inTodo {
				i, j := findTag(rest, "<todo")
				if i < 0 {
					break
				}
				inTodo, open = true, nil
				rest = rest[j:]
				continue
			}
			seg := rest
			i, j := findTag(rest, "</todo")
			if i >= 0 {
				seg, rest = rest[:i], rest[j:]
				inTodo = false
			} else {
				rest = ""
			}
			if item, ok := openItem(seg); ok {
				open = append(open, item)
			}
		}
	}
	return open
}

// HasUncheckedTodo reports whether the message's own <todo> block still has an open item;
// see [OpenTodos].
func HasUncheckedTodo(text string) bool {
	return len(OpenTodos(text)) > 0
}

// findTag finds the tag whose opening is prefix ("<todo", "</todo") in s, case-insensitively,
// followed by '>' or by attributes and then '>'. It returns the tag's start and the index
// just after its '>', or -1, -1.
func findTag(s, prefix string) (start, end int) {
	for off := 0; off < len(s); {
		i := strings.IndexByte(s[off:], '<')
		if i < 0 {
			return -1, -1
		}
		i += off
		k := i + len(prefix)
		if k < len(s) && strings.EqualFold(s[i:k], prefix) && (s[k] == '>' || s[k] == ' ' || s[k] == '\t') {
			if g := strings.IndexByte(s[k:], '>'); g >= 0 {
				return i, k + g + 1
			}
		}
		off = i + 1
	}
	return -1, -1
}

// openItem reads one checklist line and returns its text when it is an open item.
func openItem(line string) (string, bool) {
	s := strings.TrimSpace(line)
	if s == "" {
		return "", false
	}
	if n := listMarker(s); n > 0 {
		s = strings.TrimLeft(s[n:], " \t")
	}
	var rest string
	switch {
	case strings.HasPrefix(s, "[ ]"), strings.HasPrefix(s, "[~]"):
		rest = s[3:]
	case strings.HasPrefix(s, "[]"):
		rest = s[2:]
	default:
		return "", false
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false // "[ ]x" is not a checkbox
	}
	rest = strings.TrimSpace(rest)
	return rest, rest != ""
}
