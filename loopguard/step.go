package loopguard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Step is one assistant turn of a run, as the loop guard reads it. A step with a Tool is a tool
// call; a step without one is a reply. Its JSON form:
//
//	{"tool": "read_file", "args": "{\"path\": \"main.go\"}", "result": "package main …"}
//	{"tool": "bash", "args": {"cmd": "go test ./..."}, "error": "exit status 1"}
//	{"text": "Let me check the tests."}
//
// args may be given as a JSON string, taken as it is, or as any other JSON value, kept in its
// canonical form ([CanonicalArgs]); both spellings of the same arguments compare equal.
type Step struct {
	// Tool is the name of the tool called; empty for a step that called none.
	Tool string `json:"tool,omitempty"`
	// Args are the call's arguments: JSON, or plain text for tools that take text.
	Args string `json:"args,omitempty"`
	// Result is what the call returned.
	Result string `json:"result,omitempty"`
	// Error is the call's error; non-empty means the call failed.
	Error string `json:"error,omitempty"`
	// Text is the assistant's text in this step; what the repeated-message and empty-reply
	// checks read on a step that called no tool.
	Text string `json:"text,omitempty"`
}

// Failed reports whether the step's call failed.
func (s Step) Failed() bool { return s.Error != "" }

// UnmarshalJSON reads a step, accepting args as a JSON string or as any other JSON value (which
// it stores in canonical form).
func (s *Step) UnmarshalJSON(b []byte) error {
	type plain Step
	var w struct {
		plain
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("loopguard: step: %w", err)
	}
	*s = Step(w.plain)
	s.Args = ""
	switch args := bytes.TrimSpace(w.Args); {
	case len(args) == 0 || string(args) == "null":
	case args[0] == '"':
		if err := json.Unmarshal(args, &s.Args); err != nil {
			return fmt.Errorf("loopguard: step args: %w", err)
		}
	default:
		s.Args = CanonicalArgs(string(args))
	}
	return nil
}

// CanonicalArgs returns the canonical form of a call's arguments, so that two spellings of the
// same arguments compare equal. Arguments that are one JSON value are re-encoded compactly with
// object keys sorted and strings re-escaped minimally (so key order, white space and \u escapes
// do not matter); numbers keep their literal spelling (1.0 and 1 differ), and of duplicate keys
// the last wins. Anything else is plain text, compared with surrounding white space trimmed.
// CanonicalArgs is idempotent.
func CanonicalArgs(args string) string {
	t := strings.TrimSpace(args)
	if t == "" {
		return ""
	}
	if c := t[0]; c != '{' && c != '[' && c != '"' && c != '-' && (c < '0' || c > '9') && c != 't' && c != 'f' && c != 'n' {
		return t // cannot start a JSON value: text
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return t
	}
	if _, err := dec.Token(); err != io.EOF {
		return t // more after the value: text
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return t
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
