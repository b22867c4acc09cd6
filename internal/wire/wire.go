// Package wire holds the JSON shapes that stopgate's command line and its HTTP API share: the
// input and output of each operation, and the conversion between them and the library's
// types. `stopgate classify error` and POST /v1/classify/error, and each other pair, call the
// same function here, so they read and write the same JSON by construction.
//
// Every input field is optional, and unknown fields are ignored. An input that cannot be read
// (a field of the wrong type, a status that is not an HTTP status) is an error whose message
// names the field; callers report it to whoever sent the input.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Decode reads exactly one JSON value from r into v, the way stopgate reads every input:
// numbers are kept exact (as [json.Number] inside untyped values), unknown object keys are
// ignored, and anything after the value but white space is an error. Its errors name what is
// wrong (see [DescribeJSONError]); an error from r itself (a body over its size limit, say) is
// wrapped, so errors.As finds it.
func Decode(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return DescribeJSONError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil && !isSyntax(err) {
			return DescribeJSONError(err)
		}
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func isSyntax(err error) bool {
	_, ok := errors.AsType[*json.SyntaxError](err)
	return ok
}

// DescribeJSONError turns an encoding/json error into one that names the problem: the field
// and the types for a value of the wrong type, the byte offset for a syntax error. Other
// errors (the reader's own) are wrapped as they are.
func DescribeJSONError(err error) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field == "" {
			return fmt.Errorf("expected a JSON object, got %s", te.Value)
		}
		return fmt.Errorf("field %q: expected %s, got %s", te.Field, te.Type, te.Value)
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Errorf("not valid JSON at byte %d: %v", se.Offset, se)
	}
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("no JSON value: the input is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("not valid JSON: unexpected end of input")
	}
	return fmt.Errorf("reading JSON: %w", err)
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// parseStatus reads an optional HTTP status given as a number or a numeric string.
func parseStatus(raw json.RawMessage) (int, error) {
	if isNull(raw) {
		return 0, nil
	}
	n, err := strconv.Atoi(jsonScalar(raw))
	if err != nil || n < 100 || n > 599 {
		return 0, fmt.Errorf("field \"status\": %s is not an HTTP status (100-599)", bytes.TrimSpace(raw))
	}
	return n, nil
}

// parseBody reads an optional body given as a JSON string (a raw body or a message) or as a
// JSON value (a body the caller already decoded), returning the raw text.
func parseBody(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return "", nil
	}
	if raw[0] != '"' {
		return string(raw), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("field \"body\": %w", err)
	}
	return s, nil
}

// jsonScalar renders a JSON string or number as text; anything else as "".
func jsonScalar(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		return strings.TrimSpace(string(raw))
	}
	return ""
}

// NormalizeNumbers converts the json.Number values a [Decode] (or any UseNumber decoder)
// left in v into float64, in place, so library code sees what encoding/json produces by
// default. It returns v.
func NormalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case map[string]any:
		for k, val := range x {
			x[k] = NormalizeNumbers(val)
		}
		return x
	case []any:
		for i, val := range x {
			x[i] = NormalizeNumbers(val)
		}
		return x
	}
	return v
}
