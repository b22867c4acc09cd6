package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Tool is a tool as a model is offered it.
type Tool struct {
	// Name is the tool's name, as calls must spell it.
	Name string `json:"name"`
	// Description says what the tool is for. [CompactSchemas] leaves it out on purpose (the
	// shapes are for small contexts); it is carried for callers that list the tools.
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the tool's arguments (an object schema); empty or null
	// for a tool that takes none.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// CompactSchemas renders each tool's argument shape on one line, for the JSON fallback
// transport: a fallback model cannot write valid arguments for a schema it never saw, and the
// full JSON Schema is too heavy for the small contexts such models have. Lines are joined by
// "\n"; no tools render "".
//
// Each line is
//
//	name: { key: type (required), key: type }
//
// with the schema's top-level properties only. A property's type is []<T> when its items have
// type T (arrays of arrays are not unfolded), else its type (a union joined by "|"), else
// "any". A tool without properties renders "name: { no args }"; one whose Parameters is not
// a JSON object renders "name: { args unknown }" rather than inviting a call without them.
//
// Properties keep the order the schema declares them in, read token by token, so the output
// is byte-stable for the same input and follows the order the tool's author chose (usually the
// most important argument first); a schema built from a Go map arrives with sorted keys and
// stays sorted.
func CompactSchemas(tools []Tool) string {
	var b strings.Builder
	for i, t := range tools {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.Name)
		b.WriteString(": { ")
		props, err := topLevelProps(t.Parameters)
		switch {
		case err != nil:
			b.WriteString("args unknown")
		case len(props) == 0:
			b.WriteString("no args")
		default:
			for j, p := range props {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(p.name)
				b.WriteString(": ")
				b.WriteString(p.typ)
				if p.required {
					b.WriteString(" (required)")
				}
			}
		}
		b.WriteString(" }")
	}
	return b.String()
}

// prop is one top-level property as a compact line shows it.
type prop struct {
	name, typ string
	required  bool
}

// propSchema is the part of a property's schema a compact line reads.
type propSchema struct {
	Type  json.RawMessage `json:"type"`
	Items json.RawMessage `json:"items"`
}

// errNotObject marks Parameters that are not a JSON object.
var errNotObject = errors.New("toolcall: parameters are not a JSON object")

// topLevelProps reads a schema's top-level properties in declaration order, with their types
// and required marks.
func topLevelProps(raw json.RawMessage) ([]prop, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var props []prop
	var required []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch key, _ := tok.(string); key {
		case "properties":
			if props, err = readProperties(dec); err != nil {
				return nil, err
			}
		case "required":
			var r any
			if err := dec.Decode(&r); err != nil {
				return nil, err
			}
			list, _ := r.([]any)
			for _, x := range list {
				if s, ok := x.(string); ok {
					required = append(required, s)
				}
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errNotObject
	}
	for i := range props {
		for _, r := range required {
			if props[i].name == r {
				props[i].required = true
				break
			}
		}
	}
	return props, nil
}

// readProperties reads the "properties" object's members in declaration order. A
// "properties" value that is not an object counts as no properties.
func readProperties(dec *json.Decoder) ([]prop, error) {
	var whole json.RawMessage
	if err := dec.Decode(&whole); err != nil {
		return nil, err
	}
	pd := json.NewDecoder(bytes.NewReader(whole))
	if tok, err := pd.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var props []prop
	for pd.More() {
		tok, err := pd.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := pd.Decode(&raw); err != nil {
			return nil, err
		}
		props = append(props, prop{name: name, typ: propType(raw)})
	}
	return props, nil
}

// propType renders one property's type: []<T> for items of type T, else its own type, else
// "any".
func propType(raw json.RawMessage) string {
	var ps propSchema
	if json.Unmarshal(raw, &ps) != nil {
		return "any"
	}
	if len(ps.Items) > 0 {
		var items propSchema
		if json.Unmarshal(ps.Items, &items) == nil {
			if it := typeName(items.Type); it != "" {
				return "[]<" + it + ">"
			}
		}
	}
	if t := typeName(ps.Type); t != "" {
		return t
	}
	return "any"
}

// typeName renders a JSON Schema "type": a string, or a union of strings joined by "|".
func typeName(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, p := range x {
			if s, ok := p.(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "|")
	}
	return ""
}
