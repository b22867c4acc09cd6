package transcript

import (
	"bytes"
	"encoding/json"
)

// This file holds the wire shapes of a Claude Code JSONL entry. Only the fields the reader uses
// are declared; encoding/json skips the rest without allocating. Fields whose JSON type has been
// seen to drift between CLI versions (ids and counters written as numbers or strings, content
// written as a string or an array of blocks) use the tolerant types below.

// rawEntry is one JSONL line.
type rawEntry struct {
	Type             string     `json:"type"`
	Subtype          string     `json:"subtype"`
	UUID             string     `json:"uuid"`
	SessionID        string     `json:"sessionId"`
	Version          string     `json:"version"`
	CWD              string     `json:"cwd"`
	GitBranch        string     `json:"gitBranch"`
	Timestamp        string     `json:"timestamp"`
	AgentID          flexString `json:"agentId"`
	IsSidechain      bool       `json:"isSidechain"`
	IsMeta           bool       `json:"isMeta"`
	IsCompactSummary bool       `json:"isCompactSummary"`
	IsAPIError       bool       `json:"isApiErrorMessage"`
	Origin           *struct {
		Kind string `json:"kind"`
	} `json:"origin"`

	// user and assistant
	Message       *rawMessage     `json:"message"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`
	Todos         *[]rawTodo      `json:"todos"`

	// progress
	Data            *rawProgress `json:"data"`
	ParentToolUseID string       `json:"parentToolUseID"`

	// system and queue-operation
	Content               json.RawMessage `json:"content"`
	Operation             string          `json:"operation"`
	HookCount             flexInt         `json:"hookCount"`
	HookInfos             []rawHookInfo   `json:"hookInfos"`
	HookErrors            json.RawMessage `json:"hookErrors"`
	PreventedContinuation bool            `json:"preventedContinuation"`
	StopReason            flexString      `json:"stopReason"`
	CompactMetadata       *rawCompactMeta `json:"compactMetadata"`
	MicrocompactMetadata  *rawCompactMeta `json:"microcompactMetadata"`
	DurationMs            flexInt         `json:"durationMs"`

	// attachment (2.1.97+)
	Attachment *rawAttachment `json:"attachment"`
}

type rawMessage struct {
	ID         string     `json:"id"`
	Role       string     `json:"role"`
	Model      string     `json:"model"`
	Content    rawContent `json:"content"`
	StopReason *string    `json:"stop_reason"`
	Usage      *rawUsage  `json:"usage"`
}

type rawUsage struct {
	InputTokens              flexInt `json:"input_tokens"`
	OutputTokens             flexInt `json:"output_tokens"`
	CacheCreationInputTokens flexInt `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     flexInt `json:"cache_read_input_tokens"`
}

// rawContent is message content: either a plain string or an array of content blocks.
type rawContent struct {
	Text     string
	IsString bool
	Blocks   []rawBlock
}

func (c *rawContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		c.IsString = true
		return json.Unmarshal(b, &c.Text)
	case '[':
		return json.Unmarshal(b, &c.Blocks)
	}
	// null, or a shape no version is known to write: no content.
	return nil
}

// rawBlock is one content block. Thinking blocks decode to their type only: their text and
// signature are never read.
type rawBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   *rawContent     `json:"content"`
	IsError   flexBool        `json:"is_error"`
}

type rawTodo struct {
	ID         flexString `json:"id"`
	Content    string     `json:"content"`
	Subject    string     `json:"subject"`
	Status     string     `json:"status"`
	ActiveForm string     `json:"activeForm"`
}

type rawProgress struct {
	Type    string     `json:"type"`
	AgentID flexString `json:"agentId"`
}

type rawHookInfo struct {
	Command flexString `json:"command"`
}

type rawCompactMeta struct {
	Trigger   string  `json:"trigger"`
	PreTokens flexInt `json:"preTokens"`
}

type rawAttachment struct {
	Type          string          `json:"type"`
	HookEvent     string          `json:"hookEvent"`
	HookName      string          `json:"hookName"`
	Command       string          `json:"command"`
	Content       json.RawMessage `json:"content"`
	Message       string          `json:"message"`
	Stderr        string          `json:"stderr"`
	BlockingError json.RawMessage `json:"blockingError"`
}

// rawToolUseResult holds the fields of a toolUseResult object that the trackers read. It is
// decoded only for the tools whose results matter (Bash, TaskOutput, Task, TodoWrite, …), and
// a decoding error there is ignored: what did decode is used.
type rawToolUseResult struct {
	BackgroundTaskID flexString    `json:"backgroundTaskId"`
	AgentID          flexString    `json:"agentId"`
	Status           flexString    `json:"status"`
	IsAsync          flexBool      `json:"isAsync"`
	OutputFile       string        `json:"outputFile"`
	RetrievalStatus  string        `json:"retrieval_status"`
	Task             *rawTaskRef   `json:"task"`
	Tasks            *[]rawTaskRef `json:"tasks"`
	NewTodos         *[]rawTodo    `json:"newTodos"`
	Success          *flexBool     `json:"success"`
}

type rawTaskRef struct {
	ID         flexString `json:"id"`
	TaskID     flexString `json:"task_id"`
	Subject    string     `json:"subject"`
	Status     string     `json:"status"`
	ActiveForm string     `json:"activeForm"`
	ExitCode   *flexInt   `json:"exitCode"`
}

// Tool inputs. One struct serves every tool the trackers follow; each tool sets its own keys.
type rawToolInput struct {
	Command         string     `json:"command"`
	Description     string     `json:"description"`
	RunInBackground flexBool   `json:"run_in_background"`
	FilePath        string     `json:"file_path"`
	TaskID          flexString `json:"task_id"`
	TaskIDCamel     flexString `json:"taskId"`
	BashID          flexString `json:"bash_id"`
	ShellID         flexString `json:"shell_id"`
	SubagentType    string     `json:"subagent_type"`
	Subject         string     `json:"subject"`
	ActiveForm      string     `json:"activeForm"`
	Status          string     `json:"status"`
	Todos           *[]rawTodo `json:"todos"`
}
