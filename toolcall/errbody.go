package toolcall

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errorBody is what an error body says, read from whatever shape it arrived in.
type errorBody struct {
	message string // the provider's human-readable message
	typ     string // error.type
	code    string // error.code, as a string even when the body carries a number
	// generation is error.failed_generation; hasGeneration tells an empty one from an absent one.
	generation    string
	hasGeneration bool
}

// found reports whether anything at all was read.
func (e errorBody) found() bool {
	return e.message != "" || e.typ != "" || e.code != "" || e.hasGeneration
}

// over returns e with every field that inner has replaced by inner's: the innermost error a
// proxy wrapped is the most specific one.
func (e errorBody) over(inner errorBody) errorBody {
	if inner.message != "" {
		e.message = inner.message
	}
	if inner.typ != "" {
		e.typ = inner.typ
	}
	if inner.code != "" {
		e.code = inner.code
	}
	if inner.hasGeneration {
		e.generation, e.hasGeneration = inner.generation, true
	}
	return e
}

const (
	// maxBodyDepth bounds how many wrappers (a JSON string holding JSON, a proxy's message
	// holding the upstream body) are opened.
	maxBodyDepth = 4
	// maxEmbeddedTries bounds the '{' positions tried when looking for JSON inside prose.
	maxEmbeddedTries = 32
)

// parseErrorBody reads an error body in any of the shapes seen in the wild: an OpenAI-style
// {"error":{...}} object, a bare error object, an Ollama {"error":"..."}, an SSE error event,
// JSON after a client library's prose prefix, a JSON string holding JSON, a Python or
// JavaScript rendering of the object, or plain text.
func parseErrorBody(body string) errorBody {
	return parseErrorText(body, 0)
}

func parseErrorText(s string, depth int) errorBody {
	s = strings.TrimSpace(s)
	if s == "" || depth > maxBodyDepth {
		return errorBody{}
	}
	if s[0] == '{' || s[0] == '[' || s[0] == '"' {
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			if e := fromValue(v, depth); e.found() {
				return e
			}
		}
	}
	if e := fromEmbedded(s, depth); e.found() {
		return e
	}
	if e := scrape(s); e.found() {
		if strings.ContainsRune(e.message, '{') {
			if inner := parseErrorText(e.message, depth+1); inner.found() {
				e = e.over(inner)
			}
		}
		return e
	}
	if strings.Contains(s, `\"`) {
		u := unescapeLoose(s)
		// Worth it only when the unescaped text held an error object, not just more text.
		if e := parseErrorText(u, depth+1); e.found() && e != (errorBody{message: strings.TrimSpace(u)}) {
			return e
		}
	}
	return errorBody{message: s}
}

// fromValue reads a decoded JSON value.
func fromValue(v any, depth int) errorBody {
	switch x := v.(type) {
	case map[string]any:
		return fromObject(x, depth)
	case string:
		return parseErrorText(x, depth+1)
	case []any:
		for _, el := range x {
			if e := fromValue(el, depth+1); e.found() {
				return e
			}
		}
	}
	return errorBody{}
}

// fromObject reads one error object and whatever it wraps.
func fromObject(m map[string]any, depth int) errorBody {
	var own errorBody
	own.message = stringField(m, "message")
	if own.message == "" {
		own.message = stringField(m, "detail")
	}
	own.typ = stringField(m, "type")
	own.code = scalarField(m, "code")
	if fg, ok := m["failed_generation"]; ok && fg != nil {
		own.hasGeneration = true
		if s, ok := fg.(string); ok {
			own.generation = s
		} else if b, err := json.Marshal(fg); err == nil {
			own.generation = string(b)
		}
	}
	var inner errorBody
	switch ev := m["error"].(type) {
	case map[string]any:
		if depth < maxBodyDepth {
			inner = fromObject(ev, depth+1)
		}
	case string:
		if own.message == "" && !strings.ContainsRune(ev, '{') {
			own.message = strings.TrimSpace(ev)
		} else {
			inner = parseErrorText(ev, depth+1)
		}
	}
	if strings.ContainsRune(own.message, '{') {
		if e := parseErrorText(own.message, depth+1); e.found() && e.message != own.message {
			inner = e.over(inner)
		}
	}
	return own.over(inner)
}

// fromEmbedded finds the first JSON error object inside surrounding text (an SSE event, a
// client library's "Error code: 400 - {...}").
func fromEmbedded(s string, depth int) errorBody {
	tries := 0
	for i := 0; i < len(s) && tries < maxEmbeddedTries; i++ {
		if s[i] != '{' {
			continue
		}
		tries++
		end := matchJSONObject(s, i)
		if end < 0 {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(s[i:end]), &m) != nil || !isEnvelope(m) {
			continue
		}
		if e := fromObject(m, depth+1); e.found() {
			return e
		}
		i = end - 1
	}
	return errorBody{}
}

// isEnvelope reports whether an object found inside prose looks like an error, rather than an
// argument object the prose happens to quote.
func isEnvelope(m map[string]any) bool {
	if _, ok := m["error"]; ok {
		return true
	}
	if _, ok := m["failed_generation"]; ok {
		return true
	}
	if _, ok := m["message"]; !ok {
		return false
	}
	for _, k := range []string{"type", "code", "status_code", "param"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return m["object"] == "error"
}

// matchJSONObject returns the end (exclusive) of the JSON object or array opening at s[i],
// tracking double-quoted strings; -1 when it does not close.
func matchJSONObject(s string, i int) int {
	depth := 0
	inString := false
	for j := i; j < len(s); j++ {
		c := s[j]
		if inString {
			switch c {
			case '\\':
				j++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
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

// scrape reads error fields out of text that is not JSON but renders the same object: Python's
// repr ({'error': {'code': 'tool_use_failed', ...}}) and JavaScript's (code: "tool_use_failed").
func scrape(s string) errorBody {
	var e errorBody
	e.message, _ = scrapeField(s, "message")
	e.typ, _ = scrapeField(s, "type")
	e.code, _ = scrapeField(s, "code")
	e.generation, e.hasGeneration = scrapeField(s, "failed_generation")
	return e
}

// scrapeField finds key used as a field name (optionally quoted, then ':' or '=') and returns
// the quoted string literal that follows it.
func scrapeField(s, key string) (string, bool) {
	for off := 0; off < len(s); {
		k := strings.Index(s[off:], key)
		if k < 0 {
			return "", false
		}
		start := off + k
		off = start + len(key)
		if start > 0 && (isIdentByte(s[start-1]) || s[start-1] == '-' || s[start-1] == '.') {
			continue
		}
		j := off
		if j < len(s) && isIdentByte(s[j]) {
			continue
		}
		for j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == '\\') {
			j++
		}
		j = skipSpace(s, j)
		if j >= len(s) || (s[j] != ':' && s[j] != '=') {
			continue
		}
		j = skipSpace(s, j+1)
		if j >= len(s) || (s[j] != '"' && s[j] != '\'') {
			continue
		}
		if v, ok := readQuoted(s, j); ok {
			return v, true
		}
	}
	return "", false
}

// readQuoted decodes the string literal whose opening quote is s[i], accepting the escapes of
// JSON, Python and JavaScript.
func readQuoted(s string, i int) (string, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == q:
			return b.String(), true
		case c == '\\' && j+1 < len(s):
			j++
			switch e := s[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				if r, n := decodeUnicodeEscape(s[j+1:]); n > 0 {
					b.WriteRune(r)
					j += n
				} else {
					b.WriteString(`\u`)
				}
			case 'x':
				if j+2 < len(s) {
					if v, err := strconv.ParseUint(s[j+1:j+3], 16, 8); err == nil {
						b.WriteRune(rune(v))
						j += 2
						continue
					}
				}
				b.WriteString(`\x`)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// decodeUnicodeEscape decodes the hex digits after "\u" (and a following low surrogate),
// returning the rune and how many bytes it consumed; 0 when they are not an escape.
func decodeUnicodeEscape(s string) (rune, int) {
	if len(s) < 4 {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, 0
	}
	r := rune(v)
	if r >= 0xD800 && r < 0xDC00 && len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if lo, err := strconv.ParseUint(s[6:10], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
			return (r-0xD800)<<10 + (rune(lo) - 0xDC00) + 0x10000, 10
		}
	}
	if r >= 0xD800 && r < 0xE000 {
		return utf8.RuneError, 4
	}
	return r, 4
}

// unescapeLoose removes one level of backslash escaping, for a body that was logged as the
// contents of a string literal ("event: error\ndata: {\"error\":...}").
func unescapeLoose(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for j := 0; j < len(s); j++ {
		c := s[j]
		if c != '\\' || j+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		j++
		switch e := s[j]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\', '/', '\'':
			b.WriteByte(e)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func stringField(m map[string]any, key string) string {
	if s, ok := m[key].(string); ok {
		return strings.TrimSpace(s)
	}
	return ""
}

// scalarField reads a field that providers send as a string or a number ("code": 400).
func scalarField(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func skipSpace(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	return j
}
