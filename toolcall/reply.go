package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Call is one tool call: the tool's name and its arguments, a JSON object.
type Call struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// Args is the arguments object, compact JSON.
	Args json.RawMessage `json:"args"`
}

// Reply is a fallback-transport reply taken apart by [ParseFallbackReply].
type Reply struct {
	// Calls are the calls to known tools, in the order the reply wrote them.
	Calls []Call `json:"calls,omitempty"`
	// Text is the reply with every call cut out: the answer, when the reply gave one.
	Text string `json:"text"`
	// Rejected are well-formed calls to tools that were not offered. They are never in Calls;
	// a caller tells the model which tools exist.
	Rejected []Call `json:"rejected,omitempty"`
}

// ParseFallbackReply reads the tool calls out of a reply written for the JSON fallback
// transport ([FallbackPrompt]): JSON objects of the form {"tool":"name","arguments":{...}}
// ("name" is accepted for "tool" when "arguments" or "parameters" is present).
//
// It tolerates what small models do around the JSON: code fences (cut with the call when they
// hold nothing else), prose before, between and after calls, several calls (as an array, or
// as several objects), arguments given as a JSON string, and the slips whose repair is
// unambiguous: trailing commas, single-quoted strings, raw newlines inside strings, and
// Python's True, False and None. A call to a tool not in tools is put in Rejected, never in
// Calls.
//
// When any call-shaped object cannot be read (unbalanced, or not JSON even after repair, or
// with arguments that are not an object), nothing is guessed at: the whole reply comes back
// unchanged as Text with no calls. So does a reply with more than 128 call-shaped objects,
// and a reply with no calls.
func ParseFallbackReply(reply string, tools []Tool) Reply {
	var out Reply
	var spans []span
	tries := 0
	for i := 0; i < len(reply); i++ {
		if c := reply[i]; c != '{' && c != '[' {
			continue
		}
		strength := callStart(reply, i)
		if strength == notCall {
			continue
		}
		if tries++; tries > maxReplyCandidates {
			return Reply{Text: reply}
		}
		end := matchLoose(reply, i)
		if end < 0 {
			if strength == strongCall {
				return Reply{Text: reply}
			}
			continue
		}
		calls, ok := readCalls(reply[i:end])
		if !ok {
			if strength == strongCall {
				return Reply{Text: reply}
			}
			continue
		}
		for _, c := range calls {
			if knownTool(tools, c.Name) {
				out.Calls = append(out.Calls, c)
			} else {
				out.Rejected = append(out.Rejected, c)
			}
		}
		spans = append(spans, span{i, end})
		i = end - 1
	}
	if len(spans) == 0 {
		return Reply{Text: reply}
	}
	out.Text = cutSpans(reply, spans)
	return out
}

// maxReplyCandidates bounds the call-shaped objects read from one reply. A reply with more
// is not a turn's worth of calls; it comes back as text, and the work stays linear in its
// length.
const maxReplyCandidates = 128

func knownTool(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// callStrength is how surely a bracket opens a call.
type callStrength int

const (
	notCall    callStrength = iota
	weakCall                // first key "name": a call only if it reads as one
	strongCall              // first key "tool": a call, or a reply that cannot be read
)

// callStart reports whether the object (or array of objects) opening at s[i] starts with a
// call's first key, in either quote style.
func callStart(s string, i int) callStrength {
	j := i
	if s[j] == '[' {
		j = skipSpace(s, j+1)
		if j >= len(s) || s[j] != '{' {
			return notCall
		}
	}
	j = skipSpace(s, j+1)
	if j >= len(s) || (s[j] != '"' && s[j] != '\'') {
		return notCall
	}
	q := s[j]
	rest := s[j+1:]
	k := strings.IndexByte(rest, q)
	if k < 0 {
		return notCall
	}
	switch rest[:k] {
	case "tool":
		return strongCall
	case "name":
		return weakCall
	}
	return notCall
}

// matchLoose returns the end (exclusive) of the bracketed value opening at s[i], treating both
// double- and single-quoted strings as strings; -1 when it does not close.
func matchLoose(s string, i int) int {
	depth := 0
	var quote byte
	for j := i; j < len(s); j++ {
		c := s[j]
		if quote != 0 {
			switch c {
			case '\\':
				j++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// readCalls reads one call object, or an array of them, repairing unambiguous slips first.
// ok is false unless every element is a well-formed call.
func readCalls(region string) ([]Call, bool) {
	fixed, ok := repairJSON(region)
	if !ok {
		return nil, false
	}
	var elems []json.RawMessage
	if strings.HasPrefix(fixed, "[") {
		if json.Unmarshal([]byte(fixed), &elems) != nil || len(elems) == 0 {
			return nil, false
		}
	} else {
		elems = []json.RawMessage{json.RawMessage(fixed)}
	}
	calls := make([]Call, 0, len(elems))
	for _, el := range elems {
		c, ok := readCall(el)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, true
}

// readCall reads one {"tool","arguments"} object.
func readCall(raw json.RawMessage) (Call, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return Call{}, false
	}
	args, hasArgs := m["arguments"]
	if !hasArgs {
		args, hasArgs = m["parameters"]
	}
	nameRaw, isTool := m["tool"]
	if !isTool {
		if nameRaw, isTool = m["name"]; !isTool || !hasArgs {
			return Call{}, false
		}
	}
	var name string
	if json.Unmarshal(nameRaw, &name) != nil || strings.TrimSpace(name) == "" {
		return Call{}, false
	}
	obj, ok := argsObject(args)
	if !ok {
		return Call{}, false
	}
	return Call{Name: name, Args: obj}, true
}

// argsObject returns the arguments as a compact JSON object: absent or null is {}, a string
// holding an object is unwrapped, anything else is refused.
func argsObject(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return json.RawMessage("{}"), true
		}
	}
	if raw[0] != '{' {
		return nil, false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return nil, false
	}
	return json.RawMessage(buf.Bytes()), true
}

// repairJSON rewrites the slips whose repair is unambiguous: single-quoted strings become
// double-quoted, raw control characters inside strings are escaped, commas before a closing
// bracket are dropped, and Python's True, False and None become JSON's. Anything else is left
// for the JSON decoder to refuse. ok is false when a string does not close.
func repairJSON(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			j, ok := copyString(&b, s, i)
			if !ok {
				return "", false
			}
			i = j
		case c == ',':
			if k := skipSpace(s, i+1); k < len(s) && (s[k] == '}' || s[k] == ']') {
				continue
			}
			b.WriteByte(c)
		case c == 'T' || c == 'F' || c == 'N':
			word, lit := pythonLiteral(s, i)
			if lit == "" {
				b.WriteByte(c)
				continue
			}
			b.WriteString(lit)
			i += len(word) - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// copyString writes the string literal opening at s[i] to b as a JSON string and returns the
// index of its closing quote.
func copyString(b *strings.Builder, s string, i int) (int, bool) {
	q := s[i]
	b.WriteByte('"')
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\\':
			if j+1 >= len(s) {
				return 0, false
			}
			j++
			if s[j] == '\'' {
				b.WriteByte('\'')
			} else {
				b.WriteByte('\\')
				b.WriteByte(s[j])
			}
		case c == q:
			b.WriteByte('"')
			return j, true
		case c == '"':
			b.WriteString(`\"`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	return 0, false
}

// pythonLiteral returns the Python literal word at s[i] and its JSON spelling, or "" when the
// word there is not True, False or None standing alone.
func pythonLiteral(s string, i int) (word, lit string) {
	if i > 0 && isIdentByte(s[i-1]) {
		return "", ""
	}
	for _, p := range [...][2]string{{"True", "true"}, {"False", "false"}, {"None", "null"}} {
		if strings.HasPrefix(s[i:], p[0]) {
			end := i + len(p[0])
			if end < len(s) && isIdentByte(s[end]) {
				return "", ""
			}
			return p[0], p[1]
		}
	}
	return "", ""
}
