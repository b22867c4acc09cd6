package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/stopgate/stopgate/termination"
)

func usageError(e env, name, msg string) int {
	fmt.Fprintf(e.stderr, "stopgate %s: %s\nRun 'stopgate help %s' for usage.\n", name, msg, name)
	return exitUsage
}

// apiError builds the error description a line names.
func (in errorInput) apiError() (*termination.APIError, error) {
	status, err := parseStatus(in.Status)
	if err != nil {
		return nil, err
	}
	body, err := parseBody(in.Body)
	if err != nil {
		return nil, err
	}
	e := termination.ParseErrorBody(in.Provider, status, body)
	if in.Name != "" {
		e.Name = in.Name
	}
	if in.Type != "" {
		e.Type = in.Type
	}
	if code := jsonScalar(in.Code); code != "" {
		e.Code = code
	}
	if in.Message != "" {
		e.Message = in.Message
	}
	return e, nil
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
	if len(raw) == 0 || string(raw) == "null" {
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

// normalizeNumbers converts the json.Number values a UseNumber decoder produced into float64,
// so library code sees what encoding/json produces by default.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case map[string]any:
		for k, val := range x {
			x[k] = normalizeNumbers(val)
		}
		return x
	case []any:
		for i, val := range x {
			x[i] = normalizeNumbers(val)
		}
		return x
	}
	return v
}
