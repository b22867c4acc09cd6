package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness/internal/session"
)

// Read reads a Claude Code JSONL transcript from r in one streaming pass and reconstructs the
// session's state.
//
// Unknown entry types and unknown fields are skipped. A line that is not a well-formed entry
// is counted in Session.MalformedCount, described in Session.Malformed, and skipped. Only an
// error from r is returned; Read then also returns the session built from the lines before it.
func Read(r io.Reader, opts *Options) (*Session, error) {
	s, line, err := read(r, opts.Resolved())
	if err != nil {
		return s, fmt.Errorf("transcript: reading after line %d: %w", line, err)
	}
	return s, nil
}

func read(r io.Reader, o Options) (s *Session, line int, err error) {
	b := newBuilder(o)
	err = b.readLines(r)
	return b.finish(), b.Line, err
}

// ReadFile reads the transcript at path, as Read does. With Options.Subagents it also reads
// the session's sub-agent transcripts and links them to their Task calls by agent id.
//
// A missing subagents directory is no error; a file that cannot be opened or read is.
func ReadFile(path string, opts *Options) (*Session, error) {
	o := opts.Resolved()
	s, err := readPath(path, &o)
	if err != nil || !o.Subagents {
		return s, err
	}
	return s, attachAgentFiles(s, path, o)
}

func readPath(path string, o *Options) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	s, line, err := read(f, *o)
	if err != nil {
		return s, fmt.Errorf("transcript: %s: reading after line %d: %w", path, line, err)
	}
	return s, nil
}

// attachAgentFiles reads <session>/subagents/agent-*.jsonl, then, for Task calls still
// without a file, the older agent-<id>.jsonl beside the session file.
func attachAgentFiles(s *Session, path string, o Options) error {
	o.Subagents = false
	read := func(file, id string) error {
		sub, err := readPath(file, &o)
		if err != nil {
			return err
		}
		af := &AgentFile{AgentID: id, Path: file, Compaction: strings.HasPrefix(id, "acompact-"), Session: sub}
		s.AgentFiles = append(s.AgentFiles, af)
		for _, a := range s.Subagents {
			if a.AgentID == id && a.File == nil {
				a.File = af
			}
		}
		return nil
	}

	dir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("transcript: %w", err)
	}
	for _, e := range ents { // ReadDir sorts by name
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		if err := read(filepath.Join(dir, name), strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl")); err != nil {
			return err
		}
	}

	for _, a := range s.Subagents {
		// The id comes from the transcript; only a plain token may become part of a path.
		if a.File != nil || !validID(a.AgentID) {
			continue
		}
		file := filepath.Join(filepath.Dir(path), "agent-"+a.AgentID+".jsonl")
		if _, err := os.Stat(file); err != nil {
			continue
		}
		if err := read(file, a.AgentID); err != nil {
			return err
		}
	}
	return nil
}

// readLines feeds each line of r to the builder, up to MaxLineBytes; a longer line is counted
// as malformed.
func (b *builder) readLines(r io.Reader) error {
	return scanLines(r, b.O.MaxLineBytes, func(line []byte, tooLong bool) {
		b.Line++
		if tooLong {
			b.Malformed(ErrLineTooLong)
			return
		}
		b.entry(line)
	})
}

// entryKey is the key of Session.Entries while a session is read.
type entryKey struct{ typ, sub string }

// knownTypes are the entry types Claude Code is known to write (research notes §2.2). Types
// outside this set are counted in Session.Skipped.
var knownTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "progress": true, "summary": true,
	"file-history-snapshot": true, "queue-operation": true, "attachment": true, "pr-link": true,
	"agent-name": true, "custom-title": true, "last-prompt": true, "permission-mode": true,
	"ai-title": true, "agent-setting": true, "bridge-session": true, "worktree-state": true,
}

// builder accumulates a Session from entries.
type builder struct {
	*session.Builder // the options, Session, line count, entry bookkeeping and turns

	msgByID map[string]*Message
	calls   map[string]*ToolCall

	shellByID  map[string]*Shell
	shellReads map[string]shellReadRef // TaskOutput/BashOutput/Read/Bash call id → read
	bgCalls    []*ToolCall             // Bash calls with run_in_background

	agentByCall  map[string]*Subagent
	agentByID    map[string]*Subagent
	agentReads   map[string]*Subagent // TaskOutput call id → background agent read
	pendingKills map[string]bool      // kill calls awaiting a result

	todoCalls   []*ToolCall // TodoWrite/Task* calls in order
	todoPending map[string]bool
	todoWrite   []Todo
	tasks       []Todo

	// todoUsed records a todo tool call in a message off ([0]) and on ([1]) a sidechain.
	todoUsed [2]bool
	// Live (in session.Builder) keeps only what the last turn's stop needs (ReadTail); this
	// reader then also keeps no Messages, StopHooks or Compactions.
	// forgotten are the ids of the messages a live read let go, oldest first.
	forgotten []string
	// scratch is decodeEntry's reused buffer.
	scratch []byte
}

type shellReadRef struct {
	shell *Shell
	index int
}

func newBuilder(o Options) *builder {
	return &builder{
		Builder:      session.NewBuilder(o),
		msgByID:      make(map[string]*Message),
		calls:        make(map[string]*ToolCall),
		shellByID:    make(map[string]*Shell),
		shellReads:   make(map[string]shellReadRef),
		agentByCall:  make(map[string]*Subagent),
		agentByID:    make(map[string]*Subagent),
		agentReads:   make(map[string]*Subagent),
		pendingKills: make(map[string]bool),
		todoPending:  make(map[string]bool),
	}
}

func (b *builder) entry(line []byte) {
	switch firstByte(line) {
	case 0:
		return // blank line
	case '{':
	default:
		b.Malformed(ErrNotObject)
		return
	}
	var e rawEntry
	if err := b.decodeEntry(line, &e); err != nil {
		b.Malformed(err)
		return
	}
	if e.Type == "" {
		b.Malformed(ErrNoType)
		return
	}
	t := parseTime(e.Timestamp)
	b.envelope(&e, t)

	k := entryKey{typ: e.Type}
	switch e.Type {
	case "user":
		b.user(&e, t)
	case "assistant":
		b.assistant(&e, t)
	case "system":
		k.sub = e.Subtype
		b.system(&e, t)
	case "progress":
		if e.Data != nil {
			k.sub = e.Data.Type
		}
		b.progress(&e)
	case "attachment":
		if e.Attachment != nil {
			k.sub = e.Attachment.Type
		}
		b.attachment(&e, t)
	case "queue-operation":
		k.sub = e.Operation
		b.queue(&e, t)
	default:
		if !knownTypes[e.Type] {
			b.S.Skipped++
		}
	}
	b.Count(k.typ, k.sub)

	switch e.Type {
	case "user":
		if e.IsMeta {
			break // harness text (a caveat, a skill body) is no sign of the agent working
		}
		fallthrough
	case "assistant", "system", "progress", "attachment":
		if b.Cur != nil && e.IsSidechain == b.MainSidechain && t.After(b.Cur.End) {
			b.Cur.End = t
		}
	}
}

// envelope records the session-level facts every entry may carry.
func (b *builder) envelope(e *rawEntry, t time.Time) {
	s := b.S
	if s.ID == "" {
		s.ID = e.SessionID
	}
	if s.AgentID == "" && e.IsSidechain {
		s.AgentID = string(e.AgentID)
	}
	if e.Version != "" && !slices.Contains(s.Versions, e.Version) {
		s.Versions = append(s.Versions, e.Version)
	}
	if s.CWD == "" {
		s.CWD = e.CWD
	}
	if s.GitBranch == "" {
		s.GitBranch = e.GitBranch
	}
	if !t.IsZero() {
		if s.Start.IsZero() || t.Before(s.Start) {
			s.Start = t
		}
		if t.After(s.End) {
			s.End = t
		}
	}
}

// user handles a user entry: a prompt, tool results, or a harness message.
func (b *builder) user(e *rawEntry, t time.Time) {
	b.SetMain(e.IsSidechain)
	m := &Message{ID: e.UUID, Role: "user", Time: t, Line: b.Line, Entries: 1, Sidechain: e.IsSidechain}
	if e.Todos != nil && e.IsSidechain == b.MainSidechain {
		b.todoWrite = todosFrom(*e.Todos, "TodoWrite")
	}
	var texts []string
	hasImage := false
	if e.Message != nil {
		c := &e.Message.Content
		if c.IsString {
			texts = append(texts, c.Text)
		}
		var results []*rawBlock
		for i := range c.Blocks {
			blk := &c.Blocks[i]
			switch blk.Type {
			case "text":
				texts = append(texts, blk.Text)
			case "image":
				hasImage = true
			case "tool_result":
				results = append(results, blk)
			}
		}
		for _, blk := range results {
			var structured json.RawMessage
			if len(results) == 1 { // toolUseResult belongs to the entry; with one result it is that one's
				structured = e.ToolUseResult
			}
			m.ToolResults = append(m.ToolResults, b.toolResult(blk, structured, t))
		}
	}
	m.Text = b.CutText(joinText(texts))
	m.Kind = classifyUser(e, m, hasImage)
	if !b.Live {
		b.S.Messages = append(b.S.Messages, m)
	}
	b.Place(m)

	main := m.Sidechain == b.MainSidechain
	if main && b.Cur != nil && strings.Contains(m.Text, "[Request interrupted by user") {
		b.Cur.Interrupted = true
	}
	switch m.Kind {
	case KindNotification:
		for _, n := range parseNotifications(m.Text) {
			b.notify(n, t, true)
		}
	case KindHookFeedback:
		b.addStopHook(&StopHook{Kind: StopHookFeedback, Event: "Stop", Time: t, Line: b.Line, Blocked: true, Text: m.Text}, main)
	case KindCompactSummary:
		for i := len(b.S.Compactions) - 1; i >= 0; i-- {
			if c := b.S.Compactions[i]; !c.Micro {
				if c.Summary == "" {
					c.Summary = m.Text
				}
				break
			}
		}
	}
}

// classifyUser says what a user entry is, from its flags and the markup opening its text.
func classifyUser(e *rawEntry, m *Message, hasImage bool) MessageKind {
	text := strings.TrimLeft(m.Text, " \t\r\n")
	switch {
	case e.IsCompactSummary:
		return KindCompactSummary
	case len(m.ToolResults) > 0:
		return KindToolResult
	case (e.Origin != nil && e.Origin.Kind == "task-notification") || strings.HasPrefix(text, notifyOpen):
		return KindNotification
	case strings.HasPrefix(text, "Stop hook feedback:"):
		return KindHookFeedback
	case e.IsMeta:
		return KindMeta
	case strings.HasPrefix(text, "[Request interrupted by user"):
		return KindInterrupt
	case strings.HasPrefix(text, "<local-command-"), strings.HasPrefix(text, "<bash-stdout>"), strings.HasPrefix(text, "<bash-stderr>"):
		return KindCommandOutput
	case strings.HasPrefix(text, "<command-name>"), strings.HasPrefix(text, "<command-message>"), strings.HasPrefix(text, "<bash-input>"):
		return KindCommand
	case strings.HasPrefix(text, "<system-reminder>"):
		return KindMeta
	case text == "" && !hasImage:
		return KindMeta
	}
	return KindPrompt
}

// contentText flattens tool_result content: a string, or the text of its text blocks.
func contentText(c *rawContent) string {
	if c == nil {
		return ""
	}
	if c.IsString {
		return c.Text
	}
	var parts []string
	for i := range c.Blocks {
		if c.Blocks[i].Type == "text" {
			parts = append(parts, c.Blocks[i].Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolResult builds a ToolResult, links it to its call and applies its effects.
func (b *builder) toolResult(blk *rawBlock, structured json.RawMessage, t time.Time) *ToolResult {
	r := &ToolResult{ToolUseID: blk.ToolUseID, IsError: bool(blk.IsError), Time: t, Line: b.Line}
	full := contentText(blk.Content)
	r.Text, r.TextTruncated = b.Cut(full)
	if len(structured) > 0 && !bytes.Equal(structured, []byte("null")) && !b.Live { // a live read's Turn never reads it
		if b.O.MaxResultBytes < 0 || len(structured) <= b.O.MaxResultBytes {
			r.Structured = bytes.Clone(structured) // it points into the line
		} else {
			r.StructuredDropped = true
		}
	}
	call := b.calls[r.ToolUseID]
	if call != nil && call.Result == nil {
		call.Result = r
	}
	b.resultEffects(call, r, full, structured)
	return r
}

// assistant merges an assistant entry into its message.
func (b *builder) assistant(e *rawEntry, t time.Time) {
	b.SetMain(e.IsSidechain)
	if e.Message == nil {
		return
	}
	id := e.Message.ID
	if id == "" {
		id = e.UUID
	}
	m := b.msgByID[id]
	if m == nil {
		m = &Message{ID: id, Role: "assistant", Kind: KindAssistant, Time: t, Line: b.Line, Sidechain: e.IsSidechain}
		if id != "" {
			b.msgByID[id] = m
		}
		if !b.Live {
			b.S.Messages = append(b.S.Messages, m)
		}
		b.Place(m)
	}
	m.Entries++
	if e.Message.Model != "" {
		m.Model = e.Message.Model
	}
	if e.IsAPIError {
		m.APIError = true
	}
	if sr := e.Message.StopReason; sr != nil {
		v := *sr
		m.StopReason = &v
	}
	if u := e.Message.Usage; u != nil {
		m.Usage = Usage{
			InputTokens:              int64(u.InputTokens),
			OutputTokens:             int64(u.OutputTokens),
			CacheCreationInputTokens: int64(u.CacheCreationInputTokens),
			CacheReadInputTokens:     int64(u.CacheReadInputTokens),
		}
	}
	c := &e.Message.Content
	if c.IsString {
		appendText(m, c.Text)
	}
	for i := range c.Blocks {
		blk := &c.Blocks[i]
		switch blk.Type {
		case "text":
			appendText(m, blk.Text)
		case "tool_use", "server_tool_use":
			call := &ToolCall{ID: blk.ID, Name: blk.Name, Input: blk.Input, Time: t, Line: b.Line}
			m.ToolCalls = append(m.ToolCalls, call)
			switch call.Name {
			case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList":
				b.todoUsed[boolIndex(m.Sidechain)] = true
			}
			if call.ID != "" {
				b.calls[call.ID] = call
			}
			b.callEffects(call, e.IsSidechain == b.MainSidechain)
		}
	}
}

// system handles system entries: compactions, stop-hook summaries, turn durations.
func (b *builder) system(e *rawEntry, t time.Time) {
	switch e.Subtype {
	case "compact_boundary", "microcompact_boundary":
		c := &Compaction{Time: t, Line: b.Line, Micro: e.Subtype == "microcompact_boundary", Turn: b.TurnIndex()}
		md := e.CompactMetadata
		if md == nil {
			md = e.MicrocompactMetadata
		}
		if md != nil {
			c.Trigger, c.PreTokens = md.Trigger, int64(md.PreTokens)
		}
		if !b.Live {
			b.S.Compactions = append(b.S.Compactions, c)
		}
	case "stop_hook_summary":
		h := &StopHook{
			Kind:                  StopHookSummary,
			Time:                  t,
			Line:                  b.Line,
			PreventedContinuation: e.PreventedContinuation,
			StopReason:            b.CutText(string(e.StopReason)),
			Errors:                b.hookErrors(e.HookErrors),
		}
		for _, hi := range e.HookInfos {
			h.Commands = append(h.Commands, string(hi.Command))
		}
		b.addStopHook(h, e.IsSidechain == b.MainSidechain)
	case "turn_duration":
		if b.Cur != nil && e.IsSidechain == b.MainSidechain {
			b.Cur.Duration = time.Duration(e.DurationMs) * time.Millisecond
		}
	}
}

// hookErrors renders hookErrors: strings as they are, anything else as its JSON.
func (b *builder) hookErrors(raw json.RawMessage) []string {
	if firstByte(raw) != '[' {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) != nil {
			s = string(bytes.TrimSpace(it))
		}
		out = append(out, b.CutText(s))
	}
	return out
}

// addStopHook records h in the current turn. Records written between two assistant
// messages belong to one stop (a summary, a blocking attachment and its feedback message, two
// hooks blocking at once): they share Active, and the stop counts as one block at most.
func (b *builder) addStopHook(h *StopHook, main bool) {
	h.Turn = -1
	if cur := b.Cur; cur != nil && main {
		h.Turn = cur.Index
		if bk := &cur.Book; bk.HookAt != bk.AssistantCount { // a new stop
			bk.BlockedBefore = bk.BlockedBefore || bk.HookBlocked
			bk.HookAt, bk.HookActive, bk.HookBlocked = bk.AssistantCount, bk.BlockedBefore, false
		}
		h.Active = cur.Book.HookActive
		if h.Blocked && !cur.Book.HookBlocked {
			cur.Book.HookBlocked = true
			cur.StopHookBlocks++
		}
	}
	if !b.Live {
		b.S.StopHooks = append(b.S.StopHooks, h)
	}
}

// attachment handles attachment entries (2.1.97+); only Stop and SubagentStop hook outcomes
// are read.
func (b *builder) attachment(e *rawEntry, t time.Time) {
	a := e.Attachment
	if a == nil || !strings.HasPrefix(a.Type, "hook_") || (a.HookEvent != "Stop" && a.HookEvent != "SubagentStop") {
		return
	}
	h := &StopHook{Kind: StopHookAttachment, Attachment: a.Type, Event: a.HookEvent, Time: t, Line: b.Line}
	if a.Command != "" {
		h.Commands = []string{a.Command}
	}
	switch a.Type {
	case "hook_blocking_error":
		h.Blocked = true
		h.Text = b.CutText(blockingErrorText(a.BlockingError))
	case "hook_additional_context":
		h.Blocked = true
		h.Text = b.CutText(stringOrStrings(a.Content))
	case "hook_stopped_continuation":
		h.PreventedContinuation = true
		h.StopReason = b.CutText(a.Message)
		h.Text = h.StopReason
	case "hook_non_blocking_error":
		if a.Stderr != "" {
			h.Errors = []string{b.CutText(a.Stderr)}
		}
	}
	b.addStopHook(h, e.IsSidechain == b.MainSidechain)
}

// blockingErrorText reads a hook_blocking_error payload: {"blockingError": "…", "command": …}
// or a bare string.
func blockingErrorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		BlockingError string `json:"blockingError"`
	}
	_ = json.Unmarshal(raw, &obj)
	return obj.BlockingError
}

// stringOrStrings reads a string, or an array of strings joined by newlines.
func stringOrStrings(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	_ = json.Unmarshal(raw, &list)
	return strings.Join(list, "\n")
}

// progress links agent_progress entries to their Task call.
func (b *builder) progress(e *rawEntry) {
	if e.Data == nil || e.Data.Type != "agent_progress" {
		return
	}
	a := b.agentByCall[e.ParentToolUseID]
	if a == nil {
		return
	}
	a.Progress++
	if id := string(e.Data.AgentID); a.AgentID == "" && id != "" {
		a.AgentID = id
		b.agentByID[id] = a
	}
}

// queue reads task notifications from queue-operation entries: the harness queued the
// notice when the task ended, before delivering it to the model.
func (b *builder) queue(e *rawEntry, t time.Time) {
	if e.Operation != "enqueue" || !bytes.Contains(e.Content, []byte("task-notification")) {
		return
	}
	var s string
	if json.Unmarshal(e.Content, &s) != nil {
		return
	}
	for _, n := range parseNotifications(s) {
		b.notify(n, t, false)
	}
}

// finish completes the derived state once every line is read.
func (b *builder) finish() *Session {
	s := b.S
	for _, call := range b.bgCalls {
		if call.Result == nil {
			sh := &Shell{Call: call, Started: call.Time, Status: ShellRunning}
			var in rawToolInput
			decodeLoose(call.Input, &in)
			sh.Command, sh.Description = in.Command, in.Description
			s.Shells = append(s.Shells, sh)
		}
	}
	for _, call := range b.todoCalls {
		if b.todoPending[call.ID] {
			b.applyTodo(call, nil, nil)
		}
	}
	s.Todos = append(append([]Todo(nil), b.todoWrite...), b.tasks...)
	s.TodosUsed = b.todoUsed[boolIndex(s.AgentID != "")]
	return b.Builder.Finish()
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
