package toolcall

import (
	"strings"
	"testing"
)

// TestDeliverable pins what a deliverable answer is. The texts are written for the test, in
// the shapes the corpus and the issue tracker show.
func TestDeliverable(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"a prose answer", "The build failed because the lockfile is stale. Run `npm install` and try again.", true},
		{"a markdown answer", "### Top Stories\n1. The council passed the budget.\n2. Rain is expected tonight.", true},
		{"a one-line greeting", "Hello! How can I help you today?", true},
		{"an answer that mentions JSON", "Your config file is valid JSON; the error comes from the missing `name` field.", true},
		{"an answer quoting a function", "The function `parse()` returns nil when the input is empty.", true},

		{"empty", "", false},
		{"punctuation alone", "...", false},
		{"a JSON object call", `{"name": "get_weather", "arguments": {"city": "Paris"}}`, false},
		{"a JSON array of calls", `[{"name": "search", "parameters": {"q": "go"}}]`, false},
		{"a JSON array of calls, cut off", `[{"name": "web_search", "parameters": {"query": "SPFMV in Uganda 20`, false},
		{"a fenced JSON call", "```json\n{\"tool_calls\": [{\"name\": \"x\"}]}\n```", false},
		{"a fenced call, cut off", "```\n{\n  \"tool_calls", false},
		{"prose then a JSON call", `I'll look that up. {"name": "search", "arguments": {"q": "go"}}`, false},
		{"a function tag", `<function=brave_search>{"query": "Hello!"}</function>`, false},
		{"a tool_call block", "<tool_call>\n{\"name\": \"t\"}", false},
		{"a Mistral token", `[TOOL_CALLS][{"name": "t", "arguments": {}}]`, false},
		{"a harmony channel", "<|channel|>analysis<|message|>We need to call the tool.", false},
		{"a think block", "<think>The user wants the weather.</think>It is sunny.", false},
		{"reasoning: we need to", "We need to output a structured object matching the Design type", false},
		{"reasoning: the user wants", "The user wants a summary of the file, so I should call read_file first.", false},
		{"reasoning: I should call", "I should call the search tool with the query.", false},
		{"reasoning: let me think", "Let me think about which tool fits.", false},
		{"harmony analysis leak", "analysisWe need to answer the question about Paris.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := deliverable(tt.text)
			if got != tt.want {
				t.Errorf("deliverable(%q) = %t (%s), want %t", tt.text, got, why, tt.want)
			}
			if !got && why == "" {
				t.Error("a refusal without a reason")
			}
		})
	}
}

// TestSalvageOnlyAnAnswer: the three wrong salvages the issue reports, and their right
// counterparts, through Salvage itself.
func TestSalvageOnlyAnAnswer(t *testing.T) {
	groq := func(code, gen string) string {
		return `{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"` +
			code + `","failed_generation":` + quoteJSON(gen) + `}}`
	}
	tests := []struct {
		name string
		body string
		opts *SalvageOptions
		ok   bool
		why  string
	}{
		{"the intended call as a JSON array of name/parameters, cut off",
			groq("tool_use_failed", `[{"name": "web_search", "parameters": {"query": "latest Go release", "max_results`), nil, false, "not an answer"},
		{"the intended call as a whole JSON array",
			groq("tool_use_failed", `[{"name": "web_search", "parameters": {"query": "go"}}]`), nil, false, ""},
		{"reasoning out of a parse failure",
			groq("output_parse_failed", "We need to output a structured object matching the Design type"), nil, false, "parse failure"},
		{"planning out of a parse failure, tools sent",
			groq("output_parse_failed", "Search for .test."), nil, false, "parse failure"},
		{"no tools in the request",
			groq("tool_use_failed", "The capital of France is Paris."), &SalvageOptions{NoTools: true}, false, "reasoning"},
		{"reasoning narration under tool_use_failed",
			groq("tool_use_failed", "The user wants the weather in Paris, so I should call get_weather."), nil, false, "narrates"},
		{"a prose answer, tools sent",
			groq("tool_use_failed", "The capital of France is Paris."), nil, true, "salvaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Salvage(400, tt.body, tt.opts)
			if s.OK != tt.ok || !strings.Contains(s.Why, tt.why) {
				t.Errorf("Salvage: ok %t why %q content %q; want ok %t, why containing %q", s.OK, s.Why, s.Content, tt.ok, tt.why)
			}
			if s.Failure != ToolUseFailed {
				t.Errorf("failure %s, want tool_use_failed", s.Failure)
			}
		})
	}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
