package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The roles [FallbackPrompt] renders. Messages with any other role are left out.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a conversation, as the JSON fallback transport flattens it.
type Message struct {
	// Role is one of [RoleSystem], [RoleUser], [RoleAssistant], [RoleTool].
	Role string `json:"role"`
	// Content is the message text; for a tool message, the tool's result.
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []Call `json:"tool_calls,omitempty"`
	// ToolName names the tool whose result a tool message carries; empty when unknown.
	ToolName string `json:"tool_name,omitempty"`
}

// The fixed text of the tool section. The call format names no real tool and marks every
// value as a placeholder: the origin showed a complete "Example suggest_followups call", and a
// weak model read it as the user's request and apologised that it was incomplete.
const (
	shapesHeading = "TOOL ARGUMENT SHAPES (use these exact keys):\n"
	formatHeading = "TOOL CALL FORMAT (a description of syntax, not a message and not a request):\n"
	formatLine    = `{"tool":"<tool name>","arguments":{"<key>":<value>}}` + "\n"
	formatNote    = "Each <...> above is a placeholder, filled from the shapes; it is never written literally."
)

// FallbackPrompt builds the single prompt the JSON fallback transport sends to a model that
// cannot take native tools: the conversation flattened into labelled blocks, then, when there
// are tools, their argument shapes ([CompactSchemas]) and the call syntax
// [ParseFallbackReply] reads back. The same input always yields the same bytes, so every loop
// that builds this prompt builds the identical one.
//
// Blocks are "[System]", "[User]", "[Assistant]" and "[Tool result]" (with the tool's name,
// "[Tool result: name]", when known), each followed by its text, separated by a blank line. An
// assistant message's calls are rendered after its text in the call syntax, so the history
// shows the model the format it is to use; a system, user or assistant message with no text
// (and no calls) is left out, while an empty tool result is shown as "(no output)". Messages
// with other roles are left out. The caller's system prompt still carries the tool contract:
// what the tools are for and when to call them.
func FallbackPrompt(messages []Message, tools []Tool) string {
	var b strings.Builder
	block := func(label, text string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(label)
		b.WriteByte('\n')
		b.WriteString(text)
	}
	for _, m := range messages {
		text := strings.TrimLeft(strings.TrimRight(m.Content, " \t\r\n"), "\r\n")
		switch m.Role {
		case RoleSystem:
			if text != "" {
				block("[System]", text)
			}
		case RoleUser:
			if text != "" {
				block("[User]", text)
			}
		case RoleAssistant:
			for _, c := range m.ToolCalls {
				if text != "" {
					text += "\n"
				}
				text += renderCall(c)
			}
			if text != "" {
				block("[Assistant]", text)
			}
		case RoleTool:
			label := "[Tool result]"
			if m.ToolName != "" {
				label = "[Tool result: " + m.ToolName + "]"
			}
			if text == "" {
				text = "(no output)"
			}
			block(label, text)
		}
	}
	if len(tools) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(shapesHeading)
		b.WriteString(CompactSchemas(tools))
		b.WriteString("\n\n")
		b.WriteString(formatHeading)
		b.WriteString(formatLine)
		b.WriteString(formatNote)
	}
	return b.String()
}

// renderCall writes a call in the fallback syntax, its arguments compacted; arguments that are
// not JSON are carried as a JSON string rather than dropped.
func renderCall(c Call) string {
	name, _ := json.Marshal(c.Name)
	var args bytes.Buffer
	switch trimmed := bytes.TrimSpace(c.Args); {
	case len(trimmed) == 0:
		args.WriteString("{}")
	case json.Compact(&args, trimmed) != nil:
		args.Reset()
		s, _ := json.Marshal(string(trimmed))
		args.Write(s)
	}
	return `{"tool":` + string(name) + `,"arguments":` + args.String() + `}`
}
