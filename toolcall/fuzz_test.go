package toolcall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSalvage: Salvage never panics, a salvaged answer is never empty and carries no call
// syntax, and a verdict is always explained.
func FuzzSalvage(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "bodies", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		if filepath.Ext(file) == ".md" {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(400, string(b))
	}
	for _, gen := range []string{
		essay + "\n\n" + followupTag,
		"Answer.\nsuggest_followups[\"Q\"]</function>",
		"Answer.\n<tool_call>{\"name\":\"suggest_followups\",\"arguments\":\"[]\"}</tool_call>",
		"```json\n{\"tool_calls\":[{\"function\":{\"name\":\"suggest_followups\"}}]}\n```",
		"<|tool_calls_section_begin|><|tool_call_begin|>functions.x:1<|tool_call_argument_begin|>{}",
		"<function=",
		"</function>",
		"{\"tool_calls\":[",
	} {
		f.Add(400, toolCall400(f, gen))
	}
	f.Add(0, `{"error":"\ud800"}`)
	f.Add(429, `{"error":{"code":"tool_use_failed","failed_generation":"x"}}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		s := Salvage(status, body, nil)
		if s.Why == "" {
			t.Errorf("no why for %q", body)
		}
		if !slices.Contains(Failures(), s.Failure) {
			t.Errorf("failure %q is not a member", s.Failure)
		}
		if s.Failure != ClassifyFailure(status, body) {
			t.Errorf("Salvage says %q, ClassifyFailure %q", s.Failure, ClassifyFailure(status, body))
		}
		if !s.OK {
			if s.Content != "" || s.Followups != nil {
				t.Errorf("not salvaged but carries %q %q", s.Content, s.Followups)
			}
			return
		}
		if strings.TrimSpace(s.Content) == "" {
			t.Errorf("salvaged an empty answer from %q", body)
		}
		if s.Failure != ToolUseFailed && s.Failure != SchemaValidation {
			t.Errorf("salvaged a %q body", s.Failure)
		}
		for _, frag := range callSyntax {
			if strings.Contains(s.Content, frag) {
				t.Errorf("salvaged content %q keeps call syntax %q", s.Content, frag)
			}
		}
		if _, err := json.Marshal(s); err != nil {
			t.Error(err)
		}
	})
}

// FuzzParseFallbackReply: ParseFallbackReply never panics, only offered tools are called,
// arguments are always JSON objects, and a reply without calls comes back unchanged.
func FuzzParseFallbackReply(f *testing.F) {
	for _, seed := range []string{
		"",
		"Plain answer.",
		`{"tool":"search","arguments":{"query":"a"}}`,
		"Text\n```json\n{\"tool\":\"search\",\"arguments\":{\"query\":\"a\",},}\n```\nMore",
		`[{'tool': 'search', 'arguments': {'q': True}}, {"tool":"noargs"}]`,
		`{"tool":"unknown","arguments":{}}`,
		`{"name":"search","parameters":"{\"a\":1}"}`,
		`{"tool":"search","arguments":{"query":"a"}`,
		`{'tool': 'search', 'arguments': {'q': 'it's'}}`,
		"{\"tool\":\"search\",\"arguments\":{\"q\":\"a\nb\"}}",
		`{"tool":"search","arguments":"\ud800"}`,
	} {
		f.Add(seed)
	}
	tools := []Tool{{Name: "search"}, {Name: "noargs"}}
	f.Fuzz(func(t *testing.T, reply string) {
		r := ParseFallbackReply(reply, tools)
		for _, c := range r.Calls {
			if c.Name != "search" && c.Name != "noargs" {
				t.Errorf("call to an unoffered tool %q", c.Name)
			}
		}
		for _, c := range slices.Concat(r.Calls, r.Rejected) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(c.Args, &m); err != nil {
				t.Errorf("args %q of %q are not an object: %v", c.Args, c.Name, err)
			}
		}
		if len(r.Calls) == 0 && len(r.Rejected) == 0 && r.Text != reply {
			t.Errorf("no calls, but the text changed: %q -> %q", reply, r.Text)
		}
		if utf8.ValidString(reply) && !utf8.ValidString(r.Text) {
			t.Errorf("valid UTF-8 in, invalid out: %q", r.Text)
		}
	})
}
