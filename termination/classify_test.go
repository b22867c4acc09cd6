package termination

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// clsFixture is one body of testdata/classify/bodies.txt: the benchmark and fuzz seed inputs.
type clsFixture struct {
	name, provider string
	status         int
	body           string
}

func clsReadFixtures(t testing.TB) []clsFixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "classify", "bodies.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []clsFixture
	var body []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].body = strings.Join(body, "\n")
		}
		body = nil
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --"))
			if len(f) != 3 {
				t.Fatalf("bad section header %q", line)
			}
			status, err := strconv.Atoi(f[2])
			if err != nil {
				t.Fatalf("bad status in %q: %v", line, err)
			}
			out = append(out, clsFixture{name: f[0], provider: f[1], status: status})
			continue
		}
		if len(out) > 0 {
			body = append(body, line)
		}
	}
	flush()
	return out
}

// TestHostileGoErrorText: the text of a Go error that is not the provider's is never read.
// Through Classify (and so through Decide, which calls it), a test name, a file path, a
// certificate message written as text and a JSON decoder's field name are unknown; only
// typed evidence decides.
func TestHostileGoErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Category
	}{
		{"test name", fmt.Errorf("run: %w", errors.New("go test: FAIL TestRateLimit (0.01s)")), Unknown},
		{"file path", fmt.Errorf("read config: %w", errors.New("open /srv/keys/forbidden-unauthorized.txt: permission denied")), Unknown},
		{"x509 as text", errors.New("x509: certificate signed by unknown authority"), Unknown},
		{"json field", fmt.Errorf("decode: %w", errors.New("json: cannot unmarshal string into Go struct field Config.timeout of type int")), Unknown},
		{"overflow words", errors.New("prompt is too long: 210000 tokens > 200000 maximum"), Unknown},
		{"typed path error", &os.PathError{Op: "open", Path: "/tmp/rate-limit.txt", Err: os.ErrPermission}, Unknown},
		{"typed x509", fmt.Errorf("post: %w", x509.UnknownAuthorityError{}), AuthFailed},
		{"typed errno under text", fmt.Errorf("go test: FAIL TestTimeout: %w", syscall.ECONNRESET), NetworkError},
		{"provider text beside hostile text", errors.Join(errors.New("go test: FAIL TestRateLimit"), &APIError{Status: 400, Message: "bad param"}), InvalidRequest},
	}
	for _, tc := range tests {
		if got := Classify(tc.err); got.Category != tc.want {
			t.Errorf("%s: Classify = %+v, want %s", tc.name, got, tc.want)
		}
	}
}

// TestClassifyTyped: typed Go errors are read by type or identity.
func TestClassifyTyped(t *testing.T) {
	endpoint := "https://api.example.com/v1"
	tests := []struct {
		name   string
		err    error
		want   Category
		detail string
	}{
		{"nil", nil, Unknown, ""},
		{"overflow sentinel", fmt.Errorf("%w: 9 > 8", ErrContextOverflow), ContextOverflow, "termination.ErrContextOverflow"},
		{"canceled", fmt.Errorf("turn: %w", context.Canceled), Cancelled, "context.Canceled"},
		{"deadline", &url.Error{Op: "Post", URL: endpoint, Err: context.DeadlineExceeded}, Timeout, "context.DeadlineExceeded"},
		{"os deadline", os.ErrDeadlineExceeded, Timeout, "os.ErrDeadlineExceeded"},
		{"etimedout", os.NewSyscallError("connect", syscall.ETIMEDOUT), Timeout, "syscall.ETIMEDOUT"},
		{"refused", &url.Error{Op: "Post", URL: endpoint, Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, NetworkError, "syscall.ECONNREFUSED"},
		{"dns", &net.DNSError{Err: "no such host", Name: "api.example.com"}, NetworkError, "*net.DNSError"},
		{"op error", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("x")}, NetworkError, "*net.OpError"},
		{"unexpected eof", fmt.Errorf("body: %w", io.ErrUnexpectedEOF), NetworkError, "io.ErrUnexpectedEOF"},
		{"eof in url error", &url.Error{Op: "Post", URL: endpoint, Err: io.EOF}, NetworkError, "io.EOF"},
		{"bare eof", io.EOF, Unknown, ""},
		{"cert verification", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, AuthFailed, "x509.UnknownAuthorityError"},
		{"hostname", x509.HostnameError{Host: "x"}, AuthFailed, "x509.HostnameError"},
		{"tls alert", tls.AlertError(40), NetworkError, "tls.AlertError"},
		{"typed nil", (*APIError)(nil), Unknown, ""},
	}
	for _, tc := range tests {
		got := Classify(tc.err)
		if got.Category != tc.want || got.Detail != tc.detail {
			t.Errorf("%s: Classify = %+v, want %s detail %q", tc.name, got, tc.want, tc.detail)
		}
	}
}

// TestClassifyCommitted: a committed reason is returned as it is; one without a category is
// passed over; an unknown category reads as unknown.
func TestClassifyCommitted(t *testing.T) {
	api := &APIError{Status: 429}
	err := Attach(api, New(SiteModelCall, SourceException, Classification{Category: AuthFailed, Detail: "x"}))
	if got := Classify(err); got.Category != AuthFailed || got.Detail != "x" {
		t.Errorf("committed: %+v", got)
	}
	parked := Replace(api, Reason{Site: SiteTurnError})
	if _, ok := ReasonOf(parked); ok {
		t.Error("ReasonOf reports a reason with no category")
	}
	if got := Classify(parked); got.Category != RateLimited {
		t.Errorf("parked: %+v", got)
	}
	inner := Attach(api, Control(SiteSupervisor, Timeout))
	outerParked := Replace(fmt.Errorf("w: %w", inner), Reason{Site: SiteTurnError})
	if r, ok := ReasonOf(outerParked); !ok || r.Category != Timeout {
		t.Errorf("ReasonOf past a parked reason = %+v %t", r, ok)
	}
}

// TestClassifyStatus: the status decides when no stronger evidence does.
func TestClassifyStatus(t *testing.T) {
	tests := []struct {
		status int
		want   Category
	}{
		{429, RateLimited}, {401, AuthFailed}, {403, AuthFailed}, {402, AuthFailed}, {404, InvalidRequest},
		{408, Timeout}, {504, Timeout}, {524, Timeout}, {499, Cancelled}, {413, ContextOverflow},
		{500, ProviderError}, {502, ProviderError}, {503, ProviderError}, {529, ProviderError},
		{400, InvalidRequest}, {422, InvalidRequest}, {0, Unknown},
	}
	for _, tc := range tests {
		got := Classify(&APIError{Provider: "p", Status: tc.status})
		if got.Category != tc.want || got.Provider != "p" {
			t.Errorf("status %d: %+v, want %s", tc.status, got, tc.want)
		}
		if tc.status != 0 && got.Detail != strconv.Itoa(tc.status) {
			t.Errorf("status %d: detail %q", tc.status, got.Detail)
		}
	}
}

// TestClassifyHardCases: the documented decisions on evidence that points two ways.
func TestClassifyHardCases(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		status   int
		body     string
		want     Category
	}{
		{"tpm request fits: rate", "openai", 429, `{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 25000, Requested 8000. Please try again in 6s.","type":"tokens","code":"rate_limit_exceeded"}}`, RateLimited},
		{"tpm request larger than limit: overflow", "groq", 413, `{"error":{"message":"Request too large for model on tokens per minute (TPM): Limit 6000, Requested 20000, please reduce your message size and try again.","type":"tokens","code":"rate_limit_exceeded"}}`, ContextOverflow},
		{"gemini per-minute quota: rate", "google", 429, `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"45s"}]}}`, RateLimited},
		{"gemini per-day quota: billing", "google", 429, `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}`, AuthFailed},
		{"openai insufficient quota: billing", "openai", 429, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`, AuthFailed},
		{"output cap alone: invalid", "openai", 400, `{"error":{"message":"max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.","type":"invalid_request_error"}}`, InvalidRequest},
		{"context deadline is not a window", "ollama", 500, `{"error":"context deadline exceeded"}`, Timeout},
		{"model not found 404", "openai", 404, `{"error":{"message":"The model 'gpt-9' does not exist or you do not have access to it.","code":"model_not_found"}}`, InvalidRequest},
		{"ollama pull", "ollama", 0, `{"error":"model \"llama9\" not found, try pulling it first"}`, InvalidRequest},
		{"moderation 403", "openrouter", 403, `{"error":{"message":"Input flagged by moderation","code":403}}`, ContentRefusal},
		{"non-English filter", "zhipu", 400, `{"error":{"code":"1301","message":"系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语"}}`, ContentRefusal},
		{"sdk connection error, no status", "litellm", 0, `litellm.InternalServerError: Connection error.`, NetworkError},
		{"gateway 503 speaking of the transport", "anthropic", 503, `upstream connect error or disconnect/reset before headers. reset reason: connection failure`, ProviderError},
		{"anthropic overloaded in a stream", "anthropic", 200, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, ProviderError},
		{"tls trust as provider text", "openai", 0, `[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate in certificate chain`, AuthFailed},
		{"abort as text", "", 0, `AbortError: This operation was aborted`, Cancelled},
		{"transport as text", "", 0, `Error: socket hang up`, NetworkError},
		{"stream cut", "", 0, `peer closed connection without sending complete message body (incomplete chunked read)`, StreamCut},
		// A hedge's guess is no evidence; a rule stated with "may not" is no hedge.
		{"hedged overflow is no overflow", "", 0, `Request failed. Check the server log to see if the context window was exceeded.`, Unknown},
		{"the same, reported", "", 0, `Request failed: the context window was exceeded.`, ContextOverflow},
		{"hedged block is no block", "", 0, `No candidates came back; look at the feedback to see whether the prompt was blocked.`, EmptyResponse},
		{"may not exceed is a rule", "acme", 400, `{"error":{"message":"The prompt may not exceed the maximum of 8192 tokens; got 9100."}}`, ContextOverflow},
		// "possible", "probably" and "either" guess; advice ("check your", "make sure") names a
		// thing to look at, not what failed. "not possible to" and "as soon as possible" state.
		{"a possible cause in brackets is a guess", "", 0, `The model returned an empty response (possible throttling)`, EmptyResponse},
		{"probably is a guess", "", 0, `The stream produced no output chunks; probably a rate limit upstream.`, EmptyResponse},
		{"either lists guesses", "", 0, `Generation stopped: it was either filtered for safety or cancelled.`, Unknown},
		{"advice alone names nothing", "", 0, `Request failed. Please make sure your account has a valid API key and billing set up.`, Unknown},
		{"advice after a report", "", 0, `Invalid API key provided. Please check your API key in the settings.`, AuthFailed},
		{"not possible to states a rule", "", 0, `It is not possible to process a prompt of 200000 tokens, which exceeds the maximum context length of 128000 tokens.`, ContextOverflow},
		// A stream that broke off is cut, even in an interrupt's or a cancel's words, unless a
		// user is named; the output cap named as the failure, and JSON cut inside a string, are
		// truncations; a model unloaded is the serving side's.
		{"stream dropped", "", 0, `upstream: SSE stream dropped before message_stop`, StreamCut},
		{"stream interrupted on EOF", "", 0, `generation stream interrupted: unexpected EOF after 312 tokens`, StreamCut},
		{"a user's cancel with the stream closed", "", 0, `The user cancelled the request; stream closed.`, Cancelled},
		{"stopped by the user", "", 0, `Task was stopped by the user before it finished.`, Cancelled},
		{"the cap as the failure", "", 0, `Generation ended with MAX_TOKENS before the JSON was complete`, OutputTruncated},
		{"JSON cut inside a string", "", 0, `json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 4021 (char 4020)`, OutputTruncated},
		{"a stream break in Chinese", "", 0, `请求失败：流中断`, StreamCut},
		{"model unloaded under an authenticator's log prefix", "", 0, `[Authenticator] prediction failed: the model was unloaded while generating`, ProviderError},
		// A connection that broke after the reply's 200 OK cut its body; before any reply, it is
		// the transport's.
		{"reset after 200 OK", "", 0, "INFO httpx: HTTP Request: POST https://api.example.com/v1/messages \"HTTP/1.1 200 OK\"\nhttpcore.ReadError: [Errno 104] Connection reset by peer", StreamCut},
		{"reset before any reply", "", 0, "httpcore.ConnectError: [Errno 104] Connection reset by peer", NetworkError},
		// The seventeenth batch: agent caps, a harness's loop guard, Russian, a reply that was
		// bad (not the request), a botched generation, 501.
		{"agent stopped on its step cap", "", 0, `AgentExecutor stopped due to max iterations (10).`, RecursionLimit},
		{"tool call iterations exceeded", "", 0, `FAILED_PRECONDITION: Exceeded maximum tool call iterations (8)`, RecursionLimit},
		{"a harness's loop guard", "", 0, `Potential loop detected; stopping the agent.`, ToolLoopGuard},
		{"a redirect loop is no guard", "", 0, `Redirect loop detected for https://api.example.com/v1`, Unknown},
		{"Russian timeout", "", 0, `Ошибка: истекло время ожидания ответа`, Timeout},
		{"Russian tokens ran out", "", 0, `Закончились токены для модели GigaChat-Pro`, AuthFailed},
		{"a bad reply is no bad request", "", 0, `Invalid response from the model: could not find a tool call`, Unknown},
		{"a bad request stays one", "", 0, `Invalid request: field 'messages' is required`, InvalidRequest},
		{"a botched function call", "", 0, `generation ended with a malformed function call`, ProviderError},
		{"Russian internal error", "", 0, `Внутренняя ошибка сервиса, повторите запрос позже`, ProviderError},
		{"gRPC unimplemented behind a 500", "", 500, `{"error":{"code":500,"message":"rpc error: code = Unimplemented desc = method Embed not implemented"}}`, InvalidRequest},
		{"501", "", 501, `{"error":{"message":"Not Implemented"}}`, InvalidRequest},
		{"the cap as the cause of an empty reply", "", 0, `Stream ended due to MAX_TOKENS with empty response text.`, OutputTruncated},
		{"a reply without content", "", 0, `Streamed response ended without content.`, EmptyResponse},
		{"an input that was never given", "", 0, `No message history or system prompt provided.`, InvalidRequest},
		{"an output that was never given", "", 0, `Error: No content provided`, EmptyResponse},
		// The eighteenth batch: an app's "try again later" names nothing; a stream closed before
		// its end is cut; Responses' terminal events; empty replies in more words; Chinese and
		// Russian transport, timeout and load words; a result cut at its channel's cap.
		{"try again later alone", "", 0, `Oops! Something broke on our side, please try again later.`, Unknown},
		{"try again later with a server error", "", 0, `The server had an error processing your request; try again later.`, ProviderError},
		{"closed mid-response", "", 0, `Upstream closed mid-response; output may be partial.`, StreamCut},
		{"closed before the terminal event", "", 0, `SSE connection closed before the terminal message_stop event`, StreamCut},
		{"ended on response.failed", "", 0, "stream ended with terminal event `response.failed` (model error)", ProviderError},
		{"ended on response.incomplete", "", 0, "stream ended with terminal event `response.incomplete`", Unknown},
		{"no messages back", "", 0, `No messages returned by the assistant thread`, EmptyResponse},
		{"completed without valid content", "", 0, `The generation completed without valid content.`, EmptyResponse},
		{"a Chinese connection break", "", 0, `请求失败：连接中断`, NetworkError},
		{"a Russian server that does not answer", "", 0, `Модель не отвечает, попробуйте позже`, Timeout},
		{"a Russian overload", "", 0, `Сервер перегружен, повторите позже`, ProviderError},
		{"a result cut at its cap", "", 0, `[tool result truncated at 20000 characters]`, OutputTruncated},
		// A model's quoted name is a name: its parts are no words of the error; a quoted
		// parameter is still read.
		{"a model named abort", "", 0, `{"detail":"The 'acme-abort-guard-max' model is not supported when using this account."}`, InvalidRequest},
		{"a model named with moderation", "", 0, `model "text-moderation-stable" does not exist`, InvalidRequest},
		{"a quoted parameter before model", "", 0, "Increase the `max_tokens` model setting: the reply ran out of room.", OutputTruncated},
		// The nineteenth batch: a tool that failed the turn; a stuck-in-a-loop detector; an
		// idle stream timer; an authorization failure behind advice; a plan's usage limit
		// that resets in hours; an organization not yet verified.
		{"a tool failed the turn", "", 0, `agent loop aborted: MCP tool execution failed: connection closed`, ToolError},
		{"an agent stuck in a loop", "", 0, `StuckDetector: the agent is stuck in a loop, stopping.`, ToolLoopGuard},
		{"the iteration cap, singular", "", 0, `Agent reached maximum iteration (100)`, RecursionLimit},
		{"an idle stream timer", "", 0, `stream stalled for 120s with no chunk`, Timeout},
		{"authorization failed behind advice", "", 0, `Authorization failed. Please check your token and try again.`, AuthFailed},
		{"a plan's usage limit that resets", "", 0, `Usage limit reached for your plan. It resets at 18:00 UTC.`, AuthFailed},
		{"a per-minute usage limit stays a rate", "", 0, `Usage limit reached: 60 requests per minute; it resets in 20s.`, RateLimited},
		{"an organization to verify", "", 0, `Your organization must be verified to use the model o3.`, AuthFailed},
		// The twentieth batch: an MCP tool's failure, even a timeout, is the tool's; a printed
		// finish_reason is the provider's own word; an agent that stopped without an answer;
		// an agent's run that terminated is no cut stream.
		{"an MCP tool that timed out", "", 0, `Error calling tool search: MCP error -32001: Request timed out`, ToolError},
		{"a plain timeout stays one", "", 0, `Request timed out after 60s`, Timeout},
		{"a printed length finish beside a refusal word", "", 0, `stream terminated with finish_reason='length' and produced no text, tool call, or refusal`, OutputTruncated},
		{"a printed error finish", "", 0, `the reply came back with finish_reason 'error' after 40 tokens`, ProviderError},
		{"an agent that stopped without an answer", "", 0, `The assistant stopped without producing a response.`, EmptyResponse},
		{"an agent's run terminated", "", 0, `Agent execution terminated due to error`, Unknown},
		// An agent loop that used up its turns is a recursion limit; the cap named alone is a setting.
		{"turns used up", "", 0, `AgentRunError: the agent hit its maximum number of steps (50) before finishing`, RecursionLimit},
		{"turn cap exceeded", "", 0, `Maximum turns exceeded: 30`, RecursionLimit},
		{"turn cap as a setting", "", 400, `max_steps must be between 1 and 100`, InvalidRequest},
		{"as soon as possible is no guess", "", 0, `Rate limit exceeded: slow down as soon as possible, too many requests per minute.`, RateLimited},
		// Names of things are no evidence: a validator's name, rate-limit reports.
		{"input validation of the output cap", "tgi", 422, "Input validation error: `max_new_tokens` must be <= 2048. Given: 4096", InvalidRequest},
		{"input validation of the input", "tgi", 422, "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 8000 `inputs` tokens and 500 `max_new_tokens`", ContextOverflow},
		{"a rate-limit header is no rate limit", "", 0, `request failed with an unexpected response; headers: x-ratelimit-remaining-requests=499`, Unknown},
		// EOF: the transport's, unless a schema validator met it in the model's JSON.
		{"schema validator at EOF", "openai", 0, "1 validation error for Answer\n  Invalid JSON: EOF while parsing an object at line 1 column 80 [type=json_invalid]", OutputTruncated},
		{"bare EOF", "", 0, `Post "https://api.example.com/v1/chat": unexpected EOF`, NetworkError},
		// A reply with nothing in it, and one with a tool call.
		{"empty ollama generate reply", "ollama", 200, `{"model":"llama3","response":"","done":true}`, EmptyResponse},
		{"empty openai choice", "acme", 200, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`, EmptyResponse},
		{"a tool call is not empty", "acme", 200, `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, Unknown},
		// A wrong model beats a 5xx; an overloaded model does not.
		{"wrong model as 503", "acme", 503, `{"error":{"message":"Invalid model: gpt-x does not exist"}}`, InvalidRequest},
		{"overloaded model as 503", "acme", 503, `{"error":{"message":"The model is overloaded, please try later"}}`, ProviderError},
		{"role alternation, no status", "", 0, `Conversation roles must alternate user/assistant/user/assistant`, InvalidRequest},
		// A hedge lasts to the end of its sentence, not further.
		{"hedge ends with its sentence", "", 0, `If this keeps happening, contact support. The prompt is too long: 9000 tokens, maximum 8192.`, ContextOverflow},
		{"long hedge", "", 0, `Model load failed: the server is overloaded. If you think this is wrong you can lower the loading safety guardrails in the settings panel.`, ProviderError},
		// A cap stated as a requirement on the input; the same on the output alone is a parameter.
		{"input must have less than", "acme", 400, `{"error":{"message":"prompt must have less than 4096 tokens, got 5000"}}`, ContextOverflow},
		{"output must be less than", "acme", 400, `{"error":{"message":"max_tokens must be less than 4096"}}`, InvalidRequest},
		// The reply cut off against the output cap; the output cap as a rejected parameter.
		{"reply truncated", "", 0, `warning: the reply was truncated at the max_tokens limit`, OutputTruncated},
		{"reply over the output maximum", "", 0, `The model's response exceeded the 4096 output token maximum.`, OutputTruncated},
		{"input truncated is no output cut", "", 0, `note: input was truncated to fit`, Unknown},
		// Billing in Chinese; a per-minute rate that suggests a paid plan is still a rate.
		{"balance insufficient in Chinese", "acme", 429, `{"error":{"message":"账户余额不足，请充值"}}`, AuthFailed},
		{"per-minute rate with an upgrade pitch", "acme", 0, `You have been rate limited: 10 requests per minute. Upgrade to a paid plan for more.`, RateLimited},
		{"qps", "", 0, `request limit reached: 5 qps`, RateLimited},
		// A server's own lack is its fault, not the caller's abort.
		{"aborted for lack of resources", "", 0, `Model load aborted: insufficient system resources`, ProviderError},
		{"model still loading", "acme", 0, `{"error":"Model acme/tiny is currently loading","estimated_time":12.0}`, ProviderError},
		{"engine exit code", "", 0, `Error loading model. (Exit code: 3)`, ProviderError},
		// Streams reset or cut mid-read; a protocol error sending the request.
		{"http2 stream reset", "", 0, `stream was reset: INTERNAL_ERROR while reading the body`, StreamCut},
		{"eof while streaming", "", 0, `streaming error: unexpected EOF`, StreamCut},
		{"protocol error", "", 0, `client error (SendRequest): http2 error: connection error detected: protocol error`, NetworkError},
		{"timer took longer", "", 0, `The connection took longer than 0:00:30. It was aborted.`, Timeout},
		// What was asked for does not exist; a refused connection is no refusal.
		{"endpoint not found", "acme", 0, `{"status":"Deployment endpoint not found"}`, InvalidRequest},
		{"proxy page, connection refused", "", 0, `<p>The system returned: (111) Connection refused</p>`, NetworkError},
		{"bare auth", "", 0, `AuthError: no auth for app 12`, AuthFailed},
		// An empty one-field reply; a client saying nothing came.
		{"empty text reply", "acme", 200, `{"text":""}`, EmptyResponse},
		{"no reply produced", "", 0, `Sorry, the assistant did not produce a reply.`, EmptyResponse},
		{"safety ratings is a field's name", "google", 0, `no part was returned, but none was returned as text; see safety_ratings`, EmptyResponse},
		// The body's own status words: a reason phrase relayed by a gateway, a serving state.
		{"gateway relays the upstream's phrase", "acme", 502, `{"message":"Bad Request","code":"upstream_error"}`, InvalidRequest},
		{"a phrase of the same class changes nothing", "acme", 502, `{"message":"Service Unavailable"}`, ProviderError},
		{"degraded deployment as 400", "acme", 400, `{"detail":"the deployment is degraded and cannot serve requests"}`, ProviderError},
		{"a parameter named overload is no state", "acme", 400, `{"error":{"message":"unknown parameter overload_mode"}}`, InvalidRequest},
		// Second batch: a cancel for a timeout is the timeout's; the serving side's state beats a
		// 429 and a client's rate gloss; safety guidelines beat a 403; engine deaths.
		{"cancel for a timeout", "", 0, `TaskCanceledException: The request was canceled because the client timeout of 30 seconds elapsed.`, Timeout},
		{"plain cancel", "", 0, `TaskCanceledException: A task was canceled.`, Cancelled},
		{"overloaded as 429", "acme", 429, `{"error":{"message":"The engine is currently overloaded, please try again later"}}`, ProviderError},
		{"out of capacity", "", 0, `RESOURCE_EXHAUSTED: the service is temporarily out of capacity`, ProviderError},
		{"ordinary 429 stays a rate", "acme", 429, `{"error":{"message":"Too many requests, slow down"}}`, RateLimited},
		{"guidelines as 403", "acme", 403, `{"error":"Content violates usage guidelines."}`, ContentRefusal},
		{"engine dead", "", 0, `AsyncEngineDeadError: Background loop has stopped.`, ProviderError},
		{"load canceled is the server's", "acme", 400, `Failed to load model "x". Error: Operation canceled.`, ProviderError},
		// Stack frames name code; "to process" is a verb.
		{"frames are no words", "", 0, "TypeError: terminated\n    at Fetch.onAborted (node:internal/deps/undici/undici:1:1)\n    at Object.cancel (x.js:2:3)", StreamCut},
		{"failed to process, then cut", "", 0, `Failed to process the response: premature close`, StreamCut},
		// A stop token printed as text; a stream's chunk is no finished reply.
		{"printed blocklist", "google", 0, "candidates {\n  finish_reason: BLOCKLIST\n}", ContentRefusal},
		{"printed max tokens", "", 0, `generation ended: finishReason=MAX_TOKENS`, OutputTruncated},
		{"a chunk is not empty", "acme", 200, `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`, Unknown},
		// Empty replies in other words.
		{"returned an empty", "", 0, `the model returned an empty message after 3 tries`, EmptyResponse},
		{"missing from the response", "", 0, `text part missing from the model's response`, EmptyResponse},
		{"missing in the request is no empty reply", "acme", 400, `{"error":{"message":"messages[0]: missing field content"}}`, InvalidRequest},
		{"empty in Chinese", "", 0, `模型返回了空响应`, EmptyResponse},
		{"saturated in Chinese", "", 0, `上游负载已饱和，请稍后再试`, ProviderError},
		// A body that did not parse says nothing of why (err-0680's relabel, the decoding-error decision).
		{"json input cut", "", 0, `invalid json response body reason: Unexpected end of JSON input`, Unknown},
		// Third batch: transport and cuts in other stacks' words.
		{"curl transfer closed", "", 0, `curl: (18) transfer closed with 1024 bytes remaining to read`, StreamCut},
		{"okhttp end of stream on a route", "", 0, `java.io.IOException: unexpected end of stream on http://localhost:8080/...`, NetworkError},
		{"end of stream mid-body", "", 0, `unexpected end of stream while reading the body`, StreamCut},
		{"elixir transport error", "", 0, `%Mint.TransportError{reason: :closed}`, NetworkError},
		{"body decode failed", "", 0, `Stream error: error decoding response body`, StreamCut},
		{"idle timeout, nothing received", "", 0, `stream idle timeout after 60000ms`, Timeout},
		{"idle timeout, partial received", "", 0, `Stream idle timeout - partial response received`, StreamCut},
		{"status before an html page", "", 0, `request failed after 2 attempts: 504 <!DOCTYPE html><html><title>ERROR</title></html>`, Timeout},
		// Output caps and empty replies in other words.
		{"output incomplete", "", 0, `The output is incomplete because it hit the max_tokens limit.`, OutputTruncated},
		{"finished due to length", "", 0, `This reply finished due to length.`, OutputTruncated},
		{"output cap in Chinese", "", 0, `已达到输出 token 上限`, OutputTruncated},
		{"timeout in Chinese", "", 0, `API调用失败: 请求超时 (30s)`, Timeout},
		{"google quota_limit_value 0", "google", 429, `{"error":{"code":429,"message":"Quota exceeded for quota metric 'requests per minute'","status":"RESOURCE_EXHAUSTED","details":[{"reason":"RATE_LIMIT_EXCEEDED","metadata":{"quota_limit_value":"0"}}]}}`, AuthFailed},
		{"unable to process", "", 0, `The service is unable to process your request right now.`, ProviderError},
		{"timeout waiting on a rate limiter", "", 0, `TimeoutError: Timeout (2.0 secs): rate limit for key: client-a`, RateLimited},
		{"envelope keys in a message are no words", "acme", 400, `Error: {"type":"invalid_request_error","message":"max_tokens must be at most 8192"}`, InvalidRequest},
		// Fourth batch.
		{"reqwest send failed", "", 0, `error sending request for url (http://localhost:8080/v1/chat)`, NetworkError},
		{"no assistant messages", "", 0, `The model did not provide any assistant messages.`, EmptyResponse},
		{"go's 404 page", "", 0, `OpenAIException - 404 page not found`, InvalidRequest},
		{"stream cut by a rate limit", "", 0, `stream disconnected before completion: Rate limit is exceeded. Try again in 5 seconds.`, RateLimited},
		{"stream cut, no rate", "", 0, `stream disconnected before completion`, StreamCut},
		{"requested entity not found", "google", 0, `Requested entity was not found.`, InvalidRequest},
		{"interrupted by a server error", "", 0, `Response was interrupted due to a server error.`, ProviderError},
		{"interrupted by the user", "", 0, `Response was interrupted by the user.`, Cancelled},
		// A body quoted in an SDK's message: its keys are no words.
		{"keys of a quoted body are no words", "anthropic", 400, `API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 9000 > 8192, the maximum allowed number of output tokens"}}`, InvalidRequest},
		// Fifth pass, over the fourth batch's misses (the texts are written here, not copied).
		{"a busy model is the serving side's state", "acme", 429, `{"error":{"message":"Model is busy, please retry later"}}`, ProviderError},
		{"a busy session is no serving state", "acme", 400, `{"error":{"message":"Session 42 is busy"}}`, InvalidRequest},
		{"no servers left to run it", "acme", 429, `{"error":{"message":"No servers available to handle the request"}}`, ProviderError},
		{"an SSE error event under a key of its own", "anthropic", 200, `{"raw_data":"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"}`, ProviderError},
		{"a message under a key of its own", "acme", 200, `{"error-message":"Connection reset by peer"}`, NetworkError},
		{"a reply's own strings are no message", "acme", 200, `{"id":"x1","object":"chat.completion","choices":[{"message":{"role":"assistant","content":"hi"}}]}`, Unknown},
		{"a retry wrapper's last exception is the cause", "google", 0, `RetryError: Deadline of 30.0s exceeded while calling target function, last exception: 401 invalid_grant: Token has been expired or revoked.`, AuthFailed},
		{"a retry wrapper with no cause is its deadline", "google", 0, `RetryError: Deadline of 30.0s exceeded while calling target function`, Timeout},
		{"424 names no failure", "acme", 424, `Failed Dependency`, Unknown},
		{"424 with the upstream's words", "acme", 424, `{"error":{"message":"upstream request timed out"}}`, Timeout},
		{"a quota reset hours away is a spent budget", "acme", 429, `{"error":{"message":"Usage quota reached. Your quota resets in 5 hours."}}`, AuthFailed},
		{"a quota reset seconds away is a rate", "acme", 429, `{"error":{"message":"Usage quota reached. Your quota resets in 30 seconds."}}`, RateLimited},
		{"no model chosen", "", 0, `Error: no model selected in the settings`, InvalidRequest},
		{"raise the output cap: truncated", "acme", 0, `Token limit hit before the answer was complete; increase the max_tokens setting or shorten the prompt.`, OutputTruncated},
		{"an event stream's exception header", "bedrock", 0, `Bad response: {'status_code': 400, 'headers': {':exception-type': 'throttlingException'}, 'body': b'{"message":"Too many tokens, please wait"}'}`, RateLimited},
		{"a stated wait and nothing else", "", 0, `Nothing could take the request. Try again in 20 seconds.`, RateLimited},
		{"a stream that stopped arriving", "", 0, `The stream stopped arriving before the reply was done.`, StreamCut},
		{"a timer waiting for the first event", "", 0, `stream disconnected before completion: timed out waiting for the first event`, Timeout},
		{"an idle stream after data", "", 0, `stream disconnected before completion: idle timeout after 40 chunks`, StreamCut},
		{"the model gave nothing", "", 0, `Assistant returned no reply.`, EmptyResponse},
		{"the model gave nothing in time", "", 0, `Model did not respond within 30 seconds.`, Timeout},
		{"a stream that ended with nothing", "", 0, `The stream ended with empty content.`, EmptyResponse},
		{"a stream that ended without its finish", "", 0, `The stream ended without a finish event.`, StreamCut},
		{"java's interrupted i/o names no cancel", "openai", 0, `java.io.InterruptedIOException: executor rejected`, Unknown},
		{"java's interrupted i/o on a timeout", "openai", 0, `java.io.InterruptedIOException: timeout`, Timeout},
		// Fifth held-out batch's misses.
		{"nothing was charged is no billing", "acme", 0, `The agent hit an internal error. No credits consumed.`, ProviderError},
		{"credits ran out is billing", "acme", 0, `No credits left on this account.`, AuthFailed},
		{"the caller went away", "", 0, `Error creating stream: client connection prematurely closed`, Cancelled},
		{"a client socket closed before TLS is the network's", "", 0, `Client network socket disconnected before secure TLS connection was established`, NetworkError},
		{"rejected credentials behind a gateway's 502", "acme", 502, `upstream rejected the gateway's API key`, AuthFailed},
		{"a 5xx naming credentials it did not reject", "acme", 500, `internal error while loading credentials`, ProviderError},
		{"a 400 the client answered by aborting", "bedrock", 400, `aborting request: The maximum tokens you requested exceeds the model limit of 4096.`, InvalidRequest},
		{"a request signature that did not verify", "acme", 0, `Invalid signature in request header`, AuthFailed},
		{"a software invariant broken on the server", "acme", 0, `worker: task ended. This should never happen!`, ProviderError},
		{"an account ended names no refusal", "acme", 403, `{"error":{"message":"Access terminated for violating our usage policies.","type":"access_terminated_error"}}`, AuthFailed},
		{"a reply that could not be parsed is not empty", "", 0, `No object generated: could not parse the response.`, Unknown},
		{"an input count under its cap is no overflow", "", 0, `Token limit hit. Input tokens: 5000 of 128000. Output tokens: 4096 of 4096.`, OutputTruncated},
		{"an input count over its cap is an overflow", "", 0, `Token limit exceeded. Input tokens: 130000 of 128000.`, ContextOverflow},
		{"a payload not completed", "", 0, `ClientPayloadError: Response payload is not completed`, StreamCut},
		{"no candidate at all", "google", 0, `Expected at least one candidate in the response`, EmptyResponse},
		{"a deadline parameter below its minimum", "google", 0, `Deadline 2s is too short. Minimum allowed deadline is 10s.`, InvalidRequest},
		{"a resolver that timed out is a lookup failure", "", 0, `UnknownHostException: failed to resolve 'api.example.com': DNS query timed out after 5000 ms`, NetworkError},
		{"no usable output", "", 0, `The provider ended the reply before returning usable output.`, EmptyResponse},
		// Sixth held-out batch's misses.
		{"high demand is the serving side's load", "", 0, `We are experiencing high demand right now. Please try again soon.`, ProviderError},
		{"high demand under a rate limit's code", "acme", 429, `{"error":{"message":"High demand: your request exceeds the usage allowed at peak.","code":"RATE_LIMITED"}}`, RateLimited},
		{"the caller blocked at the door", "acme", 403, `Sorry, you have been blocked. You are unable to access this site. The action you performed triggered the security solution.`, AuthFailed},
		{"only supports", "", 0, `Failed to configure: this provider only supports chat models, found: embed-1.`, InvalidRequest},
		{"guessed causes are no evidence", "", 0, `The model returned an empty response. This usually means the model is overloaded or the key lacks credits.`, EmptyResponse},
		{"a response that was empty", "", 0, `Response from the model was empty.`, EmptyResponse},
		{"empty and none", "", 0, `Returned candidates: none (empty).`, EmptyResponse},
		{"an exception class named in the text", "", 0, `An unexpected error happened. Error type: NotFoundError`, InvalidRequest},
		{"a request format wrong, in Chinese", "hunyuan", 0, `{"error":{"message":"请求参数错误","code":"4001"}}`, InvalidRequest},
		{"an API that returned no data", "", 0, `The API doesn't return any data.`, EmptyResponse},
		{"FastAPI's detail in a message", "", 0, `Exception on attempt 1: {"detail":"Not Found"}`, InvalidRequest},
		{"an error processing the request", "", 0, `Error in processing query`, ProviderError},
		{"an error processing an invalid request", "", 0, `Error processing request: invalid parameter 'n'`, InvalidRequest},
		{"a remedy of raising the output cap", "", 0, `The generation was not completed. Try increasing the max_tokens.`, OutputTruncated},
		{"a finish reason printed with a space", "", 0, `Unsuccessful Finish Reason: SAFETY`, ContentRefusal},
		{"a content block missing its text", "", 0, `failed: missing text in the content block`, EmptyResponse},
		// Seventh held-out batch's misses.
		{"a timing breakdown naming name resolution is no lookup failure", "google", 0, `Error: 4 DEADLINE_EXCEEDED: Deadline exceeded after 10.000s,name resolution: 0.100s`, Timeout},
		{"a disabled organization", "", 0, `This organization has been disabled`, AuthFailed},
		{"a token without the scope it needs", "", 0, `token does not meet scope requirement user:inference`, AuthFailed},
		{"a status after rejected", "", 0, `Request rejected (429)`, RateLimited},
		{"the generic 4xx type does not beat the serving state", "acme", 429, `{"error":{"message":"The model is currently loading, try again later.","type":"invalid_request_error"}}`, ProviderError},
		{"an invalid code beats the prose's state", "ark", 400, `{"error":{"code":"InvalidEndpoint.Closed","message":"The endpoint is closed or temporarily unavailable."}}`, InvalidRequest},
		{"a stream broken by a broken pipe", "", 0, `Token streaming was interrupted! [Errno 32] Broken pipe`, StreamCut},
		{"a reply with choices and none in it", "azure-openai", 200, `{"choices":[],"id":"","object":"","prompt_filter_results":[{"prompt_index":0}]}`, EmptyResponse},
		{"a reply with no text whose finish is the cap", "google", 200, `{"candidates":[{"content":{"role":"model"},"finishReason":"MAX_TOKENS"}]}`, OutputTruncated},
		{"a request's empty content block", "anthropic", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.0: text content blocks must be non-empty"}}`, InvalidRequest},
		// Eighth held-out batch's misses, and what each rule must leave alone.
		{"a prompt over-long, in Chinese", "zhipu", 0, `{"code":"1261","message":"Prompt 超长"}`, ContextOverflow},
		{"the context's length over its limit, in Chinese", "", 0, `上下文长度超过模型最大限制`, ContextOverflow},
		{"the output's cap reached, in Chinese, is no overflow", "", 0, `已达到单次输出的 token 上限`, OutputTruncated},
		{"a plan expired, in Chinese", "zhipu", 0, `{"code":"1309","message":"您的 GLM Coding Plan 套餐已到期,暂无法使用"}`, AuthFailed},
		{"an API taken offline, in Chinese", "zhipu", 0, `{"code":"1221","message":"API 已下线"}`, InvalidRequest},
		{"a plan without access to the model, in Chinese", "zhipu", 0, `{"code":"1311","message":"当前订阅套餐暂未开放该模型权限"}`, AuthFailed},
		{"an account locked, in Chinese", "zhipu", 0, `{"code":"1112","message":"您的账户已被锁定,请联系客服解锁"}`, AuthFailed},
		{"a parameter that must not be empty", "google", 0, `TypeError: contents must not be empty`, InvalidRequest},
		{"a request that must not be retried names no invalid field", "", 0, `The request must not be retried`, Unknown},
		{"a sensitive request", "huawei", 400, `Sensitive request error, please try again later!`, ContentRefusal},
		{"case-sensitive is no filter", "acme", 400, `{"error":{"message":"Header names are case sensitive: use Authorization"}}`, InvalidRequest},
		{"a usage quota spent", "tencent-cloudbase", 0, `{"code":"EXCEED_TOKEN_QUOTA_LIMIT","message":"Token usage exceeded quota limit."}`, AuthFailed},
		{"a per-minute quota is a rate", "acme", 0, `Token usage exceeded the quota of 40000 tokens per minute.`, RateLimited},
		{"Tencent Cloud's envelope", "hunyuan", 0, `{"Response":{"Error":{"Code":"AuthFailure.SignatureFailure","Message":"The provided credentials could not be validated."},"RequestId":"r1"}}`, AuthFailed},
		{"a failed Responses event's error", "openai", 0, `{"type":"response.failed","response":{"status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached."}}}`, RateLimited},
		{"an engine that could not load", "cortex", 0, `Model failed to start: Could not load engine llama-cpp`, ProviderError},
		{"Go's HTTP/2 stream reset by the peer", "openai", 0, `stream error: stream ID 53; INTERNAL_ERROR; received from peer`, StreamCut},
		{"an HTML page where JSON was expected, under a connection banner", "n8n", 0, `Unable to connect to the AI service (Unexpected token '<', "<!DOCTYPE "... is not valid JSON)`, Unknown},
		{"a stream's bytes that are not UTF-8", "", 0, `streaming error: invalid UTF-8 in SSE stream: incomplete utf-8 byte sequence from index 996`, Unknown},
		{"a connection refused is still the transport", "", 0, `Unable to connect to the AI service: connect ECONNREFUSED 127.0.0.1:8080`, NetworkError},
		{"a validator's field report beats a client's gloss of authentication", "nvidia-nim", 400, `Embedding provider authentication failed (400: "detail={'type': 'extra_forbidden', 'loc': ('body', 'dimensions'), 'msg': 'Extra inputs are not permitted'}"). Check the apiKey.`, InvalidRequest},
		{"an authentication failure with no field report", "nvidia-nim", 400, `Embedding provider authentication failed (400). Check the apiKey.`, AuthFailed},
		// Ninth held-out batch's misses, and what each rule must leave alone.
		{"a reply terminated with a timer as its stated cause", "", 0, `API Error: terminated (cause: Body Timeout Error)`, Timeout},
		{"a reply terminated under a code naming a timer", "openai", 0, `{"message":"terminated","code":"UND_ERR_BODY_TIMEOUT"}`, Timeout},
		{"a reply terminated with no timer named", "", 0, `API Error: terminated`, StreamCut},
		{"an idle timeout with a partial reply stays a cut", "anthropic", 0, `API Error: Stream idle timeout - partial response received`, StreamCut},
		{"a Mono frame naming a timeout is no timeout", "openai", 0, "WebException: The request was aborted: The request was canceled.\nSystem.Net.HttpWebRequest.RunWithTimeoutWorker[T] (System.Threading.Tasks.Task`1[TResult] workerTask, System.Int32 timeout) (at <d054a9182977441a>:0)", Cancelled},
		{"a line that only looks like a frame is read", "", 0, "Request failed\nRate limit reached (60 RPM) (at 12:00 UTC), retry later", RateLimited},
		{"a stream whose receiver was dropped", "tgi", 0, `ERROR router: Failed to send event. Receiver dropped.`, Cancelled},
		{"a connection that closed before any event came", "sourcegraph", 0, `Connection closed without receiving any events (this may be due to an outage upstream)`, EmptyResponse},
		{"a connection reset, no word of nothing coming", "", 0, `Connection closed: read ECONNRESET`, NetworkError},
		{"curl's exit code is the client's, not a model's process", "anthropic", 0, `post https://api.anthropic.com/v1/messages - curl error exit_code=26 stderr={ "curl: option -d: error encountered when reading a file" }`, Unknown},
		{"a model runner's exit is still the server's", "ollama", 0, `llama runner process has terminated: exit status 2`, ProviderError},
		{"an endpoint offline", "lmstudio", 0, `The LLM endpoint is currently offline.`, NetworkError},
		{"Go's HTTP/2 body closed while a stream was read", "openrouter", 0, `{"error":"http2: response body closed","message":"failed to read chat completion stream"}`, StreamCut},
		{"a reply aborted by the serving side's worker", "open-assistant", 0, `Error: aborted_by_worker`, ProviderError},
		{"a reply aborted by the user", "", 0, `Error: aborted by user`, Cancelled},
		{"a model's reply empty", "ollama", 0, `sse error: LLM model response empty`, EmptyResponse},
		{"a client's own serialization failure under a connection banner", "cursor", 0, "Connection failed. Please check your internet connection\nSerialization error in aiserver.v1.StreamChatRequest [internal]", Unknown},
		{"a reply that did not match the caller's schema", "opencode", 0, `No object generated: response did not match schema. cause=AI_TypeValidationError: Type validation failed: Value: {}.`, Unknown},
		{"a request body that did not validate", "", 0, `Request validation failed: messages[0].role must be one of user, assistant`, InvalidRequest},
		// Tenth held-out batch's misses, and what each rule must leave alone.
		{"a body shorter than its announced length, under the parser's 400", "qwen", 0, "aiohttp.http_exceptions.TransferEncodingError: 400, message:\nNot enough data to satisfy transfer length header.", StreamCut},
		{"an empty chunk-size line", "openai", 0, `urllib3.exceptions.InvalidChunkLength: InvalidChunkLength(got length b'', 0 bytes read)`, StreamCut},
		{"the JDK's chunked body broken off", "", 0, `java.io.IOException: chunked transfer encoding, state: READING_LENGTH`, StreamCut},
		{"a status printed beside no framing failure stays a status", "", 0, `Error code: 400 - {'error': {'message': 'Invalid value for messages[0].role'}}`, InvalidRequest},
		{"a path naming an error chunk is no cut", "openai", 0, `TimeoutException: Idle timeout reached for "https://api.openai.com/v1/chat/completions". in /var/www/vendor/symfony/http-client/Chunk/ErrorChunk.php:56`, Timeout},
		{"a stream finished without its terminal event", "openai", 0, `OpenAI API call failed: stream finished without response.completed event`, StreamCut},
		{"a gateway's log entry under err", "openai-compatible", 0, `{"err":{"message":"terminated: other side closed","stack":"TypeError: terminated"}}`, StreamCut},
		{"throttled for the system's capacity is the serving side's state", "dashscope", 503, `Too many requests. Your requests are being throttled due to system capacity limits. Please try again later.`, ProviderError},
		{"throttled for the caller's rate stays a rate", "dashscope", 503, `Too many requests. Your requests are being throttled, please slow down.`, RateLimited},
		{"openai-python's printed message with no content", "deepseek", 0, `ChatCompletion(choices=[Choice(finish_reason=None, index=0, message=ChatCompletionMessage(content=None, refusal=None, role='assistant', tool_calls=None))])`, EmptyResponse},
		{"openai-python's printed message with empty content", "vllm", 0, `ChatCompletionMessage(content='', role='assistant', function_call=None, tool_calls=None)`, EmptyResponse},
		{"openai-python's printed message with a refusal", "openai", 0, `ChatCompletionMessage(content=None, refusal="I can't help with that.", role='assistant', tool_calls=None)`, ContentRefusal},
		{"google-genai's printed candidate with no parts", "google", 0, "GenerateContentResponse(candidates=[Candidate(content=Content(\n  role='model'\n), finish_reason=<FinishReason.STOP: 'STOP'>)])", EmptyResponse},
		{"google-genai's printed candidate with parts", "google", 0, "GenerateContentResponse(candidates=[Candidate(content=Content(parts=[Part(text='Hi')], role='model'), finish_reason=<FinishReason.SAFETY: 'SAFETY'>)])", ContentRefusal},
		{"a malformed response is undecodable", "google", 0, `Gemini API error: malformed JSON response`, Unknown},
		{"an empty or malformed response names an empty one", "nvidia-nim", 200, `API returned an empty or malformed response (HTTP 200)`, EmptyResponse},
		{"a malformed request stays invalid", "", 400, `Malformed request: messages must be an array`, InvalidRequest},
		{"a gateway's list under error, naming the provider's failure", "cloudflare", 400, `{"success":false,"result":[],"messages":[],"error":[{"code":2005,"message":"Failed to get response from provider"}]}`, ProviderError},
		{"a Python task's repr is no comparison", "", 0, `CancelledError(<Task cancelled name='Task-39700' coro=<AsyncExitStack.__aexit__() done, defined at /usr/local/lib/python3.11/contextlib.py:698>>)`, Cancelled},
		{"a comparison with a number still exceeds", "", 400, `prompt tokens 9000 > 8192 maximum context length`, ContextOverflow},
		// Eleventh held-out batch's misses, and what each rule must leave alone.
		{"a proxy's 400 to CONNECT is no API status", "openai", 0, `Max retries exceeded with url: /v1/chat/completions (Caused by ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 400 Bad Request')))`, NetworkError},
		{"an API's 400 printed beside no proxy stays a status", "openai", 0, `Error code: 400 - Bad Request: invalid model parameter`, InvalidRequest},
		{"a handshake the remote end terminated is no cut", "openai", 0, `javax.net.ssl.SSLHandshakeException: Remote host terminated the handshake`, NetworkError},
		{"a stream the remote end terminated is a cut", "openai", 0, `stream terminated by the remote end mid-reply`, StreamCut},
		{"an error's cause object", "anthropic", 0, `{"subtype":"api_error","cause":{"code":"ECONNRESET","errno":0},"retryInMs":557}`, NetworkError},
		{"an invalid content filter policy is a request's shape", "azure-openai", 0, `Your request contains invalid content filter policy. Please provide a valid policy.`, InvalidRequest},
		{"a guardrail enabled with an input in the wrong format", "bedrock", 0, `ValidationException: Guardrail was enabled but input is in incorrect format.`, InvalidRequest},
		{"invalid content that a filter judged is still a block", "acme", 400, `Invalid request: the prompt was flagged by the content filter`, ContentRefusal},
		{"a provider not provided", "litellm", 0, `LLM Provider NOT provided. Pass in the LLM provider you are trying to call.`, InvalidRequest},
		{"an API key not provided is a credential", "openai", 0, `API key not provided. Set OPENAI_API_KEY.`, AuthFailed},
		// Twelfth held-out batch's misses, and what each rule must leave alone.
		{"a browser's resource that failed to load is the network's", "", 0, `:7878/api/stream/33:1  Failed to load resource: net::ERR_NETWORK_IO_SUSPENDED`, NetworkError},
		{"a model that failed to load stays the server's", "lmstudio", 0, `Failed to load the model: Error loading model.`, ProviderError},
		{"an agent's reply with an empty answer", "openai", 200, `{"answer":"","stoppedReason":"final","turns":1}`, EmptyResponse},
		{"an agent's reply with an answer", "openai", 200, `{"answer":"Done.","stoppedReason":"final","turns":1}`, Unknown},
		{"a stream that ended without producing a message", "litellm", 0, `OpenAIError: stream ended without producing a ChatCompletionMessage with role=assistant`, EmptyResponse},
		{"a stream that ended early after text came stays a cut", "", 0, `stream ended unexpectedly after 120 tokens`, StreamCut},
		{"the upstream's invalid_request_error beats the gateway's word", "opencode", 0, "Upstream request failed: [invalid_request_error] reasoning `encrypted_content` was not issued to this caller", InvalidRequest},
		{"an upstream that failed, no type", "", 0, `Upstream request failed: the upstream server crashed`, ProviderError},
		// Thirteenth held-out batch's misses (test fixtures and documentation), and what each
		// rule must leave alone.
		{"high demand with a per-minute limit is the caller's rate", "openrouter", 429, `{"error":{"message":"Rate limit exceeded: limit_rpm/meta-llama/llama-3.2-3b-instruct. High demand for meta-llama/llama-3.2-3b-instruct:free on OpenRouter - limited to 1 requests per minute. Please retry shortly.","code":429}}`, RateLimited},
		{"high demand alone is the serving side's state", "openrouter", 429, `{"error":{"message":"High demand for this model right now. Please retry shortly.","code":429}}`, ProviderError},
		{"a stream broken, by its code", "sagemaker", 0, `{"code":"StreamBroken","message":"The TCP connection between the client and the model was reset or closed."}`, StreamCut},
		{"a project's budget exceeded", "merge-gateway", 0, `{"error":{"type":"invalid_request_error","message":"Project budget exceeded for 'p1'.","code":"project_budget_exceeded","param":"project_id"}}`, AuthFailed},
		{"a thinking budget out of range stays invalid", "acme", 400, `{"error":{"message":"The thinking_budget parameter must be a positive integer."}}`, InvalidRequest},
		{"Google: enable billing, in German", "google", 400, `Die kostenlose Stufe der Gemini API ist in Ihrem Land nicht verfügbar. Aktivieren Sie die Abrechnung für Ihr Projekt in Google AI Studio.`, AuthFailed},
		// Fourteenth held-out batch's misses, and what each rule must leave alone.
		{"an abort because the output ran out is the cap's", "lmstudio", 0, `Aborted - Response was truncated — the model ran out of output tokens.`, OutputTruncated},
		{"an abort by the user is still a cancel", "", 0, `Aborted by the user`, Cancelled},
		{"a 401 naming an invalid model key is the credentials'", "openai", 401, `401 Invalid model key or Incorrect local model configuration.`, AuthFailed},
		{"a wrong model under a 503 is still the model's", "gateway", 503, `{"error":{"message":"model 'gpt-9' not found"}}`, InvalidRequest},
		// Fifteenth held-out batch's misses (documentation), and what each rule must leave alone.
		{"a budget exhausted", "portkey", 412, `Budget exhausted`, AuthFailed},
		{"a request signature that does not conform", "bedrock", 400, `{"code":"IncompleteSignature","message":"The request signature does not conform to AWS standards."}`, AuthFailed},
		{"a model that took too long is a timeout, no overflow", "bedrock", 0, `The request took too long to process. Processing time exceeded the model timeout length.`, Timeout},
		{"a prompt too long is still an overflow", "", 400, `prompt is too long: 210000 tokens`, ContextOverflow},
		{"Google: a per-minute quota naming billing stays a rate", "google", 429, `You exceeded your current quota, please check your plan and billing details. Quota: requests per minute.`, RateLimited},
		// Stop 24: the corpus's remaining misses, and what each rule must leave alone.
		{"a command's timeout is the tool's", "", 0, `Error: command timed out after 120000ms`, ToolError},
		{"a command that ran past its limit is the tool's", "", 0, `shell command exceeded 600000ms and was killed`, ToolError},
		{"the model call's timeout stays a timeout", "", 0, `request timed out after 120000ms`, Timeout},
		{"an MCP tool's result over the harness's cap is the tool's", "", 0, `MCP tool "read_file" response (50000 tokens) exceeds maximum allowed tokens (25000).`, ToolError},
		{"a prompt over its cap stays an overflow", "", 0, `prompt (50000 tokens) exceeds maximum allowed tokens (25000).`, ContextOverflow},
		{"an MCP error class in a body is the tool's", "", 0, `{"code":-32001,"data":{"timeout":30000},"name":"McpError"}`, ToolError},
		{"pydantic-ai: a tool's retry budget spent", "", 0, `UnexpectedModelBehavior: Tool 'search' exceeded max retries count of 2`, ToolError},
		{"pydantic-ai: the request_limit is the run's turns", "", 0, `UsageLimitExceeded: The next request would exceed the request_limit of 50`, RecursionLimit},
		{"an account's daily request limit stays the account's", "", 0, `RuntimeError: open api daily request limit reached`, AuthFailed},
		{"a body that did not parse names no cause", "", 0, `FetchError: invalid json response body at http://127.0.0.1:5000/v1 reason: Unexpected end of JSON input`, Unknown},
		{"cut off mid-stream, no message_stop", "", 0, `the stream ended (no message_stop): the response was cut off mid-stream`, StreamCut},
		{"a cut under a printed 500 is the cut", "", 0, `Error: 500 upstream stream ended before terminal chunk`, StreamCut},
		{"a printed 500 alone stays the provider's", "", 0, `Error: 500 upstream failed`, ProviderError},
		{"a command's exit code is no model's process", "", 0, `Request failed: Command failed with exit code: 1`, Unknown},
		{"a connection named in advice is a guess", "", 0, `Could not get a reply. Check your connection settings and try again.`, Unknown},
		{"a connection reported before advice stays the network's", "", 0, `Connection refused. Check your connection settings.`, NetworkError},
		{"a cut whose stated cause is the server's failure", "openai", 0, `stream disconnected before completion: The server had an error while processing your request.`, ProviderError},
		{"a cut whose stated cause is the transport's stays a cut", "openai", 0, `stream disconnected before completion: error decoding response body`, StreamCut},
		{"an empty result with a word between", "", 0, `empty model result despite success`, EmptyResponse},
		{"no tokens generated", "", 0, `Output generated in 1.2 seconds (0.00 tokens/s, 0 tokens, context 900)`, EmptyResponse},
		{"tokens generated is no empty reply", "", 0, `Output generated in 1.2 seconds (20 tokens/s, 24 tokens, context 900)`, Unknown},
		{"a reply's content returned null", "", 0, `NullPointerException: the return value of "Response.content()" is null`, EmptyResponse},
		{"a request's content that is null stays invalid", "acme", 400, `messages[0].content is null`, InvalidRequest},
		{"a model server that is not running", "", 0, `Chunk has no choices: {'error': {'message': 'model server is not running'}}`, ProviderError},
		{"a dedicated endpoint not running stays the request's", "together", 400, `The dedicated endpoint for acme/x is not running.`, InvalidRequest},
		{"a cache's dimension exceeded is the window's", "", 0, `RuntimeError: start (3000) + length (2000) exceeds dimension size (4096).`, ContextOverflow},
		{"an incomplete tool call is a cut-off reply", "", 0, `ProtocolError: incomplete tool call`, OutputTruncated},
	}
	for _, tc := range tests {
		got := Classify(ParseErrorBody(tc.provider, tc.status, tc.body))
		if got.Category != tc.want {
			t.Errorf("%s: %+v, want %s", tc.name, got, tc.want)
		}
	}
}

// TestRetryAfter: a delay in the body or the header reaches the classification.
func TestRetryAfter(t *testing.T) {
	for body, want := range map[string]time.Duration{
		`{"error":{"message":"Rate limit reached. Please try again in 7s."}}`: 7 * time.Second,
		`{"error":{"message":"Please try again in 1m30.5s"}}`:                 90500 * time.Millisecond,
		`retry after 20 seconds`: 20 * time.Second,
		`{"error":{"code":429,"details":[{"@type":"x.RetryInfo","retryDelay":"30s"}]}}`:                                      30 * time.Second,
		`{"error":{"message":"Provider returned error","metadata":{"raw":"{\"error\":{\"message\":\"try again in 2s\"}}"}}}`: 2 * time.Second,
		`{"error":{"message":"try again in 9999999h"}}`:                                                                      0,
		`{"error":{"message":"slow down"}}`:                                                                                  0,
		`{"error":{"message":"Connection reset after 30 seconds of inactivity"}}`:                                            0,
		`{"error":{"message":"Your quota will reset after 2h30m."}}`:                                                         150 * time.Minute,
	} {
		if got := Classify(ParseErrorBody("p", 429, body)).RetryAfter; got != want {
			t.Errorf("%s: RetryAfter %v, want %v", body, got, want)
		}
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"7": 7 * time.Second, "1.5": 1500 * time.Millisecond, "Fri, 02 Jan 2026 03:05:05 GMT": time.Minute,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0, "soon": 0, "": 0, "-3": 0,
	} {
		if got, _ := ParseRetryAfter(v, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
	r := New(SiteSupervisor, SourceException, Classify(&APIError{Status: 429, RetryAfter: 3 * time.Second}))
	if r.RetryAfter != 3*time.Second || !strings.Contains(r.String(), "retry_after=3s") {
		t.Errorf("reason %v", r)
	}
}

// TestReadErrorBody: the shared reader's fields on the shapes it documents.
func TestReadErrorBody(t *testing.T) {
	tests := []struct {
		body                 string
		message, typ, code   string
		status               int
		generation, upstream string
	}{
		{body: `{"error":{"message":"m","type":"invalid_request_error","code":"context_length_exceeded"}}`, message: "m", typ: "invalid_request_error", code: "context_length_exceeded"},
		{body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, message: "Overloaded", typ: "overloaded_error"},
		{body: `[{"error":{"code":429,"message":"q","status":"RESOURCE_EXHAUSTED","details":[{"reason":"RATE_LIMIT_EXCEEDED"}]}}]`, message: "q", typ: "RESOURCE_EXHAUSTED", code: "RATE_LIMIT_EXCEEDED", status: 429},
		{body: `{"error":"model not found"}`, message: "model not found"},
		{body: `{"object":"error","message":"too long","type":"BadRequestError","code":400}`, message: "too long", typ: "BadRequestError", status: 400},
		{body: `{"message":{"detail":[{"msg":"field required"}]}}`, message: "field required"},
		{body: `{"error":{"message":"Failed to call a function","code":"tool_use_failed","failed_generation":"<function=x>"}}`, message: "Failed to call a function", code: "tool_use_failed", generation: "<function=x>"},
		{body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"prompt is too long\"}}","provider_name":"Anthropic"}}}`, message: "Provider returned error", status: 400, upstream: "Anthropic"},
		{body: `Error code: 400 - {'error': {'message': 'bad', 'type': 'invalid_request_error'}}`, message: "bad", typ: "invalid_request_error"},
		{body: "upstream timed out", message: "upstream timed out"},
	}
	for _, tc := range tests {
		b := ReadErrorBody(tc.body)
		if b.Message != tc.message || b.Type != tc.typ || b.Code != tc.code || b.Status != tc.status ||
			b.Generation != tc.generation || b.Upstream != tc.upstream {
			t.Errorf("ReadErrorBody(%s) = %+v", tc.body, b)
		}
	}
	e := ParseErrorBody("openrouter", 0, tests[7].body)
	if e.Status != 400 || e.Message != "Provider returned error (Anthropic): prompt is too long" {
		t.Errorf("ParseErrorBody openrouter = %+v", e)
	}
	if long := ParseErrorBody("x", 0, strings.Repeat("é", 2000)); len(long.Message) > maxPlainMessage+len("…") {
		t.Errorf("plain message not bounded: %d bytes", len(long.Message))
	}
}

// TestFailedGenerationNeverRead: the model's own output in failed_generation is not evidence.
func TestFailedGenerationNeverRead(t *testing.T) {
	body := `{"error":{"message":"Failed to call a function. Please adjust your prompt.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"rate limit exceeded; prompt is too long; flagged by moderation"}}`
	if got := Classify(ParseErrorBody("groq", 0, body)); got.Category != Unknown && got.Category != InvalidRequest {
		t.Errorf("failed_generation was read: %+v", got)
	}
}
