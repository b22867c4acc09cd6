package stall

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultLastSentences is the number of sentences [LastSentences] keeps when asked for n <= 0.
// Three is enough for a reader to see the announcement, what led up to it, and whether
// anything followed.
const DefaultLastSentences = 3

// Sentences splits the prose of text into sentences, in order, each trimmed of surrounding
// space and of its leading list marker or heading hashes. Every sentence is a substring of
// text.
//
// The splitter is built for what agents write. Fenced code blocks (``` or ~~~) are not prose
// and are left out; inline `code` is never split. A period ends a sentence only when space
// or the end of the paragraph follows it, so file names, versions, decimals and URLs
// (main.go, v1.2.3, go1.26, 3.14, https://go.dev/doc) stay whole, while "Edit main.go."
// still ends one. Common abbreviations (e.g., i.e., vs., Dr.) do not end a sentence, and
// "etc." ends one only when a capital follows. "!", "?" and an ellipsis end a sentence
// unless lower case follows (a quoted "AI!" mid-sentence, a trailing-off "let me think...
// the cache"). Each list item, heading and table row is its own sentence, a line ending
// in a colon ends one ("Now let me check the tests:"), and a line break ends one unless the
// next line continues in lower case (hard-wrapped prose). CJK and other full stops (。！？)
// end a sentence without a following space. A fragment with no letter or digit in it (a
// trailing emoji) stays with the sentence before it. Separator lines (---), table rules and
// lines that are a lone markup tag (</summary>) are not sentences. Lines end at LF, CRLF or
// a lone CR. It returns nil when text has no prose.
func Sentences(text string) []string {
	var out []string
	eachUnit(text, func(u unit) bool {
		if u.kind != kindCode {
			out = append(out, text[u.start:u.end])
		}
		return true
	})
	return out
}

// LastSentences returns the tail of text that holds its last n sentences: the text from the
// start of the n-th last sentence to the end, trimmed, as written. A fenced code block counts
// as one sentence and is kept whole, so a reader of the tail can see that an announcement
// ("Here is the patch:") was followed by what it announced. n <= 0 means
// [DefaultLastSentences]. It returns "" when text has no sentence.
func LastSentences(text string, n int) string {
	if n <= 0 {
		n = DefaultLastSentences
	}
	// Every block holds at least one unit, so the last n units lie in the last n blocks:
	// keep those in a ring, and split only them.
	var smallBlocks [8]block
	blocks := smallBlocks[:0]
	if n > len(smallBlocks) {
		blocks = make([]block, 0, n)
	}
	oldest := 0
	eachBlock(text, func(b block) bool {
		if len(blocks) < n {
			blocks = append(blocks, b)
		} else {
			blocks[oldest] = b
			oldest = (oldest + 1) % n
		}
		return true
	})
	if len(blocks) == 0 {
		return ""
	}
	var smallLeads [8]int
	leads := smallLeads[:0]
	if n > len(smallLeads) {
		leads = make([]int, 0, n)
	}
	next := 0 // leads is a ring of the last n unit leads; next is its oldest once full
	for k := range blocks {
		eachUnitOf(text, blocks[(oldest+k)%len(blocks)], func(u unit) bool {
			if len(leads) < n {
				leads = append(leads, u.lead)
			} else {
				leads[next] = u.lead
				next = (next + 1) % n
			}
			return true
		})
	}
	return strings.TrimSpace(text[leads[next%len(leads)]:])
}

// FinalSentence returns the sentence a reader of a message's end should see: the last
// sentence of its last paragraph of prose, a statement or a question. List items, quotes,
// table rows, headings (and a paragraph that is one bold line, "**Summary**"), separator
// lines (---) and code blocks are passed over, so a message
// that ends in a list of changes or a rule yields the sentence before them ("Here is what
// changed:"). A message with no such paragraph yields the last sentence of its last list
// item, quote, heading or table row; one with no prose at all "".
func FinalSentence(text string) string {
	var para, other block
	var havePara, haveOther bool
	eachBlock(text, func(b block) bool {
		switch {
		case b.kind == kindCode:
		case b.kind == kindText && !b.item && !boldLine(text[b.start:b.end]):
			para, havePara = b, true
		default:
			other, haveOther = b, true
		}
		return true
	})
	b := para
	if !havePara {
		if !haveOther {
			return ""
		}
		b = other
	}
	last := ""
	eachUnitOf(text, b, func(u unit) bool {
		last = text[u.start:u.end]
		return true
	})
	return last
}

// boldLine reports whether a paragraph is one emphasised line that is a title in all but
// name ("**Summary**", "**Description:**", "__Next__"), not a bold sentence ("**All tests
// pass.**").
func boldLine(p string) bool {
	if strings.ContainsAny(p, "\n\r") {
		return false
	}
	for _, m := range []string{"**", "__"} {
		q := strings.TrimSuffix(p, ":")
		if len(q) <= 2*len(m) || !strings.HasPrefix(q, m) || !strings.HasSuffix(q, m) {
			continue
		}
		inner := strings.TrimSpace(q[len(m) : len(q)-len(m)])
		if !strings.Contains(inner, m) && !strings.HasSuffix(inner, ".") && !strings.HasSuffix(inner, "!") && !strings.HasSuffix(inner, "?") {
			return true
		}
	}
	return false
}

// DanglingSentence returns the sentence to quote back in a nudge: the last sentence of the
// message's prose, trimmed. It is never a code block: when the message ends in one, it is the
// last sentence before it. It returns "" when the message has no prose.
func DanglingSentence(text string) string {
	t := readTail(text)
	if t.last.end == 0 {
		return ""
	}
	return text[t.last.start:t.last.end]
}

// unitKind is what a unit of text is.
type unitKind uint8

const (
	kindText    unitKind = iota // a sentence of a paragraph or list item
	kindHeading                 // a markdown heading
	kindTable                   // a table row
	kindCode                    // a fenced code block
)

// unit is one sentence, heading, table row or code block, as a trimmed span of the text.
type unit struct {
	start, end int
	kind       unitKind
	// lead is where the unit begins as written: before its list marker, heading hashes or
	// quote marker for the first sentence of a block, else start.
	lead int
}

// block is one paragraph or list item (kindText, to be split into sentences), heading, table
// row or code block, as a trimmed span of the text; lead is where it begins as written.
type block struct {
	start, end, lead int
	kind             unitKind
	// item marks a paragraph that is a list item or a quote.
	item bool
}

// span is a trimmed [start, end) byte range of a text. The zero span is empty.
type span struct{ start, end int }

// tail is what the classifier needs from the end of a message.
type tail struct {
	// last and prev are the last two prose sentences (zero when absent).
	last, prev span
	// endsInCode reports that the last unit of the message is a code block.
	endsInCode bool
}

// readTail scans text once and keeps what the classifier reads. Only the last two prose
// blocks are split into sentences.
func readTail(text string) tail {
	var (
		t          tail
		prev, last block
		n          int // prose blocks seen, up to 2
	)
	eachBlock(text, func(b block) bool {
		if b.kind == kindCode {
			t.endsInCode = true
			return true
		}
		t.endsInCode = false
		prev, last = last, b
		n = min(n+1, 2)
		return true
	})
	pair := [2]block{prev, last}
	for _, b := range pair[2-n:] {
		eachUnitOf(text, b, func(u unit) bool {
			t.prev, t.last = t.last, span{u.start, u.end}
			return true
		})
	}
	return t
}

// eachUnit calls yield with each unit of text in order, until yield returns false.
func eachUnit(text string, yield func(unit) bool) {
	eachBlock(text, func(b block) bool {
		return eachUnitOf(text, b, yield)
	})
}

// eachUnitOf calls yield with each unit of block b, until yield returns false; it reports
// whether yield never did.
func eachUnitOf(text string, b block, yield func(unit) bool) bool {
	if b.kind != kindText {
		return yield(unit{start: b.start, end: b.end, kind: b.kind, lead: b.lead})
	}
	ok := true
	splitSentences(text, b.start, b.end, func(x, y int) {
		if !ok {
			return
		}
		u := unit{start: x, end: y, kind: kindText, lead: x}
		if x == b.start {
			u.lead = b.lead
		}
		ok = yield(u)
	})
	return ok
}

// eachBlock calls yield with each block of text in order, until yield returns false.
func eachBlock(text string, yield func(block) bool) {
	s := blockScanner{text: text, yield: yield, para: -1}
	s.run()
}

// blockScanner is the line-level markdown reader behind eachBlock.
type blockScanner struct {
	text  string
	yield func(block) bool
	stop  bool

	// The open paragraph: start of its content, end of its last line, where its first line
	// begins as written, and whether its last line ended in a colon. para < 0 when none is
	// open.
	para, paraEnd, paraLead int
	paraColon               bool
	paraItem                bool // the open paragraph is a list item or a quote
}

func (s *blockScanner) emit(b block) {
	if !s.stop && !s.yield(b) {
		s.stop = true
	}
}

// flush ends the open paragraph.
func (s *blockScanner) flush() {
	if s.para < 0 {
		return
	}
	s.emit(block{start: s.para, end: s.paraEnd, lead: s.paraLead, kind: kindText, item: s.paraItem})
	s.para = -1
}

// open starts a paragraph at content [start, end) of the current line, which begins at lead.
func (s *blockScanner) open(lead, start, end int) {
	s.flush()
	s.para, s.paraEnd, s.paraLead = start, end, lead
	s.paraColon = endsWithColon(s.text[start:end])
	s.paraItem = false
}

func (s *blockScanner) run() {
	text := s.text
	var (
		fence      byte // the fence character while inside a fenced block, else 0
		fenceLen   int
		fenceStart int
		fenceEnd   int // end of the last non-blank line inside the fence
	)
	for pos := 0; pos < len(text) && !s.stop; {
		lineEnd, next := nextLine(text, pos)
		// Trim the line on both sides; indent is where its content starts.
		indent, end := trimSpan(text, pos, lineEnd)
		rest := text[indent:end]
		line := span{indent, end}
		pos = next

		if fence != 0 {
			if isFenceClose(rest, fence, fenceLen) {
				s.emit(block{start: fenceStart, end: end, lead: fenceStart, kind: kindCode})
				fence = 0
			} else if rest != "" {
				fenceEnd = end
			}
			continue
		}
		if c, n, ok := fenceOpen(rest); ok {
			s.flush()
			fence, fenceLen, fenceStart, fenceEnd = c, n, indent, end
			continue
		}
		switch {
		case rest == "":
			s.flush()
		case isHeading(rest):
			s.flush()
			if a, b := headingContent(text, line); a < b {
				s.emit(block{start: a, end: b, lead: line.start, kind: kindHeading})
			}
		case isRule(rest), isTagLine(rest):
			s.flush()
		case rest[0] == '|':
			s.flush()
			if !isTableRule(rest) {
				s.emit(block{start: line.start, end: line.end, lead: line.start, kind: kindTable})
			}
		case rest[0] == '>':
			i := line.start
			for i < line.end && (text[i] == '>' || text[i] == ' ' || text[i] == '\t') {
				i++
			}
			s.flush()
			if i < line.end {
				s.open(line.start, i, line.end)
				s.paraItem = true
			}
		default:
			if n := listMarker(rest); n > 0 {
				i := line.start + n
				for i < line.end && (text[i] == ' ' || text[i] == '\t') {
					i++
				}
				s.flush()
				if i < line.end {
					s.open(line.start, i, line.end)
					s.paraItem = true
				}
				continue
			}
			if s.para >= 0 && !s.paraColon && startsLower(rest) {
				// Hard-wrapped prose: the line continues the paragraph.
				s.paraEnd = line.end
				s.paraColon = endsWithColon(rest)
				continue
			}
			s.open(line.start, line.start, line.end)
		}
	}
	if fence != 0 {
		// An unclosed fence runs to the end of the text.
		s.emit(block{start: fenceStart, end: fenceEnd, lead: fenceStart, kind: kindCode})
		return
	}
	s.flush()
}

// nextLine returns the end of the line that starts at pos and the start of the next one. A
// line ends at LF, CRLF or a lone CR.
func nextLine(text string, pos int) (lineEnd, next int) {
	end := len(text)
	if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
		end = pos + i
	}
	if j := strings.IndexByte(text[pos:end], '\r'); j >= 0 && pos+j+1 < end {
		return pos + j, pos + j + 1 // a lone CR
	}
	if end == len(text) {
		return end, end
	}
	return end, end + 1
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// fenceOpen reports whether line opens a fenced code block, with its character and length.
func fenceOpen(line string) (c byte, n int, ok bool) {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return 0, 0, false
	}
	c = line[0]
	for n < len(line) && line[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, false
	}
	if c == '`' && strings.IndexByte(line[n:], '`') >= 0 {
		// ```a``` on one line is inline code, not a fence.
		return 0, 0, false
	}
	return c, n, true
}

// isFenceClose reports whether line closes a fence of n characters c.
func isFenceClose(line string, c byte, n int) bool {
	if len(line) < n {
		return false
	}
	for i := 0; i < len(line); i++ {
		if line[i] != c {
			return false
		}
	}
	return true
}

// isHeading reports an ATX heading line: one to six hashes, then space or nothing.
// "#hashtag" is prose.
func isHeading(line string) bool {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(line) || line[n] == ' ' || line[n] == '\t')
}

// headingContent returns the content of the ATX heading on line, without its hashes; start
// equals end for an empty heading.
func headingContent(text string, line span) (start, end int) {
	i := line.start
	for i < line.end && text[i] == '#' {
		i++
	}
	for i < line.end && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	end = line.end
	// Optional closing hashes.
	j := end
	for j > i && text[j-1] == '#' {
		j--
	}
	if j < end && (j == i || text[j-1] == ' ' || text[j-1] == '\t') {
		end = j
	}
	return trimSpan(text, i, end)
}

// trimSpan narrows [a, b) of text past white space at both ends, as strings.TrimSpace would.
func trimSpan(text string, a, b int) (int, int) {
	for a < b {
		r, size := utf8.DecodeRuneInString(text[a:b])
		if !unicode.IsSpace(r) {
			break
		}
		a += size
	}
	for b > a {
		r, size := utf8.DecodeLastRuneInString(text[a:b])
		if !unicode.IsSpace(r) {
			break
		}
		b -= size
	}
	return a, b
}

// isRule reports a thematic break: three or more of one of - * _ and nothing else but spaces.
func isRule(line string) bool {
	c := line[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// isTagLine reports a line that is one markup tag and nothing else (<todo>, </summary>).
func isTagLine(line string) bool {
	if len(line) < 3 || line[0] != '<' || line[len(line)-1] != '>' {
		return false
	}
	c := line[1]
	if c != '/' && c != '!' && !isASCIILetter(c) {
		return false
	}
	return strings.IndexByte(line[1:len(line)-1], '>') < 0 && strings.IndexByte(line[1:], '<') < 0
}

// isTableRule reports a table's header rule (|---|:--:|).
func isTableRule(line string) bool {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '|', '-', ':', ' ', '\t', '+':
		default:
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// listMarker returns the length of the bullet or number that opens a list item (-, *, +,
// 1., 1)), or 0 when line is not a list item.
func listMarker(line string) int {
	switch line[0] {
	case '-', '*', '+':
		if len(line) == 1 || line[1] == ' ' || line[1] == '\t' {
			return 1
		}
		return 0
	}
	i := 0
	for i < len(line) && i < 9 && isDigit(line[i]) {
		i++
	}
	if i == 0 || i >= len(line) || (line[i] != '.' && line[i] != ')') {
		return 0
	}
	if i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' {
		return i + 1
	}
	return 0
}

// startsLower reports whether s starts with a lower-case letter.
func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// endsWithColon reports whether s ends in a colon, trailing space, emphasis markers and
// emoji aside ("**Try this:**"). Brackets are not set aside, so an emoticon ":)" is not a
// colon.
func endsWithColon(s string) bool {
	for len(s) > 0 {
		if c := s[len(s)-1]; c < utf8.RuneSelf {
			switch c {
			case ':':
				return true
			case ' ', '\t', '\r', '\n', '\v', '\f', '*', '_', '~':
				s = s[:len(s)-1]
				continue
			}
			return false
		}
		r, size := utf8.DecodeLastRuneInString(s)
		switch {
		case r == ':' || r == '：':
			return true
		case unicode.IsSpace(r) || r == '*' || r == '_' || r == '~' || isDecoration(r):
			s = s[:len(s)-size]
		default:
			return false
		}
	}
	return false
}

// lastMark returns the last rune of s that is not space, a closing quote, bracket or
// emphasis marker, or a symbol (an emoji); 0 when there is none.
func lastMark(s string) rune {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if unicode.IsSpace(r) || isCloser(r) || isDecoration(r) {
			s = s[:len(s)-size]
			continue
		}
		return r
	}
	return 0
}

// isCloser reports closing quotes, brackets and emphasis markers that may follow a full stop.
func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '*', '_', '~', '”', '’', '」', '』', '）', '】', '》', '〉', '»', '›':
		return true
	}
	return false
}

// isDecoration reports emoji and other symbols, variation selectors and joiners.
func isDecoration(r rune) bool {
	return unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || unicode.Is(unicode.Mn, r) ||
		r == '\u200d' || r == '\ufe0f' || (r >= 0x1f3fb && r <= 0x1f3ff)
}

// noBreakAbbrev are abbreviations after which a period never ends a sentence. Compared in
// lower case, without the final period.
var noBreakAbbrev = map[string]bool{
	"e.g": true, "i.e": true, "vs": true, "cf": true, "viz": true, "approx": true, "incl": true,
	"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true, "jr": true, "sr": true,
	"fig": true, "figs": true, "eq": true, "resp": true, "al": true, "n.b": true, "a.k.a": true,
}

// splitSentences calls emit with each sentence of the paragraph text[start:end].
func splitSentences(text string, start, end int, emit func(a, b int)) {
	// pending is the last sentence not yet emitted, so a wordless fragment after it (an
	// emoji) can join it.
	pending := span{-1, -1}
	cut := func(a, b int) {
		a, b = trimSpan(text, a, b)
		if a >= b {
			return
		}
		if pending.start >= 0 && !hasWord(text[a:b]) {
			pending.end = b
			return
		}
		if pending.start >= 0 {
			emit(pending.start, pending.end)
		}
		pending = span{a, b}
	}
	seg := start
	for i := start; i < end; {
		c := text[i]
		switch {
		case c == '`':
			n := 1
			for i+n < end && text[i+n] == '`' {
				n++
			}
			if j := closingTicks(text[i+n:end], n); j >= 0 {
				i += n + j + n
			} else {
				i += n
			}
		case c == '.' || c == '!' || c == '?':
			j := i + 1
			for j < end && (text[j] == '.' || text[j] == '!' || text[j] == '?') {
				j++
			}
			k := skipClosers(text, j, end)
			if k < end && !isSpaceByte(text[k]) {
				i = j
				continue
			}
			dots := c == '.' && strings.Count(text[i:j], ".") == j-i
			switch {
			case dots && j-i == 1:
				if !periodEnds(text, start, i, k, end) {
					i = j
					continue
				}
			case !capitalFollows(text, k, end):
				// An ellipsis, "!" or "?" followed by lower case is inside the sentence:
				// a quoted exclamation ("AI!" comment), a pause... and a continuation.
				i = j
				continue
			}
			cut(seg, k)
			seg, i = k, k
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(text[i:end])
			switch r {
			case '。', '！', '？', '｡', '؟', '।', '‼', '⁉':
				k := skipClosers(text, i+size, end)
				cut(seg, k)
				seg, i = k, k
			case '…':
				k := skipClosers(text, i+size, end)
				if k == end || (isSpaceByte(text[k]) && capitalFollows(text, k, end)) {
					cut(seg, k)
					seg, i = k, k
				} else {
					i += size
				}
			default:
				i += size
			}
		}
	}
	cut(seg, end)
	if pending.start >= 0 {
		emit(pending.start, pending.end)
	}
}

// closingTicks returns the index in s of a run of exactly n backticks, or -1.
func closingTicks(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// skipClosers returns the index after any closing quotes, brackets or emphasis at text[i:end].
func skipClosers(text string, i, end int) int {
	for i < end {
		r, size := utf8.DecodeRuneInString(text[i:end])
		if !isCloser(r) {
			break
		}
		i += size
	}
	return i
}

// capitalFollows reports whether, after space at text[k:end], the next word starts with an
// upper-case letter or a non-letter, or nothing follows at all.
func capitalFollows(text string, k, end int) bool {
	for k < end && isSpaceByte(text[k]) {
		k++
	}
	if k >= end {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[k:end])
	return !unicode.IsLower(r)
}

// periodEnds decides whether the single period at text[i] ends a sentence; k is the index
// after any closers and is at space or end.
func periodEnds(text string, start, i, k, end int) bool {
	w := i
	for w > start && !isSpaceByte(text[w-1]) {
		w--
	}
	for w < i && strings.IndexByte("([{\"'*_`", text[w]) >= 0 {
		w++
	}
	word := text[w:i]
	if word == "" {
		return true
	}
	if len(word) <= 8 {
		var buf [8]byte
		lw := buf[:len(word)]
		for j := 0; j < len(word); j++ {
			c := word[j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lw[j] = c
		}
		if noBreakAbbrev[string(lw)] {
			return false
		}
		if string(lw) == "etc" {
			return capitalFollows(text, k, end)
		}
	}
	return true
}

// hasWord reports whether s contains a letter or a digit.
func hasWord(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}
