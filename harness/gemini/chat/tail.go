package chat

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness/internal/session"
	"github.com/stopgate/stopgate/harness/internal/tailfile"
)

// checkpointVersion is the version of the checkpoint encoding; another version is read whole.
const checkpointVersion = 1

// keepMargin is how many steps past KeepSteps a live read keeps in its window, so that an
// update of a message that drops some of its calls seldom leaves fewer than KeepSteps.
const keepMargin = 20

// keepPrompts bounds the prompts a live read keeps from before its window: the run's own
// and the continuation prompts a hook's denials sent since are among the last.
const keepPrompts = 8

// ReadTail reads the JSONL session file at path for a stop hook, going on from checkpoint,
// what an earlier ReadTail of the same file returned; nil or an unusable checkpoint reads the
// file whole. It returns the session as it stands and the checkpoint for the next call.
//
// The session is the live view of the file: its metadata, Todos and Shells as a whole read
// finds them, and Messages cut to a window: the last messages holding KeepSteps steps (and a
// margin), after the last keepPrompts user prompts before them and the last model message
// with text before them. Messages before the window are folded into the todos and shells and
// dropped; PromptsLeftOut reports that prompts were dropped too, so a run start looked up by
// its prompt (the AfterAgent payload's) that is not among Messages may be in the file: the
// caller reads it whole (ReadGeminiFile) then. Everything else the Gemini CLI Turn reads
// equals what ReadGeminiFile finds in the whole file.
//
// Gemini CLI's log rewrites messages: a record with a known id replaces the message, and a
// $rewindTo drops messages. A record that updates or rewinds to a message the checkpoint
// folded (one of the last 256 folded ids, or an id the filter may hold when the record is not
// newer than every folded message: Gemini CLI writes an update with the message's own
// timestamp), and a window left with fewer than KeepSteps steps, make ReadTail read the file
// whole (with no checkpoint returned, so the next call reads it whole too). So does a legacy
// session file (one JSON document, not appended to): it has no tail to read.
//
// The checkpoint holds that derived state (bounded: the window, the kept prompts, the shells
// and todos, the last folded ids and a fixed-size filter of the older ones), the byte offset reached
// and a fingerprint of the bytes before it (package harness/internal/tailfile). A file that
// was truncated, rewritten or replaced, or another path, fails the fingerprint and is read
// whole; so is a checkpoint of another version. A line being written (no newline yet) is read
// but not checkpointed: the next call reads it again.
func ReadTail(path string, checkpoint []byte, opts *Options) (*GeminiSession, []byte, error) {
	s, next, _, err := readTail(path, checkpoint, opts)
	return s, next, err
}

// readTail is ReadTail, also reporting whether the checkpoint was used.
func readTail(path string, checkpoint []byte, opts *Options) (s *GeminiSession, next []byte, resumed bool, err error) {
	if checkpoint != nil {
		// A checkpoint that decodes but does not describe a state the reader can go on from
		// is read past: the file is read whole.
		defer func() {
			if r := recover(); r != nil {
				s, next, resumed, err = readTail(path, nil, opts)
			}
		}()
	}
	o := opts.Resolved()
	f, err := tailfile.Open(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("chat: %w", err)
	}
	defer f.Close()
	var b *geminiBuilder
	var start int64
	if ck := decodeCheckpoint(checkpoint); ck != nil && f.Resumes(ck.Mark) {
		b, start, resumed = ck.restore(o), ck.Offset, true
	}
	if b == nil {
		b = newGeminiBuilder(o)
		b.live = true
	}
	legacy := false
	err = f.Scan(start, o.MaxLineBytes, func(line []byte, tooLong bool) {
		if legacy || b.whole {
			return
		}
		b.s.Lines++
		b.line++
		switch {
		case tooLong:
			b.seen = true
			b.malformed(ErrLineTooLong)
		case !b.seen && strings.TrimSpace(string(line)) == "{":
			legacy = true // one JSON document: read whole below
		default:
			if firstByte(line) != 0 {
				b.seen = true
			}
			b.record(line)
		}
		if b.line%1024 == 0 {
			b.prune()
		}
	}, func(offset int64) {
		if legacy || b.whole {
			return
		}
		b.prune()
		if m, ok := f.Mark(offset); ok {
			next = b.checkpoint(m)
		}
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("chat: %s: reading after line %d: %w", path, b.line, err)
	}
	if legacy || b.whole || b.folded() && stepsOf(b.msgs) < session.KeepSteps {
		s, err := ReadGeminiFile(path, opts)
		return s, nil, false, err
	}
	s = b.finish()
	s.PromptsLeftOut = b.promptsLeftOut
	return s, next, resumed, nil
}

// steps counts the loop-guard steps a message yields, as the Gemini CLI Turn counts them.
func steps(m *GeminiMessage) int {
	switch {
	case m.Type != GeminiModel:
		return 0
	case len(m.ToolCalls) > 0:
		return len(m.ToolCalls)
	case strings.TrimSpace(m.Text) != "":
		return 1
	}
	return 0
}

func stepsOf(msgs []*GeminiMessage) int {
	n := 0
	for _, m := range msgs {
		n += steps(m)
	}
	return n
}

// keepRecent is how many of the last folded ids a live read keeps exactly: the messages Gemini
// CLI updates are its latest.
const keepRecent = 256

// wasFolded reports whether the message id, written at t (zero when not known), may be one the
// live read folded: one of the last folded ids, or, for a record not newer than every folded
// message (Gemini CLI writes an update with the message's own timestamp), one the filter may
// hold. A new message is newer than all of them and costs no look-up in the filter, whose false
// positives then stay rare.
func (b *geminiBuilder) wasFolded(id string, t time.Time) bool {
	if slices.Contains(b.recent, id) {
		return true
	}
	if !t.IsZero() && t.After(b.foldedMax) {
		return false
	}
	return b.left.has(id)
}

// folded reports whether the live read has folded messages.
func (b *geminiBuilder) folded() bool { return b.left != nil && b.left.n > 0 }

// unfold forgets what the live read folded: every message before the window is gone.
func (b *geminiBuilder) unfold() {
	b.frozen, b.ghosts, b.left, b.promptsLeftOut = derived{}, nil, nil, false
	b.recent, b.foldedMax = nil, time.Time{}
}

// prune folds, in a live read, the messages before the window (the last ones holding
// KeepSteps steps and a margin) into the frozen todos and shells, keeping the last prompts
// and the last model message with text among them.
func (b *geminiBuilder) prune() {
	if !b.live {
		return
	}
	n, cut := 0, len(b.msgs)
	for i := len(b.msgs) - 1; i >= 0 && n < session.KeepSteps+keepMargin; i-- {
		n += steps(b.msgs[i])
		cut = i
	}
	if cut == 0 {
		return
	}
	if b.left == nil {
		b.left = newIDFilter()
	}
	for _, m := range b.msgs[:cut] {
		b.frozen.apply(m)
		b.left.add(m.ID)
		b.recent = append(b.recent, m.ID)
		if m.Time.After(b.foldedMax) {
			b.foldedMax = m.Time
		}
		delete(b.index, m.ID)
		switch {
		case m.Prompt():
			b.ghosts = append(b.ghosts, m)
		case m.Type == GeminiModel && strings.TrimSpace(m.Text) != "":
			b.ghosts = append(b.ghosts, m)
		}
	}
	if n := len(b.recent); n > keepRecent {
		b.recent = append([]string(nil), b.recent[n-keepRecent:]...)
	}
	// Keep the last keepPrompts prompts and the last model message with text.
	var kept []*GeminiMessage
	prompts, text := 0, false
	for i := len(b.ghosts) - 1; i >= 0; i-- {
		m := b.ghosts[i]
		switch {
		case m.Prompt() && prompts < keepPrompts:
			prompts++
			kept = append(kept, m)
		case m.Prompt():
			b.promptsLeftOut = true
		case !text:
			text = true
			kept = append(kept, m)
		}
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	b.ghosts = kept
	b.msgs = append([]*GeminiMessage(nil), b.msgs[cut:]...)
	for i, m := range b.msgs {
		b.index[m.ID] = i
	}
}

// idFilter is a fixed-size Bloom filter of message ids: has is never false for an id added,
// and seldom true for another (then the read is whole, never wrong).
type idFilter struct {
	Bits []byte `json:"bits"`
	N    int    `json:"n"`
	n    int
}

// idFilterBytes is the filter's size: 65,536 bits, four per id; a session of 5,000 folded
// messages answers true for an unknown id about once in 500.
const idFilterBytes = 8 << 10

func newIDFilter() *idFilter { return &idFilter{Bits: make([]byte, idFilterBytes)} }

func (f *idFilter) slots(id string) [4]uint16 {
	sum := sha256.Sum256([]byte(id))
	var out [4]uint16
	for k := range out {
		out[k] = binary.LittleEndian.Uint16(sum[2*k:])
	}
	return out
}

func (f *idFilter) add(id string) {
	for _, i := range f.slots(id) {
		f.Bits[i/8] |= 1 << (i % 8)
	}
	f.n++
	f.N = f.n
}

func (f *idFilter) has(id string) bool {
	if f == nil || f.n == 0 {
		return false
	}
	for _, i := range f.slots(id) {
		if f.Bits[i/8]&(1<<(i%8)) == 0 {
			return false
		}
	}
	return true
}

// The checkpoint's wire shape.
type ckState struct {
	V int `json:"v"`
	tailfile.Mark

	Line           int            `json:"line"`
	Seen           bool           `json:"seen"`
	Meta           ckMeta         `json:"meta"`
	Records        map[string]int `json:"records,omitempty"`
	Skipped        int            `json:"skipped,omitempty"`
	Malformed      int            `json:"malformed,omitempty"`
	Msgs           []ckMsg        `json:"msgs,omitempty"`
	Ghosts         []ckMsg        `json:"ghosts,omitempty"`
	Todos          []Todo         `json:"todos"` // nil: never written
	Shells         []Shell        `json:"shells,omitempty"`
	ByPID          map[string]int `json:"by_pid,omitempty"`
	Left           *idFilter      `json:"left,omitempty"`
	PromptsLeftOut bool           `json:"prompts_left_out,omitempty"`
	Recent         []string       `json:"recent,omitempty"`
	FoldedMax      time.Time      `json:"folded_max,omitzero"`
}

// ckMeta is the session's metadata a checkpoint keeps.
type ckMeta struct {
	ID, ProjectHash, Kind, Summary string
	Start, LastUpdated             json.RawMessage
	Directories                    []string
}

// ckMsg is a GeminiMessage with its calls' arguments kept byte for byte (a nil RawMessage
// would come back as "null").
type ckMsg struct {
	GeminiMessage
	Args [][]byte `json:"args,omitempty"`
}

func toCk(m *GeminiMessage) ckMsg {
	c := ckMsg{GeminiMessage: *m}
	c.ToolCalls = nil
	for _, tc := range m.ToolCalls {
		n := *tc
		c.Args = append(c.Args, n.Args)
		n.Args = nil
		c.ToolCalls = append(c.ToolCalls, &n)
	}
	return c
}

func fromCk(c ckMsg) *GeminiMessage {
	m := c.GeminiMessage
	for i, tc := range m.ToolCalls {
		if i < len(c.Args) && c.Args[i] != nil {
			tc.Args = json.RawMessage(c.Args[i])
		} else {
			tc.Args = nil
		}
	}
	return &m
}

// checkpoint encodes the live builder's state.
func (b *geminiBuilder) checkpoint(mark tailfile.Mark) []byte {
	s := b.s
	ck := ckState{V: checkpointVersion, Mark: mark, Line: b.line, Seen: b.seen, Records: s.Records,
		Skipped: s.Skipped, Malformed: s.MalformedCount, Todos: b.frozen.todos, Left: b.left,
		PromptsLeftOut: b.promptsLeftOut, Recent: b.recent, FoldedMax: b.foldedMax}
	ck.Meta = ckMeta{ID: s.ID, ProjectHash: s.ProjectHash, Kind: s.Kind, Summary: s.Summary, Directories: s.Directories}
	ck.Meta.Start, _ = s.Start.MarshalJSON()
	ck.Meta.LastUpdated, _ = s.LastUpdated.MarshalJSON()
	for _, m := range b.msgs {
		ck.Msgs = append(ck.Msgs, toCk(m))
	}
	for _, m := range b.ghosts {
		ck.Ghosts = append(ck.Ghosts, toCk(m))
	}
	ix := make(map[*Shell]int)
	for i, sh := range b.frozen.shells {
		ix[sh] = i
		ck.Shells = append(ck.Shells, *sh)
	}
	ck.ByPID = make(map[string]int, len(b.frozen.byPID))
	for pid, sh := range b.frozen.byPID {
		ck.ByPID[pid] = ix[sh]
	}
	data, err := json.Marshal(ck)
	if err != nil {
		return nil
	}
	return data
}

// decodeCheckpoint decodes a checkpoint; nil when it is not one this version wrote, or it
// does not hold together.
func decodeCheckpoint(data []byte) *ckState {
	if len(data) == 0 {
		return nil
	}
	var ck ckState
	if json.Unmarshal(data, &ck) != nil || ck.V != checkpointVersion || ck.Offset < 0 {
		return nil
	}
	for _, i := range ck.ByPID {
		if i < 0 || i >= len(ck.Shells) {
			return nil
		}
	}
	if ck.Left != nil && len(ck.Left.Bits) != idFilterBytes {
		return nil
	}
	return &ck
}

// restore rebuilds a live builder from ck.
func (ck *ckState) restore(o Options) *geminiBuilder {
	b := newGeminiBuilder(o)
	b.live = true
	s := b.s
	b.line, b.seen, s.Lines = ck.Line, ck.Seen, ck.Line
	if ck.Records != nil {
		s.Records = ck.Records
	}
	s.Skipped, s.MalformedCount = ck.Skipped, ck.Malformed
	m := ck.Meta
	s.ID, s.ProjectHash, s.Kind, s.Summary, s.Directories = m.ID, m.ProjectHash, m.Kind, m.Summary, m.Directories
	_ = s.Start.UnmarshalJSON(m.Start)
	_ = s.LastUpdated.UnmarshalJSON(m.LastUpdated)
	for _, c := range ck.Msgs {
		msg := fromCk(c)
		b.index[msg.ID] = len(b.msgs)
		b.msgs = append(b.msgs, msg)
	}
	for _, c := range ck.Ghosts {
		b.ghosts = append(b.ghosts, fromCk(c))
	}
	b.frozen.todos = ck.Todos
	b.frozen.byPID = make(map[string]*Shell, len(ck.ByPID))
	for i := range ck.Shells {
		sh := ck.Shells[i]
		b.frozen.shells = append(b.frozen.shells, &sh)
	}
	for pid, i := range ck.ByPID {
		b.frozen.byPID[pid] = b.frozen.shells[i]
	}
	if ck.Left != nil {
		ck.Left.n = ck.Left.N
		b.left = ck.Left
	}
	b.promptsLeftOut, b.recent, b.foldedMax = ck.PromptsLeftOut, ck.Recent, ck.FoldedMax
	return b
}
