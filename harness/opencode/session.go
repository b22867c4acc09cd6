package opencode

import (
	"encoding/json"
	"strings"
	"time"
)

// Message is one message of an opencode session as its SDK client and its storage give it:
// {"info":{…},"parts":[…]}.
type Message struct {
	Info  Info   `json:"info"`
	Parts []Part `json:"parts"`
}

// Info is a message's metadata. Role is "user" or "assistant"; an assistant message carries
// its Finish token (the AI SDK's finish reason: "stop", "tool-calls", "length", …) and, when it
// failed, its Error.
type Info struct {
	ID         string `json:"id"`
	SessionID  string `json:"sessionID"`
	Role       string `json:"role"`
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
	Finish     string `json:"finish"`
	Time       struct {
		Created   int64 `json:"created"`
		Completed int64 `json:"completed"`
	} `json:"time"`
	Error *struct {
		Name string `json:"name"`
		Data struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		} `json:"data"`
	} `json:"error"`
}

// Part is one part of a message: text ("text", with Text), a tool call ("tool", with Tool,
// CallID and State), or another type (step-start, step-finish, reasoning, file, …).
type Part struct {
	Type      string    `json:"type"`
	Text      string    `json:"text"`
	Synthetic bool      `json:"synthetic"`
	Tool      string    `json:"tool"`
	CallID    string    `json:"callID"`
	State     ToolState `json:"state"`
}

// ToolState is a tool part's state: Status "pending", "running", "completed" or "error", the
// call's input, and its output or error.
type ToolState struct {
	Status string          `json:"status"`
	Input  json.RawMessage `json:"input"`
	Output string          `json:"output"`
	Error  string          `json:"error"`
	// Metadata is what the tool reported beside its output; for bash, Exit is the command's
	// exit status (absent in sessions that did not record it).
	Metadata struct {
		Exit *int `json:"exit"`
	} `json:"metadata"`
	Time struct {
		Start int64 `json:"start"`
		End   int64 `json:"end"`
	} `json:"time"`
}

// Todo is one item of a session's todo list (opencode's todowrite tool).
type Todo struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

// Text returns the message's text parts joined by newlines, synthetic ones left out.
func (m Message) Text() string {
	var out []string
	for _, p := range m.Parts {
		if p.Type == "text" && !p.Synthetic && p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// Created returns when the message was created; the zero time when unknown.
func (m Message) Created() time.Time { return millis(m.Info.Time.Created) }

// Tools returns the message's tool parts.
func (m Message) Tools() []Part {
	var out []Part
	for _, p := range m.Parts {
		if p.Type == "tool" {
			out = append(out, p)
		}
	}
	return out
}

func millis(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
