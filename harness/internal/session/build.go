package session

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stopgate/stopgate/internal/jsonl"
)

// Builder is the line builder the JSONL session readers share: the options, the Session being
// filled, the line count, the malformed-line and entry bookkeeping, and the splitting of
// messages into turns. A reader embeds it and handles its own entry shapes.
type Builder struct {
	O    Options
	S    *Session
	Line int // the line being read, counting from 1

	entries map[entryKey]int

	// SidechainKnown is set once MainSidechain is fixed; MainSidechain is the chain (main or
	// sidechain) the file's own turns are on.
	SidechainKnown bool
	MainSidechain  bool
	// Cur is the current turn; nil before the first.
	Cur *Turn
	// NTurns counts the turns started, the next Turn.Index.
	NTurns int
	// Live keeps only what the last turn's stop needs (an incremental read): no user messages
	// in turns, only the current run's turns.
	Live bool
}

type entryKey struct{ typ, sub string }

// NewBuilder returns a Builder filling an empty Session with the resolved options o.
func NewBuilder(o Options) *Builder {
	return &Builder{O: o, S: &Session{}, entries: make(map[entryKey]int)}
}

// Count counts one entry of type typ and subtype sub (empty when it has none) in
// Session.Entries.
func (b *Builder) Count(typ, sub string) { b.entries[entryKey{typ, sub}]++ }

// Finish completes what every reader derives once every line is read: when each shell's final
// output was read (Shell.ReadAt), each turn's final text, tool-call count, stop reason and
// Local flag, each assistant message's Synthetic flag, and Session.Lines and Session.Entries.
func (b *Builder) Finish() *Session {
	s := b.S
	for _, sh := range s.Shells {
		for _, rd := range sh.Reads {
			final := rd.Status != "" && rd.Status != ShellRunning
			if !rd.Error && (final || (!sh.Finished.IsZero() && !rd.Time.Before(sh.Finished))) {
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
	s.Lines = b.Line
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

// Resolved returns the options with the defaults filled in for zero fields; a nil *Options
// gives the defaults.
func (o *Options) Resolved() Options {
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

// ScanLines calls fn with each line of r, its line end kept, read by the one line scanner
// (internal/jsonl): a line over max bytes is reported with tooLong set and no bytes. Empty
// input yields no call. It returns r's first error other than io.EOF.
func ScanLines(r io.Reader, max int, fn func(line []byte, tooLong bool)) error {
	sc := jsonl.NewScanner(r, max)
	for sc.Scan() {
		fn(sc.Line(), sc.TooLong())
	}
	return sc.Err()
}

// Malformed counts the current line as malformed and describes it, up to MaxMalformed.
func (b *Builder) Malformed(err error) {
	b.S.MalformedCount++
	if len(b.S.Malformed) < b.O.MaxMalformed {
		b.S.Malformed = append(b.S.Malformed, LineError{Line: b.Line, Err: err})
	}
}

// ParseTime parses an RFC 3339 timestamp; anything else is the zero time.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Cut bounds s to MaxResultBytes at a rune boundary. A cut string is copied so the full
// decoded text can be collected.
func (b *Builder) Cut(s string) (string, bool) {
	max := b.O.MaxResultBytes
	if max < 0 || len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.Clone(s[:i]), true
}

// CutText is Cut without the flag.
func (b *Builder) CutText(s string) string {
	s, _ = b.Cut(s)
	return s
}

// SetMain fixes which chain (main or sidechain) the transcript's own turns are on: the chain
// of its first message.
func (b *Builder) SetMain(sidechain bool) {
	if !b.SidechainKnown {
		b.SidechainKnown, b.MainSidechain = true, sidechain
	}
}

// TurnIndex is the index of the current turn, -1 before any.
func (b *Builder) TurnIndex() int {
	if b.Cur == nil {
		return -1
	}
	return b.Cur.Index
}

// Place adds a new message to the turns: it starts a turn, joins the current one, or, before
// any turn, starts an implicit one if it is part of the agent loop.
func (b *Builder) Place(m *Message) {
	if m.Sidechain != b.MainSidechain {
		return
	}
	if m.Kind.StartsTurn() {
		b.StartTurn(m, m.Kind)
		return
	}
	if b.Cur == nil {
		if m.Kind != KindAssistant && m.Kind != KindToolResult {
			return
		}
		b.StartTurn(m, "")
	} else if !b.Live || m.Role != "user" {
		b.Cur.Messages = append(b.Cur.Messages, m)
	}
	if m.Kind == KindAssistant {
		b.Cur.Book.AssistantCount++
	}
}

// StartTurn starts a new turn at m; trigger is the kind that started it, empty for a turn
// whose start is not in the file.
func (b *Builder) StartTurn(m *Message, trigger MessageKind) {
	t := &Turn{
		Index:    b.NTurns,
		Trigger:  trigger,
		Line:     m.Line,
		Start:    m.Time,
		End:      m.Time,
		Messages: []*Message{m},
		Book:     TurnBook{HookAt: -1},
	}
	if trigger != "" {
		t.Prompt = m.Text
	}
	if b.Live {
		if m.Role == "user" {
			t.Messages = nil
		}
		if trigger != KindNotification {
			// A new run: the turns before it say nothing about this stop.
			clear(b.S.Turns)
			b.S.Turns = b.S.Turns[:0]
		}
	}
	b.NTurns++
	b.S.Turns = append(b.S.Turns, t)
	b.Cur = t
}

// JoinText joins the non-blank parts, trimmed, with blank lines between them.
func JoinText(parts []string) string {
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

// AppendText appends s, trimmed, to m.Text after a blank line; a blank s adds nothing.
func AppendText(m *Message, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if m.Text != "" {
		m.Text += "\n\n"
	}
	m.Text += s
}

// FlexString accepts a JSON string or number (kept as its literal); anything else decodes to "".
type FlexString string

// UnmarshalJSON implements json.Unmarshaler.
func (f *FlexString) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = FlexString(s)
	case c == '-' || (c >= '0' && c <= '9'):
		*f = FlexString(b)
	}
	return nil
}

// FlexInt accepts a JSON number or a string holding one; anything else decodes to 0.
type FlexInt int64

// UnmarshalJSON implements json.Unmarshaler.
func (f *FlexInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*f = FlexInt(n)
		return nil
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		*f = FlexInt(x)
	}
	return nil
}

// FlexBool accepts a JSON boolean or the strings "true" and "false"; anything else is false.
type FlexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (f *FlexBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", `"true"`:
		*f = true
	default:
		*f = false
	}
	return nil
}

// FirstByte returns the first non-space byte of b, or 0.
func FirstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// DecodeLoose decodes what it can of raw into v; tool inputs are model output and structured
// results vary by version, so a decoding error leaves the fields that did decode.
func DecodeLoose(raw json.RawMessage, v any) {
	if FirstByte(raw) != '{' {
		return
	}
	_ = json.Unmarshal(raw, v)
}

// KeepSteps is how many trailing loop-guard steps (tool calls and replies) of the current run
// a live read (ReadTail) keeps the messages of: as far as the loop guard and the claims check
// look back.
const KeepSteps = 100
