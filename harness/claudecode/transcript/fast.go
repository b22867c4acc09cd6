package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"unicode/utf8"
)

// This file is the first read's fast path: a line's top-level fields are found by skipping
// over their values, without decoding them, and only the fields the entry's kind needs are
// decoded. The heavy fields are never decoded whole: toolUseResult (often a copy of the tool
// result) is kept as its raw bytes for the trackers, which decode it only for the tools they
// follow, and of a progress entry's data only type and agentId are read.

// skipWS returns the index of the first non-space byte of b at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		}
		return i
	}
	return i
}

// skipString returns the index just after the JSON string starting at b[i] (a '"'), or -1.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index just after the JSON value starting at b[i], or -1 when it is
// not well formed as far as its brackets and strings go (literals and numbers are checked
// when decoded).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case '}', ']', ',', ':':
		return -1
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// eachField calls fn with the raw key (without quotes, escapes left as they are) and the raw
// value of each field of the JSON object b, and reports whether b is one object as far as
// skipValue checks.
func eachField(b []byte, fn func(key, val []byte)) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return false
		}
		fn(key, b[i:vend])
		i = skipWS(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return skipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// decodeEntry decodes line into e the fast way. Each top-level field rawEntry declares is
// decoded on its own: strings, booleans and the tolerant scalars directly, message block by
// block (fastMessage), of data only type and agentId, toolUseResult kept raw; the few nested
// objects left (origin, todos, hook infos, compaction metadata, attachment) with
// encoding/json. Keys no field declares are skipped over, not decoded. Whatever the fast
// decoders do not expect (a key in another case, a duplicate message or data, a value of
// another type) hands the line to encoding/json whole, so that the entry and any error are
// the ones it reports. What is skipped over is checked only as far as its brackets and
// strings go.
func (b *builder) decodeEntry(line []byte, e *rawEntry) error {
	buf := b.scratch[:0]
	buf = append(buf, '{')
	var tur, data, msg []byte
	slow, nMsg, nData := false, 0, 0
	var lk [32]byte
	ok := eachField(line, func(key, val []byte) {
		if slow {
			return
		}
		var err error
		switch string(key) {
		case "toolUseResult":
			tur = val
			return
		case "data":
			data = val
			nData++
			return
		case "message":
			msg = val
			nMsg++
			return
		case "type":
			err = fastString(val, &e.Type)
		case "subtype":
			err = fastString(val, &e.Subtype)
		case "uuid":
			err = fastString(val, &e.UUID)
		case "sessionId":
			err = fastString(val, &e.SessionID)
		case "version":
			err = fastString(val, &e.Version)
		case "cwd":
			err = fastString(val, &e.CWD)
		case "gitBranch":
			err = fastString(val, &e.GitBranch)
		case "timestamp":
			err = fastString(val, &e.Timestamp)
		case "parentToolUseID":
			err = fastString(val, &e.ParentToolUseID)
		case "operation":
			err = fastString(val, &e.Operation)
		case "agentId":
			err = e.AgentID.UnmarshalJSON(val)
		case "stopReason":
			err = e.StopReason.UnmarshalJSON(val)
		case "hookCount":
			err = e.HookCount.UnmarshalJSON(val)
		case "durationMs":
			err = e.DurationMs.UnmarshalJSON(val)
		case "isSidechain":
			err = fastBool(val, &e.IsSidechain)
		case "isMeta":
			err = fastBool(val, &e.IsMeta)
		case "isCompactSummary":
			err = fastBool(val, &e.IsCompactSummary)
		case "isApiErrorMessage":
			err = fastBool(val, &e.IsAPIError)
		case "preventedContinuation":
			err = fastBool(val, &e.PreventedContinuation)
		case "content":
			e.Content = append(e.Content[:0:0], val...)
		case "hookErrors":
			e.HookErrors = append(e.HookErrors[:0:0], val...)
		default:
			k, plain := plainKey(key, lk[:0])
			if !plain {
				slow = true
				return
			}
			name, known := entryKeys[string(k)]
			if !known {
				return // no field: encoding/json would skip it
			}
			if name != string(key) {
				slow = true // another case of a field's name
				return
			}
			if len(buf) > 1 {
				buf = append(buf, ',')
			}
			buf = append(buf, '"')
			buf = append(buf, key...)
			buf = append(buf, '"', ':')
			buf = append(buf, val...)
		}
		if err != nil {
			slow = true
		}
	})
	if !ok || slow || nMsg > 1 || nData > 1 {
		*e = rawEntry{}
		return json.Unmarshal(line, e) // the entry and the error, as a whole decode has them
	}
	if msg != nil {
		m, err := fastMessage(msg)
		if err != nil {
			*e = rawEntry{}
			return json.Unmarshal(line, e)
		}
		e.Message = m
	}
	if data != nil {
		d, err := fastProgress(data)
		if err != nil {
			*e = rawEntry{}
			return json.Unmarshal(line, e)
		}
		e.Data = d
	}
	b.scratch = buf
	if len(buf) > 1 {
		buf = append(buf, '}')
		b.scratch = buf
		if err := json.Unmarshal(buf, e); err != nil {
			*e = rawEntry{}
			return json.Unmarshal(line, e)
		}
	}
	if tur != nil {
		if !b.Live && !json.Valid(tur) {
			*e = rawEntry{}
			return json.Unmarshal(line, e)
		}
		e.ToolUseResult = tur
	}
	return nil
}

// fastBool decodes a JSON boolean; null leaves *dst as it is.
func fastBool(v []byte, dst *bool) error {
	switch string(v) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	case "null":
	default:
		return errSlow
	}
	return nil
}

// fastProgress decodes of a progress entry's data only type and agentId.
func fastProgress(v []byte) (*rawProgress, error) {
	if isNull(v) {
		return nil, nil
	}
	if firstByte(v) != '{' {
		return nil, errSlow
	}
	p := &rawProgress{}
	var err error
	var lk [16]byte
	ok := eachField(v, func(key, val []byte) {
		if err != nil {
			return
		}
		switch string(key) {
		case "type":
			err = fastString(val, &p.Type)
		case "agentId":
			err = p.AgentID.UnmarshalJSON(val)
		default:
			if k, plain := plainKey(key, lk[:0]); !plain || string(k) == "type" || string(k) == "agentid" {
				err = errSlow
			}
		}
	})
	if !ok || err != nil {
		return nil, errSlow
	}
	return p, nil
}

// entryKeys are the JSON names of rawEntry's fields, lower-cased: a top-level key whose
// lower-cased form is none of them is never decoded (encoding/json matches names without
// regard to case, so a key differing from its field's name only in case goes the slow way).
var entryKeys = func() map[string]string {
	m := make(map[string]string)
	t := reflect.TypeOf(rawEntry{})
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m[strings.ToLower(name)] = name
	}
	return m
}()

// plainKey reports whether key is ASCII with no escape, and returns it lower-cased in buf.
func plainKey(key, buf []byte) ([]byte, bool) {
	buf = buf[:0]
	for _, c := range key {
		if c >= 0x80 || c == '\\' {
			return nil, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf, true
}

// isNull reports whether the raw value v is the literal null.
func isNull(v []byte) bool { return len(v) == 4 && string(v) == "null" }

// fastString decodes the raw JSON string v into *dst: directly when it holds no escape, no
// control byte and valid UTF-8, else with encoding/json. null leaves *dst as it is, as
// encoding/json does; any other value is an error.
func fastString(v []byte, dst *string) error {
	if isNull(v) {
		return nil
	}
	if len(v) < 2 || v[0] != '"' {
		return errSlow
	}
	body := v[1 : len(v)-1]
	plain := true
	for _, c := range body {
		if c < 0x20 || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		*dst = string(body)
		return nil
	}
	if s, ok := unescape(body); ok {
		*dst = s
		return nil
	}
	return json.Unmarshal(v, dst)
}

// unescape decodes the body of a JSON string that holds only the one-letter escapes (\n,
// \t, \", \\, …), no control byte and valid UTF-8; ok is false for anything else (\u
// escapes among them), which encoding/json then decodes.
func unescape(body []byte) (s string, ok bool) {
	var out strings.Builder
	out.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c < 0x20:
			return "", false
		case c != '\\':
			out.WriteByte(c)
			continue
		}
		i++
		if i == len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			out.WriteByte(body[i])
		case 'n':
			out.WriteByte('\n')
		case 't':
			out.WriteByte('\t')
		case 'r':
			out.WriteByte('\r')
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		default:
			return "", false
		}
	}
	if !utf8.ValidString(out.String()) {
		return "", false
	}
	return out.String(), true
}

// errSlow makes a fast decoder hand the line to encoding/json.
var errSlow = errors.New("transcript: decode the slow way")

// fastMessage decodes the raw message object v: the fields rawMessage declares, content
// block by block without decoding what the reader never reads (a thinking block's text and
// signature, an image's data, keys no field declares). Anything it does not expect (a key
// in another case, a duplicate, a value of another type) returns errSlow.
func fastMessage(v []byte) (*rawMessage, error) {
	if isNull(v) {
		return nil, nil
	}
	m := &rawMessage{}
	var err error
	var seen uint8
	once := func(bit uint8) bool {
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}
	var lk [16]byte
	ok := eachField(v, func(key, val []byte) {
		if err != nil {
			return
		}
		switch string(key) {
		case "id":
			if !once(1) {
				err = errSlow
				return
			}
			err = fastString(val, &m.ID)
		case "role":
			if !once(2) {
				err = errSlow
				return
			}
			err = fastString(val, &m.Role)
		case "model":
			if !once(4) {
				err = errSlow
				return
			}
			err = fastString(val, &m.Model)
		case "content":
			if !once(8) {
				err = errSlow
				return
			}
			err = fastContent(val, &m.Content)
		case "stop_reason":
			if !once(16) {
				err = errSlow
				return
			}
			if isNull(val) {
				m.StopReason = nil
				return
			}
			var s string
			if err = fastString(val, &s); err == nil {
				m.StopReason = &s
			}
		case "usage":
			if !once(32) {
				err = errSlow
				return
			}
			if isNull(val) {
				m.Usage = nil
				return
			}
			m.Usage = &rawUsage{}
			err = json.Unmarshal(val, m.Usage)
		default:
			k, plain := plainKey(key, lk[:0])
			if !plain {
				err = errSlow
				return
			}
			switch string(k) {
			case "id", "role", "model", "content", "stop_reason", "usage":
				err = errSlow
			}
		}
	})
	if !ok || err != nil {
		return nil, errSlow
	}
	return m, nil
}

// eachElem calls fn with each raw element of the JSON array b, and reports whether b is one
// array as far as skipValue checks.
func eachElem(b []byte, fn func(val []byte) bool) bool {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return skipWS(b, i+1) == len(b)
	}
	for {
		end := skipValue(b, i)
		if end < 0 {
			return false
		}
		if !fn(b[i:end]) {
			return false
		}
		i = skipWS(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return skipWS(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// fastContent decodes message content, as rawContent.UnmarshalJSON does, block by block.
func fastContent(v []byte, c *rawContent) error {
	switch firstByte(v) {
	case '"':
		c.IsString = true
		return fastString(v, &c.Text)
	case '[':
	default:
		if isNull(v) {
			return nil
		}
		if firstByte(v) == '{' || firstByte(v) == 't' || firstByte(v) == 'f' || firstByte(v) == '-' || ('0' <= firstByte(v) && firstByte(v) <= '9') {
			return nil // a shape no version is known to write: no content
		}
		return errSlow
	}
	c.Blocks = c.Blocks[:0]
	var err error
	ok := eachElem(v, func(val []byte) bool {
		c.Blocks = append(c.Blocks, rawBlock{})
		if isNull(val) {
			return true
		}
		err = fastBlock(val, &c.Blocks[len(c.Blocks)-1])
		return err == nil
	})
	if !ok || err != nil {
		return errSlow
	}
	if c.Blocks == nil {
		c.Blocks = []rawBlock{}
	}
	return nil
}

// blockKeys are rawBlock's JSON names.
var blockKeys = map[string]uint16{"type": 1, "text": 2, "id": 4, "name": 8, "input": 16, "tool_use_id": 32, "content": 64, "is_error": 128}

// fastBlock decodes one content block; of the keys rawBlock does not declare nothing is
// decoded.
func fastBlock(v []byte, blk *rawBlock) error {
	if firstByte(v) != '{' {
		return errSlow
	}
	var err error
	var seen uint16
	var lk [16]byte
	ok := eachField(v, func(key, val []byte) {
		if err != nil {
			return
		}
		bit, known := blockKeys[string(key)]
		if !known {
			if k, plain := plainKey(key, lk[:0]); !plain {
				err = errSlow
			} else if _, other := blockKeys[string(k)]; other {
				err = errSlow
			}
			return
		}
		if seen&bit != 0 {
			err = errSlow
			return
		}
		seen |= bit
		switch bit {
		case 1:
			err = fastString(val, &blk.Type)
		case 2:
			err = fastString(val, &blk.Text)
		case 4:
			err = fastString(val, &blk.ID)
		case 8:
			err = fastString(val, &blk.Name)
		case 16:
			blk.Input = append(json.RawMessage(nil), val...)
		case 32:
			err = fastString(val, &blk.ToolUseID)
		case 64:
			if isNull(val) {
				blk.Content = nil
				return
			}
			blk.Content = &rawContent{}
			err = fastContent(val, blk.Content)
		case 128:
			err = blk.IsError.UnmarshalJSON(val)
		}
	})
	if !ok || err != nil {
		return errSlow
	}
	return nil
}
