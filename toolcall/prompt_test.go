package toolcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// sampleThread exercises every block FallbackPrompt renders and every message it leaves out.
var sampleThread = []Message{
	{Role: RoleSystem, Content: "You are a coding assistant.\n"},
	{Role: RoleUser, Content: "Does the README mention the licence?"},
	{Role: RoleAssistant, Content: "Let me read it.", ToolCalls: []Call{
		{Name: "read_file", Args: json.RawMessage(`{ "path": "README.md",  "offset": 0 }`)},
	}},
	{Role: RoleTool, ToolName: "read_file", Content: "# stopgate\n\nLicensed under Apache-2.0.\n"},
	{Role: "developer", Content: "left out: not a rendered role"},
	{Role: RoleAssistant, Content: "   "},
	{Role: RoleAssistant, ToolCalls: []Call{{Name: "search", Args: json.RawMessage(`not json`)}, {Name: "noargs"}}},
	{Role: RoleTool, Content: "\n"},
	{Role: RoleUser, Content: "   "},
	{Role: RoleAssistant, Content: "Yes: it is licensed under Apache-2.0."},
}

// TestFallbackPromptOrigin ports the origin's tests.
func TestFallbackPromptOrigin(t *testing.T) {
	messages := []Message{
		{Role: RoleSystem, Content: "sys"},
		{Role: RoleUser, Content: "write an essay"},
		{Role: RoleAssistant, Content: "ok"},
		{Role: RoleTool, Content: "result"},
	}
	prompt := FallbackPrompt(messages, []Tool{{Name: "suggest_followups", Parameters: json.RawMessage(`{"type":"object","properties":{},"required":[]}`)}})
	for _, want := range []string{"[System]\nsys", "[User]\nwrite an essay", "[Tool result]\nresult", "TOOL ARGUMENT SHAPES (use these exact keys):", "suggest_followups: { no args }"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("missing %q in\n%s", want, prompt)
		}
	}
	if got := FallbackPrompt([]Message{{Role: RoleUser, Content: "hi"}}, nil); got != "[User]\nhi" {
		t.Errorf("no tools: got %q, want %q", got, "[User]\nhi")
	}
}

// TestFallbackPromptNoRequestLikeExample pins the fix for the origin's hazard: the call syntax
// names no real tool and holds no value a model could take for a request.
func TestFallbackPromptNoRequestLikeExample(t *testing.T) {
	prompt := FallbackPrompt([]Message{{Role: RoleUser, Content: "Write a song"}}, sampleTools)
	_, section, ok := strings.Cut(prompt, formatHeading)
	if !ok {
		t.Fatalf("no call format section in\n%s", prompt)
	}
	if strings.Contains(prompt, "Example") {
		t.Errorf("the prompt still shows an example call:\n%s", prompt)
	}
	for _, tool := range sampleTools {
		if strings.Contains(section, `"`+tool.Name+`"`) {
			t.Errorf("the call format names the real tool %q:\n%s", tool.Name, section)
		}
	}
	// Every value in the syntax line is a marked placeholder.
	syntax, _, _ := strings.Cut(section, "\n")
	var shape map[string]any
	if err := json.Unmarshal([]byte(strings.Replace(syntax, "<value>", `"<value>"`, 1)), &shape); err != nil {
		t.Fatalf("syntax line %q is not the call shape: %v", syntax, err)
	}
	if shape["tool"] != "<tool name>" {
		t.Errorf("tool = %v, want a placeholder", shape["tool"])
	}
	// And the syntax line is what ParseFallbackReply reads, once filled in.
	filled := strings.NewReplacer("<tool name>", "search", "<key>", "query", "<value>", `"x"`).Replace(syntax)
	r := ParseFallbackReply(filled, sampleTools)
	if len(r.Calls) != 1 || r.Calls[0].Name != "search" || string(r.Calls[0].Args) != `{"query":"x"}` {
		t.Errorf("filled syntax %q parsed as %+v", filled, r)
	}
}

func TestFallbackPromptGolden(t *testing.T) {
	first := FallbackPrompt(sampleThread, sampleTools)
	if again := FallbackPrompt(sampleThread, sampleTools); again != first {
		t.Fatal("two calls on the same input differ")
	}
	golden(t, "fallback_prompt.golden", first)
	golden(t, "fallback_prompt_no_tools.golden", FallbackPrompt(sampleThread, nil))
}

func TestFallbackPromptEmpty(t *testing.T) {
	if got := FallbackPrompt(nil, nil); got != "" {
		t.Errorf("nothing: got %q", got)
	}
	got := FallbackPrompt(nil, []Tool{{Name: "noargs"}})
	if !strings.HasPrefix(got, shapesHeading+"noargs: { no args }\n\n"+formatHeading) {
		t.Errorf("tools only: got %q", got)
	}
}
