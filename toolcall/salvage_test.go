package toolcall

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// toolCall400 renders the body a Groq-style API returns when it rejects a call, with the
// given failed_generation, behind the prefix the origin's client put on it.
func toolCall400(t testing.TB, failedGeneration string) string {
	t.Helper()
	fg, err := json.Marshal(failedGeneration)
	if err != nil {
		t.Fatal(err)
	}
	return `Tool-calling API error (400): {"error":{"message":"Failed to call a function.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":` + string(fg) + `}}`
}

const (
	essay       = "The elephant is a very big animal.\nIt has a long trunk."
	followupTag = `<function=suggest_followups [{"prompt": "What do elephants eat?", "label": "Elephant Diet"}, {"prompt": "Why are elephants important?"}]</function>`
)

// TestSalvageOrigin ports the origin's salvage tests.
func TestSalvageOrigin(t *testing.T) {
	t.Run("space-form tag", func(t *testing.T) {
		s := Salvage(400, toolCall400(t, essay+"\n\n"+followupTag), nil)
		if !s.OK || s.Content != essay {
			t.Fatalf("got %+v, want the essay salvaged", s)
		}
		if strings.Contains(s.Content, "<function") {
			t.Errorf("content keeps the tag: %q", s.Content)
		}
		if want := []string{"What do elephants eat?", "Why are elephants important?"}; !slices.Equal(s.Followups, want) {
			t.Errorf("followups = %q, want %q", s.Followups, want)
		}
	})
	t.Run("angle-form tag", func(t *testing.T) {
		s := Salvage(400, toolCall400(t, essay+"\n\n"+`<function=suggest_followups>[{"prompt":"P"}]</function>`), nil)
		if !s.OK || s.Content != essay || !slices.Equal(s.Followups, []string{"P"}) {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("a real tool is not answered with its prose", func(t *testing.T) {
		s := Salvage(400, toolCall400(t, `I will implement the login form. <function=build [{"goal":"login"}]</function>`), nil)
		if s.OK || s.Content != "" || !strings.Contains(s.Why, `"build"`) {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("not a rejected call", func(t *testing.T) {
		for _, tc := range []struct {
			status int
			body   string
		}{
			{429, "429: rate limit"},
			{400, "Tool-calling API error (400): {}"},
			{0, "not an error"},
		} {
			if s := Salvage(tc.status, tc.body, nil); s.OK {
				t.Errorf("Salvage(%d, %q) = %+v", tc.status, tc.body, s)
			}
		}
	})
	t.Run("empty failed_generation", func(t *testing.T) {
		s := Salvage(400, toolCall400(t, "   "), nil)
		if s.OK || s.Why != "not salvaged: failed_generation is empty" {
			t.Errorf("got %+v", s)
		}
	})
}

// TestSalvageShapes covers every call form a generation holds.
func TestSalvageShapes(t *testing.T) {
	tests := []struct {
		name      string
		gen       string
		ok        bool
		content   string
		followups []string
		why       string
	}{
		{name: "prose only", gen: "  Paris is the capital of France.  ", ok: true, content: "Paris is the capital of France.", why: "no tool call"},
		{name: "glued marker before orphan close", gen: essay + "\n\nsuggest_followups[{\"prompt\":\"Q\"}]</function>", ok: true, content: essay, followups: []string{"Q"}},
		{name: "equals form with followups object", gen: essay + `<function=suggest_followups={"followups":["A"," ",{"prompt":"B","label":"b"},{"label":"no prompt"}]}</function>`, ok: true, content: essay, followups: []string{"A", "B"}},
		{name: "glued tag with junk after the arguments", gen: essay + "\n" + `<function=suggest_followups{"followups":[{"prompt":"Q"}]},-------------</function>`, ok: true, content: essay, followups: []string{"Q"}},
		{name: "hermes block, stringified arguments", gen: essay + "\n<tool_call>\n" + `{"name": "suggest_followups", "arguments": "{\"followups\": [{\"prompt\": \"Q\"}]}"}` + "\n</tool_call>", ok: true, content: essay, followups: []string{"Q"}},
		{name: "fenced tool_calls, marker", gen: essay + "\n\n```json\n" + `{"tool_calls": [{"id": "pending", "type": "function", "function": {"name": "suggest_followups"}, "parameters": {"followups": [{"prompt": "Q"}]}}]}` + "\n```", ok: true, content: essay, followups: []string{"Q"}},
		{name: "fenced tool_calls, real tool", gen: "```\n{\n  \"tool_calls\": [\n    {\n      \"id\": \"pending\",\n      \"type\": \"function\",\n      \"function\": {\n        \"name\": \"get_weather\"\n      },\n      \"parameters\": {\n        \"city\": \"Paris\"\n      }\n    }\n  ]\n}\n```", why: `"get_weather"`},
		{name: "tool-use block, real tool", gen: `<tool-use>{"tool_calls":[{"id":"pending","type":"function","function":{"name":"get_weather"},"parameters":{"city":"Paris"}}]}</tool-use>`, why: `"get_weather"`},
		{name: "openai tool_calls with stringified arguments", gen: essay + `{"tool_calls":[{"type":"function","function":{"name":"suggest_followups","arguments":"[\"Q\"]"}}]}`, ok: true, content: essay, followups: []string{"Q"}},
		{name: "kimi section, marker", gen: essay + "<|tool_calls_section_begin|><|tool_call_begin|>functions.suggest_followups:0<|tool_call_argument_begin|>{\"followups\":[\"Q\"]}<|tool_call_end|><|tool_calls_section_end|>", ok: true, content: essay, followups: []string{"Q"}},
		{name: "kimi section, real tool, cut off", gen: "<|tool_calls_section_begin|><|tool_call_begin|>functions.str_replace_editor:48<|tool_call_argument_begin|>{\"command\":\"str_replace\",\"old_str\":\"import", why: `"str_replace_editor"`},
		{name: "gemma call, marker", gen: essay + "<|tool_call>call:suggest_followups{followups:[<|\"|>Q<|\"|>]}<tool_call|>", ok: true, content: essay},
		{name: "llama python tag, real tool", gen: `<|python_tag|>{"name": "search", "parameters": {"q": "x"}}`, why: `"search"`},
		{name: "qwen xml, real tool", gen: "<tool_call>\n<function=read_file>\n<parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>", why: `"read_file"`},
		{name: "name glued with equals", gen: `<function=read={"file_path": "sample.txt"}</function>`, why: `"read"`},
		{name: "only the marker", gen: `<function=suggest_followups>[{"prompt":"x"}]</function>`, why: "only the suggest_followups call, no answer"},
		{name: "marker and a real tool", gen: essay + followupTag + `<function=build>{}</function>`, why: `"build"`},
		{name: "a real tool then the marker", gen: `Let me build it. <function=build>{}</function>` + followupTag, why: `"build"`},
		{name: "empty tool name", gen: essay + `<function= {"a":1}</function>`, why: "cannot be told"},
		{name: "orphan close with no name", gen: essay + "\n{}</function>", why: "cannot be told"},
		{name: "truncated tool_calls json", gen: essay + "\n" + `{"tool_calls": [{"function": {"name": "sugg`, why: "cannot be told"},
		{name: "tool_calls without a name", gen: essay + "\n" + `{"tool_calls": [{"function": {"arguments": "{}"}}]}`, why: "cannot be told"},
		{name: "leftover call syntax", gen: essay + "\n<tool_call", why: "cannot be told"},
		{name: "diagnostic in any case", gen: "TOOL USE FAILED: something", why: "provider diagnostic"},
		{name: "user-requested json survives", gen: "Here is the config:\n\n```json\n{\"followups\": [\"x\"], \"name\": \"cfg\"}\n```\n\n" + followupTag, ok: true, content: "Here is the config:\n\n```json\n{\"followups\": [\"x\"], \"name\": \"cfg\"}\n```", followups: []string{"What do elephants eat?", "Why are elephants important?"}},
		{name: "code fence survives", gen: "Use this:\n\n```go\nm := map[string]int{}\n```\n" + followupTag, ok: true, content: "Use this:\n\n```go\nm := map[string]int{}\n```", followups: []string{"What do elephants eat?", "Why are elephants important?"}},
		{name: "marker in the middle", gen: "Part one." + followupTag + "Part two.", ok: true, content: "Part one.\n\nPart two.", followups: []string{"What do elephants eat?", "Why are elephants important?"}},
		{name: "a JSON answer with name keys survives", gen: "Here they are:\n[{\"name\": \"Alice\", \"age\": 3}, {\"name\": \"Bob\", \"age\": 4}]", ok: true, content: "Here they are:\n[{\"name\": \"Alice\", \"age\": 3}, {\"name\": \"Bob\", \"age\": 4}]"},
		{name: "too many call-shaped values", gen: "Answer." + strings.Repeat(`{"name":"x"}`, maxJSONTries+1), why: "too many calls"},
		{name: "unparseable marker arguments", gen: essay + "<function=suggest_followups [not json</function>", ok: true, content: essay},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Salvage(400, toolCall400(t, tc.gen), nil)
			if s.OK != tc.ok || s.Content != tc.content || !slices.Equal(s.Followups, tc.followups) {
				t.Errorf("got ok=%t content=%q followups=%q (%s)\nwant ok=%t content=%q followups=%q", s.OK, s.Content, s.Followups, s.Why, tc.ok, tc.content, tc.followups)
			}
			if s.Failure != ToolUseFailed {
				t.Errorf("failure = %q", s.Failure)
			}
			if !strings.Contains(s.Why, tc.why) {
				t.Errorf("why = %q, want it to mention %q", s.Why, tc.why)
			}
		})
	}
}

// TestSalvageBodyShapes covers envelopes the real bodies under testdata do not.
func TestSalvageBodyShapes(t *testing.T) {
	fg, _ := json.Marshal(essay + "\n" + followupTag)
	inner, _ := json.Marshal(`{"error":{"message":"Failed to call a function.","code":"tool_use_failed","failed_generation":` + string(fg) + `}}`)
	tests := []struct {
		name    string
		status  int
		body    string
		ok      bool
		failure Failure // checked when set
	}{
		{"proxy message holding the upstream body", 400, `{"error":{"message":"litellm.BadRequestError: GroqException - ` + strings.Trim(string(inner), `"`) + `","type":null,"code":"400"}}`, true, ToolUseFailed},
		{"body as a JSON string", 400, string(inner), true, ToolUseFailed},
		{"python repr", 400, `Error code: 400 - {'error': {'message': "Failed to call a function.", 'code': 'tool_use_failed', 'failed_generation': 'Answer.\n<function=suggest_followups>["Q"]</function>'}}`, true, ToolUseFailed},
		{"javascript object", 400, "error: {\n  code: \"tool_use_failed\",\n  failed_generation: \"Answer.\"\n}", true, ToolUseFailed},
		{"failed_generation as an object", 400, `{"error":{"code":"tool_use_failed","failed_generation":{"tool_calls":[{"function":{"name":"build","arguments":"{}"}}]}}}`, false, ToolUseFailed},
		{"rate limit wins over the body", 429, toolCall400(t, essay), false, Other},
		{"marker arguments failed validation, answer kept", 400, `{"error":{"message":"tool call validation failed: parameters for tool suggest_followups did not match schema: errors: [missing properties: 'followups']","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"Answer.\n<function=suggest_followups>{}</function>"}}`, true, SchemaValidation},
		{"real tool arguments failed validation", 400, `{"error":{"message":"tool call validation failed: parameters for tool str_replace_editor did not match schema: errors: [missing properties: 'path']","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"\u003c|tool_calls_section_begin|\u003e\u003c|tool_call_begin|\u003efunctions.str_replace_editor:48\u003c|tool_call_argument_begin|\u003e{\"command\":\"str_replace\"}"}}`, false, SchemaValidation},
		{"unknown status", 0, toolCall400(t, essay), true, ToolUseFailed},
		{"validation names a real tool, generation only the marker", 400, `{"error":{"message":"tool call validation failed: parameters for tool HassTurnOff did not match schema","code":"tool_use_failed","failed_generation":"Answer.\n<function=suggest_followups>{}</function>"}}`, false, SchemaValidation},
		{"validation failure with no call in the generation", 400, `{"error":{"message":"tool call validation failed: attempted to call tool 'listFiles' which was not in request.tools","code":"tool_use_failed","failed_generation":"Let me list the files."}}`, false, SchemaValidation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Salvage(tc.status, tc.body, nil)
			if s.OK != tc.ok || tc.failure != "" && s.Failure != tc.failure {
				t.Errorf("got %+v, want ok=%t failure=%q", s, tc.ok, tc.failure)
			}
		})
	}
}

func TestSalvageMarkerOption(t *testing.T) {
	body := toolCall400(t, "Done.\n<function=finish>{\"followups\":[\"Q\"]}</function>")
	if s := Salvage(400, body, nil); s.OK || !strings.Contains(s.Why, `"finish"`) {
		t.Errorf("default marker: got %+v", s)
	}
	if s := Salvage(400, body, &SalvageOptions{}); s.OK {
		t.Errorf("zero options: got %+v", s)
	}
	s := Salvage(400, body, &SalvageOptions{Marker: "finish"})
	if !s.OK || s.Content != "Done." || !slices.Equal(s.Followups, []string{"Q"}) || !strings.Contains(s.Why, "finish") {
		t.Errorf("marker finish: got %+v", s)
	}
}

func TestSalvagedJSON(t *testing.T) {
	s := Salvage(400, toolCall400(t, "Answer.\n"+`<function=suggest_followups>["Q"]</function>`), nil)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"salvaged":true,"content":"Answer.","followups":["Q"],"failure":"tool_use_failed","why":"salvaged: the only rejected call is the end-of-turn marker suggest_followups"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	b, err = json.Marshal(Salvage(429, "slow down", nil))
	if err != nil {
		t.Fatal(err)
	}
	want = `{"salvaged":false,"content":"","failure":"other","why":"not salvaged: not a tool-calling failure (recovery: none)"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
