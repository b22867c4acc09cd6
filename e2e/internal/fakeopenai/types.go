package fakeopenai

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/stopgate/stopgate/e2e/internal/fakeserver"
)

// Request is one HTTP request the server received, with its Responses API body decoded.
type Request struct {
	fakeserver.Request

	// Model and Stream are the body's fields of those names; Instructions its instructions.
	Model        string
	Stream       bool
	Instructions string
	// Input is the conversation: messages, function calls and their outputs, in order.
	Input []Item
	// Tools are the tools offered to the model.
	Tools []Tool

	// Response is what the script answered, for POST /v1/responses; nil otherwise.
	Response *Response
}

// Item is one input item of a request: a message (Role, Content), a function_call (Name,
// Arguments, CallID) or a function_call_output (CallID, Output); other types keep Type, ID
// and Raw.
type Item struct {
	Type      string    `json:"type"`
	ID        string    `json:"id,omitempty"`
	Role      string    `json:"role,omitempty"`
	Content   []Content `json:"content,omitempty"`
	Name      string    `json:"name,omitempty"`
	Arguments string    `json:"arguments,omitempty"`
	CallID    string    `json:"call_id,omitempty"`
	// Output is a function_call_output's output as sent: a JSON string or a list of content
	// items.
	Output json.RawMessage `json:"output,omitempty"`
	// Raw is the item as sent.
	Raw json.RawMessage `json:"-"`
}

// Content is one content part of a message item (input_text, output_text, input_image).
type Content struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// Tool is one tool offered to the model: a function tool (Type "function", Name, Parameters)
// or a built-in one (Type "web_search", …) with no Name.
type Tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Text returns a message item's text parts joined by newlines.
func (it Item) Text() string {
	var parts []string
	for _, c := range it.Content {
		if c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// OutputText returns a function_call_output's output as text: the string itself, or its text
// parts joined by newlines.
func (it Item) OutputText() string {
	if len(it.Output) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []Content
	if json.Unmarshal(it.Output, &parts) != nil {
		return string(it.Output)
	}
	return Item{Content: parts}.Text()
}

// decode fills the Responses API fields from Body.
func (r *Request) decode() error {
	if err := json.Unmarshal(r.Body, &r.JSON); err != nil {
		return err
	}
	var wire struct {
		Model        string            `json:"model"`
		Stream       bool              `json:"stream"`
		Instructions string            `json:"instructions"`
		Input        json.RawMessage   `json:"input"`
		Tools        []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &wire); err != nil {
		return err
	}
	r.Model, r.Stream, r.Instructions = wire.Model, wire.Stream, wire.Instructions
	var text string
	if json.Unmarshal(wire.Input, &text) == nil {
		r.Input = []Item{{Type: "message", Role: "user", Content: []Content{{Type: "input_text", Text: text}}}}
	} else if len(wire.Input) > 0 && string(wire.Input) != "null" {
		var raws []json.RawMessage
		if err := json.Unmarshal(wire.Input, &raws); err != nil {
			return fmt.Errorf("input: %w", err)
		}
		for i, raw := range raws {
			var it Item
			if err := json.Unmarshal(raw, &it); err != nil {
				return fmt.Errorf("input[%d]: %w", i, err)
			}
			it.Raw = raw
			r.Input = append(r.Input, it)
		}
	}
	for i, raw := range wire.Tools {
		var t Tool
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("tools[%d]: %w", i, err)
		}
		r.Tools = append(r.Tools, t)
	}
	return nil
}

// HasTool reports whether a tool of that name was offered.
func (r *Request) HasTool(name string) bool {
	return slices.Contains(r.ToolNames(), name)
}

// ToolNames returns the names of the function tools offered, in order.
func (r *Request) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		if t.Name != "" {
			names = append(names, t.Name)
		}
	}
	return names
}

// LastItem returns the input's last item; the zero Item when there is none.
func (r *Request) LastItem() Item {
	if len(r.Input) == 0 {
		return Item{}
	}
	return r.Input[len(r.Input)-1]
}

// FunctionOutput returns the function_call_output answering call id.
func (r *Request) FunctionOutput(callID string) (Item, bool) {
	for _, it := range r.Input {
		if (it.Type == "function_call_output" || it.Type == "custom_tool_call_output") && it.CallID == callID {
			return it, true
		}
	}
	return Item{}, false
}

// FunctionCalls returns the function_call items of the input, in order.
func (r *Request) FunctionCalls() []Item {
	var out []Item
	for _, it := range r.Input {
		if it.Type == "function_call" {
			out = append(out, it)
		}
	}
	return out
}

// Texts returns the text of every message item with one of the given roles ("user",
// "assistant", "developer", "system"), in order; with no roles, of every message.
func (r *Request) Texts(roles ...string) []string {
	var out []string
	for _, it := range r.Input {
		if it.Type != "message" || len(roles) > 0 && !slices.Contains(roles, it.Role) {
			continue
		}
		out = append(out, it.Text())
	}
	return out
}

// Response is what the scripted model answers: its output items.
type Response struct {
	// Output is the response's items: Text messages and FunctionCalls.
	Output []OutputItem
	// ID is the response id; empty means a generated "resp_fake_N".
	ID string
	// Model is the model reported; empty means the request's model.
	Model string
	// InputTokens and OutputTokens are the usage reported; zero means an estimate.
	InputTokens, OutputTokens int
}

// OutputItem is one output item of a scripted response: a message whose one output_text part
// is Text, or a function_call.
type OutputItem struct {
	Type      string // "message" or "function_call"
	ID        string // empty means a generated id
	Text      string
	Name      string
	CallID    string
	Arguments string // JSON text
}

// Reply returns a Response with the given items.
func Reply(items ...OutputItem) Response {
	return Response{Output: items}
}

// Text returns an assistant message item with text.
func Text(s string) OutputItem {
	return OutputItem{Type: "message", Text: s}
}

// FunctionCall returns a function_call item calling tool name with args, which are marshalled
// to JSON (a json.RawMessage or a string is used as it is). It panics if args cannot be
// marshalled, which is a mistake in the test's script.
func FunctionCall(callID, name string, args any) OutputItem {
	var text string
	switch a := args.(type) {
	case json.RawMessage:
		text = string(a)
	case string:
		text = a
	default:
		b, err := json.Marshal(args)
		if err != nil {
			panic(fmt.Sprintf("fakeopenai: arguments for %s: %v", name, err))
		}
		text = string(b)
	}
	return OutputItem{Type: "function_call", Name: name, CallID: callID, Arguments: text}
}

// fill sets the defaults of the fields left empty.
func (resp *Response) fill(req *Request, n int64) {
	resp.Output = append([]OutputItem(nil), resp.Output...) // the script's slice may be shared
	if resp.ID == "" {
		resp.ID = fmt.Sprintf("resp_fake_%d", n)
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	for i := range resp.Output {
		it := &resp.Output[i]
		if it.ID == "" {
			prefix := "msg"
			if it.Type == "function_call" {
				prefix = "fc"
			}
			it.ID = fmt.Sprintf("%s_fake_%d_%d", prefix, n, i)
		}
	}
	if resp.InputTokens == 0 {
		resp.InputTokens = max(1, len(req.Body)/4)
	}
	if resp.OutputTokens == 0 {
		for _, it := range resp.Output {
			resp.OutputTokens += fakeserver.EstimateTokens(it.Text) + fakeserver.EstimateTokens(it.Arguments)
		}
	}
}

// wire returns the item as the API sends it: whole (done) in response.output_item.done and
// the final response, or as response.output_item.added announces it, before its deltas.
func (it OutputItem) wire(done bool) map[string]any {
	status := "in_progress"
	if done {
		status = "completed"
	}
	if it.Type == "function_call" {
		args := ""
		if done {
			args = it.Arguments
		}
		return map[string]any{"type": "function_call", "id": it.ID, "call_id": it.CallID, "name": it.Name, "arguments": args, "status": status}
	}
	content := []any{}
	if done {
		content = append(content, map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "id": it.ID, "role": "assistant", "status": status, "content": content}
}

// object returns the response object, with its output when full.
func (resp Response) object(status string, full bool) map[string]any {
	output := []any{}
	if full {
		for _, it := range resp.Output {
			output = append(output, it.wire(true))
		}
	}
	obj := map[string]any{"id": resp.ID, "object": "response", "status": status, "model": resp.Model, "output": output}
	if full {
		obj["usage"] = map[string]any{
			"input_tokens": resp.InputTokens, "output_tokens": resp.OutputTokens,
			"total_tokens":          resp.InputTokens + resp.OutputTokens,
			"input_tokens_details":  map[string]int{"cached_tokens": 0},
			"output_tokens_details": map[string]int{"reasoning_tokens": 0},
		}
	}
	return obj
}
