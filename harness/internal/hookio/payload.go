package hookio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxPayloadBytes bounds the stdin payload a hook reads. The harnesses' payloads are a few
// kilobytes (the last assistant message is the longest field); anything past this is not a
// hook payload.
const MaxPayloadBytes = 16 << 20

// ErrPayload is returned (wrapped) by ReadPayload, and so by every harness's payload decoder, for input that is not one JSON object.
var ErrPayload = errors.New("hook payload is not a JSON object")

// Fields is a hook payload read as its top-level fields, for a harness's decoder to
// pick the ones it knows; ignored names those read as absent because of their JSON type.
type Fields struct {
	Fields  map[string]json.RawMessage
	Ignored []string
}

// ReadPayload reads one hook payload from r as its top-level fields. Input that is not one
// JSON object, or longer than MaxPayloadBytes, is an error wrapping ErrPayload.
func ReadPayload(r io.Reader) (*Fields, error) { return ReadPayloadMax(r, MaxPayloadBytes) }

// ReadPayloadMax is ReadPayload with a bound of max bytes, for a harness whose payloads carry
// the whole session (opencode's plugin hands over every message).
func ReadPayloadMax(r io.Reader, max int) (*Fields, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("reading the payload: %w", err)
	}
	if len(data) > max {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrPayload, max)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrPayload)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPayload, err)
	}
	if fields == nil { // the input was JSON null
		return nil, fmt.Errorf("%w: null", ErrPayload)
	}
	return &Fields{Fields: fields}, nil
}

// Field decodes the field name into dst. Absent or null leaves dst alone; a value of the
// wrong JSON type leaves it alone too, and is named in f.Ignored.
func (f *Fields) Field(name string, dst any) {
	raw, ok := f.Fields[name]
	if !ok || IsNull(raw) {
		return
	}
	if json.Unmarshal(raw, dst) != nil {
		f.Ignored = append(f.Ignored, name)
	}
}

// Optional returns the string field name; nil when it is absent, null, or not a string (then
// named in f.Ignored).
func (f *Fields) Optional(name string) *string {
	raw, ok := f.Fields[name]
	if !ok || IsNull(raw) {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		f.Ignored = append(f.Ignored, name)
		return nil
	}
	return &s
}

// DecodeList reads an optional JSON array of objects. Absent or null is nil; [] is an empty
// non-nil slice. An element that is not an object is dropped, and an element with a field of
// the wrong type keeps the fields that did decode; both are named in ignored.
func DecodeList[T any](fields map[string]json.RawMessage, name string, ignored *[]string) []T {
	raw, ok := fields[name]
	if !ok || IsNull(raw) {
		return nil
	}
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		*ignored = append(*ignored, name)
		return nil
	}
	out := make([]T, 0, len(elems))
	for i, e := range elems {
		var v T
		err := json.Unmarshal(e, &v)
		if err == nil {
			out = append(out, v)
			continue
		}
		*ignored = append(*ignored, fmt.Sprintf("%s[%d]", name, i))
		if bytes.HasPrefix(bytes.TrimSpace(e), []byte("{")) {
			out = append(out, v) // encoding/json fills every field it can before reporting
		}
	}
	return out
}

// IsNull reports whether raw is empty or JSON null.
func IsNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
