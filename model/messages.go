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
)

// anthropicVersion is the Messages API version sent in the anthropic-version header.
const anthropicVersion = "2023-06-01"

// DefaultAnthropicMaxTokens is the max_tokens sent to the Anthropic Messages API when the
// request leaves MaxTokens zero: the API requires the field and has no default of its own.
const DefaultAnthropicMaxTokens = 4096

// messagesClient speaks the Anthropic Messages API (POST {base}/v1/messages, non-streaming).
type messagesClient struct {
	endpoint
	// effortRejected is set once the model has refused output_config.effort (claude-haiku-4-5
	// does), so later calls do not pay for the refusal again.
	effortRejected atomic.Bool
}

// messagesRequest is the request body.
type messagesRequest struct {
	Model        string            `json:"model"`
	MaxTokens    int               `json:"max_tokens"`
	System       string            `json:"system,omitempty"`
	Messages     []messagesMessage `json:"messages"`
	OutputConfig *outputConfig     `json:"output_config,omitempty"`
}

type messagesMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type outputConfig struct {
	Effort Effort `json:"effort"`
}

// Complete makes one Messages API call. req.MaxTokens goes as max_tokens
// ([DefaultAnthropicMaxTokens] when zero). req.Effort goes as output_config.effort; extended
// thinking is not switched on, so the model answers without a thinking pass, which is what a
// one-shot classification wants. When the model rejects the effort field (a 400 whose error
// names "effort", as claude-haiku-4-5 answers), the call is made once more without it and the
// client stops sending it. Text is the concatenated text blocks; thinking blocks are never
// part of it, so an answer cut off while thinking is Response{Text: "", FinishReason:
// "max_tokens"} with a nil error.
func (c *messagesClient) Complete(ctx context.Context, req Request) (Response, error) {
	effort := req.Effort != "" && !c.effortRejected.Load()
	body, err := c.post(ctx, c.request(req, effort))
	if err != nil && effort && rejectsEffort(err) {
		c.effortRejected.Store(true)
		body, err = c.post(ctx, c.request(req, false))
	}
	if err != nil {
		return Response{}, err
	}
	parse := parseMessage
	if isEventStream(body) {
		// stopgate asks for a plain body, but a proxy (or a gateway that always streams)
		// may answer with the Messages API's SSE stream instead.
		parse = parseMessageStream
	}
	res, err := parse(body)
	switch {
	case errors.Is(err, errErrorBody):
		return Response{}, c.failBody(http.StatusOK, nil, res.errBody(body))
	case err != nil:
		return Response{}, c.malformed(err)
	}
	return c.response(res.text, res.finish, res.model), nil
}

func (c *messagesClient) request(req Request, effort bool) messagesRequest {
	r := messagesRequest{
		Model:     c.model,
		MaxTokens: req.MaxTokens,
		System:    req.System,
		Messages:  []messagesMessage{{Role: "user", Content: req.Prompt}},
	}
	if r.MaxTokens <= 0 {
		r.MaxTokens = DefaultAnthropicMaxTokens
	}
	if effort {
		r.OutputConfig = &outputConfig{Effort: req.Effort}
	}
	return r
}

// isEventStream reports whether body is a server-sent event stream rather than a JSON body.
func isEventStream(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return bytes.HasPrefix(b, []byte("event:")) || bytes.HasPrefix(b, []byte("data:"))
}

// parseMessageStream reads a Messages API SSE stream: the text deltas, the stop reason of the
// message_delta event, and an `error` event anywhere in it (Anthropic sends overloaded_error
// mid-stream, after a 200 and some text), which is errErrorBody with the event's data kept as
// the error body, so the provider's error reaches the classifier as if it had come alone.
func parseMessageStream(body []byte) (chatResult, error) {
	var res chatResult
	started := false
	for _, line := range bytes.Split(body, []byte("\n")) {
		data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Model string `json:"model"`
			} `json:"message"`
			Delta struct {
				Type       string  `json:"type"`
				Text       string  `json:"text"`
				StopReason *string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return res, fmt.Errorf("message stream: %w", err)
		}
		switch ev.Type {
		case "error":
			res.errData = string(data)
			return res, errErrorBody
		case "message_start":
			started = true
			res.model = ev.Message.Model
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" {
				res.text += ev.Delta.Text
			}
		case "message_delta":
			if ev.Delta.StopReason != nil {
				res.finish = *ev.Delta.StopReason
			}
		}
	}
	if !started {
		return chatResult{}, errors.New("message stream: no message_start event")
	}
	return res, nil
}

// parseMessage reads a Messages API body. A body of type "error" (the shape of every
// Anthropic error, which a proxy may send with a success status) is errErrorBody.
func parseMessage(body []byte) (chatResult, error) {
	var wire struct {
		Type    string `json:"type"`
		Model   string `json:"model"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason *string         `json:"stop_reason"`
		Error      json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return chatResult{}, fmt.Errorf("message: %w", err)
	}
	switch {
	case wire.Type == "error" || (len(wire.Error) > 0 && string(wire.Error) != "null"):
		return chatResult{}, errErrorBody
	case wire.Type != "message":
		return chatResult{}, fmt.Errorf("message: type %q, want \"message\"", wire.Type)
	}
	var b strings.Builder
	for _, block := range wire.Content {
		if block.Type == "text" {
			b.WriteString(block.Text)
		}
	}
	res := chatResult{text: b.String(), model: wire.Model}
	if wire.StopReason != nil {
		res.finish = *wire.StopReason
	}
	return res, nil
}
