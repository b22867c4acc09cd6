package transcript

import (
	"bytes"
	"encoding/json"
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

// decodeEntry decodes line into e the fast way: the top-level fields other than
// toolUseResult and data are decoded as one small object; toolUseResult is kept raw, and of
// data only type and agentId are decoded. It returns the decoding error of a line that is
// not a well-formed entry, as json.Unmarshal reports it.
func (b *builder) decodeEntry(line []byte, e *rawEntry) error {
	buf := b.scratch[:0]
	buf = append(buf, '{')
	var tur, data []byte
	ok := eachField(line, func(key, val []byte) {
		switch string(key) {
		case "toolUseResult":
			tur = val
			return
		case "data":
			data = val
			return
		}
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = append(buf, key...)
		buf = append(buf, '"', ':')
		buf = append(buf, val...)
	})
	if !ok {
		return json.Unmarshal(line, e) // the error, as a whole decode reports it
	}
	if data != nil {
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, `"data":`...)
		if firstByte(data) == '{' {
			buf = append(buf, '{')
			n := 0
			eachField(data, func(key, val []byte) {
				if k := string(key); k == "type" || k == "agentId" {
					if n > 0 {
						buf = append(buf, ',')
					}
					n++
					buf = append(buf, '"')
					buf = append(buf, key...)
					buf = append(buf, '"', ':')
					buf = append(buf, val...)
				}
			})
			buf = append(buf, '}')
		} else {
			buf = append(buf, data...)
		}
	}
	buf = append(buf, '}')
	b.scratch = buf
	if err := json.Unmarshal(buf, e); err != nil {
		return err
	}
	if tur != nil {
		if !b.Live && !json.Valid(tur) {
			return json.Unmarshal(line, e)
		}
		e.ToolUseResult = tur
	}
	return nil
}
