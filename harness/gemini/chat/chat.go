package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stopgate/stopgate/internal/jsonl"
)

// GeminiSession is a Gemini CLI chat session reconstructed from its session file,
// ~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl (a sub-agent's:
// chats/<parent session id>/<id>.jsonl).
//
// The file is an append-only log of records, applied in order:
//
//   - a metadata record {sessionId, projectHash, startTime, lastUpdated, kind, directories},
//     first;
//   - message records {id, timestamp, type, content, toolCalls, thoughts, tokens, model}. Gemini
//     CLI appends a message again, whole, each time it changes (its tool calls complete, its
//     token counts arrive): a record whose id was seen replaces that message where it stands;
//   - {"$set": {…}} metadata updates; a $set of "messages" replaces every message;
//   - {"$rewindTo": id} truncations: the message with that id and every one after it are
//     dropped (all of them when the id is unknown).
//
// Legacy sessions are one JSON object with the metadata and a "messages" array (a .json file,
// pretty-printed); Gemini CLI migrates them to JSONL on resume. Both shapes are read.
//
// What the messages imply is derived from the final list, after every update and rewind:
// Todos from the last write_todos call, Shells from run_shell_command calls run in the
// background and the background-process tools.
type GeminiSession struct {
	// ID is the sessionId.
	ID string
	// ProjectHash is the metadata's projectHash: a hash of the project root.
	ProjectHash string
	// Kind is "main" or "subagent"; empty when the file does not say.
	Kind string
	// Start and LastUpdated are the metadata's startTime and lastUpdated.
	Start, LastUpdated time.Time
	// Summary is the session summary Gemini CLI wrote, if any.
	Summary string
	// Directories are the workspace directories the metadata lists.
	Directories []string
	// Legacy is set when the session was read from the legacy single-object shape.
	Legacy bool
	// PromptsLeftOut is set by a tail read (ReadTail) that dropped user prompts from before
	// the messages it kept: a run start looked up by its prompt that is not among Messages
	// may be in the file.
	PromptsLeftOut bool

	// Messages are the session's messages, in order.
	Messages []*GeminiMessage
	// Todos is the list of the last write_todos call that did not fail, each item of Tool
	// "write_todos" with Gemini CLI's status word (pending, in_progress, completed, cancelled,
	// blocked). It is nil when the session never wrote a list, so an unknown list is not read
	// as an empty one.
	Todos []Todo
	// Shells are the commands run_shell_command ran in the background, in start order: Shell.ID
	// is the process id, Status and ExitCode what list_background_processes last reported,
	// Reads the read_background_output calls on it.
	Shells []*Shell

	// Lines counts the physical lines read, blank ones included.
	Lines int
	// Records counts the records by kind: "metadata", "message", "$set" and "$rewindTo".
	Records map[string]int
	// Skipped counts well-formed records of no known kind.
	Skipped int
	// Malformed describes the lines that could not be read as a record, up to
	// Options.MaxMalformed of them; MalformedCount counts all.
	Malformed      []LineError
	MalformedCount int
}

// The message types Gemini CLI writes.
const (
	GeminiUser    = "user"    // a prompt, a tool result, or a hook's continuation prompt
	GeminiModel   = "gemini"  // a model response
	GeminiInfo    = "info"    // a notice shown to the user
	GeminiError   = "error"   // an error shown to the user
	GeminiWarning = "warning" // a warning shown to the user
)

// GeminiMessage is one message of a Gemini CLI session, as its last record wrote it.
type GeminiMessage struct {
	ID   string
	Time time.Time
	// Type is GeminiUser, GeminiModel, GeminiInfo, GeminiError or GeminiWarning (or another
	// word a newer Gemini CLI writes, kept as is).
	Type string
	// Text is the content's text parts, joined; thoughts are left out. A user message's
	// text is cut to Options.MaxResultBytes.
	Text string
	// DisplayText is the text of displayContent, what the user saw instead of Text; empty when
	// the record has none.
	DisplayText string
	// ToolResponses counts the functionResponse parts of the content: a user message that
	// carries tool results to the model has them and is not a prompt.
	ToolResponses int
	// ToolCalls are a model message's tool calls, with their results once complete.
	ToolCalls []*GeminiToolCall
	// Thoughts counts the model's thought summaries recorded with the message.
	Thoughts int
	// Tokens is the token usage recorded with a model message; nil when not recorded.
	Tokens *GeminiTokens
	// Model is the model that wrote a model message.
	Model string
	// Line is the line of the record that last wrote the message.
	Line int
}

// Prompt reports whether m is a user message carrying text and no tool results: a prompt the
// user typed, or one the harness sent in the user's place (a hook's continuation, a loop
// warning).
func (m *GeminiMessage) Prompt() bool {
	return m.Type == GeminiUser && m.ToolResponses == 0 && strings.TrimSpace(m.Text) != ""
}

// GeminiToolCall is one tool call of a model message.
type GeminiToolCall struct {
	ID   string
	Name string
	// Args is the call's arguments as the model wrote them.
	Args json.RawMessage
	// Status is "success", "error" or "cancelled" once the call completed; empty when not
	// recorded.
	Status string
	// Result is the text of the result's function responses (their output or error), cut to
	// Options.MaxResultBytes (ResultTruncated).
	Result          string
	ResultTruncated bool
	// Time is when the call completed (its own timestamp, else its message's).
	Time time.Time
	// AgentID is the sub-agent a call to one ran as.
	AgentID string
}

// Failed reports whether the call completed with an error or was cancelled.
func (c *GeminiToolCall) Failed() bool { return c.Status == "error" || c.Status == "cancelled" }

// GeminiTokens is a model message's token usage.
type GeminiTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

// The Gemini CLI tools whose calls the reader interprets.
const (
	GeminiToolWriteTodos     = "write_todos"
	GeminiToolShell          = "run_shell_command"
	GeminiToolListBackground = "list_background_processes"
	GeminiToolReadBackground = "read_background_output"
)

// ReadGemini reads a Gemini CLI session from r, in either shape (JSONL or a legacy single
// object), and reconstructs it.
//
// Records of no known kind are counted in GeminiSession.Skipped, unknown fields are ignored,
// and a line that is not a JSON object is counted in MalformedCount, described in Malformed,
// and skipped. Options.MaxLineBytes bounds one line, and a legacy file as a whole. Only an
// error from r is returned, with the session built from what was read before it.
func ReadGemini(r io.Reader, opts *Options) (*GeminiSession, error) {
	b := newGeminiBuilder(opts.Resolved())
	err := b.read(r)
	s := b.finish()
	if err != nil {
		return s, fmt.Errorf("chat: reading after line %d: %w", b.line, err)
	}
	return s, nil
}

// ReadGeminiFile reads the session file at path, as ReadGemini does.
func ReadGeminiFile(path string, opts *Options) (*GeminiSession, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("chat: %w", err)
	}
	defer f.Close()
	s, err := ReadGemini(f, opts)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// geminiBuilder accumulates a GeminiSession from records.
type geminiBuilder struct {
	o    Options
	s    *GeminiSession
	line int
	seen bool // a non-blank line was read

	msgs  []*GeminiMessage
	index map[string]int // message id → position in msgs

	// A live read (ReadTail) folds the messages before its window into frozen, keeping of
	// them only the last prompts and the last model message with text (ghosts), and their
	// ids in left (tail.go).
	live   bool
	frozen derived
	ghosts []*GeminiMessage
	left   *idFilter
	// whole is set when a live read met what only a whole read can apply: an update or a
	// rewind of a message it folded.
	whole bool
	// promptsLeftOut reports that a live read dropped prompts older than its ghosts.
	promptsLeftOut bool
	// recent are the last ids folded, foldedMax the latest timestamp of a folded message.
	recent    []string
	foldedMax time.Time
}

func newGeminiBuilder(o Options) *geminiBuilder {
	return &geminiBuilder{
		o:     o,
		s:     &GeminiSession{Records: make(map[string]int)},
		index: make(map[string]int),
	}
}

func (b *geminiBuilder) malformed(err error) {
	b.s.MalformedCount++
	if b.o.MaxMalformed > 0 && len(b.s.Malformed) < b.o.MaxMalformed {
		b.s.Malformed = append(b.s.Malformed, LineError{Line: b.line, Err: err})
	}
}

// read reads lines; a first line that opens a multi-line JSON object switches to the legacy
// shape, decoded whole.
func (b *geminiBuilder) read(r io.Reader) error {
	sc := jsonl.NewScanner(r, b.o.MaxLineBytes)
	for sc.Scan() {
		line, tooLong := sc.Line(), sc.TooLong()
		b.s.Lines++
		b.line++
		switch {
		case tooLong:
			b.seen = true
			b.malformed(ErrLineTooLong)
		case !b.seen && string(bytes.TrimSpace(line)) == "{":
			b.seen = true
			rest := io.MultiReader(bytes.NewReader(line), sc.Rest())
			return b.legacy(rest)
		default:
			if firstByte(line) != 0 {
				b.seen = true
			}
			b.record(line)
		}
	}
	return sc.Err()
}

// legacy decodes the rest of the input, from the line that opens it, as one JSON object: a
// legacy session file. Options.MaxLineBytes bounds the object.
func (b *geminiBuilder) legacy(r io.Reader) error {
	before := b.s.Lines - 1 // the lines before the object's first
	cr := &geminiCounter{r: io.LimitReader(r, int64(b.o.MaxLineBytes)+1)}
	dec := json.NewDecoder(cr)
	var raw json.RawMessage
	err := dec.Decode(&raw)
	trailing := false
	if err == nil {
		rest, rerr := io.ReadAll(io.MultiReader(dec.Buffered(), cr))
		if rerr != nil {
			return rerr
		}
		trailing = firstByte(rest) != 0
	} else if _, rerr := io.Copy(io.Discard, cr); rerr != nil {
		return rerr
	}
	b.s.Lines = before + cr.newlines
	if cr.read > 0 && cr.last != '\n' {
		b.s.Lines++
	}
	switch {
	case cr.read > int64(b.o.MaxLineBytes):
		b.malformed(ErrLineTooLong)
		return nil
	case err != nil && !errors.As(err, new(*json.SyntaxError)) && !errors.Is(err, io.ErrUnexpectedEOF):
		return err
	case err != nil:
		b.malformed(err)
		return nil
	}
	b.record(raw)
	b.s.Legacy = true
	if trailing {
		b.malformed(errors.New("data after the legacy session object"))
	}
	return nil
}

// geminiCounter counts the bytes and newlines read through it, and keeps the last byte.
type geminiCounter struct {
	r        io.Reader
	read     int64
	newlines int
	last     byte
}

func (c *geminiCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.read += int64(n)
		c.newlines += bytes.Count(p[:n], []byte("\n"))
		c.last = p[n-1]
	}
	return n, err
}

// geminiRecord is a record of a session file, decoded in one pass: the fields that tell its
// kind kept raw, a message's fields typed. encoding/json fills every field it can and reports
// the first of a wrong type, so one odd field costs only itself.
type geminiRecord struct {
	RewindTo  json.RawMessage `json:"$rewindTo"`
	Set       json.RawMessage `json:"$set"`
	SessionID json.RawMessage `json:"sessionId"`
	ID        json.RawMessage `json:"id"`

	Timestamp      string              `json:"timestamp"`
	Type           string              `json:"type"`
	Model          string              `json:"model"`
	Content        json.RawMessage     `json:"content"`
	DisplayContent json.RawMessage     `json:"displayContent"`
	ToolCalls      []geminiToolCallRaw `json:"toolCalls"`
	Thoughts       []json.RawMessage   `json:"thoughts"`
	Tokens         *GeminiTokens       `json:"tokens"`
}

// geminiToolCallRaw is one entry of a message's toolCalls.
type geminiToolCallRaw struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Status    string          `json:"status"`
	AgentID   string          `json:"agentId"`
	Timestamp string          `json:"timestamp"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result"`
}

// decodeGeminiRecord decodes one record. Fields of a wrong JSON type are left empty; only input
// that is not JSON is an error.
func decodeGeminiRecord(data []byte) (geminiRecord, error) {
	var r geminiRecord
	err := json.Unmarshal(data, &r)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		err = nil
	}
	return r, err
}

// record applies one record, telling its kind as Gemini CLI's own loader does: a rewind, a
// message (a string id), a metadata update ($set), the metadata (a string sessionId).
func (b *geminiBuilder) record(line []byte) {
	switch firstByte(line) {
	case 0:
		return // blank line
	case '{':
	default:
		b.malformed(ErrNotObject)
		return
	}
	r, err := decodeGeminiRecord(line)
	if err != nil {
		b.malformed(err)
		return
	}
	if id, ok := geminiString(r.RewindTo); ok {
		b.s.Records["$rewindTo"]++
		b.rewind(id)
		return
	}
	if id, ok := geminiString(r.ID); ok {
		b.s.Records["message"]++
		b.upsert(b.message(id, &r))
		return
	}
	if firstByte(r.Set) == '{' {
		var upd map[string]json.RawMessage
		if json.Unmarshal(r.Set, &upd) == nil {
			b.s.Records["$set"]++
			b.metadata(upd, true)
			return
		}
	}
	if _, ok := geminiString(r.SessionID); ok {
		var fields map[string]json.RawMessage
		if json.Unmarshal(line, &fields) == nil {
			b.s.Records["metadata"]++
			b.metadata(fields, false)
			return
		}
	}
	b.s.Skipped++
}

// rewind drops the message id and every message after it; all of them when id is unknown.
func (b *geminiBuilder) rewind(id string) {
	i, ok := b.index[id]
	if !ok && b.folded() {
		if b.wasFolded(id, time.Time{}) {
			b.whole = true // a rewind into what the live read folded
			return
		}
		b.unfold() // an unknown id: every message goes
	}
	if !ok {
		i = 0
	}
	for _, m := range b.msgs[i:] {
		delete(b.index, m.ID)
	}
	b.msgs = b.msgs[:i]
}

// metadata applies a metadata record or a $set update. A "messages" array in a $set replaces
// every message; in a metadata record (the legacy shape) its messages are added.
func (b *geminiBuilder) metadata(f map[string]json.RawMessage, set bool) {
	s := b.s
	if v, ok := geminiString(f["sessionId"]); ok {
		s.ID = v
	}
	if v, ok := geminiString(f["projectHash"]); ok {
		s.ProjectHash = v
	}
	if v, ok := geminiString(f["kind"]); ok {
		s.Kind = v
	}
	if v, ok := geminiString(f["startTime"]); ok {
		s.Start = parseTime(v)
	}
	if v, ok := geminiString(f["lastUpdated"]); ok {
		s.LastUpdated = parseTime(v)
	}
	if v, ok := geminiString(f["summary"]); ok {
		s.Summary = v
	}
	if raw, ok := f["directories"]; ok {
		var dirs []string
		if json.Unmarshal(raw, &dirs) == nil {
			s.Directories = dirs
		}
	}
	raw, ok := f["messages"]
	if !ok || firstByte(raw) != '[' {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return
	}
	if set {
		b.msgs, b.index = b.msgs[:0], make(map[string]int)
		b.unfold()
	} else {
		s.Legacy = true
	}
	for _, raw := range list {
		if firstByte(raw) != '{' {
			continue
		}
		r, err := decodeGeminiRecord(raw)
		if err != nil {
			continue
		}
		if id, ok := geminiString(r.ID); ok {
			b.upsert(b.message(id, &r))
		}
	}
}

// upsert adds a message, or replaces the message with its id where it stands.
func (b *geminiBuilder) upsert(m *GeminiMessage) {
	if i, ok := b.index[m.ID]; ok {
		b.msgs[i] = m
		return
	}
	if b.folded() && b.wasFolded(m.ID, m.Time) {
		b.whole = true // an update of a message the live read folded
		return
	}
	b.index[m.ID] = len(b.msgs)
	b.msgs = append(b.msgs, m)
}

// message builds the message a record with id writes.
func (b *geminiBuilder) message(id string, r *geminiRecord) *GeminiMessage {
	m := &GeminiMessage{ID: id, Type: r.Type, Time: parseTime(r.Timestamp), Model: r.Model, Line: b.line, Tokens: r.Tokens, Thoughts: len(r.Thoughts)}
	text, responses := geminiPartsText(r.Content)
	m.ToolResponses = responses
	if m.Type == GeminiUser {
		text, _ = b.cut(text)
	}
	m.Text = text
	if len(r.DisplayContent) > 0 {
		m.DisplayText, _ = geminiPartsText(r.DisplayContent)
		m.DisplayText, _ = b.cut(m.DisplayText)
	}
	for _, raw := range r.ToolCalls {
		if raw.ID == "" && raw.Name == "" && raw.Args == nil && raw.Result == nil {
			continue // not a call (an entry that is not an object decodes to nothing)
		}
		c := &GeminiToolCall{ID: raw.ID, Name: raw.Name, Status: raw.Status, AgentID: raw.AgentID, Time: m.Time}
		if a := bytes.TrimSpace(raw.Args); len(a) > 0 && string(a) != "null" {
			c.Args = json.RawMessage(bytes.Clone(a))
		}
		if t := parseTime(raw.Timestamp); !t.IsZero() {
			c.Time = t
		}
		c.Result, c.ResultTruncated = b.cut(geminiResultText(raw.Result))
		m.ToolCalls = append(m.ToolCalls, c)
	}
	return m
}

// cut bounds s to MaxResultBytes at a rune boundary.
func (b *geminiBuilder) cut(s string) (string, bool) {
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

// geminiString returns raw as a string when it is one.
func geminiString(raw json.RawMessage) (string, bool) {
	if firstByte(raw) != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// geminiPart is the part of a Gemini API Part the reader looks at.
type geminiPart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	FunctionResponse *struct {
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiParts decodes a PartListUnion: a string, a part, or a list of either (a string in a
// list is a text part). Entries of another shape are left out.
func geminiParts(raw json.RawMessage) []geminiPart {
	switch firstByte(raw) {
	case '"':
		s, _ := geminiString(raw)
		return []geminiPart{{Text: &s}}
	case '{':
		var p geminiPart
		if json.Unmarshal(raw, &p) != nil {
			return nil
		}
		return []geminiPart{p}
	case '[':
		var parts []geminiPart
		if json.Unmarshal(raw, &parts) == nil {
			return parts
		}
		// Not all parts: decode them one by one.
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil
		}
		var out []geminiPart
		for _, e := range list {
			switch firstByte(e) {
			case '"', '{':
				out = append(out, geminiParts(e)...)
			}
		}
		return out
	}
	return nil
}

// geminiPartsText returns the text of a PartListUnion, thoughts left out, the way Gemini CLI
// joins parts (with nothing between them), and how many function responses it holds.
func geminiPartsText(raw json.RawMessage) (string, int) {
	parts := geminiParts(raw)
	if len(parts) == 1 && parts[0].Text != nil && !parts[0].Thought && parts[0].FunctionResponse == nil {
		return *parts[0].Text, 0
	}
	var text strings.Builder
	responses := 0
	for _, p := range parts {
		if p.FunctionResponse != nil {
			responses++
		}
		if p.Text != nil && !p.Thought {
			text.WriteString(*p.Text)
		}
	}
	return text.String(), responses
}

// geminiResultText returns the text of a tool call's result: the output (or error) of each
// function response, the text of each text part, joined by newlines. A response of another
// shape is kept as its JSON.
func geminiResultText(raw json.RawMessage) string {
	var out []string
	for _, p := range geminiParts(raw) {
		if p.Text != nil {
			out = append(out, *p.Text)
		}
		if p.FunctionResponse != nil {
			out = append(out, geminiResponseText(p.FunctionResponse.Response))
		}
	}
	return strings.Join(out, "\n")
}

// geminiResponseText returns a function response's output or error string; any other
// response as its compact JSON.
func geminiResponseText(raw json.RawMessage) string {
	var r struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if firstByte(raw) != '{' || json.Unmarshal(raw, &r) != nil {
		s, _ := geminiString(raw)
		return s
	}
	for _, v := range []json.RawMessage{r.Output, r.Error} {
		if s, ok := geminiString(v); ok {
			return s
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	return b.String()
}

// finish derives the todos and background shells from the final messages: what the messages
// a live read folded already (frozen) said, then the rest.
func (b *geminiBuilder) finish() *GeminiSession {
	s := b.s
	d := b.frozen.clone()
	for _, m := range b.msgs {
		d.apply(m)
	}
	s.Messages = b.msgs
	if len(b.ghosts) > 0 {
		s.Messages = append(append([]*GeminiMessage(nil), b.ghosts...), b.msgs...)
	}
	s.Todos, s.Shells = d.todos, d.shells
	return s
}

// derived is what the messages imply, folded one message at a time in order: the todo list
// and the background shells.
type derived struct {
	todos  []Todo
	shells []*Shell
	byPID  map[string]*Shell
}

// clone returns a deep copy of d, for folding more messages into without changing d.
func (d *derived) clone() *derived {
	c := &derived{todos: d.todos, byPID: make(map[string]*Shell, len(d.byPID))}
	copies := make(map[*Shell]*Shell, len(d.shells))
	for _, sh := range d.shells {
		n := *sh
		n.Reads = append([]ShellRead(nil), sh.Reads...)
		if sh.ExitCode != nil {
			code := *sh.ExitCode
			n.ExitCode = &code
		}
		copies[sh] = &n
		c.shells = append(c.shells, &n)
	}
	for pid, sh := range d.byPID {
		c.byPID[pid] = copies[sh]
	}
	return c
}

// apply folds what message m's tool calls say into d.
func (d *derived) apply(m *GeminiMessage) {
	if d.byPID == nil {
		d.byPID = make(map[string]*Shell)
	}
	for _, c := range m.ToolCalls {
		switch c.Name {
		case GeminiToolWriteTodos:
			if todos, ok := geminiTodos(c); ok {
				d.todos = todos
			}
		case GeminiToolShell:
			if sh := geminiBackground(c); sh != nil {
				if old := d.byPID[sh.ID]; old != nil {
					*old = *sh // a reused pid is a new process
					continue
				}
				d.byPID[sh.ID] = sh
				d.shells = append(d.shells, sh)
			}
		case GeminiToolListBackground:
			if c.Failed() {
				continue
			}
			for _, st := range geminiListStatuses(c.Result) {
				sh := d.byPID[st.pid]
				if sh == nil {
					// Started in another CLI process, or before a rewind: its start
					// cannot be placed.
					sh = &Shell{ID: st.pid, Command: st.command, Status: ShellRunning}
					d.byPID[st.pid] = sh
					d.shells = append(d.shells, sh)
				}
				geminiApplyStatus(sh, st, c.Time)
			}
		case GeminiToolReadBackground:
			var args struct {
				PID flexString `json:"pid"`
			}
			if json.Unmarshal(c.Args, &args) != nil {
				continue
			}
			sh := d.byPID[string(args.PID)]
			if sh == nil {
				continue
			}
			rd := ShellRead{Tool: c.Name, CallID: c.ID, Time: c.Time, Error: c.Failed()}
			sh.Reads = append(sh.Reads, rd)
			if !rd.Error && !sh.Running() && sh.ReadAt.IsZero() && !c.Time.Before(sh.Finished) {
				sh.ReadAt = c.Time
			}
		}
	}
}

// geminiTodos reads a write_todos call's list; ok is false for a call that failed or whose
// arguments hold no list.
func geminiTodos(c *GeminiToolCall) ([]Todo, bool) {
	if c.Failed() {
		return nil, false
	}
	var args struct {
		Todos *[]struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(c.Args, &args) != nil || args.Todos == nil {
		return nil, false
	}
	out := make([]Todo, 0, len(*args.Todos))
	for _, td := range *args.Todos {
		out = append(out, Todo{Content: td.Description, Status: TodoStatus(td.Status), Tool: GeminiToolWriteTodos})
	}
	return out, true
}

// geminiMovedRE finds the process id in run_shell_command's answer for a command it moved to
// the background (asked with is_background, or after it went quiet).
var geminiMovedRE = regexp.MustCompile(`Command moved to background \(PID: (\d+)\)`)

// geminiBackground returns the background shell a run_shell_command call started; nil for a
// foreground command.
func geminiBackground(c *GeminiToolCall) *Shell {
	m := geminiMovedRE.FindStringSubmatch(c.Result)
	if m == nil || c.Status == "error" {
		return nil
	}
	var args struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(c.Args, &args) // a call whose arguments do not decode still started
	return &Shell{ID: m[1], Command: args.Command, Description: args.Description, Started: c.Time, Status: ShellRunning}
}

// geminiListedStatus is one line of list_background_processes.
type geminiListedStatus struct {
	pid, status, command, signal string
	exitCode                     *int
}

// geminiListRE reads a list_background_processes line:
// "- [PID 123] EXITED: `cmd` (Exit Code: 3) (Signal: SIGTERM)".
var geminiListRE = regexp.MustCompile("(?m)^- \\[PID (\\d+)\\] ([A-Za-z_]+): `(.*)`(?: \\(Exit Code: (-?\\d+)\\))?(?: \\(Signal: ([^)]*)\\))?\\s*$")

func geminiListStatuses(text string) []geminiListedStatus {
	var out []geminiListedStatus
	for _, m := range geminiListRE.FindAllStringSubmatch(text, -1) {
		st := geminiListedStatus{pid: m[1], status: strings.ToLower(m[2]), command: m[3], signal: m[5]}
		if m[4] != "" {
			if n, err := strconv.Atoi(m[4]); err == nil {
				st.exitCode = &n
			}
		}
		out = append(out, st)
	}
	return out
}

// geminiApplyStatus records what a list_background_processes call at t said of sh. An end is
// never undone; the first listing that shows it is its Finished time.
func geminiApplyStatus(sh *Shell, st geminiListedStatus, t time.Time) {
	if st.status == "running" || !sh.Running() {
		return
	}
	switch {
	case st.exitCode != nil && *st.exitCode == 0 && st.signal == "":
		sh.Status = ShellCompleted
	case st.status == "exited" || st.exitCode != nil || st.signal != "":
		sh.Status = ShellFailed
	default:
		sh.Status = ShellStatus(st.status)
	}
	if st.exitCode != nil {
		c := *st.exitCode
		sh.ExitCode = &c
	}
	sh.Finished = t
	for _, rd := range sh.Reads {
		if !rd.Error && !rd.Time.Before(t) {
			sh.ReadAt = rd.Time
			break
		}
	}
}
