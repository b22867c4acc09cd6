package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/stopgate/stopgate/termination"
)

// chatClient speaks the OpenAI chat-completions wire format (POST {base}/chat/completions),
// which OpenAI, Groq, OpenRouter, Ollama, Gemini's compatibility endpoint, DeepSeek, Mistral,
// xAI and most self-hosted servers accept.
type chatClient struct {
	endpoint
	// maxTokensField is the field the budget goes in: max_completion_tokens where the provider
	// documents it (it counts reasoning tokens on OpenAI), max_tokens elsewhere.
	maxTokensField string
	// effort reports whether reasoning_effort is sent at all.
	effort bool
	// effortRejected is set once the model has refused reasoning_effort, so later calls do
	// not pay for the refusal again. It is the client's only state.
	effortRejected atomic.Bool
}

// chatRequest is the request body. One of the two budget fields is set.
type chatRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	MaxCompletionTokens int           `json:"max_completion_tokens,omitempty"`
	MaxTokens           int           `json:"max_tokens,omitempty"`
	ReasoningEffort     Effort        `json:"reasoning_effort,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Complete makes one chat-completions call. The system prompt goes as a "system" message
// (every compatible server accepts it; OpenAI reads it as a developer message for reasoning
// models). req.Effort goes as reasoning_effort to providers that take it; when the model
// rejects the field (a 400 or 422 whose error names "effort"), the call is made once more
// without it and the client stops sending it. A reasoning model that spends the whole budget
// thinking answers Response{Text: "", FinishReason: "length"} with a nil error.
func (c *chatClient) Complete(ctx context.Context, req Request) (Response, error) {
	effort := c.effort && req.Effort != "" && !c.effortRejected.Load()
	body, err := c.post(ctx, c.request(req, effort))
	if err != nil && effort && rejectsEffort(err) {
		c.effortRejected.Store(true)
		body, err = c.post(ctx, c.request(req, false))
	}
	if err != nil {
		return Response{}, err
	}
	res, err := parseChatCompletion(body)
	switch {
	case errors.Is(err, errErrorBody):
		return Response{}, c.failBody(http.StatusOK, nil, body)
	case err != nil:
		return Response{}, c.malformed(err)
	}
	return c.response(res.text, res.finish, res.model), nil
}

func (c *chatClient) request(req Request, effort bool) chatRequest {
	r := chatRequest{Model: c.model}
	if req.System != "" {
		r.Messages = append(r.Messages, chatMessage{Role: "system", Content: req.System})
	}
	r.Messages = append(r.Messages, chatMessage{Role: "user", Content: req.Prompt})
	if req.MaxTokens > 0 {
		if c.maxTokensField == fieldMaxCompletionTokens {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	if effort {
		r.ReasoningEffort = req.Effort
	}
	return r
}

// rejectsEffort reports whether err is a provider refusing the effort field: a 400 or 422
// whose error names it ("reasoning_effort is not supported with this model", "This model does
// not support the effort parameter.").
func rejectsEffort(err error) bool {
	apiErr, ok := errors.AsType[*termination.APIError](err)
	if !ok || (apiErr.Status != http.StatusBadRequest && apiErr.Status != http.StatusUnprocessableEntity) {
		return false
	}
	return strings.Contains(strings.ToLower(apiErr.Message+" "+apiErr.Body), "effort")
}

// errErrorBody reports a success status whose body is an error body (OpenRouter sends a
// failed upstream call so, and an Anthropic proxy may).
var errErrorBody = errors.New("error body with a success status")

// chatResult is what a chat-completions success body says.
type chatResult struct {
	text, finish, model string
	// errData is the error event's data when a stream ended on one.
	errData string
}

// errBody returns the body to classify for errErrorBody: the stream's error event, else the
// whole body.
func (r chatResult) errBody(body []byte) []byte {
	if r.errData != "" {
		return []byte(r.errData)
	}
	return body
}

// parseChatCompletion reads a chat-completions body. The text is the first choice's content
// with any leading <think>…</think> block removed (reasoning some servers inline); content
// given as an array of parts is joined from its text parts. reasoning_content, reasoning and
// refusal are not answer text and are ignored. A body carrying "error" and no choices is
// errErrorBody; any other unreadable body is an error describing it.
func parseChatCompletion(body []byte) (chatResult, error) {
	var wire struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return chatResult{}, fmt.Errorf("chat completion: %w", err)
	}
	if len(wire.Choices) == 0 {
		if len(wire.Error) > 0 && !bytes.Equal(wire.Error, []byte("null")) {
			return chatResult{}, errErrorBody
		}
		return chatResult{}, errors.New("chat completion: no choices")
	}
	choice := wire.Choices[0]
	text, err := chatContent(choice.Message.Content)
	if err != nil {
		return chatResult{}, err
	}
	res := chatResult{text: stripThink(text), model: wire.Model}
	if choice.FinishReason != nil {
		res.finish = *choice.FinishReason
	}
	return res, nil
}

// chatContent reads a message's content: a string, null, or an array of parts.
func chatContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("chat completion: content is neither a string nor parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "output_text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// stripThink removes a leading <think>…</think> block. An unclosed one means the budget ran
// out while thinking, so nothing visible was said.
func stripThink(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "<think>") {
		return s
	}
	_, after, ok := strings.Cut(t, "</think>")
	if !ok {
		return ""
	}
	return strings.TrimLeft(after, " \t\r\n")
}
