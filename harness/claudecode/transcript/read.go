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
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stopgate/stopgate/internal/jsonl"
)

// Defaults for the zero Options.
const (
	// DefaultMaxLineBytes bounds one JSONL line. Tool results are stored inline, so real
	// lines run to tens of megabytes.
	DefaultMaxLineBytes = 64 << 20
	// DefaultMaxResultBytes bounds the text kept per tool result, user message, compaction
	// summary and stop-hook message, and the structured toolUseResult kept per result.
	DefaultMaxResultBytes = 64 << 10
	// DefaultMaxMalformed bounds Session.Malformed.
	DefaultMaxMalformed = 100
)

// Errors wrapped by LineError for lines that are skipped. A line that is not valid JSON, or
// whose known fields have unexpected JSON types, carries the encoding/json error instead.
var (
	// ErrLineTooLong reports a line longer than Options.MaxLineBytes.
	ErrLineTooLong = errors.New("line too long")
	// ErrNotObject reports a line that holds JSON but not an object.
	ErrNotObject = errors.New("not a JSON object")
	// ErrNoType reports an object without a "type" string: no transcript entry.
	ErrNoType = errors.New("entry has no type")
)

// Options configures Read and ReadFile. The zero value (or a nil *Options) reads with the
// defaults and does not look for sub-agent files.
type Options struct {
	// Subagents makes ReadFile also read the sub-agent transcripts Claude Code keeps beside
	// the session (<session-id>/subagents/agent-*.jsonl, and agent-<id>.jsonl next to the
	// session file for older builds), filling Session.AgentFiles and Subagent.File. Read,
	// which has no path, ignores it.
	Subagents bool
	// MaxLineBytes bounds one line; a longer line is skipped and reported with
	// ErrLineTooLong. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxResultBytes bounds the text kept per tool result, user message, compaction summary
	// and stop-hook message; a structured toolUseResult larger than this is dropped. Zero
	// means DefaultMaxResultBytes; a negative value keeps everything.
	MaxResultBytes int
	// MaxMalformed bounds Session.Malformed; Session.MalformedCount still counts every
	// malformed line. Zero means DefaultMaxMalformed; a negative value keeps none.
	MaxMalformed int
}

func (o *Options) resolved() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxLineBytes <= 0 {
		r.MaxLineBytes = DefaultMaxLineBytes
	}
	if r.MaxResultBytes == 0 {
		r.MaxResultBytes = DefaultMaxResultBytes
	}
	if r.MaxMalformed == 0 {
		r.MaxMalformed = DefaultMaxMalformed
	}
	return r
}

// Read reads a Claude Code JSONL transcript from r in one streaming pass and reconstructs the
// session's state.
//
// Unknown entry types and unknown fields are skipped. A line that is not a well-formed entry
// is counted in Session.MalformedCount, described in Session.Malformed, and skipped. Only an
// error from r is returned; Read then also returns the session built from the lines before it.
func Read(r io.Reader, opts *Options) (*Session, error) {
	s, line, err := read(r, opts.resolved())
	if err != nil {
		return s, fmt.Errorf("transcript: reading after line %d: %w", line, err)
	}
	return s, nil
}

func read(r io.Reader, o Options) (s *Session, line int, err error) {
	b := newBuilder(o)
	err = b.readLines(r)
	return b.finish(), b.line, err
}

// ReadFile reads the transcript at path, as Read does. With Options.Subagents it also reads
// the session's sub-agent transcripts and links them to their Task calls by agent id.
//
// A missing subagents directory is no error; a file that cannot be opened or read is.
func ReadFile(path string, opts *Options) (*Session, error) {
	o := opts.resolved()
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

// scanLines calls fn with each line of r, its line end kept, read by the one line scanner
// (internal/jsonl): a line over max bytes is reported with tooLong set and no bytes. Empty
// input yields no call. It returns r's first error other than io.EOF.
func scanLines(r io.Reader, max int, fn func(line []byte, tooLong bool)) error {
	sc := jsonl.NewScanner(r, max)
	for sc.Scan() {
		fn(sc.Line(), sc.TooLong())
	}
	return sc.Err()
}

// readLines feeds each line of r to the builder, up to MaxLineBytes; a longer line is counted
// as malformed.
func (b *builder) readLines(r io.Reader) error {
	return scanLines(r, b.o.MaxLineBytes, func(line []byte, tooLong bool) {
		b.line++
		if tooLong {
			b.malformed(ErrLineTooLong)
			return
		}
		b.entry(line)
	})
}

// entryKey is the internal key of Session.Entries.
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
	o    Options
	s    *Session
	line int

	entries map[entryKey]int

	sidechainKnown bool
	mainSidechain  bool
	cur            *Turn

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
	// nTurns counts the turns started, the next Turn.Index.
	nTurns int
	// live keeps only what the last turn's stop needs (ReadTail): no Messages, StopHooks or
	// Compactions, no user messages in turns, only the current run's turns.
	live bool
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
		o:            o,
		s:            &Session{},
		entries:      make(map[entryKey]int),
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

func (b *builder) malformed(err error) {
	b.s.MalformedCount++
	if len(b.s.Malformed) < b.o.MaxMalformed {
		b.s.Malformed = append(b.s.Malformed, LineError{Line: b.line, Err: err})
	}
}

func (b *builder) entry(line []byte) {
	switch firstByte(line) {
	case 0:
		return // blank line
	case '{':
	default:
		b.malformed(ErrNotObject)
		return
	}
	var e rawEntry
	if err := b.decodeEntry(line, &e); err != nil {
		b.malformed(err)
		return
	}
	if e.Type == "" {
		b.malformed(ErrNoType)
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
			b.s.Skipped++
		}
	}
	b.entries[k]++

	switch e.Type {
	case "user":
		if e.IsMeta {
			break // harness text (a caveat, a skill body) is no sign of the agent working
		}
		fallthrough
	case "assistant", "system", "progress", "attachment":
		if b.cur != nil && e.IsSidechain == b.mainSidechain && t.After(b.cur.End) {
			b.cur.End = t
		}
	}
}

// envelope records the session-level facts every entry may carry.
func (b *builder) envelope(e *rawEntry, t time.Time) {
	s := b.s
	if s.ID == "" {
		s.ID = e.SessionID
	}
	if s.AgentID == "" && e.IsSidechain {
		s.AgentID = string(e.AgentID)
	}
	if e.Version != "" && !contains(s.Versions, e.Version) {
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// cut bounds s to MaxResultBytes at a rune boundary. A cut string is copied so the full
// decoded text can be collected.
func (b *builder) cut(s string) (string, bool) {
	max := b.o.MaxResultBytes
	if max < 0 || len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.Clone(s[:i]), true
}

func (b *builder) cutText(s string) string {
	s, _ = b.cut(s)
	return s
}

// setMain fixes which chain (main or sidechain) the transcript's own turns are on: the chain
// of its first message.
func (b *builder) setMain(sidechain bool) {
	if !b.sidechainKnown {
		b.sidechainKnown, b.mainSidechain = true, sidechain
	}
}

func (b *builder) turnIndex() int {
	if b.cur == nil {
		return -1
	}
	return b.cur.Index
}

// place adds a new message to the turns: it starts a turn, joins the current one, or, before
// any turn, starts an implicit one if it is part of the agent loop.
func (b *builder) place(m *Message) {
	if m.Sidechain != b.mainSidechain {
		return
	}
	if m.Kind.StartsTurn() {
		b.startTurn(m, m.Kind)
		return
	}
	if b.cur == nil {
		if m.Kind != KindAssistant && m.Kind != KindToolResult {
			return
		}
		b.startTurn(m, "")
	} else if !b.live || m.Role != "user" {
		b.cur.Messages = append(b.cur.Messages, m)
	}
	if m.Kind == KindAssistant {
		b.cur.assistantCount++
	}
}

func (b *builder) startTurn(m *Message, trigger MessageKind) {
	t := &Turn{
		Index:    b.nTurns,
		Trigger:  trigger,
		Line:     m.Line,
		Start:    m.Time,
		End:      m.Time,
		Messages: []*Message{m},
		hookAt:   -1,
	}
	if trigger != "" {
		t.Prompt = m.Text
	}
	if b.live {
		if m.Role == "user" {
			t.Messages = nil
		}
		if trigger != KindNotification {
			// A new run: the turns before it say nothing about this stop.
			clear(b.s.Turns)
			b.s.Turns = b.s.Turns[:0]
		}
	}
	b.nTurns++
	b.s.Turns = append(b.s.Turns, t)
	b.cur = t
}

// user handles a user entry: a prompt, tool results, or a harness message.
func (b *builder) user(e *rawEntry, t time.Time) {
	b.setMain(e.IsSidechain)
	m := &Message{ID: e.UUID, Role: "user", Time: t, Line: b.line, Entries: 1, Sidechain: e.IsSidechain}
	if e.Todos != nil && e.IsSidechain == b.mainSidechain {
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
	m.Text = b.cutText(joinText(texts))
	m.Kind = classifyUser(e, m, hasImage)
	if !b.live {
		b.s.Messages = append(b.s.Messages, m)
	}
	b.place(m)

	main := m.Sidechain == b.mainSidechain
	if main && b.cur != nil && strings.Contains(m.Text, "[Request interrupted by user") {
		b.cur.Interrupted = true
	}
	switch m.Kind {
	case KindNotification:
		for _, n := range parseNotifications(m.Text) {
			b.notify(n, t, true)
		}
	case KindHookFeedback:
		b.addStopHook(&StopHook{Kind: StopHookFeedback, Event: "Stop", Time: t, Line: b.line, Blocked: true, Text: m.Text}, main)
	case KindCompactSummary:
		for i := len(b.s.Compactions) - 1; i >= 0; i-- {
			if c := b.s.Compactions[i]; !c.Micro {
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

func joinText(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return strings.TrimSpace(parts[0])
	}
	var sb strings.Builder
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString(p)
	}
	return sb.String()
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
	r := &ToolResult{ToolUseID: blk.ToolUseID, IsError: bool(blk.IsError), Time: t, Line: b.line}
	full := contentText(blk.Content)
	r.Text, r.TextTruncated = b.cut(full)
	if len(structured) > 0 && !bytes.Equal(structured, []byte("null")) && !b.live { // a live read's Turn never reads it
		if b.o.MaxResultBytes < 0 || len(structured) <= b.o.MaxResultBytes {
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
	b.setMain(e.IsSidechain)
	if e.Message == nil {
		return
	}
	id := e.Message.ID
	if id == "" {
		id = e.UUID
	}
	m := b.msgByID[id]
	if m == nil {
		m = &Message{ID: id, Role: "assistant", Kind: KindAssistant, Time: t, Line: b.line, Sidechain: e.IsSidechain}
		if id != "" {
			b.msgByID[id] = m
		}
		if !b.live {
			b.s.Messages = append(b.s.Messages, m)
		}
		b.place(m)
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
			call := &ToolCall{ID: blk.ID, Name: blk.Name, Input: blk.Input, Time: t, Line: b.line}
			m.ToolCalls = append(m.ToolCalls, call)
			switch call.Name {
			case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList":
				b.todoUsed[boolIndex(m.Sidechain)] = true
			}
			if call.ID != "" {
				b.calls[call.ID] = call
			}
			b.callEffects(call, e.IsSidechain == b.mainSidechain)
		}
	}
}

func appendText(m *Message, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if m.Text != "" {
		m.Text += "\n\n"
	}
	m.Text += s
}

// system handles system entries: compactions, stop-hook summaries, turn durations.
func (b *builder) system(e *rawEntry, t time.Time) {
	switch e.Subtype {
	case "compact_boundary", "microcompact_boundary":
		c := &Compaction{Time: t, Line: b.line, Micro: e.Subtype == "microcompact_boundary", Turn: b.turnIndex()}
		md := e.CompactMetadata
		if md == nil {
			md = e.MicrocompactMetadata
		}
		if md != nil {
			c.Trigger, c.PreTokens = md.Trigger, int64(md.PreTokens)
		}
		if !b.live {
			b.s.Compactions = append(b.s.Compactions, c)
		}
	case "stop_hook_summary":
		h := &StopHook{
			Kind:                  StopHookSummary,
			Time:                  t,
			Line:                  b.line,
			PreventedContinuation: e.PreventedContinuation,
			StopReason:            b.cutText(string(e.StopReason)),
			Errors:                b.hookErrors(e.HookErrors),
		}
		for _, hi := range e.HookInfos {
			h.Commands = append(h.Commands, string(hi.Command))
		}
		b.addStopHook(h, e.IsSidechain == b.mainSidechain)
	case "turn_duration":
		if b.cur != nil && e.IsSidechain == b.mainSidechain {
			b.cur.Duration = time.Duration(e.DurationMs) * time.Millisecond
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
		out = append(out, b.cutText(s))
	}
	return out
}

// addStopHook records h in the current turn. Records written between two assistant
// messages belong to one stop (a summary, a blocking attachment and its feedback message, two
// hooks blocking at once): they share Active, and the stop counts as one block at most.
func (b *builder) addStopHook(h *StopHook, main bool) {
	h.Turn = -1
	if cur := b.cur; cur != nil && main {
		h.Turn = cur.Index
		if cur.hookAt != cur.assistantCount { // a new stop
			cur.blockedBefore = cur.blockedBefore || cur.hookBlocked
			cur.hookAt, cur.hookActive, cur.hookBlocked = cur.assistantCount, cur.blockedBefore, false
		}
		h.Active = cur.hookActive
		if h.Blocked && !cur.hookBlocked {
			cur.hookBlocked = true
			cur.StopHookBlocks++
		}
	}
	if !b.live {
		b.s.StopHooks = append(b.s.StopHooks, h)
	}
}

// attachment handles attachment entries (2.1.97+); only Stop and SubagentStop hook outcomes
// are read.
func (b *builder) attachment(e *rawEntry, t time.Time) {
	a := e.Attachment
	if a == nil || !strings.HasPrefix(a.Type, "hook_") || (a.HookEvent != "Stop" && a.HookEvent != "SubagentStop") {
		return
	}
	h := &StopHook{Kind: StopHookAttachment, Attachment: a.Type, Event: a.HookEvent, Time: t, Line: b.line}
	if a.Command != "" {
		h.Commands = []string{a.Command}
	}
	switch a.Type {
	case "hook_blocking_error":
		h.Blocked = true
		h.Text = b.cutText(blockingErrorText(a.BlockingError))
	case "hook_additional_context":
		h.Blocked = true
		h.Text = b.cutText(stringOrStrings(a.Content))
	case "hook_stopped_continuation":
		h.PreventedContinuation = true
		h.StopReason = b.cutText(a.Message)
		h.Text = h.StopReason
	case "hook_non_blocking_error":
		if a.Stderr != "" {
			h.Errors = []string{b.cutText(a.Stderr)}
		}
	}
	b.addStopHook(h, e.IsSidechain == b.mainSidechain)
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
	s := b.s
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
	for _, sh := range s.Shells {
		for _, rd := range sh.Reads {
			if !rd.Error && (finalStatus(rd.Status) || (!sh.Finished.IsZero() && !rd.Time.Before(sh.Finished))) {
				sh.ReadAt = rd.Time
				break
			}
		}
	}
	for _, t := range s.Turns {
		t.Local = true
		for _, m := range t.Messages {
			if m.Kind != KindAssistant {
				continue
			}
			m.Synthetic = m.Model == SyntheticModel && !m.APIError && len(m.ToolCalls) == 0
			if m.Synthetic {
				continue
			}
			t.Local = false
			t.ToolCalls += len(m.ToolCalls)
			t.StopReason = m.StopReason
			if m.Text != "" {
				t.FinalText = m.Text
			}
		}
	}
	s.TodosUsed = b.todoUsed[boolIndex(s.AgentID != "")]
	s.Lines = b.line
	s.Entries = make(map[string]int, len(b.entries))
	for k, n := range b.entries {
		key := k.typ
		if k.sub != "" {
			key += "/" + k.sub
		}
		s.Entries[key] += n
	}
	return s
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
