package termination

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// armCase is an error and exactly the overflow arms its text must match.
type armCase struct {
	name string
	err  error
	arms []string
}

func armCheck(t *testing.T, cases []armCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ContextOverflowArms(tc.err)
			if !slices.Equal(got, tc.arms) {
				t.Errorf("ContextOverflowArms = %q, want %q", got, tc.arms)
			}
			if len(tc.arms) > 0 && !IsContextOverflow(tc.err) {
				t.Error("an arm matched but IsContextOverflow is false")
			}
		})
	}
}

// TestContextOverflowDetection ports the origin's contextOverflowDetection vectors.
func TestContextOverflowDetection(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"typed, no code", &APIError{Name: "ContextOverflowError", Message: "This model supports at most 4096 tokens"}, true},
		{"typed, with code", &APIError{Name: "ContextOverflowError", Code: "CONTEXT_OVERFLOW", Message: "prompt is too long"}, true},
		{"typed, no pattern", &APIError{Name: "ContextOverflowError", Message: "the request was refused for size"}, true},
		{"code without class", &APIError{Code: "CONTEXT_OVERFLOW", Message: "the request was refused for size"}, false},
		{"Go sentinel", fmt.Errorf("compact: %w", ErrContextOverflow), true},
		{"Go sentinel in a join", errors.Join(errors.New("x"), ErrContextOverflow), true},
		{"exceed the context window", errors.New("This request would exceed the context window for this model (400 invalid_request_error)"), true},
		{"context_length_exceeded + 400", &APIError{Status: 400, Message: "context_length_exceeded"}, true},
		{"invalid tool schema + 400", &APIError{Status: 400, Message: "invalid tool schema: unknown keyword"}, false},
		{"nil", nil, false},
		{"committed overflow", Attach(errors.New("x"), New(SiteTurnError, SourceException, Classification{Category: ContextOverflow})), true},
		{"committed other beats the text", Attach(errors.New("prompt is too long"), Control(SiteCancelled, Cancelled)), false},
	} {
		if got := IsContextOverflow(tc.err); got != tc.want {
			t.Errorf("%s: IsContextOverflow = %t, want %t", tc.name, got, tc.want)
		}
	}
	// Arms are the text's, whatever is committed; typed overflows are not arms.
	committed := Attach(errors.New("prompt is too long"), Control(SiteCancelled, Cancelled))
	if got := ContextOverflowArms(committed); !slices.Equal(got, []string{"prompt is too long"}) {
		t.Errorf("arms of a committed error = %q", got)
	}
	if got := ContextOverflowArms(ErrContextOverflow); got != nil {
		t.Errorf("arms of the sentinel = %q, want none", got)
	}
	if got := ContextOverflowArms(nil); got != nil {
		t.Errorf("arms of nil = %q", got)
	}
}

// googleOverflowBody is a Gemini overflow body: AI Studio puts the limit in parentheses, Vertex
// does not.
func googleOverflowBody(vertex bool, window string) string {
	limit := "(" + window + ")"
	if vertex {
		limit = window
	}
	return `{"error":{"code":400,"message":"The input token count exceeds the maximum number of tokens allowed ` + limit + `.","status":"INVALID_ARGUMENT"}}`
}

// TestGoogleContextOverflow ports the Google overflow suite: a RequestError with statusCode 400
// and the body as data.
func TestGoogleContextOverflow(t *testing.T) {
	requestError := func(msg, body string) *APIError {
		e := ParseErrorBody("google", 400, body)
		e.Name = "RequestError"
		if msg != "" {
			e.Message = msg
		}
		return e
	}
	var cases []clsCase
	for _, vertex := range []bool{false, true} {
		for _, window := range []string{"1048576", "2097152"} {
			body := googleOverflowBody(vertex, window)
			platform := map[bool]string{false: "ai studio", true: "vertex"}[vertex]
			cases = append(cases,
				clsCase{platform + " invoke " + window, requestError("", body), want(ContextOverflow, "google", "RequestError")},
				clsCase{platform + " stream " + window, requestError("", "["+body+"]"), want(ContextOverflow, "google", "RequestError")},
			)
		}
	}
	cases = append(cases,
		clsCase{"inline count", requestError("", `{"error":{"code":400,"message":"The input token count (1246756) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`), want(ContextOverflow, "google", "RequestError")},
		clsCase{"prose only in the body", requestError("Agent processing failed", googleOverflowBody(false, "1048576")), want(ContextOverflow, "google", "RequestError")},
		clsCase{"reworded", requestError("", `{"error":{"code":400,"message":"The request was too big for this model.","status":"INVALID_ARGUMENT"}}`), want(InvalidRequest, "google", "400")},
		// EXT-176: the permanent hole. Matching "invalid argument" would make every malformed
		// request an overflow.
		clsCase{"vertex image stream invalid argument", requestError("", `[{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT"}}]`), want(InvalidRequest, "google", "400")},
		clsCase{"bad key", requestError("", `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`), want(AuthFailed, "google", "API_KEY_INVALID")},
		clsCase{"429 quota", func() error {
			e := ParseErrorBody("google", 429, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}`)
			e.Name = "RequestError"
			return e
		}(), want(RateLimited, "google", "429")},
		clsCase{"404 unknown model", func() error {
			e := ParseErrorBody("google", 404, `{"error":{"code":404,"message":"models/gemini-9.9-pro is not found for API version v1beta, or is not supported for generateContent.","status":"NOT_FOUND"}}`)
			e.Name = "RequestError"
			return e
		}(), want(Unknown, "google", "RequestError")},
	)
	clsCheck(t, cases)
	armCheck(t, []armCase{
		{"ai studio arm", requestError("", googleOverflowBody(false, "1048576")), []string{"exceeds the maximum number of tokens allowed"}},
		{"vertex arm", requestError("", googleOverflowBody(true, "1048576")), []string{"exceeds the maximum number of tokens allowed"}},
	})
}

// OpenRouter upstream bodies, as they arrive in metadata.raw.
const (
	openaiUpstream    = `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 210381 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
	anthropicUpstream = `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210381 tokens > 200000 maximum"}}`
	bedrockUpstream   = `{"message":"Input is too long for requested model."}`
)

// openRouterBody wraps an upstream body the way OpenRouter does.
func openRouterBody(upstream, provider string) string {
	raw := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(upstream)
	return `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"` + raw + `","provider_name":"` + provider + `"}},"user_id":"user_2x"}`
}

// TestOpenRouterContextOverflow ports the OpenRouter suite: the upstream's sentence in
// metadata.raw is the carrier, OpenRouter's own top level is always "Provider returned error".
func TestOpenRouterContextOverflow(t *testing.T) {
	openRouterError := func(status int, msg, body string) *APIError {
		return &APIError{Provider: "openrouter", Status: status, Name: "OpenRouterError", Message: msg, Body: body}
	}
	upstreams := []struct {
		name, body, provider string
		arms                 []string
	}{
		{"openai", openaiUpstream, "OpenAI", []string{"context_length_exceeded", "maximum context length", "reduce the length of the messages"}},
		{"anthropic", anthropicUpstream, "Anthropic", []string{"prompt is too long"}},
		{"bedrock", bedrockUpstream, "Amazon Bedrock", []string{"input is too long for"}},
	}
	var cases []clsCase
	var arms []armCase
	for _, u := range upstreams {
		body := openRouterBody(u.body, u.provider)
		metadata := body[strings.Index(body, `{"raw"`):strings.LastIndex(body, `},"user_id"`)]
		inMessage := openRouterError(400, "Provider returned error | metadata: "+metadata, "")
		stripped := openRouterError(400, "Provider returned error", body)
		parsed := ParseErrorBody("openrouter", 400, body)
		parsed.Name = "OpenRouterError"
		cases = append(cases,
			clsCase{u.name + " metadata in the message", inMessage, want(ContextOverflow, "openrouter", "OpenRouterError")},
			clsCase{u.name + " message stripped, body kept", stripped, want(ContextOverflow, "openrouter", "OpenRouterError")},
			clsCase{u.name + " parsed body", parsed, want(ContextOverflow, "openrouter", "OpenRouterError")},
		)
		arms = append(arms,
			armCase{u.name + " arms from the body", stripped, u.arms},
			armCase{u.name + " arms from the parsed body", parsed, u.arms},
		)
	}
	cases = append(cases,
		clsCase{"bare, no metadata", openRouterError(400, "Provider returned error", ""), want(InvalidRequest, "openrouter", "400")},
		clsCase{"200 with an error body", openRouterError(200, "No choices returned in response.", ""), want(Unknown, "openrouter", "OpenRouterError")},
		clsCase{"not a valid model id", openRouterError(400, "openai/gpt-9 is not a valid model ID", ""), want(InvalidRequest, "openrouter", "400")},
		clsCase{"user not found", openRouterError(401, "User not found.", ""), want(AuthFailed, "openrouter", "401")},
		clsCase{"routing 404", openRouterError(404, "No allowed providers are available for the selected model.", ""), want(Unknown, "openrouter", "OpenRouterError")},
	)
	clsCheck(t, cases)
	armCheck(t, arms)
}

// TestGroqOverflowArms is the EXT-169 canary offline: a Groq overflow is carried by "reduce the
// length of the messages" and never by "request too large", which carries the TPM rejection.
func TestGroqOverflowArms(t *testing.T) {
	overflow := ParseErrorBody("groq", 400, `{"error":{"message":"Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages"}}`)
	overflow.Name = "BadRequestError"
	tpm := ParseErrorBody("groq", 429, `{"error":{"message":"Request too large for model `+"`llama3-70b-8192`"+` in organization `+"`org_01`"+` service tier `+"`on_demand`"+` on tokens per minute (TPM): Limit 6000, Requested 20000, please reduce your message size and try again.","type":"tokens","code":"rate_limit_exceeded"}}`)
	tpm.Name = "RateLimitError"
	ordinary := ParseErrorBody("groq", 429, `{"error":{"message":"Rate limit reached for model `+"`llama3-70b-8192`"+` in organization `+"`org_01`"+` service tier `+"`on_demand`"+` on tokens per minute (TPM): Limit 6000, Used 5000, Requested 2000. Please try again in 7s.","type":"tokens","code":"rate_limit_exceeded"}}`)
	ordinary.Name = "RateLimitError"
	armCheck(t, []armCase{
		{"uncoded overflow", overflow, []string{"reduce the length of the messages"}},
		{"tpm request larger than the limit", tpm, []string{"request too large", "requested exceeds limit"}},
		{"ordinary tpm", ordinary, nil},
	})
	clsCheck(t, []clsCase{
		{"uncoded overflow", overflow, want(ContextOverflow, "groq", "BadRequestError")},
		{"tpm request larger than the limit", tpm, want(ContextOverflow, "groq", "RateLimitError")},
		{"ordinary tpm", ordinary, want(RateLimited, "groq", "429")},
	})
}

// providerText is an error whose text is a provider's message, verbatim.
func providerText(msg string) error { return errors.New(msg) }

// providerOverflows is one real-shaped overflow message per provider and arm. Together they
// must reach every arm of the list (TestEveryOverflowArmIsCovered).
var providerOverflows = []armCase{
	{"openai code", &APIError{Code: "context_length_exceeded"}, []string{"context_length_exceeded"}},
	{"generic prose", providerText("context length exceeded"), []string{"context length exceeded"}},
	{"openai", providerText("This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens."), []string{"maximum context length"}},
	{"azure", providerText("This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion)."), []string{"maximum context length"}},
	{"deepseek", providerText("This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (66000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion."), []string{"maximum context length", "reduce the length of the messages"}},
	{"mistral", providerText("Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"), []string{"maximum context length"}},
	{"vllm legacy", providerText("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4500 in the messages, 500 in the completion)."), []string{"maximum context length"}},
	{"vllm v1", providerText("The decoder prompt (length 17772) is longer than the maximum model length of 16384. Make sure that `max_model_len` is no smaller than the number of text tokens."), []string{"longer than the maximum model length"}},
	{"openai window", providerText("Your input exceeds the context window of this model. Please adjust your input and try again."), []string{"exceeds the context window"}},
	{"openai window, other inflection", providerText("This request would exceed the context window for this model"), []string{"exceed the context window"}},
	{"openai deployment", providerText("Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300000 tokens."), []string{"input tokens exceed the configured limit"}},
	{"anthropic", providerText("prompt is too long: 254245 tokens > 200000 maximum"), []string{"prompt is too long"}},
	{"cohere", providerText("too many tokens: size limit exceeded by 1234 tokens. Try using shorter or fewer inputs."), []string{"too many tokens"}},
	{"groq", providerText("Please reduce the length of the messages or completion."), []string{"reduce the length of the messages"}},
	{"openai tpm", providerText("Request too large for gpt-4 in organization org-x"), []string{"request too large"}},
	{"gemini", providerText("The input token count exceeds the maximum number of tokens allowed (1048576)."), []string{"exceeds the maximum number of tokens allowed"}},
	{"bedrock via openrouter", providerText("Input is too long for requested model."), []string{"input is too long for"}},
	{"anthropic with max_tokens", providerText("input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"), []string{"exceed context limit"}},
	{"litellm generic", providerText("the model's maximum context limit was reached"), []string{"model's maximum context limit"}},
	{"litellm generic 2", providerText("Prompt of 9000 tokens is longer than the model's context length of 8192"), []string{"longer than the model's context length"}},
	{"ollama", ParseErrorBody("ollama", 400, `{"error":"the input length exceeds the context length"}`), []string{"exceeds the context length"}},
	{"llama.cpp", ParseErrorBody("llama.cpp", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`), []string{"exceeds the available context size"}},
	{"llama.cpp n_keep", providerText("Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"), []string{"cannot truncate prompt with n_keep"}},
	{"lm studio", ParseErrorBody("lmstudio", 400, `{"error":"The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input"}`), []string{"greater than the context length"}},
	{"lm studio older", providerText("Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough."), []string{"when context the overflows"}},
	{"xai", providerText("This model's maximum prompt length is 131072 but the request contains 136973 tokens."), []string{"maximum prompt length is"}},
	{"hugging face tgi", providerText("Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 500 `max_new_tokens`"), []string{"`inputs` tokens + `max_new_tokens` must be"}},
	{"bedrock input tokens", providerText("Too many input tokens. Max input tokens: 200000, request input token count: 210000"), []string{"too many input tokens"}},
	{"bedrock max length", providerText("Malformed input request: #/messages/0/content: expected maxLength: 50000, actual: 60000"), []string{"expected maxlength:"}},
	{"bedrock prompt length", providerText("prompt: length: 1..100000, actual: 120000"), []string{"prompt: length"}},
	{"bedrock mantle", providerText("invalid_request_error: prompt tokens (210000) exceed model maximum (200000)"), []string{"exceed model maximum"}},
	{"vertex payload", providerText("400 Request payload size exceeds the limit: 20971520 bytes."), []string{"request payload size exceeds"}},
	{"hugging face", providerText("Input validation error: length limit exceeded"), []string{"length limit exceeded"}},
	{"nlp cloud", providerText("Input text length should not exceed 1024 tokens."), []string{"input text length should not exceed"}},
	{"cerebras", providerText("Please reduce the length of the messages or completion. Current length is 9000 while limit is 8192"), []string{"reduce the length of the messages", "current length is … while limit is"}},
	{"maximum input length", providerText("This model's maximum input length is 8192 tokens. Please reduce the length of your input."), []string{"maximum input length is … tokens"}},
	{"openai one message too long", providerText("Invalid 'messages[3].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10485761 instead."), []string{"string too long (messages)"}},
	{"tokens per minute, worded as a rate limit", providerText("Rate limit reached for model m on tokens per minute (TPM): Limit 6000, Used 0, Requested 20000."), []string{"requested exceeds limit"}},
}

func TestProviderOverflowArms(t *testing.T) {
	armCheck(t, providerOverflows)
}

// TestEveryOverflowArmIsCovered: every arm of the one list is reached by some vector, so an arm
// that stopped matching, or one added without a vector, fails here.
func TestEveryOverflowArmIsCovered(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range providerOverflows {
		for _, a := range ContextOverflowArms(tc.err) {
			covered[a] = true
		}
	}
	seen := map[string]bool{}
	for _, a := range overflowArmSpecs {
		if seen[a.name] {
			t.Errorf("arm %q is listed twice", a.name)
		}
		seen[a.name] = true
		if !covered[a.name] {
			t.Errorf("arm %q has no vector in providerOverflows", a.name)
		}
	}
	if len(overflowArmSpecs) < 12 || overflowArmSpecs[11].name != "input is too long for" {
		t.Error("the origin's twelve arms must stay first, in its order")
	}
}

// TestOverflowTraps: texts near an arm that are not overflows.
func TestOverflowTraps(t *testing.T) {
	armCheck(t, []armCase{
		{"tool input limit", &APIError{Name: "ToolException", Message: "Input is too long, maximum 500 characters."}, nil},
		{"tool description too long", errors.New("Invalid 'tools[0].function.description': string too long. Expected a string with maximum length 1024, but got a string with length 2048 instead."), nil},
		{"user field too long", errors.New("Invalid 'user': string too long. Expected a string with maximum length 64"), nil},
		{"cerebras daily quota", errors.New("Tokens per day limit exceeded - too many tokens processed."), nil},
		{"openai-like token quota", errors.New("too many tokens; code token_quota_reached"), nil},
		{"request too large that fits", errors.New("Request too large for model m on tokens per minute (TPM): Limit 6000, Used 5000, Requested 2000."), nil},
		{"recursion limit and a request", errors.New("Recursion limit 25 reached; requested 30 steps"), nil},
		{"limit words across fragments", errors.Join(errors.New("tokens per"), errors.New("minute limit 5 requested 9")), nil},
		{"vertex invalid argument", errors.New("Request contains an invalid argument."), nil},
		{"context window mentioned", errors.New("the context window is 200000 tokens"), nil},
	})
}

func TestBudgetOf(t *testing.T) {
	for _, tc := range []struct {
		text string
		want tokenBudget
	}{
		{"on tokens per minute (tpm): limit 6000, requested 20000", budgetExceeded},
		{"on tokens per min (tpm): limit 30000, used 29000, requested 2000", budgetFits},
		{"on tokens per day (tpd): limit 1,000,000, requested 1,000,001", budgetExceeded},
		{"tokens per minute: limit: 6000, requested: 6000", budgetFits},
		{"rate limit reached on tokens per minute: limit 100, requested 101", budgetExceeded},
		{"tokens per minute: requested 20000, limit 6000", budgetExceeded},
		{"tokens per minute: limit 6000", budgetUnstated},
		{"tokens per minute: limit unknown, requested 5", budgetUnstated},
		{"requests per day: limit 1, requested 2", budgetUnstated},
		{"tokens per minute: limit 99999999999999999999999, requested 1", budgetFits},
	} {
		text := []byte(tc.text)
		set := classifyLex.m.scan(text)
		if got := budgetOf(text, &set); got != tc.want {
			t.Errorf("budgetOf(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// TestNeedleMatcher compares the one-pass matcher with strings.Contains over every needle.
func TestNeedleMatcher(t *testing.T) {
	m := &classifyLex.m
	texts := []string{
		"", "a", "abc", "rate limit", "xrate limitx", "prompt is too long: 5 > 4",
		"time" + "out", "tokens per tokens per ", "\xff\xfe rate_limit \x80",
		strings.Repeat("internal error ", 20), "resource_exhausted googleapis.com perday",
	}
	for _, n := range m.needles {
		texts = append(texts, n, "x"+n, n+"x", n[:len(n)-1])
	}
	for _, text := range texts {
		set := m.scan([]byte(text))
		for i, n := range m.needles {
			if got, want := set.has(needle(i)), strings.Contains(text, n); got != want {
				t.Errorf("scan(%q) has %q = %t, want %t", text, n, got, want)
			}
		}
	}
}
