package model_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/termination"
)

func ExampleParse() {
	for _, s := range []string{
		"openai:gpt-5-mini",
		"ollama:qwen3:8b",
		"openai-compatible:http://127.0.0.1:8080/v1#my-model",
		"claude-cli:haiku",
	} {
		spec, err := model.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("provider=%s model=%s base=%q\n", spec.Provider, spec.Model, spec.BaseURL)
	}
	_, err := model.Parse("gpt-5-mini")
	fmt.Println(errors.Is(err, model.ErrBadSpec))
	// Output:
	// provider=openai model=gpt-5-mini base=""
	// provider=ollama model=qwen3:8b base=""
	// provider=openai-compatible model=my-model base="http://127.0.0.1:8080/v1"
	// provider=claude-cli model=haiku base=""
	// true
}

func ExampleNew() {
	// A local stand-in for the OpenAI API.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"chat.completion","model":"gpt-5-mini-2025-08-07",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":"NO"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()

	env := map[string]string{"OPENAI_API_KEY": "sk-example", "OPENAI_BASE_URL": srv.URL + "/v1"}
	c, err := model.New("openai:gpt-5-mini", &model.Options{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Complete(ctx, model.Request{
		Prompt:    "Does this message stop on a promised next step? \"All tests pass.\" Answer YES or NO.",
		MaxTokens: 256,
		Effort:    model.EffortLow,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text, resp.FinishReason, resp.Provider, resp.Model)

	_, err = model.New("anthropic:claude-haiku-4-5", &model.Options{Getenv: func(string) string { return "" }})
	fmt.Println(err)
	fmt.Println(errors.Is(err, model.ErrMissingKey))
	// Output:
	// NO stop openai gpt-5-mini-2025-08-07
	// model: anthropic:claude-haiku-4-5: set ANTHROPIC_API_KEY: missing API key
	// true
}

// A failed call says why, as a termination reason, and keeps the provider's message.
func ExampleClient_Complete_error() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "14")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`)
	}))
	defer srv.Close()

	c, err := model.New("anthropic:claude-haiku-4-5", &model.Options{
		BaseURL: srv.URL,
		Getenv:  func(string) string { return "sk-ant-example" },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Complete(context.Background(), model.Request{Prompt: "hi"})
	fmt.Println(err)
	reason, _ := termination.ReasonOf(err)
	fmt.Println(reason.Category, reason.Site, reason.Remedy())
	if apiErr, ok := errors.AsType[*termination.APIError](err); ok {
		fmt.Println(apiErr.Status, apiErr.Type, apiErr.RetryAfter)
	}
	// Output:
	// model: anthropic:claude-haiku-4-5: anthropic 429: Number of request tokens has exceeded your per-minute rate limit
	// rate_limited model.call back-off
	// 429 rate_limit_error 14s
}
