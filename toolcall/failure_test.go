package toolcall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/termination"
)

// bodyCase is the expected reading of one real body under testdata/bodies.
type bodyCase struct {
	file    string
	status  int
	failure Failure
	// salvaged and content are what Salvage returns; why is a fragment of its Why line.
	salvaged bool
	content  string
	why      string
	// message is a fragment ErrorMessage must return.
	message string
}

var bodyCases = []bodyCase{
	{file: "groq_angle_tag_real_tool.txt", status: 400, failure: ToolUseFailed, why: `"brave_search", a real tool`, message: "Failed to call a function"},
	{file: "groq_glued_name_real_tool.txt", status: 400, failure: ToolUseFailed, why: `"web_search", a real tool`},
	{file: "groq_glued_tag_real_tool.json", status: 400, failure: ToolUseFailed, why: `"message", a real tool`},
	{file: "groq_sse_diagnostic.txt", status: 200, failure: ToolUseFailed, why: "provider diagnostic"},
	{file: "groq_sse_diagnostic_logged.txt", failure: ToolUseFailed, why: "provider diagnostic"},
	{file: "groq_empty_generation.json", status: 400, failure: ToolUseFailed, why: "failed_generation is empty"},
	{file: "groq_prose_answer.txt", status: 400, failure: ToolUseFailed, salvaged: true, content: "### Top Stories from Reddit\nAs the Red", why: "no tool call"},
	{file: "groq_hermes_block_real_tool.txt", status: 400, failure: ToolUseFailed, why: `"transfer_task_to_member", a real tool`},
	{file: "groq_truncated_tag_real_tool.txt", status: 400, failure: ToolUseFailed, why: `"test_tool", a real tool`},
	{file: "groq_stream_no_generation.json", status: 400, failure: ToolUseFailed, why: "no failed_generation"},
	{file: "groq_schema_validation.json", status: 400, failure: SchemaValidation, why: "schema_validation", message: "parameters for tool HassTurnOff did not match schema: errors: [`/domain`: expected array, but got string]"},
	{file: "groq_schema_validation_prose.txt", failure: SchemaValidation, why: "feed_back_error", message: "missing properties: 'schema_definition'"},
	{file: "groq_tool_not_in_request.json", failure: SchemaValidation, message: "attempted to call tool 'listFiles'"},
	{file: "groq_json_validate_failed_truncated.txt", status: 400, failure: JSONValidation, why: "json_validation", message: "Failed to generate JSON"},
	{file: "groq_tool_calling_not_supported.txt", status: 400, failure: ToolsUnsupported, why: "json_fallback", message: "tool calling is not supported with this model"},
	{file: "ollama_openai_does_not_support_tools.json", status: 400, failure: ToolsUnsupported, message: "stablelm2:latest does not support tools"},
	{file: "ollama_api_chat_does_not_support_tools.json", status: 400, failure: ToolsUnsupported, message: "registry.ollama.ai/library/Qwen3.5:0.8b does not support tools"},
	{file: "ollama_plain_text.txt", failure: ToolsUnsupported, message: "400 codellama:latest does not support tools"},
	{file: "vllm_auto_tool_choice.json", status: 400, failure: ToolsUnsupported, message: `"auto" tool choice requires --enable-auto-tool-choice`},
	{file: "qwen_unsupported_param_tools.txt", status: 500, failure: ToolsUnsupported, message: "Unsupported param: tools"},
	{file: "groq_history_tool_calls_property.txt", status: 400, failure: Other, why: "not a tool-calling failure", message: "property 'tool_calls' is unsupported"},
	{file: "groq_tool_choice_values.txt", status: 400, failure: Other, message: "Only allowed string values for 'tool_choice'"},
	{file: "groq_requested_tool_missing.txt", status: 400, failure: Other, message: "requested tool does not exist"},
	{file: "xai_param_unsupported.txt", status: 400, failure: Other},
}

func readBody(t testing.TB, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "bodies", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBodies reads every real body: its failure kind, the salvage verdict and the message a
// caller would feed back.
func TestBodies(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "bodies", "*"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{"README.md": true}
	for _, tc := range bodyCases {
		covered[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			body := readBody(t, tc.file)
			if got := ClassifyFailure(tc.status, body); got != tc.failure {
				t.Errorf("ClassifyFailure = %q, want %q", got, tc.failure)
			}
			s := Salvage(tc.status, body, nil)
			if s.OK != tc.salvaged || s.Content != tc.content || s.Failure != tc.failure {
				t.Errorf("Salvage = %+v, want salvaged=%t content=%q failure=%q", s, tc.salvaged, tc.content, tc.failure)
			}
			if !strings.Contains(s.Why, tc.why) {
				t.Errorf("Why = %q, want it to mention %q", s.Why, tc.why)
			}
			if msg := ErrorMessage(body); !strings.Contains(msg, tc.message) {
				t.Errorf("ErrorMessage = %q, want it to contain %q", msg, tc.message)
			}
		})
	}
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("testdata/bodies/%s has no expectation in bodyCases", filepath.Base(f))
		}
	}
}

func TestClassifyFailure(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   Failure
	}{
		// Ported from the origin's isToolCallingUnsupported tests.
		{"groq tool calling unsupported", 400, `Tool-calling API error (400): {"error":{"message":"` + "`tool calling`" + ` is not supported with this model","type":"invalid_request_error","param":"tool calling"}}`, ToolsUnsupported},
		{"tools are not supported", 0, "tools are not supported for this model", ToolsUnsupported},
		{"tool calling is not supported", 0, "tool calling is not supported", ToolsUnsupported},
		{"function calling is unsupported", 0, "function calling is unsupported", ToolsUnsupported},
		{"does not support tool calling", 0, "this model does not support tool calling", ToolsUnsupported},
		{"tools are not enabled", 0, "tools are not enabled for this request", ToolsUnsupported},
		{"429 is not a tools problem", 429, "429 rate limit exceeded", Other},
		{"network failure", 0, "fetch failed: ECONNREFUSED", Other},
		{"401", 401, "401 Unauthorized", Other},
		{"tool result too large", 0, "the tool result was too large", Other},
		{"empty", 0, "", Other},
		{"malformed call is not unsupported", 400, `Tool-calling API error (400): {"error":{"code":"tool_use_failed","failed_generation":"I will implement the login form. <function=build [{\"goal\": \"login\"}]</function>"}}`, ToolUseFailed},

		// Wording variants.
		{"tool_choice not supported", 400, `{"error":{"message":"tool_choice is not supported for this model"}}`, ToolsUnsupported},
		{"doesn't support tools", 400, `{"error":"this model doesn't support tools"}`, ToolsUnsupported},
		{"tools in another sentence", 400, `{"error":{"message":"The tool failed. Streaming is not supported."}}`, Other},
		{"tool_calls property is not the tools noun", 400, `{"error":{"message":"property 'tool_calls' is unsupported, did you mean 'tool_call_id'?"}}`, Other},
		{"json arguments", 400, `{"error":{"message":"Invalid JSON in tool call arguments: expected ',' at line 1"}}`, JSONValidation},
		{"json_validate_failed code", 400, `{"error":{"message":"Generated JSON does not match the expected schema.","code":"json_validate_failed","failed_generation":"{\"a\":1}"}}`, JSONValidation},
		{"failed_generation without code", 400, `{"error":{"message":"x","failed_generation":"hello"}}`, ToolUseFailed},
		{"tool_use_failed code in any case", 400, `{"error":{"message":"x","code":"TOOL_USE_FAILED"}}`, ToolUseFailed},
		{"403 whatever the body", 403, `{"error":{"message":"tools are not supported","code":"tool_use_failed"}}`, Other},
		{"407 proxy auth", 407, `{"error":{"code":"tool_use_failed"}}`, Other},
		{"stringified body", 400, `"{\"error\":{\"message\":\"llama3 does not support tools\"}}"`, ToolsUnsupported},
		{"proxy message holding upstream body", 400, `{"error":{"message":"litellm.BadRequestError: GroqException - {\"error\":{\"message\":\"Failed to call a function.\",\"code\":\"tool_use_failed\",\"failed_generation\":\"hi\"}}","type":null,"code":"400"}}`, ToolUseFailed},
		{"array body", 400, `[{"error":{"message":"gemma does not support tools","code":400}}]`, ToolsUnsupported},
		{"fastapi detail", 400, `{"detail":"tool_choice is not supported"}`, ToolsUnsupported},
		{"plain prose", 0, "Failed to call a function. Please adjust your prompt.", ToolUseFailed},
		{"argument object quoted in prose is not an envelope", 400, `The call {"message": "hello"} was rejected`, Other},
		// A forced tool call (tool_choice "required") the server's parser found cut off, and a
		// request body the server could not parse.
		{"forced call cut off", 400, `{"error":{"message":"1 validation error for list[ToolCall]\n  Invalid JSON: EOF while parsing a list at line 3 column 0 [type=json_invalid, input_value='[{\"name\": \"get_w', input_type=str]","type":"BadRequestError","code":400}}`, ToolUseFailed},
		{"request body not JSON", 422, `{"detail":[{"type":"json_invalid","loc":["body",41],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting ',' delimiter"}}]}`, Other},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClassifyFailure(tc.status, tc.body); got != tc.want {
				t.Errorf("ClassifyFailure(%d, %q) = %q, want %q", tc.status, tc.body, got, tc.want)
			}
		})
	}
}

func TestRecoveryAndReason(t *testing.T) {
	tests := []struct {
		f        Failure
		recovery Recovery
		category termination.Category
	}{
		{ToolUseFailed, SalvageOrFailOver, termination.ToolError},
		{ToolsUnsupported, UseJSONFallback, termination.InvalidRequest},
		{SchemaValidation, FeedBackError, termination.ToolError},
		{JSONValidation, FeedBackError, termination.ToolError},
		{Other, NoRecovery, termination.Unknown},
		{Failure("exploded"), NoRecovery, termination.Unknown},
	}
	if len(Failures()) != len(tests)-1 {
		t.Fatalf("Failures() has %d members, the table %d", len(Failures()), len(tests)-1)
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			if got := tc.f.Recovery(); got != tc.recovery {
				t.Errorf("Recovery = %q, want %q", got, tc.recovery)
			}
			r := tc.f.Reason("groq")
			want := termination.Reason{Category: tc.category, Site: termination.SiteToolCallSalvage,
				Source: termination.SourceException, Provider: "groq", Detail: string(tc.f)}
			if r != want {
				t.Errorf("Reason = %+v, want %+v", r, want)
			}
		})
	}
	// The postures the categories bring: a failed call is worth retrying once the request
	// changes; a model without tools is not worth sending tools again.
	if r := ToolUseFailed.Reason(""); r.RetryableAsIs() || !r.RetryableAfterRemedy() || r.Remedy() != termination.ChangeRequest {
		t.Errorf("tool_use_failed posture = %+v", r.Posture())
	}
	if r := ToolsUnsupported.Reason(""); r.RetryableAsIs() || r.RetryableAfterRemedy() {
		t.Errorf("tools_unsupported posture = %+v", r.Posture())
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"  tool call validation failed: x  "}}`, "tool call validation failed: x"},
		{`{"error":"plain string error"}`, "plain string error"},
		{"not json at all\n", "not json at all"},
		{"", ""},
		{`{"error":{"message":"outer {\"error\":{\"message\":\"inner\"}}"}}`, "inner"},
		{`{'error': {'message': 'it\'s \x41 \u00e9'}}`, "it's A é"},
		{`{"message":"a \ud83d\ude00 b","type":"x"}`, "a 😀 b"},
		{`she said \"hi\" and left`, `she said \"hi\" and left`},
	}
	for _, tc := range tests {
		if got := ErrorMessage(tc.body); got != tc.want {
			t.Errorf("ErrorMessage(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}
