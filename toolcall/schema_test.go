package toolcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// sampleTools is the tool set the golden files render: the origin's two tools plus every
// schema shape a compact line handles.
var sampleTools = []Tool{
	{Name: "suggest_followups", Description: "x", Parameters: json.RawMessage(`{"type":"object","properties":{"followups":{"type":"array","items":{"type":"object"}}},"required":["followups"]}`)},
	{Name: "verify_requirement", Description: "x", Parameters: json.RawMessage(`{"type":"object","properties":{"request":{"type":"string"}},"required":["request"]}`)},
	{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{
		"type": "object",
		"required": ["path"],
		"properties": {
			"path": {"type": "string", "description": "relative to the workspace"},
			"offset": {"type": "integer"},
			"limit": {"type": ["integer", "null"]}
		}
	}`)},
	{Name: "search", Description: "Search.", Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"filters":{"type":"array","items":{"type":"string"}},"matrix":{"type":"array","items":{"type":"array","items":{"type":"number"}}},"tuple":{"type":"array","items":[{"type":"string"}]},"anything":{},"choice":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["query","missing"]}`)},
	{Name: "noargs", Description: "x", Parameters: json.RawMessage(`{}`)},
	{Name: "nil_params"},
	{Name: "broken", Parameters: json.RawMessage(`{"type":"object","properties":`)},
}

// TestCompactSchemasOrigin ports the origin's tests.
func TestCompactSchemasOrigin(t *testing.T) {
	text := CompactSchemas(sampleTools[:2])
	for _, want := range []string{
		"suggest_followups: { followups: []<object> (required) }",
		"verify_requirement: { request: string (required) }",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if got := CompactSchemas(nil); got != "" {
		t.Errorf("no tools: got %q", got)
	}
	if got := CompactSchemas([]Tool{{Name: "noargs", Description: "x", Parameters: json.RawMessage(`{}`)}}); got != "noargs: { no args }" {
		t.Errorf("schema-less tool: got %q", got)
	}
}

func TestCompactSchemas(t *testing.T) {
	tests := []struct {
		name, params, want string
	}{
		{"declaration order kept", `{"properties":{"z":{"type":"string"},"a":{"type":"string"}}}`, "t: { z: string, a: string }"},
		{"union type", `{"properties":{"x":{"type":["string","null"]}}}`, "t: { x: string|null }"},
		{"array of arrays not unfolded", `{"properties":{"m":{"type":"array","items":{"type":"array"}}}}`, "t: { m: []<array> }"},
		{"array without item type", `{"properties":{"m":{"type":"array"}}}`, "t: { m: array }"},
		{"no type", `{"properties":{"m":{"description":"?"}}}`, "t: { m: any }"},
		{"property schema not an object", `{"properties":{"m":true}}`, "t: { m: any }"},
		{"required not a list", `{"properties":{"m":{"type":"string"}},"required":"m"}`, "t: { m: string }"},
		{"empty properties", `{"type":"object","properties":{}}`, "t: { no args }"},
		{"properties not an object", `{"properties":["a"]}`, "t: { no args }"},
		{"null", `null`, "t: { no args }"},
		{"whitespace", "  \n", "t: { no args }"},
		{"an array", `[]`, "t: { args unknown }"},
		{"a string", `"x"`, "t: { args unknown }"},
		{"truncated", `{"properties":{"a":`, "t: { args unknown }"},
		{"trailing garbage", `{} {}`, "t: { args unknown }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CompactSchemas([]Tool{{Name: "t", Parameters: json.RawMessage(tc.params)}}); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompactSchemasGolden(t *testing.T) {
	golden(t, "compact_schemas.golden", CompactSchemas(sampleTools))
}
