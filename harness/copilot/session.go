package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness/internal/session"
)

// MaxLineBytes bounds one line of an events.jsonl file; a longer line is counted as malformed
// and skipped.
const MaxLineBytes = 16 << 20

// ErrNotSession is returned (wrapped) for a file that is not a Copilot CLI events.jsonl: no
// line of it is a Copilot CLI session event.
var ErrNotSession = errors.New("not a GitHub Copilot CLI session event log")

// Session is one Copilot CLI session as its event log (~/.copilot/session-state/ID/events.jsonl)
// records it: the messages, tool calls, background shells and stop-hook runs, in order.
//
// Copilot CLI 1.0.102 writes the log as it goes, one JSON event a line
// ({"type","data","id","timestamp","parentId"}, an "agentId" on a sub-agent's events), and has
// written every event of a turn before it runs the agentStop hook that ends it. Events marked
// ephemeral (streaming deltas, usage) are not written to the file and not read here.
type Session struct {
	// ID is the session id (session.start's sessionId); CWD its working directory; Version
	// the Copilot CLI version that started it.
	ID, CWD, Version string
	// Started is the session's start.
	Started time.Time
	// Messages are the main agent's messages and the events that start or end one of its
	// turns, in order. A sub-agent's events are in Subagent.
	Messages []*Message
	// Shells are the bash commands the main agent ran in async mode, or that outlived their
	// wait, in the order they started.
	Shells []*Shell
	// Tasks are the main agent's task tool calls: the sub-agents it started.
	Tasks []*ToolCall
	// StopHooks are the agentStop hook runs the log records, in order.
	StopHooks []*StopHook
	// Subagent holds each sub-agent's messages, by agent id.
	Subagent map[string][]*Message
	// Malformed counts lines that are not JSON events and were skipped.
	Malformed int
}

// Kind is what a Message is.
type Kind string

// The message kinds.
const (
	// KindUser is a user.message: a prompt, or a stop hook's continuation (Continuation).
	KindUser Kind = "user"
	// KindAssistant is an assistant.message: text and tool requests.
	KindAssistant Kind = "assistant"
	// KindNotification is a system.notification: Copilot CLI waking the agent because
	// background work finished.
	KindNotification Kind = "notification"
	// KindError is a session.error.
	KindError Kind = "error"
	// KindInterrupt is an abort: the user interrupted the turn.
	KindInterrupt Kind = "interrupt"
)

// Message is one event of a session's conversation.
type Message struct {
	Kind Kind
	Time time.Time
	// Text is the message's text (a user message's content as typed, not the transformed
	// content with the date the model got; an error's message).
	Text string
	// Continuation marks a user message that is a stop hook's block reason, queued by
	// Copilot CLI right after the hook refused the stop.
	Continuation bool
	// ToolCalls are an assistant message's tool requests, with their results as the log
	// records them.
	ToolCalls []*ToolCall
	// ErrorType is a session.error's errorType.
	ErrorType string
}

// ToolCall is one tool request and, once recorded, its result.
type ToolCall struct {
	ID, Name string
	Args     json.RawMessage
	// Done reports that tool.execution_complete was recorded; Success and Result (or Error)
	// are its.
	Done    bool
	Success bool
	Result  string
	Error   string
	// Started and Finished are the execution's start and end.
	Started, Finished time.Time
}

// Shell is one bash command that ran on in the background.
type Shell struct {
	// ID is the shellId Copilot CLI gave it; Call the bash call's id; Command the command.
	ID, Call, Command string
	// Detached reports detach: true, a process Copilot CLI does not watch.
	Detached bool
	Started  time.Time
	// Ended reports that a notification said it finished, at Finished, with ExitCode when it
	// said one. Killed reports that the agent stopped it (stop_bash).
	Ended    bool
	Finished time.Time
	ExitCode *int
	Killed   bool
	// Reads are the times of the read_bash calls on it; ReadAfterEnd the first read that
	// came after it ended.
	Reads        []time.Time
	ReadAfterEnd time.Time
}

// StopHook is one agentStop hook run.
type StopHook struct {
	// Time is when it started; Message the index in Messages of the next message after it.
	Time    time.Time
	Message int
	// Active is the input's stop_hook_active; Stamp the input's timestamp (Unix
	// milliseconds), which is the payload's.
	Active bool
	Stamp  int64
	// Blocked reports that its output was {"decision":"block"}, with Reason.
	Blocked bool
	Reason  string
}

// HasStop reports whether the log has caught up with the agentStop hook run whose payload
// carries stamp (Payload.Timestamp): it records that run's hook.start.
func (s *Session) HasStop(stamp int64) bool {
	for _, h := range s.StopHooks {
		if h.Stamp == stamp {
			return true
		}
	}
	return false
}

// event is one line of events.jsonl.
type event struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	Timestamp string          `json:"timestamp"`
	AgentID   string          `json:"agentId"`
	Ephemeral bool            `json:"ephemeral"`
}

// ReadFile reads the events.jsonl at path.
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the Copilot CLI session: %w", err)
	}
	defer f.Close()
	s, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// shellIDRE finds the shellId in a bash result: "<command started in background with
// shellId: 0>", "<shellId: 0 completed with exit code 0>".
var shellIDRE = regexp.MustCompile(`shellId: ([^\s>]+)`)

// Read reads an events.jsonl from r. Lines that are not JSON objects are counted in Malformed;
// a stream with no Copilot CLI event at all is an error wrapping ErrNotSession.
func Read(r io.Reader) (*Session, error) {
	b := newBuilder()
	if err := session.ScanLines(r, MaxLineBytes, b.line); err != nil {
		return nil, fmt.Errorf("reading the session: %w", err)
	}
	if b.known == 0 {
		return nil, ErrNotSession
	}
	return b.s, nil
}

// builder accumulates a Session from the lines of an events.jsonl.
type builder struct {
	s        *Session
	calls    map[string]*ToolCall
	shells   map[string]*Shell
	lastHook *StopHook
	known    int // events of a Copilot CLI type ("session.start", …)
	// total counts the messages added, so StopHook.Message stays an index in the whole log
	// when a live read (ReadTail) drops messages.
	total int
	live  bool
}

func newBuilder() *builder {
	return &builder{s: &Session{Subagent: map[string][]*Message{}}, calls: map[string]*ToolCall{}, shells: map[string]*Shell{}}
}

// add appends m to the messages.
func (b *builder) add(m *Message) {
	b.s.Messages = append(b.s.Messages, m)
	b.total++
}

// line applies one line of the log.
func (b *builder) line(raw []byte, tooLong bool) {
	s := b.s
	if tooLong {
		s.Malformed++
		return
	}
	line := bytes.TrimSpace(raw)
	if len(line) == 0 {
		return
	}
	var e event
	if json.Unmarshal(line, &e) != nil || e.Type == "" {
		s.Malformed++
		return
	}
	at := parseTime(e.Timestamp)
	if strings.Contains(e.Type, ".") {
		b.known++
	}
	if e.AgentID != "" {
		if m := s.subagentEvent(e, at); m != nil {
			s.Subagent[e.AgentID] = append(s.Subagent[e.AgentID], m)
		}
		return
	}
	switch e.Type {
	case "session.start":
		var d struct {
			SessionID      string `json:"sessionId"`
			CopilotVersion string `json:"copilotVersion"`
			StartTime      string `json:"startTime"`
			Context        struct {
				CWD string `json:"cwd"`
			} `json:"context"`
		}
		if json.Unmarshal(e.Data, &d) == nil {
			s.ID, s.Version, s.CWD = d.SessionID, d.CopilotVersion, d.Context.CWD
			s.Started = parseTime(d.StartTime)
			if s.Started.IsZero() {
				s.Started = at
			}
		}
	case "user.message":
		var d struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(e.Data, &d)
		m := &Message{Kind: KindUser, Time: at, Text: d.Content}
		// A blocking agentStop hook's reason is queued as the next user message.
		if b.lastHook != nil && b.lastHook.Blocked && b.lastHook.Message == b.total &&
			strings.TrimSpace(b.lastHook.Reason) == strings.TrimSpace(d.Content) {
			m.Continuation = true
		}
		b.add(m)
	case "assistant.message":
		var d struct {
			Content      string `json:"content"`
			ToolRequests []struct {
				ToolCallID string          `json:"toolCallId"`
				Name       string          `json:"name"`
				Arguments  json.RawMessage `json:"arguments"`
			} `json:"toolRequests"`
		}
		_ = json.Unmarshal(e.Data, &d)
		m := &Message{Kind: KindAssistant, Time: at, Text: d.Content}
		for _, tr := range d.ToolRequests {
			c := &ToolCall{ID: tr.ToolCallID, Name: tr.Name, Args: tr.Arguments}
			m.ToolCalls = append(m.ToolCalls, c)
			if c.ID != "" {
				b.calls[c.ID] = c
			}
			if c.Name == "task" {
				s.Tasks = append(s.Tasks, c)
			}
		}
		b.add(m)
	case "tool.execution_start":
		var d struct {
			ToolCallID string `json:"toolCallId"`
		}
		if json.Unmarshal(e.Data, &d) == nil {
			if c := b.calls[d.ToolCallID]; c != nil {
				c.Started = at
			}
		}
	case "tool.execution_complete":
		var d struct {
			ToolCallID string `json:"toolCallId"`
			Success    bool   `json:"success"`
			Result     struct {
				Content string `json:"content"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(e.Data, &d) != nil {
			return
		}
		c := b.calls[d.ToolCallID]
		if c == nil {
			return
		}
		c.Done, c.Success, c.Result, c.Finished = true, d.Success, d.Result.Content, at
		if !d.Success {
			c.Error = errorText(d.Error)
			if c.Error == "" {
				c.Error = firstNonEmpty(c.Result, "failed")
			}
		}
		s.shellCall(c, b.shells, at)
	case "system.notification":
		var d struct {
			Content string `json:"content"`
			Kind    struct {
				Type     string `json:"type"`
				ShellID  string `json:"shellId"`
				ExitCode *int   `json:"exitCode"`
			} `json:"kind"`
		}
		_ = json.Unmarshal(e.Data, &d)
		if sh := b.shells[d.Kind.ShellID]; sh != nil && strings.HasPrefix(d.Kind.Type, "shell_") && !sh.Ended {
			sh.Ended, sh.Finished, sh.ExitCode = true, at, d.Kind.ExitCode
		}
		b.add(&Message{Kind: KindNotification, Time: at, Text: d.Content})
	case "session.error":
		var d struct {
			ErrorType string `json:"errorType"`
			Message   string `json:"message"`
		}
		_ = json.Unmarshal(e.Data, &d)
		b.add(&Message{Kind: KindError, Time: at, Text: d.Message, ErrorType: d.ErrorType})
	case "abort", "agent.interrupted":
		b.add(&Message{Kind: KindInterrupt, Time: at})
	case "hook.start":
		var d struct {
			HookType string `json:"hookType"`
			Input    struct {
				Active bool    `json:"stop_hook_active"`
				Stamp  float64 `json:"timestamp"`
			} `json:"input"`
		}
		if json.Unmarshal(e.Data, &d) == nil && d.HookType == EventAgentStop {
			b.lastHook = &StopHook{Time: at, Message: b.total, Active: d.Input.Active, Stamp: int64(d.Input.Stamp)}
			s.StopHooks = append(s.StopHooks, b.lastHook)
		}
	case "hook.end":
		var d struct {
			HookType string `json:"hookType"`
			Output   struct {
				Decision string `json:"decision"`
				Reason   string `json:"reason"`
			} `json:"output"`
		}
		if json.Unmarshal(e.Data, &d) == nil && d.HookType == EventAgentStop && b.lastHook != nil &&
			d.Output.Decision == "block" && strings.TrimSpace(d.Output.Reason) != "" {
			b.lastHook.Blocked, b.lastHook.Reason = true, d.Output.Reason
		}
	}
}

// shellCall records what a finished bash, read_bash or stop_bash call says about the
// background shells.
func (s *Session) shellCall(c *ToolCall, shells map[string]*Shell, at time.Time) {
	var args struct {
		Command string `json:"command"`
		Mode    string `json:"mode"`
		Detach  bool   `json:"detach"`
		ShellID string `json:"shellId"`
	}
	_ = json.Unmarshal(c.Args, &args)
	switch c.Name {
	case "bash":
		if !c.Success {
			return
		}
		m := shellIDRE.FindStringSubmatch(c.Result)
		if m == nil {
			return
		}
		// A sync command that completed says so; anything else runs on.
		if args.Mode != "async" && strings.Contains(c.Result, "completed with exit code") {
			return
		}
		sh := &Shell{ID: m[1], Call: c.ID, Command: args.Command, Detached: args.Detach, Started: firstTime(c.Started, at)}
		shells[sh.ID] = sh
		s.Shells = append(s.Shells, sh)
	case "read_bash":
		if sh := shells[args.ShellID]; sh != nil {
			sh.Reads = append(sh.Reads, at)
			if m := exitCodeRE.FindStringSubmatch(c.Result); m != nil && !sh.Ended {
				sh.Ended, sh.Finished = true, at
				code := atoi(m[1])
				sh.ExitCode = &code
			}
			if sh.Ended && sh.ReadAfterEnd.IsZero() {
				sh.ReadAfterEnd = at
			}
		}
	case "stop_bash":
		if sh := shells[args.ShellID]; sh != nil && c.Success && !sh.Ended {
			sh.Ended, sh.Killed, sh.Finished = true, true, at
		}
	}
}

// exitCodeRE finds the exit code a read of a finished shell reports.
var exitCodeRE = regexp.MustCompile(`completed with exit code (-?\d+)`)

// subagentEvent returns the message a sub-agent's event is, or nil.
func (s *Session) subagentEvent(e event, at time.Time) *Message {
	switch e.Type {
	case "assistant.message":
		var d struct {
			Content      string            `json:"content"`
			ToolRequests []json.RawMessage `json:"toolRequests"`
		}
		_ = json.Unmarshal(e.Data, &d)
		m := &Message{Kind: KindAssistant, Time: at, Text: d.Content}
		for range d.ToolRequests {
			m.ToolCalls = append(m.ToolCalls, &ToolCall{})
		}
		return m
	case "user.message":
		var d struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(e.Data, &d)
		return &Message{Kind: KindUser, Time: at, Text: d.Content}
	}
	return nil
}

// errorText returns a tool error's text: a string, or an object's message.
func errorText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(raw)
}

// parseTime parses an ISO 8601 timestamp; the zero time when it is not one.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func atoi(s string) int {
	n := 0
	neg := strings.HasPrefix(s, "-")
	for _, r := range strings.TrimPrefix(s, "-") {
		n = n*10 + int(r-'0')
	}
	if neg {
		return -n
	}
	return n
}
