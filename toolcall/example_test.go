package toolcall_test

import (
	"encoding/json"
	"fmt"

	"github.com/stopgate/stopgate/toolcall"
)

func ExampleSalvage() {
	// Groq rejected the call, but the answer is in failed_generation: the model wrapped its
	// end-of-turn marker in a tag the API does not accept.
	body := `{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"Elephants eat grass, fruit and bark.\n\n<function=suggest_followups [{\"prompt\": \"How much do they eat a day?\"}]</function>"}}`
	s := toolcall.Salvage(400, body, nil)
	fmt.Println(s.OK)
	fmt.Println(s.Content)
	fmt.Println(s.Followups)

	// A rejected call to a real tool is not answered with its intro prose.
	body = `{"error":{"code":"tool_use_failed","failed_generation":"Let me search. <function=web_search>{\"query\": \"elephants\"}</function>"}}`
	s = toolcall.Salvage(400, body, nil)
	fmt.Println(s.OK, s.Failure.Recovery())
	fmt.Println(s.Why)
	// Output:
	// true
	// Elephants eat grass, fruit and bark.
	// [How much do they eat a day?]
	// false salvage_or_fail_over
	// not salvaged: the rejected call is to "web_search", a real tool
}

func ExampleClassifyFailure() {
	for _, body := range []string{
		`{"error":{"message":"llama3 does not support tools","type":"api_error","param":null,"code":null}}`,
		`{"error":{"message":"tool call validation failed: parameters for tool HassTurnOff did not match schema: errors: [missing properties: 'domain']","type":"invalid_request_error","code":"tool_use_failed"}}`,
		`{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}`,
	} {
		f := toolcall.ClassifyFailure(400, body)
		fmt.Println(f, f.Recovery(), f.Reason("groq").Category)
	}
	// Output:
	// tools_unsupported json_fallback invalid_request
	// schema_validation feed_back_error tool_error
	// other none unknown
}

func ExampleCompactSchemas() {
	tools := []toolcall.Tool{
		{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"lines":{"type":"array","items":{"type":"integer"}}},"required":["path"]}`)},
		{Name: "list_todos"},
	}
	fmt.Println(toolcall.CompactSchemas(tools))
	// Output:
	// read_file: { path: string (required), lines: []<integer> }
	// list_todos: { no args }
}

func ExampleParseFallbackReply() {
	tools := []toolcall.Tool{{Name: "read_file"}}
	reply := "I'll look at the README first.\n\n```json\n{'tool': 'read_file', 'arguments': {'path': 'README.md',}}\n```"
	r := toolcall.ParseFallbackReply(reply, tools)
	for _, c := range r.Calls {
		fmt.Println(c.Name, string(c.Args))
	}
	fmt.Printf("%q\n", r.Text)
	// Output:
	// read_file {"path":"README.md"}
	// "I'll look at the README first."
}

func ExampleFallbackPrompt() {
	messages := []toolcall.Message{
		{Role: toolcall.RoleUser, Content: "What is in README.md?"},
		{Role: toolcall.RoleAssistant, ToolCalls: []toolcall.Call{{Name: "read_file", Args: json.RawMessage(`{"path":"README.md"}`)}}},
		{Role: toolcall.RoleTool, ToolName: "read_file", Content: "# stopgate"},
	}
	tools := []toolcall.Tool{{Name: "read_file", Parameters: json.RawMessage(`{"properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	fmt.Println(toolcall.FallbackPrompt(messages, tools))
	// Output:
	// [User]
	// What is in README.md?
	//
	// [Assistant]
	// {"tool":"read_file","arguments":{"path":"README.md"}}
	//
	// [Tool result: read_file]
	// # stopgate
	//
	// TOOL ARGUMENT SHAPES (use these exact keys):
	// read_file: { path: string (required) }
	//
	// TOOL CALL FORMAT (a description of syntax, not a message and not a request):
	// {"tool":"<tool name>","arguments":{"<key>":<value>}}
	// Each <...> above is a placeholder, filled from the shapes; it is never written literally.
}

func ExampleLooksConfused() {
	fmt.Println(toolcall.LooksConfused("I'm sorry, but the provided example call to suggest_followups is incomplete. Could you please provide more context?", nil))
	fmt.Println(toolcall.LooksConfused("Sure — I can call suggest_followups once the song is written.", nil))
	// Output:
	// true
	// false
}
