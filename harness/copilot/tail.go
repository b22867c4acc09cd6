package copilot

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness/internal/tailfile"
)

// checkpointVersion is the version of the checkpoint encoding; another version is read whole.
const checkpointVersion = 1

// keepStopHooks bounds the stop-hook runs a live read keeps: HasStop looks for the current
// stop's, which is among the last.
const keepStopHooks = 16

// ReadTail reads the events.jsonl at path for a stop hook, going on from checkpoint, what an
// earlier ReadTail of the same file returned; nil or an unusable checkpoint reads the file
// whole. It returns the session as it stands and the checkpoint for the next call.
//
// The session is the live view of the log's last stop: ID, CWD, Version, Started; Messages
// from the current run's prompt on, with the assistant messages of its last MaxSteps steps
// (and its last assistant message and last one with text) and the messages after the last
// assistant message; each sub-agent's last MaxSteps assistant messages; Shells and Tasks;
// the last stop-hook runs, whose Message is an index in the whole log. Everything Turn reads
// equals what ReadFile finds in the whole file.
//
// The checkpoint holds that derived state (bounded: the current run's last MaxSteps steps,
// the session's shells and task calls, the tool calls still running), the byte offset reached
// and a fingerprint of the bytes before it (package harness/internal/tailfile). A file that
// was truncated, rewritten or replaced, or another path, fails the fingerprint and is read
// whole; so is a checkpoint of another version. A line being written (no newline yet) is read
// but not checkpointed: the next call reads it again.
func ReadTail(path string, checkpoint []byte) (*Session, []byte, error) {
	s, next, _, err := readTail(path, checkpoint)
	return s, next, err
}

// readTail is ReadTail, also reporting whether the checkpoint was used.
func readTail(path string, checkpoint []byte) (s *Session, next []byte, resumed bool, err error) {
	if checkpoint != nil {
		// A checkpoint that decodes but does not describe a state the reader can go on from
		// is read past: the file is read whole.
		defer func() {
			if r := recover(); r != nil {
				s, next, resumed, err = readTail(path, nil)
			}
		}()
	}
	f, err := tailfile.Open(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("reading the Copilot CLI session: %w", err)
	}
	defer f.Close()
	var b *builder
	var start int64
	if ck := decodeCheckpoint(checkpoint); ck != nil && f.Resumes(ck.Mark) {
		b, start, resumed = ck.restore(), ck.Offset, true
	}
	if b == nil {
		b = newBuilder()
		b.live = true
	}
	lines := 0
	err = f.Scan(start, MaxLineBytes, func(line []byte, tooLong bool) {
		b.line(line, tooLong)
		if lines++; lines%1024 == 0 {
			b.prune()
		}
	}, func(offset int64) {
		b.prune()
		if m, ok := f.Mark(offset); ok && b.known > 0 {
			next = b.checkpoint(m)
		}
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: reading the session: %w", path, err)
	}
	if b.known == 0 {
		return nil, nil, false, fmt.Errorf("%s: %w", path, ErrNotSession)
	}
	return b.s, next, resumed, nil
}

// stepCount counts the loop-guard steps an assistant message yields, as steps counts them.
func stepCount(m *Message) int {
	switch {
	case m.Kind != KindAssistant:
		return 0
	case len(m.ToolCalls) > 0:
		return len(m.ToolCalls)
	case strings.TrimSpace(m.Text) != "":
		return 1
	}
	return 0
}

// prune drops, in a live read, what the next stop no longer needs: the messages before the
// current run's prompt, those of the run beyond its last MaxSteps steps (keeping the prompt,
// the last assistant message, the last with text, and every message after the last assistant
// message), the sub-agents' messages beyond their last MaxSteps, the older stop-hook runs,
// and the tool calls that completed.
func (b *builder) prune() {
	if !b.live {
		return
	}
	s := b.s
	msgs := s.Messages
	start := runStart(msgs)
	final, text := -1, -1
	for i := len(msgs) - 1; i > start && (final < 0 || text < 0); i-- {
		if m := msgs[i]; m.Kind == KindAssistant {
			if final < 0 {
				final = i
			}
			if text < 0 && strings.TrimSpace(m.Text) != "" {
				text = i
			}
		}
	}
	var kept []*Message
	n := 0
	for i := len(msgs) - 1; i >= max(start, 0); i-- {
		m := msgs[i]
		if i == start || i > final || i == final || i == text || m.Kind == KindAssistant && n < MaxSteps {
			kept = append(kept, m)
		}
		n += stepCount(m)
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	clear(s.Messages)
	s.Messages = kept
	for id, list := range s.Subagent {
		var out []*Message
		for i := len(list) - 1; i >= 0 && len(out) < MaxSteps; i-- {
			if list[i].Kind == KindAssistant {
				out = append(out, list[i])
			}
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		s.Subagent[id] = out
	}
	if n := len(s.StopHooks); n > keepStopHooks {
		s.StopHooks = append([]*StopHook(nil), s.StopHooks[n-keepStopHooks:]...)
	}
	for id, c := range b.calls {
		if c.Done {
			delete(b.calls, id)
		}
	}
}

// The checkpoint's wire shape. Tool calls shared between messages, tasks and the calls still
// running are indices into Calls; shells by id are indices into Shells.
type ckState struct {
	V int `json:"v"`
	tailfile.Mark

	ID        string             `json:"id,omitempty"`
	CWD       string             `json:"cwd,omitempty"`
	Version   string             `json:"version,omitempty"`
	Started   time.Time          `json:"started"`
	Malformed int                `json:"malformed,omitempty"`
	Known     int                `json:"known"`
	Total     int                `json:"total"`
	Calls     []ckCall           `json:"calls,omitempty"`
	Messages  []ckMsg            `json:"messages,omitempty"`
	Subagent  map[string][]ckMsg `json:"subagent,omitempty"`
	Shells    []Shell            `json:"shells,omitempty"`
	ByID      map[string]int     `json:"by_id,omitempty"`
	Tasks     []int              `json:"tasks,omitempty"`
	Pending   []int              `json:"pending,omitempty"`
	StopHooks []StopHook         `json:"stop_hooks,omitempty"`
	LastHook  bool               `json:"last_hook,omitempty"` // the last of StopHooks is the latest run
}

// ckCall is a ToolCall with its arguments kept byte for byte (a nil RawMessage would come
// back as "null").
type ckCall struct {
	ToolCall
	Input []byte `json:"input,omitempty"`
}

type ckMsg struct {
	Message
	Calls []int `json:"calls,omitempty"`
	// NCalls is a sub-agent message's tool-request count (its calls are not read).
	NCalls int `json:"n_calls,omitempty"`
}

// checkpoint encodes the live builder's state.
func (b *builder) checkpoint(mark tailfile.Mark) []byte {
	s := b.s
	ck := ckState{V: checkpointVersion, Mark: mark, ID: s.ID, CWD: s.CWD, Version: s.Version, Started: s.Started,
		Malformed: s.Malformed, Known: b.known, Total: b.total}
	callIx := make(map[*ToolCall]int)
	call := func(c *ToolCall) int {
		i, ok := callIx[c]
		if !ok {
			i = len(ck.Calls)
			callIx[c] = i
			cc := ckCall{ToolCall: *c, Input: c.Args}
			cc.Args = nil
			ck.Calls = append(ck.Calls, cc)
		}
		return i
	}
	for _, m := range s.Messages {
		cm := ckMsg{Message: *m}
		cm.ToolCalls = nil
		for _, c := range m.ToolCalls {
			cm.Calls = append(cm.Calls, call(c))
		}
		ck.Messages = append(ck.Messages, cm)
	}
	for id, list := range s.Subagent {
		if ck.Subagent == nil {
			ck.Subagent = make(map[string][]ckMsg)
		}
		out := []ckMsg{}
		for _, m := range list {
			cm := ckMsg{Message: *m, NCalls: len(m.ToolCalls)}
			cm.ToolCalls = nil
			out = append(out, cm)
		}
		ck.Subagent[id] = out
	}
	shellIx := make(map[*Shell]int)
	for i, sh := range s.Shells {
		shellIx[sh] = i
		ck.Shells = append(ck.Shells, *sh)
	}
	ck.ByID = make(map[string]int, len(b.shells))
	for id, sh := range b.shells {
		if i, ok := shellIx[sh]; ok {
			ck.ByID[id] = i
		}
	}
	for _, c := range s.Tasks {
		ck.Tasks = append(ck.Tasks, call(c))
	}
	for _, c := range b.calls {
		ck.Pending = append(ck.Pending, call(c))
	}
	for _, h := range s.StopHooks {
		ck.StopHooks = append(ck.StopHooks, *h)
	}
	ck.LastHook = b.lastHook != nil && len(s.StopHooks) > 0 && s.StopHooks[len(s.StopHooks)-1] == b.lastHook
	data, err := json.Marshal(ck)
	if err != nil {
		return nil
	}
	return data
}

// errCheckpoint reports a checkpoint that does not hold together.
var errCheckpoint = errors.New("checkpoint does not hold together")

// decodeCheckpoint decodes a checkpoint; nil when it is not one this version wrote, or it
// does not hold together.
func decodeCheckpoint(data []byte) *ckState {
	if len(data) == 0 {
		return nil
	}
	var ck ckState
	if json.Unmarshal(data, &ck) != nil || ck.V != checkpointVersion || ck.valid() != nil {
		return nil
	}
	return &ck
}

// valid checks that every index in ck is in range.
func (ck *ckState) valid() error {
	okCall := func(i int) bool { return i >= 0 && i < len(ck.Calls) }
	for _, m := range ck.Messages {
		for _, i := range m.Calls {
			if !okCall(i) {
				return errCheckpoint
			}
		}
	}
	for _, list := range [][]int{ck.Tasks, ck.Pending} {
		for _, i := range list {
			if !okCall(i) {
				return errCheckpoint
			}
		}
	}
	for _, i := range ck.ByID {
		if i < 0 || i >= len(ck.Shells) {
			return errCheckpoint
		}
	}
	if ck.Offset < 0 || ck.Known <= 0 {
		return errCheckpoint
	}
	return nil
}

// restore rebuilds a live builder from ck.
func (ck *ckState) restore() *builder {
	b := newBuilder()
	b.live = true
	s := b.s
	s.ID, s.CWD, s.Version, s.Malformed = ck.ID, ck.CWD, ck.Version, ck.Malformed
	s.Started = ck.Started
	b.known, b.total = ck.Known, ck.Total
	calls := make([]*ToolCall, len(ck.Calls))
	for i := range ck.Calls {
		c := ck.Calls[i].ToolCall
		c.Args = json.RawMessage(ck.Calls[i].Input)
		calls[i] = &c
	}
	for _, cm := range ck.Messages {
		m := cm.Message
		for _, i := range cm.Calls {
			m.ToolCalls = append(m.ToolCalls, calls[i])
		}
		s.Messages = append(s.Messages, &m)
	}
	for id, list := range ck.Subagent {
		var out []*Message
		for _, cm := range list {
			m := cm.Message
			for range cm.NCalls {
				m.ToolCalls = append(m.ToolCalls, &ToolCall{})
			}
			out = append(out, &m)
		}
		s.Subagent[id] = out
	}
	for i := range ck.Shells {
		sh := ck.Shells[i]
		s.Shells = append(s.Shells, &sh)
	}
	for id, i := range ck.ByID {
		b.shells[id] = s.Shells[i]
	}
	for _, i := range ck.Tasks {
		s.Tasks = append(s.Tasks, calls[i])
	}
	for _, i := range ck.Pending {
		if c := calls[i]; c.ID != "" {
			b.calls[c.ID] = c
		}
	}
	for i := range ck.StopHooks {
		h := ck.StopHooks[i]
		s.StopHooks = append(s.StopHooks, &h)
	}
	if ck.LastHook && len(s.StopHooks) > 0 {
		b.lastHook = s.StopHooks[len(s.StopHooks)-1]
	}
	return b
}
