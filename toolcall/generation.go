package toolcall

import (
	"encoding/json"
	"slices"
	"strings"
)

// genCall is one tool call found in a failed generation: the tool's name and its raw
// argument text (JSON when the model wrote JSON, whatever it wrote otherwise).
type genCall struct {
	name, args string
}

// generation is a failed generation taken apart: the calls it holds and the text around them.
type generation struct {
	calls   []genCall
	content string
	// unattributed: the text holds tool-call syntax whose tool could not be named.
	unattributed bool
}

// span is a half-open byte range of the generation that belongs to a call.
type span struct{ start, end int }

// blockForm is a call wrapper with an opening and a closing token.
type blockForm struct{ open, close string }

// blockForms are the wrappers models put around calls, widest first (a Kimi section holds
// Kimi calls). A block whose close is missing runs to the end of the text.
var blockForms = []blockForm{
	{"<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"},
	{"<|tool_call_begin|>", "<|tool_call_end|>"},
	{"<tool_call>", "</tool_call>"},
	{"<tool-use>", "</tool-use>"},
	{"<|tool_call>", "<tool_call|>"},
	{"<|python_tag|>", "<|eom_id|>"},
}

// callSyntax are fragments that mean a call was written. One left in the text after every
// recognised call is cut out means a call this package could not attribute.
var callSyntax = []string{
	"<function", "</function>", "<tool_call", "</tool_call>", "tool_call|>", "<|tool_call",
	"<tool-use", "</tool-use>", "<|python_tag|>", "<|tool_calls_section", "<|tool_call_argument_begin|>",
}

const (
	tagOpen  = "<function="
	tagClose = "</function>"
	// maxJSONTries bounds the call-shaped JSON values examined; a generation with more is
	// refused rather than half read.
	maxJSONTries = 64
	// maxGenCalls bounds the calls read from one generation. A generation with more is not
	// an answer with a marker call, and refusing it keeps the work linear in its length.
	maxGenCalls = 64
	// maxGluedTries bounds the glued-name candidates whose arguments are bracket-matched.
	maxGluedTries = 8
)

// analyzeGeneration finds every tool call in a failed generation and the answer text around
// them.
func analyzeGeneration(g string) generation {
	var out generation
	var spans []span
	inSpans := func(i int) bool {
		for _, s := range spans {
			if i >= s.start && i < s.end {
				return true
			}
		}
		return false
	}
	add := func(s span, calls []genCall) bool {
		if len(out.calls)+len(calls) > maxGenCalls {
			return false
		}
		for _, c := range calls {
			if c.name == "" {
				return false
			}
		}
		spans = append(spans, s)
		out.calls = append(out.calls, calls...)
		return true
	}

	// Wrapped blocks: <tool_call>…</tool_call> and kin.
	for _, b := range blockForms {
		for off := 0; ; {
			k := strings.Index(g[off:], b.open)
			if k < 0 {
				break
			}
			start := off + k
			off = start + len(b.open)
			if inSpans(start) {
				continue
			}
			bodyEnd, end := len(g), len(g)
			if c := strings.Index(g[off:], b.close); c >= 0 {
				bodyEnd, end = off+c, off+c+len(b.close)
			}
			calls, ok := callsIn(g[off:bodyEnd])
			if !ok || !add(span{start, end}, calls) {
				out.unattributed = true
				return out
			}
			off = end
		}
	}

	// <function=name …</function> tags, in the space, '>' and '=' forms.
	for off := 0; ; {
		k := strings.Index(g[off:], tagOpen)
		if k < 0 {
			break
		}
		start := off + k
		off = start + len(tagOpen)
		if inSpans(start) {
			continue
		}
		c, end := readTag(g, start)
		if !add(span{start, end}, []genCall{c}) {
			out.unattributed = true
			return out
		}
		off = end
	}

	// A closing tag with no opening: the name is glued to its arguments (web_search{…}</function>).
	for off := 0; ; {
		k := strings.Index(g[off:], tagClose)
		if k < 0 {
			break
		}
		closeAt := off + k
		off = closeAt + len(tagClose)
		if inSpans(closeAt) {
			continue
		}
		lo := 0
		for _, s := range spans {
			if s.end <= closeAt && s.end > lo {
				lo = s.end
			}
		}
		name, nameAt, argsAt := gluedCall(g[lo:closeAt])
		if !add(span{lo + nameAt, off}, []genCall{{name: name, args: g[lo+argsAt : closeAt]}}) {
			out.unattributed = true
			return out
		}
	}

	// JSON calls: {"tool_calls":[…]}, {"name":…,"arguments":…}, {"tool":…}, fenced or bare.
	tries := 0
	for i := 0; i < len(g); i++ {
		if (g[i] != '{' && g[i] != '[') || inSpans(i) {
			continue
		}
		key := firstKey(g, i)
		if key == "" {
			continue
		}
		if tries++; tries > maxJSONTries {
			out.unattributed = true
			return out
		}
		strong := key == "tool_calls" || key == "tool" || key == "function"
		end := matchJSONObject(g, i)
		var v any
		if end < 0 || json.Unmarshal([]byte(g[i:end]), &v) != nil {
			if strong {
				out.unattributed = true
				return out
			}
			continue
		}
		calls, ok := callsFromJSON(v)
		if !ok || len(calls) == 0 {
			if strong {
				out.unattributed = true
				return out
			}
			i = end - 1 // a value that is not a call: the whole of it is content
			continue
		}
		if !add(span{i, end}, calls) {
			out.unattributed = true
			return out
		}
		i = end - 1
	}

	out.content = cutSpans(g, spans)
	for _, frag := range callSyntax {
		if strings.Contains(out.content, frag) {
			out.unattributed = true
			return out
		}
	}
	return out
}

// readTag reads the <function=…> tag opening at g[start]: the name (an identifier, so a name
// glued to its arguments is still read), the argument text, and where the tag ends: after
// </function>, or at the next tag, or at the end of the text.
func readTag(g string, start int) (genCall, int) {
	j := skipSpace(g, start+len(tagOpen))
	nameStart := j
	for j < len(g) && isNameByte(g[j]) {
		j++
	}
	name := normalizeName(g[nameStart:j])
	a := skipSpace(g, j)
	if a < len(g) && (g[a] == '>' || g[a] == '=') {
		a++
	}
	closeAt := strings.Index(g[a:], tagClose)
	next := strings.Index(g[a:], tagOpen)
	switch {
	case closeAt >= 0 && (next < 0 || closeAt < next):
		return genCall{name, g[a : a+closeAt]}, a + closeAt + len(tagClose)
	case next >= 0:
		return genCall{name, g[a : a+next]}, a + next
	}
	return genCall{name, g[a:]}, len(g)
}

// gluedCall finds, in the text before an orphan </function>, the identifier glued to the
// arguments that close there. Of the last few candidates it prefers the one whose bracketed
// arguments end exactly at the closing tag, else takes the last one; "" when there is none.
func gluedCall(seg string) (name string, nameAt, argsAt int) {
	type cand struct{ nameAt, argsAt int }
	var cands []cand
	for p := 1; p < len(seg); p++ {
		if c := seg[p]; c != '{' && c != '[' && c != '(' || !isNameByte(seg[p-1]) {
			continue
		}
		q := p
		for q > 0 && isNameByte(seg[q-1]) {
			q--
		}
		if c := seg[q]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			continue
		}
		if q > 0 && !isBoundary(seg[q-1]) {
			continue
		}
		cands = append(cands, cand{q, p})
	}
	if len(cands) == 0 {
		return "", 0, 0
	}
	best := cands[len(cands)-1]
	for i := len(cands) - 1; i >= max(0, len(cands)-maxGluedTries); i-- {
		c := cands[i]
		if seg[c.argsAt] == '(' {
			continue
		}
		if end := matchJSONObject(seg, c.argsAt); end > 0 && strings.TrimSpace(seg[end:]) == "" {
			best = c
			break
		}
	}
	return normalizeName(seg[best.nameAt:best.argsAt]), best.nameAt, best.argsAt
}

// callsIn reads the calls inside a wrapper block, in whichever form the block holds them.
func callsIn(body string) ([]genCall, bool) {
	const kimiBegin, kimiArgs, kimiEnd = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
	if strings.Contains(body, kimiArgs) {
		var calls []genCall
		for part := range strings.SplitSeq(body, kimiBegin) {
			name, args, ok := strings.Cut(part, kimiArgs)
			if !ok {
				if strings.TrimSpace(part) != "" {
					return nil, false
				}
				continue
			}
			args, _, _ = strings.Cut(args, kimiEnd)
			calls = append(calls, genCall{normalizeName(name), args})
		}
		return calls, len(calls) > 0
	}
	if strings.Contains(body, tagOpen) {
		var calls []genCall
		for off := 0; ; {
			k := strings.Index(body[off:], tagOpen)
			if k < 0 {
				break
			}
			c, end := readTag(body, off+k)
			calls = append(calls, c)
			off = end
		}
		return calls, true
	}
	if t := strings.TrimSpace(body); strings.HasPrefix(t, "call:") {
		rest := t[len("call:"):]
		j := 0
		for j < len(rest) && isNameByte(rest[j]) {
			j++
		}
		return []genCall{{normalizeName(rest[:j]), rest[j:]}}, true
	}
	v, ok := decodeFirst(body)
	if !ok {
		return nil, false
	}
	return callsFromJSON(v)
}

// callsFromJSON reads calls out of a decoded JSON value in the shapes models write: OpenAI's
// {"tool_calls":[{"function":{"name","arguments"}}]}, Hermes' {"name","arguments"}, Llama's
// {"name","parameters"}, the fallback transport's {"tool","arguments"}, or an array of these.
// ok is false when the value has a call's shape but no name.
func callsFromJSON(v any) (calls []genCall, ok bool) {
	switch x := v.(type) {
	case []any:
		for _, el := range x {
			c, ok := callsFromJSON(el)
			if !ok {
				return nil, false
			}
			calls = append(calls, c...)
		}
		return calls, len(calls) > 0
	case map[string]any:
		if tc, has := x["tool_calls"]; has {
			items, _ := tc.([]any)
			if len(items) == 0 {
				return nil, false
			}
			return callsFromJSON(items)
		}
		if fn, has := x["function"].(map[string]any); has {
			name, _ := fn["name"].(string)
			args, hasArgs := fn["arguments"]
			if !hasArgs {
				// Groq's own rendering puts the arguments beside "function".
				if args, hasArgs = x["arguments"]; !hasArgs {
					args = x["parameters"]
				}
			}
			return []genCall{{normalizeName(name), rawArgs(args)}}, name != ""
		}
		if name, has := x["tool"].(string); has {
			return []genCall{{normalizeName(name), rawArgs(x["arguments"])}}, name != ""
		}
		if name, has := x["name"].(string); has {
			args, hasArgs := x["arguments"]
			if !hasArgs {
				args, hasArgs = x["parameters"]
			}
			if !hasArgs {
				return nil, false
			}
			return []genCall{{normalizeName(name), rawArgs(args)}}, name != ""
		}
	}
	return nil, false
}

// rawArgs renders decoded arguments back to text; a string (stringified JSON) is kept as is.
func rawArgs(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// firstKey returns the first object key of the JSON object at g[i] (or of the first object of
// the array at g[i]) when it is one a call starts with; "" otherwise.
func firstKey(g string, i int) string {
	j := i
	if g[j] == '[' {
		j = skipSpace(g, j+1)
		if j >= len(g) || g[j] != '{' {
			return ""
		}
	}
	j = skipSpace(g, j+1)
	if j >= len(g) || g[j] != '"' {
		return ""
	}
	rest := g[j+1:]
	k := strings.IndexByte(rest, '"')
	if k < 0 {
		return ""
	}
	switch key := rest[:k]; key {
	case "tool_calls", "tool", "function", "name":
		return key
	}
	return ""
}

// cutSpans returns g without the spans (each widened over a code fence that held only it), the
// remaining pieces trimmed and joined by a blank line.
func cutSpans(g string, spans []span) string {
	if len(spans) == 0 {
		return strings.TrimSpace(g)
	}
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.start <= last.end || strings.TrimSpace(g[last.end:s.start]) == "" {
			last.end = max(last.end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	for i := range merged {
		merged[i] = widenOverFence(g, merged[i])
	}
	var b strings.Builder
	prev := 0
	for _, s := range merged {
		if s.start < prev {
			s.start = prev
		}
		appendPiece(&b, g[prev:s.start])
		prev = max(prev, s.end)
	}
	appendPiece(&b, g[prev:])
	return b.String()
}

// appendPiece adds one piece of text between cuts to b, trimmed, after a blank line when b
// already holds text: a cut call stood apart from the prose around it.
func appendPiece(b *strings.Builder, piece string) {
	piece = strings.TrimSpace(piece)
	if piece == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString(piece)
}

// widenOverFence widens s over the code fence around it when the fence holds nothing else.
func widenOverFence(g string, s span) span {
	l := s.start
	for l > 0 && isSpace(g[l-1]) {
		l--
	}
	lineStart := strings.LastIndexByte(g[:l], '\n') + 1
	opener := strings.TrimSpace(g[lineStart:l])
	if !strings.HasPrefix(opener, "```") || !isFenceLang(opener[3:]) {
		return s
	}
	r := skipSpace(g, s.end)
	if !strings.HasPrefix(g[r:], "```") {
		return s
	}
	r += 3
	lineEnd := strings.IndexByte(g[r:], '\n')
	if lineEnd < 0 {
		lineEnd = len(g) - r
	}
	if strings.TrimSpace(g[r:r+lineEnd]) != "" {
		return s
	}
	return span{lineStart, r + lineEnd}
}

func isFenceLang(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) && s[i] != '-' && s[i] != '+' {
			return false
		}
	}
	return true
}

// normalizeName strips the decorations models add to a tool name: Kimi's "functions." prefix
// and ":index" suffix, and surrounding space.
func normalizeName(n string) string {
	n = strings.TrimSpace(n)
	n = strings.TrimPrefix(n, "functions.")
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i]
	}
	return strings.TrimSpace(n)
}

func isNameByte(c byte) bool { return isIdentByte(c) || c == '.' || c == '-' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isBoundary reports whether c may precede a glued call's name: the start of a line, a space,
// or the end of a tag.
func isBoundary(c byte) bool { return isSpace(c) || c == '>' || c == '"' || c == '\'' }
