package hooksfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonErrorPosition returns where data stops being one JSON object, as " line L, column C:"
// (1-based, the column counted in bytes), for an error message; "" when it cannot tell.
func jsonErrorPosition(data []byte) string {
	off, ok := jsonErrorOffset(data)
	if !ok {
		return ""
	}
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int64(len(before)-bytes.LastIndexByte(before, '\n')-1) + 1
	return fmt.Sprintf(" line %d, column %d:", line, col)
}

// jsonErrorOffset returns the byte offset in data of the first thing that keeps it from being
// one JSON object.
func jsonErrorOffset(data []byte) (int64, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	start := int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		switch {
		case errors.As(err, &syn):
			return syn.Offset - 1, true // Offset counts the offending byte
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return int64(len(data)), true
		}
		return start, true
	}
	if len(v) == 0 || v[0] != '{' {
		return start, true // a value, but not an object
	}
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return int64(len(data) - len(rest)), true // data after the object
	}
	return 0, false
}
