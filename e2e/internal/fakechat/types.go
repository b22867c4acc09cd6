package fakechat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Request is one HTTP request the server received, with its Chat Completions body decoded.
type Request struct {
	fakeserver.Request

	// Model and Stream are the body's fields of those names; IncludeUsage is
	// stream_options.include_usage.
	Model        string
	Stream       bool
	IncludeUsage bool
	// Messages are the conversation, in order: system, user, assistant and tool messages.
	Messages []Message
	// Tools are the function tools offered to the model.
	Tools []Tool

	// Response is what the script answered, for a completions call; nil otherwise.
	Response *Response
}

// Message is one message of a request. Content is its text: the string itself, or its text
// parts joined by newlines.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []Call
	ToolCallID string
	// Raw is the message as sent.
	Raw json.RawMessage
}

// Tool is one function tool offered to the model.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Call is one tool call: of an assistant message in a request, or of a scripted Response.
type Call struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// decode fills the Chat Completions fields from Body.
func (r *Request) decode() error {
	if err := json.Unmarshal(r.Body, &r.JSON); err != nil {
		return err
	}
	var wire struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Messages []json.RawMessage `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &wire); err != nil {
		return err
	}
	r.Model, r.Stream, r.IncludeUsage = wire.Model, wire.Stream, wire.StreamOptions.IncludeUsage
	for i, raw := range wire.Messages {
		var m struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID, Content: contentText(m.Content), Raw: raw}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, Call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range wire.Tools {
		if t.Function.Name != "" {
			r.Tools = append(r.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
		}
	}
	return nil
}

// contentText returns a message content's text: a JSON string, or the text parts of a list.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// HasTool reports whether a tool of that name was offered.
func (r *Request) HasTool(name string) bool {
	return slices.Contains(r.ToolNames(), name)
}

// ToolNames returns the names of the tools offered, in order.
func (r *Request) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

// LastMessage returns the last message; the zero Message when there is none.
func (r *Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ToolResult returns the tool message answering call id.
func (r *Request) ToolResult(callID string) (Message, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m, true
		}
	}
	return Message{}, false
}

// Texts returns the content of every message with one of the given roles, in order; with no
// roles, of every message.
func (r *Request) Texts(roles ...string) []string {
	var out []string
	for _, m := range r.Messages {
		if len(roles) > 0 && !slices.Contains(roles, m.Role) {
			continue
		}
		out = append(out, m.Content)
	}
	return out
}

// Since returns the messages after the last assistant message: what the client sent in answer
// to the model's last reply (tool results, a hook's continuation, a new prompt).
func (r *Request) Since() []Message {
	i := len(r.Messages)
	for i > 0 && r.Messages[i-1].Role != "assistant" {
		i--
	}
	return r.Messages[i:]
}

// Response is what the scripted model answers: text, tool calls, or an HTTP error.
type Response struct {
	// Text is the assistant message's text; ToolCalls its tool calls.
	Text      string
	ToolCalls []Call
	// FinishReason is the finish_reason reported; empty means "tool_calls" when there are
	// calls and "stop" otherwise.
	FinishReason string
	// Status, when not 0, answers with that HTTP status and an error whose message is
	// ErrorMessage instead.
	Status       int
	ErrorMessage string
	// ID is the completion id; empty means a generated "chatcmpl-fake-N".
	ID string
	// Model is the model reported; empty means the request's model.
	Model string
	// PromptTokens and CompletionTokens are the usage reported; zero means an estimate.
	PromptTokens, CompletionTokens int
}

// Reply returns a Response with text and calls.
func Reply(text string, calls ...Call) Response {
	return Response{Text: text, ToolCalls: calls}
}

// Fail returns a Response that is an HTTP error of that status.
func Fail(status int, msg string) Response {
	return Response{Status: status, ErrorMessage: msg}
}

// ToolCall returns a call of tool name with args, which are marshalled to JSON (a
// json.RawMessage or a string is used as it is). It panics if args cannot be marshalled, which
// is a mistake in the test's script.
func ToolCall(id, name string, args any) Call {
	var text string
	switch a := args.(type) {
	case json.RawMessage:
		text = string(a)
	case string:
		text = a
	default:
		b, err := json.Marshal(args)
		if err != nil {
			panic(fmt.Sprintf("fakechat: arguments for %s: %v", name, err))
		}
		text = string(b)
	}
	return Call{ID: id, Name: name, Arguments: text}
}

// fill sets the defaults of the fields left empty.
func (resp *Response) fill(req *Request, n int64) {
	resp.ToolCalls = append([]Call(nil), resp.ToolCalls...) // the script's slice may be shared
	if resp.ID == "" {
		resp.ID = fmt.Sprintf("chatcmpl-fake-%d", n)
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	for i := range resp.ToolCalls {
		if resp.ToolCalls[i].ID == "" {
			resp.ToolCalls[i].ID = fmt.Sprintf("call_fake_%d_%d", n, i)
		}
	}
	if resp.PromptTokens == 0 {
		resp.PromptTokens = max(1, len(req.Body)/4)
	}
	if resp.CompletionTokens == 0 {
		resp.CompletionTokens = fakeserver.EstimateTokens(resp.Text)
		for _, c := range resp.ToolCalls {
			resp.CompletionTokens += fakeserver.EstimateTokens(c.Arguments)
		}
	}
}

// finishReason returns the finish_reason to report.
func (resp Response) finishReason() string {
	switch {
	case resp.FinishReason != "":
		return resp.FinishReason
	case len(resp.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// usage returns the usage object.
func (resp Response) usage() map[string]any {
	return map[string]any{
		"prompt_tokens": resp.PromptTokens, "completion_tokens": resp.CompletionTokens,
		"total_tokens": resp.PromptTokens + resp.CompletionTokens,
	}
}

// wireCalls returns the tool calls as a message carries them; nil for none.
func (resp Response) wireCalls() []any {
	var out []any
	for _, c := range resp.ToolCalls {
		out = append(out, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
	}
	return out
}

// object returns the non-streamed chat.completion object.
func (resp Response) object() map[string]any {
	msg := map[string]any{"role": "assistant", "content": resp.Text}
	if calls := resp.wireCalls(); calls != nil {
		msg["tool_calls"] = calls
	}
	return map[string]any{
		"id": resp.ID, "object": "chat.completion", "created": 0, "model": resp.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": resp.finishReason()}},
		"usage":   resp.usage(),
	}
}
