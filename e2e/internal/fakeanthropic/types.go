package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Request is one HTTP request the server received, with its Messages API body decoded.
type Request struct {
	fakeserver.Request

	// Model, MaxTokens and Stream are the body's fields of those names.
	Model     string
	MaxTokens int
	Stream    bool
	// System is the system prompt's text, its blocks joined by blank lines.
	System string
	// Messages is the conversation, with string contents turned into one text block.
	Messages []Message
	// Tools are the tools offered to the model.
	Tools []Tool

	// Response is what the script answered, for POST /v1/messages; nil otherwise.
	Response *Response
}

// Message is one message of a Messages API conversation.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// Tool is one tool offered to the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// Type is set for server and built-in tools ("web_search_20250305"); empty for custom
	// tools.
	Type string `json:"type,omitempty"`
}

// Block is one content block, in a request's messages or in a scripted response. Which fields
// are set depends on Type: text has Text; tool_use has ID, Name and Input; tool_result has
// ToolUseID, Content and IsError.
type Block struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`

	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	ToolUseID string `json:"tool_use_id,omitempty"`
	// Content is a tool result's content as sent: a JSON string or an array of blocks.
	Content json.RawMessage `json:"content,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
}

// ResultText returns a tool_result block's content as text: the string itself, or its text
// blocks joined by newlines.
func (b Block) ResultText() string {
	if len(b.Content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var blocks []Block
	if json.Unmarshal(b.Content, &blocks) != nil {
		return string(b.Content)
	}
	var parts []string
	for _, c := range blocks {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Text returns the message's text blocks joined by newlines.
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// decode fills the Messages API fields from Body.
func (r *Request) decode() error {
	if err := json.Unmarshal(r.Body, &r.JSON); err != nil {
		return err
	}
	var wire struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		Stream    bool            `json:"stream"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []Tool `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &wire); err != nil {
		return err
	}
	r.Model, r.MaxTokens, r.Stream, r.Tools = wire.Model, wire.MaxTokens, wire.Stream, wire.Tools
	sys, err := textOrBlocks(wire.System)
	if err != nil {
		return fmt.Errorf("system: %w", err)
	}
	var parts []string
	for _, b := range sys {
		parts = append(parts, b.Text)
	}
	r.System = strings.Join(parts, "\n\n")
	for i, m := range wire.Messages {
		blocks, err := textOrBlocks(m.Content)
		if err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		r.Messages = append(r.Messages, Message{Role: m.Role, Content: blocks})
	}
	return nil
}

// textOrBlocks decodes a content field that is either a string or an array of blocks.
func textOrBlocks(raw json.RawMessage) ([]Block, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Block{{Type: "text", Text: s}}, nil
	}
	var blocks []Block
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

// HasTool reports whether a tool of that name was offered.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// ToolNames returns the names of the tools offered, in order.
func (r *Request) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

// LastMessage returns the conversation's last message; the zero Message when there is none.
func (r *Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// ToolResult returns the tool_result block answering tool_use id, searching every message.
func (r *Request) ToolResult(id string) (Block, bool) {
	for _, m := range r.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return b, true
			}
		}
	}
	return Block{}, false
}

// Texts returns the text of every text block of the messages with one of the given roles
// ("user", "assistant", "system"), in order; with no roles, of every message. Tool results
// are not included: see ToolResult.
func (r *Request) Texts(roles ...string) []string {
	var out []string
	for _, m := range r.Messages {
		if len(roles) > 0 && !slices.Contains(roles, m.Role) {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// CountText returns how many of Texts(roles...) contain substr.
func (r *Request) CountText(substr string, roles ...string) int {
	n := 0
	for _, t := range r.Texts(roles...) {
		if strings.Contains(t, substr) {
			n++
		}
	}
	return n
}

// ToolUses returns every tool_use block of the assistant messages, in order.
func (r *Request) ToolUses() []Block {
	var out []Block
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "tool_use" {
				out = append(out, b)
			}
		}
	}
	return out
}

// Response is what the scripted model answers: its content blocks and stop reason.
type Response struct {
	// Content is the assistant message's blocks: Text and ToolUse.
	Content []Block
	// StopReason is the message's stop reason; empty means "tool_use" when Content holds a
	// tool_use block and "end_turn" otherwise.
	StopReason string
	// Model is the model name reported; empty means the request's model.
	Model string
	// ID is the message id; empty means a generated "msg_fake_N".
	ID string
	// InputTokens and OutputTokens are the usage reported; zero means an estimate.
	InputTokens, OutputTokens int
}

// Reply returns a Response with the given blocks and the default stop reason.
func Reply(blocks ...Block) Response {
	return Response{Content: blocks}
}

// Text returns a text block.
func Text(s string) Block {
	return Block{Type: "text", Text: s}
}

// ToolUse returns a tool_use block calling tool name with input, which is marshalled to JSON
// (a json.RawMessage is used as it is). It panics if input cannot be marshalled, which is a
// mistake in the test's script.
func ToolUse(id, name string, input any) Block {
	raw, ok := input.(json.RawMessage)
	if !ok {
		var err error
		raw, err = json.Marshal(input)
		if err != nil {
			panic(fmt.Sprintf("fakeanthropic: tool input for %s: %v", name, err))
		}
	}
	return Block{Type: "tool_use", ID: id, Name: name, Input: raw}
}

// fill sets the defaults of the fields left empty.
func (resp *Response) fill(req *Request, n int64) {
	resp.Content = append([]Block(nil), resp.Content...) // the script's slice may be shared
	if resp.StopReason == "" {
		resp.StopReason = "end_turn"
		for _, b := range resp.Content {
			if b.Type == "tool_use" {
				resp.StopReason = "tool_use"
			}
		}
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	if resp.ID == "" {
		resp.ID = fmt.Sprintf("msg_fake_%d", n)
	}
	if resp.InputTokens == 0 {
		resp.InputTokens = max(1, len(req.Body)/4)
	}
	if resp.OutputTokens == 0 {
		n := 0
		for _, b := range resp.Content {
			n += fakeserver.EstimateTokens(b.Text) + fakeserver.EstimateTokens(string(b.Input))
		}
		resp.OutputTokens = n
	}
	for i, b := range resp.Content {
		if b.Type == "tool_use" && len(b.Input) == 0 {
			resp.Content[i].Input = json.RawMessage("{}")
		}
	}
}

// wire returns the block as the API sends it: whole in a non-streamed message (full), or as
// the content_block_start of a stream, whose text and tool input then follow as deltas.
func (b Block) wire(full bool) map[string]any {
	switch b.Type {
	case "tool_use":
		input := json.RawMessage("{}")
		if full {
			input = b.Input
		}
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input}
	default:
		text := ""
		if full {
			text = b.Text
		}
		return map[string]any{"type": b.Type, "text": text}
	}
}
