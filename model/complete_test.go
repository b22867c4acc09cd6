package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/termination"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// classifierRequest is the request the stall classifier makes: a system prompt, a short
// prompt, low effort and a budget that holds the reasoning and the verdict.
var classifierRequest = Request{
	System:    "Answer YES or NO.",
	Prompt:    "Does this message stop on a promised next step? \"Let me check the tests.\"",
	MaxTokens: 256,
	Effort:    EffortLow,
}

func TestChatCompleteSuccess(t *testing.T) {
	tests := []struct {
		spec       string
		fixture    string
		base       string // path standing for the provider's base URL
		budget     string // the field the budget must go in
		effort     bool   // whether reasoning_effort must be sent
		wantAuth   string
		want       Response
		compatible bool // the spec carries the base URL
	}{
		{spec: "openai:gpt-5-mini", fixture: "openai/success.json", base: "/v1", budget: "max_completion_tokens", effort: true,
			wantAuth: "Bearer sk-test-openai", want: Response{Text: "NO", FinishReason: "stop", Provider: "openai", Model: "gpt-5-mini-2025-08-07"}},
		{spec: "groq:qwen/qwen3-32b", fixture: "groq/think-inline-success.json", base: "/openai/v1", budget: "max_completion_tokens", effort: true,
			wantAuth: "Bearer gsk_test", want: Response{Text: "YES", FinishReason: "stop", Provider: "groq", Model: "qwen/qwen3-32b"}},
		{spec: "openrouter:openai/gpt-5-mini", fixture: "openai/success.json", base: "/api/v1", budget: "max_tokens", effort: true,
			wantAuth: "Bearer sk-or-test", want: Response{Text: "NO", FinishReason: "stop", Provider: "openrouter", Model: "gpt-5-mini-2025-08-07"}},
		{spec: "ollama:qwen3:8b", fixture: "ollama/success.json", base: "/v1", budget: "max_tokens", effort: true,
			want: Response{Text: "NO", FinishReason: "stop", Provider: "ollama", Model: "qwen3:8b"}},
		{spec: "gemini:gemini-2.5-flash", fixture: "openai/success.json", base: "/v1beta/openai", budget: "max_tokens", effort: true,
			wantAuth: "Bearer gemini-test", want: Response{Text: "NO", FinishReason: "stop", Provider: "gemini", Model: "gpt-5-mini-2025-08-07"}},
		{spec: "deepseek:deepseek-chat", fixture: "openai/success.json", base: "", budget: "max_tokens",
			wantAuth: "Bearer sk-deepseek-test", want: Response{Text: "NO", FinishReason: "stop", Provider: "deepseek", Model: "gpt-5-mini-2025-08-07"}},
		{spec: "mistral:mistral-small-latest", fixture: "openai/success.json", base: "/v1", budget: "max_tokens",
			wantAuth: "Bearer mistral-test", want: Response{Text: "NO", FinishReason: "stop", Provider: "mistral", Model: "gpt-5-mini-2025-08-07"}},
		{spec: "xai:grok-4-fast", fixture: "openai/success.json", base: "/v1", budget: "max_completion_tokens", effort: true,
			wantAuth: "Bearer xai-test", want: Response{Text: "NO", FinishReason: "stop", Provider: "xai", Model: "gpt-5-mini-2025-08-07"}},
		{spec: "openai-compatible", fixture: "ollama/success.json", base: "/v1", budget: "max_tokens", effort: true, compatible: true,
			want: Response{Text: "NO", FinishReason: "stop", Provider: "openai-compatible", Model: "qwen3:8b"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			srv := newProvider(t, reply{status: 200, body: fixture(t, tt.fixture)})
			var c Client
			model := tt.spec[strings.Index(tt.spec, ":")+1:]
			if tt.compatible {
				model = "qwen3:8b"
				var err error
				c, err = New("openai-compatible:"+srv.URL+tt.base+"#"+model, &Options{HTTPClient: srv.Client(), Getenv: env(testKeys)})
				if err != nil {
					t.Fatal(err)
				}
			} else {
				c = newClient(t, tt.spec, srv, tt.base)
			}

			got, err := c.Complete(context.Background(), classifierRequest)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if got != tt.want {
				t.Errorf("Complete = %+v, want %+v", got, tt.want)
			}

			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != http.MethodPost || r.path != tt.base+"/chat/completions" {
				t.Errorf("request = %s %s, want POST %s/chat/completions", r.method, r.path, tt.base)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if auth := r.header.Get("Authorization"); auth != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", auth, tt.wantAuth)
			}
			if r.body["model"] != model {
				t.Errorf("model = %v, want %q", r.body["model"], model)
			}
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[tt.budget]
			if r.body[tt.budget] != float64(256) || r.body[other] != nil {
				t.Errorf("budget: %s = %v, %s = %v; want %s = 256 only", tt.budget, r.body[tt.budget], other, r.body[other], tt.budget)
			}
			if effort, sent := r.body["reasoning_effort"]; sent != tt.effort || (sent && effort != "low") {
				t.Errorf("reasoning_effort = %v (sent %t), want sent %t with \"low\"", effort, sent, tt.effort)
			}
			wantMsgs := []any{
				map[string]any{"role": "system", "content": classifierRequest.System},
				map[string]any{"role": "user", "content": classifierRequest.Prompt},
			}
			if msgs, _ := json.Marshal(r.body["messages"]); !bytes.Equal(msgs, mustJSON(t, wantMsgs)) {
				t.Errorf("messages = %s, want %s", msgs, mustJSON(t, wantMsgs))
			}
		})
	}
}

func TestMessagesCompleteSuccess(t *testing.T) {
	srv := newProvider(t, reply{status: 200, body: fixture(t, "anthropic/success.json"),
		header: map[string]string{"Request-Id": "req_011CV4pXz8Jq2mLrT6yWbN3k"}})
	c := newClient(t, "anthropic:claude-haiku-4-5", srv, "")

	got, err := c.Complete(context.Background(), classifierRequest)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := Response{Text: "NO", FinishReason: "end_turn", Provider: "anthropic", Model: "claude-haiku-4-5-20251001"}
	if got != want {
		t.Errorf("Complete = %+v, want %+v", got, want)
	}

	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.method != http.MethodPost || r.path != "/v1/messages" {
		t.Errorf("request = %s %s, want POST /v1/messages", r.method, r.path)
	}
	for h, v := range map[string]string{"X-Api-Key": "sk-ant-test", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json", "Authorization": ""} {
		if got := r.header.Get(h); got != v {
			t.Errorf("%s = %q, want %q", h, got, v)
		}
	}
	if r.body["model"] != "claude-haiku-4-5" || r.body["max_tokens"] != float64(256) || r.body["system"] != classifierRequest.System {
		t.Errorf("model, max_tokens, system = %v, %v, %v", r.body["model"], r.body["max_tokens"], r.body["system"])
	}
	if oc, _ := r.body["output_config"].(map[string]any); oc["effort"] != "low" {
		t.Errorf("output_config = %v, want effort low", r.body["output_config"])
	}
	if _, ok := r.body["thinking"]; ok {
		t.Errorf("thinking sent: %v", r.body["thinking"])
	}
}

func TestMessagesDefaultMaxTokens(t *testing.T) {
	srv := newProvider(t, reply{status: 200, body: fixture(t, "anthropic/success.json")})
	c := newClient(t, "anthropic:claude-haiku-4-5", srv, "")
	if _, err := c.Complete(context.Background(), Request{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	r := srv.requests()[0]
	if r.body["max_tokens"] != float64(DefaultAnthropicMaxTokens) {
		t.Errorf("max_tokens = %v, want %d", r.body["max_tokens"], DefaultAnthropicMaxTokens)
	}
	for _, k := range []string{"system", "output_config"} {
		if _, ok := r.body[k]; ok {
			t.Errorf("%s sent for an empty request field: %v", k, r.body[k])
		}
	}
}

// TestGoldenRequests pins the exact request body each provider receives for the classifier's
// request. Run with -update to rewrite the files.
func TestGoldenRequests(t *testing.T) {
	specs := []string{"openai:gpt-5-mini", "anthropic:claude-haiku-4-5", "groq:llama-3.3-70b-versatile",
		"openrouter:anthropic/claude-haiku-4.5", "ollama:qwen3:8b", "gemini:gemini-2.5-flash",
		"deepseek:deepseek-chat", "mistral:mistral-small-latest", "xai:grok-4-fast"}
	for _, spec := range specs {
		provider := spec[:strings.Index(spec, ":")]
		t.Run(provider, func(t *testing.T) {
			body := fixture(t, "openai/success.json")
			if provider == "anthropic" {
				body = fixture(t, "anthropic/success.json")
			}
			srv := newProvider(t, reply{status: 200, body: body})
			if _, err := newClient(t, spec, srv, "").Complete(context.Background(), classifierRequest); err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(srv.requests()[0].body, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", provider+".request.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("request body differs from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

func TestReasoningSpendsBudget(t *testing.T) {
	tests := []struct {
		spec, fixture string
		want          Response
	}{
		{"openai:gpt-5-mini", "openai/reasoning-length.json",
			Response{Text: "", FinishReason: "length", Provider: "openai", Model: "gpt-5-mini-2025-08-07"}},
		{"anthropic:claude-sonnet-4-6", "anthropic/thinking-max-tokens.json",
			Response{Text: "", FinishReason: "max_tokens", Provider: "anthropic", Model: "claude-sonnet-4-6"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			srv := newProvider(t, reply{status: 200, body: fixture(t, tt.fixture)})
			got, err := newClient(t, tt.spec, srv, "").Complete(context.Background(), classifierRequest)
			if err != nil {
				t.Fatalf("Complete: %v, want a nil error: an empty answer is the caller's to judge", err)
			}
			if got != tt.want {
				t.Errorf("Complete = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestProviderErrors(t *testing.T) {
	tests := []struct {
		name       string
		spec       string
		reply      reply
		category   termination.Category
		status     int
		message    string // the provider's message, which Error() must keep
		code       string
		retryAfter time.Duration
	}{
		{name: "openai 429 retry-after seconds", spec: "openai:gpt-5-mini",
			reply:    reply{status: 429, header: map[string]string{"Retry-After": "20"}, body: fixture(t, "openai/rate-limit-429.json")},
			category: termination.RateLimited, status: 429, code: "rate_limit_exceeded", retryAfter: 20 * time.Second,
			message: "Rate limit reached for gpt-5-mini in organization org-4f1X9kq2Zb7TqLw0 on tokens per min (TPM)"},
		{name: "openai 429 retry-after-ms", spec: "openai:gpt-5-mini",
			reply:    reply{status: 429, header: map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, body: fixture(t, "openai/rate-limit-429.json")},
			category: termination.RateLimited, status: 429, code: "rate_limit_exceeded", retryAfter: 250 * time.Millisecond,
			message: "Please try again in 151ms."},
		{name: "openai 429 retry hint in the body", spec: "openai:gpt-5-mini",
			reply:    reply{status: 429, body: fixture(t, "openai/rate-limit-429.json")},
			category: termination.RateLimited, status: 429, code: "rate_limit_exceeded", retryAfter: 151 * time.Millisecond,
			message: "Please try again in 151ms."},
		{name: "anthropic 429 retry-after date", spec: "anthropic:claude-haiku-4-5",
			reply: reply{status: 429, body: fixture(t, "anthropic/rate-limit-429.json"), header: map[string]string{
				"Date": "Mon, 22 Sep 2025 10:00:00 GMT", "Retry-After": "Mon, 22 Sep 2025 10:00:14 GMT"}},
			category: termination.RateLimited, status: 429, retryAfter: 14 * time.Second,
			message: "This request would exceed the rate limit for your organization"},
		{name: "anthropic 529 overloaded", spec: "anthropic:claude-haiku-4-5",
			reply:    reply{status: 529, body: fixture(t, "anthropic/overloaded-529.json")},
			category: termination.ProviderError, status: 529, message: "Overloaded"},
		{name: "anthropic 401", spec: "anthropic:claude-haiku-4-5",
			reply:    reply{status: 401, body: fixture(t, "anthropic/authentication-401.json")},
			category: termination.AuthFailed, status: 401, message: "invalid x-api-key"},
		{name: "groq 400 tool_use_failed", spec: "groq:llama-3.3-70b-versatile",
			reply:    reply{status: 400, body: fixture(t, "groq/tool-use-failed-400.json")},
			category: termination.InvalidRequest, status: 400, code: "tool_use_failed",
			message: "Failed to call a function. Please adjust your prompt."},
		{name: "ollama 404 model not found", spec: "ollama:x",
			reply:    reply{status: 404, body: fixture(t, "ollama/model-not-found-404.json")},
			category: termination.InvalidRequest, status: 404, message: "model 'x' not found"},
		{name: "gemini 429 quota", spec: "gemini:gemini-2.5-flash",
			reply:    reply{status: 429, body: fixture(t, "gemini/quota-429.json")},
			category: termination.RateLimited, status: 429, message: "You exceeded your current quota"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newProvider(t, tt.reply)
			_, err := newClient(t, tt.spec, srv, "").Complete(context.Background(), classifierRequest)
			if err == nil {
				t.Fatal("Complete succeeded, want an error")
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1 (no hidden retries)", n)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("Error() = %q, want the provider's message %q in it", err, tt.message)
			}
			apiErr, ok := errors.AsType[*termination.APIError](err)
			if !ok {
				t.Fatalf("error %v does not wrap a *termination.APIError", err)
			}
			provider := tt.spec[:strings.Index(tt.spec, ":")]
			if apiErr.Provider != provider || apiErr.Status != tt.status || apiErr.Code != tt.code || apiErr.RetryAfter != tt.retryAfter {
				t.Errorf("APIError provider, status, code, retry-after = %q, %d, %q, %v; want %q, %d, %q, %v",
					apiErr.Provider, apiErr.Status, apiErr.Code, apiErr.RetryAfter, provider, tt.status, tt.code, tt.retryAfter)
			}
			if apiErr.Body != string(tt.reply.body) {
				t.Errorf("APIError.Body is not the raw body:\n%s", apiErr.Body)
			}
			assertReason(t, err, tt.category)
		})
	}
}

// assertReason checks err carries a model-call reason of category want.
func assertReason(t *testing.T, err error, want termination.Category) {
	t.Helper()
	r, ok := termination.ReasonOf(err)
	if !ok {
		t.Fatalf("error %q carries no reason", err)
	}
	if r.Category != want || r.Site != termination.SiteModelCall || r.Source != termination.SourceException {
		t.Errorf("reason = %v, want category %s at %s from %s", r, want, termination.SiteModelCall, termination.SourceException)
	}
}

// TestAnthropicStream covers an answer given as the Messages API's SSE stream although a plain
// body was asked for (a proxy or gateway that always streams): the text and stop reason are
// read from the events, and an overloaded_error event mid-stream, after a 200 and some text,
// is the call's error, classified from the event's own body.
func TestAnthropicStream(t *testing.T) {
	const head = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-haiku-4-5\",\"content\":[],\"stop_reason\":null}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"YE\"}}\n\n"
	const overloaded = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	t.Run("complete", func(t *testing.T) {
		body := head + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"S\"}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
		srv := newProvider(t, reply{status: 200, body: []byte(body)})
		res, err := newClient(t, "anthropic:claude-haiku-4-5", srv, "").Complete(context.Background(), classifierRequest)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "YES" || res.FinishReason != "end_turn" || res.Model != "claude-haiku-4-5" {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("overloaded mid-stream", func(t *testing.T) {
		body := head + "event: error\ndata: " + overloaded + "\n\n"
		srv := newProvider(t, reply{status: 200, body: []byte(body)})
		_, err := newClient(t, "anthropic:claude-haiku-4-5", srv, "").Complete(context.Background(), classifierRequest)
		if err == nil {
			t.Fatal("Complete succeeded on a stream that ended on an error event")
		}
		if apiErr, ok := errors.AsType[*termination.APIError](err); !ok || apiErr.Body != overloaded {
			t.Errorf("error does not carry the event's body: %v", err)
		}
		if !strings.Contains(err.Error(), "Overloaded") {
			t.Errorf("Error() = %q, want the provider's message", err)
		}
		assertReason(t, err, termination.ProviderError)
	})
}

// TestErrorBodyWithSuccessStatus covers the error bodies that arrive with 200: OpenRouter's
// failed upstream call, and an Anthropic overloaded error as a plain body (a proxy that buffers
// the stream hands the error over with 200).
func TestErrorBodyWithSuccessStatus(t *testing.T) {
	tests := []struct {
		spec, fixture string
		category      termination.Category
		message       string
	}{
		{"anthropic:claude-haiku-4-5", "anthropic/overloaded-529.json", termination.ProviderError, "Overloaded"},
		{"openrouter:anthropic/claude-haiku-4.5", "openrouter/error-200.json", termination.ProviderError, "Provider returned error"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			srv := newProvider(t, reply{status: 200, body: fixture(t, tt.fixture)})
			_, err := newClient(t, tt.spec, srv, "").Complete(context.Background(), classifierRequest)
			if err == nil {
				t.Fatal("Complete succeeded on an error body")
			}
			if errors.Is(err, ErrMalformedResponse) {
				t.Errorf("error body read as malformed: %v", err)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("Error() = %q, want %q in it", err, tt.message)
			}
			if apiErr, ok := errors.AsType[*termination.APIError](err); !ok || apiErr.Body != string(fixture(t, tt.fixture)) {
				t.Errorf("error does not carry the raw body: %v", err)
			}
			assertReason(t, err, tt.category)
		})
	}
}

func TestEffortRejectedIsDroppedOnce(t *testing.T) {
	tests := []struct {
		spec, rejection, success string
		effortSent               func(map[string]any) bool
	}{
		{"openai:gpt-4.1-mini", "openai/effort-unsupported-400.json", "openai/success.json",
			func(b map[string]any) bool { _, ok := b["reasoning_effort"]; return ok }},
		{"anthropic:claude-haiku-4-5", "anthropic/effort-unsupported-400.json", "anthropic/success.json",
			func(b map[string]any) bool { _, ok := b["output_config"]; return ok }},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			srv := newProvider(t,
				reply{status: 400, body: fixture(t, tt.rejection)},
				reply{status: 200, body: fixture(t, tt.success)})
			c := newClient(t, tt.spec, srv, "")
			for i := range 2 {
				got, err := c.Complete(context.Background(), classifierRequest)
				if err != nil || got.Text != "NO" {
					t.Fatalf("call %d: Complete = %+v, %v; want the answer", i, got, err)
				}
			}
			var sent []bool
			for _, r := range srv.requests() {
				sent = append(sent, tt.effortSent(r.body))
			}
			if want := []bool{true, false, false}; !slices.Equal(sent, want) {
				t.Errorf("effort sent per request = %v, want %v (asked, refused, then never again)", sent, want)
			}
		})
	}
}

func TestEffortNotRetriedForOtherRefusals(t *testing.T) {
	srv := newProvider(t, reply{status: 400, body: fixture(t, "groq/tool-use-failed-400.json")})
	c := newClient(t, "groq:llama-3.3-70b-versatile", srv, "")
	if _, err := c.Complete(context.Background(), classifierRequest); err == nil {
		t.Fatal("Complete succeeded")
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestTransportFailures(t *testing.T) {
	t.Run("deadline before headers", func(t *testing.T) {
		srv := newHangingServer(t, false)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err := newClient(t, "openai:gpt-5-mini", srv, "/v1").Complete(ctx, classifierRequest)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
		assertReason(t, err, termination.Timeout)
	})
	t.Run("deadline mid-body", func(t *testing.T) {
		srv := newHangingServer(t, true)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err := newClient(t, "anthropic:claude-haiku-4-5", srv, "").Complete(ctx, classifierRequest)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
		assertReason(t, err, termination.Timeout)
	})
	t.Run("cancelled", func(t *testing.T) {
		srv := newHangingServer(t, false)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := newClient(t, "openai:gpt-5-mini", srv, "/v1").Complete(ctx, classifierRequest)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		assertReason(t, err, termination.Cancelled)
	})
	t.Run("connection reset", func(t *testing.T) {
		addr := newResettingListener(t)
		c, err := New("openai:gpt-5-mini", &Options{Getenv: env(testKeys), BaseURL: "http://" + addr + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), classifierRequest)
		if err == nil {
			t.Fatal("Complete succeeded against a resetting listener")
		}
		assertReason(t, err, termination.NetworkError)
	})
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		c, err := New("ollama:qwen3:8b", &Options{Getenv: env(map[string]string{"OLLAMA_HOST": addr})})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), classifierRequest)
		if err == nil {
			t.Fatal("Complete succeeded against a closed port")
		}
		assertReason(t, err, termination.NetworkError)
	})
}

// newHangingServer answers nothing until the client goes away; with headers set it sends the
// status line and headers of a success first, then stalls in the body.
func newHangingServer(t *testing.T, headers bool) *provider {
	t.Helper()
	p := &provider{}
	release := make(chan struct{})
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client hanging up.
		_, _ = io.Copy(io.Discard, r.Body)
		if headers {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"id":"msg_01`))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(p.Close)
	t.Cleanup(func() { close(release) }) // runs first: cleanups run last-in, first-out
	return p
}

// newResettingListener accepts connections, reads the request, and resets the connection
// (SO_LINGER 0, so the close sends RST) without answering.
func newResettingListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			_, _ = conn.Read(buf)
			_ = conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func TestMalformedSuccess(t *testing.T) {
	tests := []struct {
		name, spec, body string
	}{
		{"html", "openai:gpt-5-mini", "<html><body>Welcome to the captive portal</body></html>"},
		{"no choices", "openai:gpt-5-mini", `{"id":"chatcmpl-1","object":"chat.completion","choices":[]}`},
		{"null error no choices", "openai:gpt-5-mini", `{"choices":null,"error":null}`},
		{"content not text", "openai:gpt-5-mini", `{"choices":[{"message":{"content":42},"finish_reason":"stop"}]}`},
		{"empty", "groq:llama-3.3-70b-versatile", ``},
		{"anthropic wrong type", "anthropic:claude-haiku-4-5", `{"type":"completion","completion":"NO"}`},
		{"anthropic not json", "anthropic:claude-haiku-4-5", `event: message_start`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newProvider(t, reply{status: 200, body: []byte(tt.body)})
			_, err := newClient(t, tt.spec, srv, "").Complete(context.Background(), classifierRequest)
			if !errors.Is(err, ErrMalformedResponse) {
				t.Fatalf("err = %v, want ErrMalformedResponse", err)
			}
			assertReason(t, err, termination.ProviderError)
		})
	}
}

func TestParseChatCompletion(t *testing.T) {
	tests := []struct {
		name, body string
		want       chatResult
		wantErr    error
	}{
		{name: "string", body: `{"model":"m","choices":[{"message":{"content":"YES"},"finish_reason":"stop"}]}`,
			want: chatResult{text: "YES", finish: "stop", model: "m"}},
		{name: "null content and finish", body: `{"choices":[{"message":{"content":null},"finish_reason":null}]}`},
		{name: "no message", body: `{"choices":[{"finish_reason":"length"}]}`, want: chatResult{finish: "length"}},
		{name: "parts", body: `{"choices":[{"message":{"content":[{"type":"text","text":"YE"},{"type":"image_url","image_url":{}},{"type":"text","text":"S"}]}}]}`,
			want: chatResult{text: "YES"}},
		{name: "reasoning fields ignored", body: `{"choices":[{"message":{"content":"NO","reasoning_content":"hmm","reasoning":"hmm"}}]}`,
			want: chatResult{text: "NO"}},
		{name: "think stripped", body: `{"choices":[{"message":{"content":"\n<think>\nhmm\n</think>\n\nNO"}}]}`,
			want: chatResult{text: "NO"}},
		{name: "unclosed think is nothing said", body: `{"choices":[{"message":{"content":"<think>\nstill thinking"}}],"finish_reason":"length"}`},
		{name: "think not leading is kept", body: `{"choices":[{"message":{"content":"NO <think>x</think>"}}]}`,
			want: chatResult{text: "NO <think>x</think>"}},
		{name: "error body", body: `{"error":{"message":"Provider returned error","code":502}}`, wantErr: errErrorBody},
		{name: "string error body", body: `{"error":"model 'x' not found"}`, wantErr: errErrorBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseChatCompletion([]byte(tt.body))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseMessage(t *testing.T) {
	tests := []struct {
		name, body string
		want       chatResult
		wantErr    error
	}{
		{name: "text blocks joined, thinking skipped",
			body: `{"type":"message","model":"m","content":[{"type":"thinking","thinking":"x","signature":"s"},{"type":"redacted_thinking","data":"d"},{"type":"text","text":"Y"},{"type":"text","text":"ES"}],"stop_reason":"end_turn"}`,
			want: chatResult{text: "YES", finish: "end_turn", model: "m"}},
		{name: "refusal", body: `{"type":"message","content":[],"stop_reason":"refusal"}`, want: chatResult{finish: "refusal"}},
		{name: "null stop reason", body: `{"type":"message","content":[{"type":"text","text":"NO"}],"stop_reason":null}`, want: chatResult{text: "NO"}},
		{name: "error", body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, wantErr: errErrorBody},
		{name: "untyped error", body: `{"error":{"type":"api_error","message":"Internal server error"}}`, wantErr: errErrorBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMessage([]byte(tt.body))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 9, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "20"}, 20 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"huge", map[string]string{"Retry-After": "1e300"}, 0},
		{"nan", map[string]string{"Retry-After": "NaN"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"ms beats seconds", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond},
		{"bad ms falls back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "1"}, time.Second},
		{"date from now", map[string]string{"Retry-After": "Mon, 22 Sep 2025 10:00:30 GMT"}, 30 * time.Second},
		{"date from Date header", map[string]string{"Retry-After": "Mon, 22 Sep 2025 10:00:30 GMT", "Date": "Mon, 22 Sep 2025 10:00:25 GMT"}, 5 * time.Second},
		{"past date", map[string]string{"Retry-After": "Mon, 22 Sep 2025 09:59:00 GMT"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
