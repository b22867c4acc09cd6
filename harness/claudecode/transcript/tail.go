package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/stopgate/stopgate/harness/internal/tailfile"
)

// checkpointVersion is the version of the checkpoint encoding; another version is read whole.
const checkpointVersion = 1

// ReadTail reads the transcript at path for a stop hook, going on from checkpoint, what an
// earlier ReadTail of the same file returned; nil or an unusable checkpoint reads the file
// whole. It returns the session as it stands and the checkpoint for the next call.
//
// The session is the live view of the transcript's last turn: ID, AgentID, the turns of the
// current run (the last turn a prompt or a command started, and the notification turns after
// it) with the assistant messages of their last KeepSteps steps, Todos and TodosUsed, Shells
// and Subagents. Messages, StopHooks, Compactions, Entries and user messages in turns are
// left out, and Turn.Index is the turn's index in the whole file. Everything the Claude Code
// Turn reads of the last turn equals what Read finds in the whole file.
//
// The checkpoint holds that derived state (bounded: the current run's last KeepSteps steps,
// the session's shells, sub-agents and todos, the tool calls still awaiting a result), the
// byte offset reached (the end of the last complete line) and a fingerprint of the bytes
// before it: the file's path and identity (device and inode), and SHA-256 of its first 4 KB
// and of the 4 KB before the offset. A file that was truncated, rewritten or replaced, or
// another path, fails the fingerprint and is read whole; so is a checkpoint written by
// another version. A line being written (no newline yet) is read but not checkpointed: the
// next call reads it again.
func ReadTail(path string, checkpoint []byte, opts *Options) (*Session, []byte, error) {
	s, next, _, err := readTail(path, checkpoint, opts)
	return s, next, err
}

// readTail is ReadTail, also reporting whether the checkpoint was used.
func readTail(path string, checkpoint []byte, opts *Options) (s *Session, next []byte, resumed bool, err error) {
	o := opts.Resolved()
	o.Subagents = false
	f, err := tailfile.Open(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()

	var b *builder
	var start int64
	if ck := decodeCheckpoint(checkpoint); ck != nil && f.Resumes(ck.Mark) {
		b, start, resumed = ck.restore(o), ck.Offset, true
	}
	if b == nil {
		b = newBuilder(o)
		b.Live = true
	}
	err = f.Scan(start, b.O.MaxLineBytes, func(line []byte, tooLong bool) {
		b.Line++
		if tooLong {
			b.Malformed(ErrLineTooLong)
		} else {
			b.entry(line)
		}
		if b.Line%1024 == 0 {
			b.pruneMessages()
		}
	}, func(offset int64) {
		b.pruneMessages()
		if m, ok := f.Mark(offset); ok {
			next = b.checkpoint(m)
		}
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("transcript: %s: reading after line %d: %w", path, b.Line, err)
	}
	return b.finish(), next, resumed, nil
}

// steps counts the loop-guard steps an assistant message yields, as the Turn builder counts
// them: one per tool call, or one for a reply with text.
func steps(m *Message) int {
	if m.APIError || synthetic(m) {
		return 0
	}
	if len(m.ToolCalls) > 0 {
		return len(m.ToolCalls)
	}
	if len(bytes.TrimSpace([]byte(m.Text))) > 0 {
		return 1
	}
	return 0
}

// synthetic reports whether m is one Claude Code wrote itself (Message.Synthetic, which
// finish sets).
func synthetic(m *Message) bool {
	return m.Model == SyntheticModel && !m.APIError && len(m.ToolCalls) == 0
}

// pruneMessages drops, in a live read, the messages of the current run that lie beyond its
// last KeepSteps steps, keeping the last turn's last message with text and its last
// assistant message, and the turns left with no message except the run's first and the last.
// Ids of the dropped messages are remembered (a bounded number of them), so a later entry of
// one is not taken for a new message.
func (b *builder) pruneMessages() {
	if !b.Live || len(b.S.Turns) == 0 {
		return
	}
	n := 0
	last := len(b.S.Turns) - 1
	keptTurns := b.S.Turns[:0:0]
	for ti := last; ti >= 0; ti-- {
		tr := b.S.Turns[ti]
		lastText, lastMsg := -1, -1
		if ti == last {
			for i := len(tr.Messages) - 1; i >= 0; i-- {
				m := tr.Messages[i]
				if synthetic(m) {
					continue
				}
				if lastMsg < 0 && !m.APIError {
					lastMsg = i
				}
				if lastText < 0 && m.Text != "" {
					lastText = i
				}
			}
		}
		kept := tr.Messages[:0:0]
		for i := len(tr.Messages) - 1; i >= 0; i-- {
			m := tr.Messages[i]
			if n < KeepSteps || i == lastText || i == lastMsg {
				kept = append(kept, m)
			} else {
				b.forget(m)
			}
			n += steps(m)
		}
		for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
			kept[i], kept[j] = kept[j], kept[i]
		}
		tr.Messages = kept
		if len(kept) > 0 || ti == 0 || ti == last {
			keptTurns = append(keptTurns, tr)
		}
	}
	for i, j := 0, len(keptTurns)-1; i < j; i, j = i+1, j-1 {
		keptTurns[i], keptTurns[j] = keptTurns[j], keptTurns[i]
	}
	b.S.Turns = keptTurns
	// Calls linked to their result and in no kept message are done with.
	inKept := make(map[*ToolCall]bool)
	keptMsg := make(map[*Message]bool)
	for _, tr := range b.S.Turns {
		for _, m := range tr.Messages {
			keptMsg[m] = true
			for _, c := range m.ToolCalls {
				inKept[c] = true
			}
		}
	}
	for id, c := range b.calls {
		if c.Result != nil && !inKept[c] {
			delete(b.calls, id)
		}
	}
	// The calls shells and sub-agents keep need no result text once out of the steps.
	for _, sh := range b.S.Shells {
		stripResult(sh.Call, inKept)
	}
	for _, a := range b.S.Subagents {
		stripResult(a.Call, inKept)
	}
	bg := b.bgCalls[:0]
	for _, c := range b.bgCalls {
		if c.Result == nil {
			bg = append(bg, c)
		}
	}
	b.bgCalls = bg
	tc := b.todoCalls[:0]
	for _, c := range b.todoCalls {
		if b.todoPending[c.ID] {
			tc = append(tc, c)
		}
	}
	b.todoCalls = tc
	for _, m := range b.msgByID {
		if m.Dropped {
			continue
		}
		if !keptMsg[m] {
			b.forget(m)
		}
	}
}

// stripResult drops the text of c's result unless c is in kept.
func stripResult(c *ToolCall, kept map[*ToolCall]bool) {
	if c == nil || c.Result == nil || kept[c] || (c.Result.Text == "" && c.Result.Structured == nil) {
		return
	}
	r := *c.Result
	r.Text, r.Structured = "", nil
	c.Result = &r
}

// maxForgotten bounds the ids of dropped messages a live read remembers.
const maxForgotten = 256

// forget drops m from a live read, keeping its id among the recently dropped ones.
func (b *builder) forget(m *Message) {
	if m.ID == "" || m.Role != "assistant" {
		return
	}
	if cur, ok := b.msgByID[m.ID]; !ok || cur != m {
		return
	}
	m.Dropped = true
	b.forgotten = append(b.forgotten, m.ID)
	if len(b.forgotten) > maxForgotten {
		old := b.forgotten[0]
		b.forgotten = b.forgotten[1:]
		if d := b.msgByID[old]; d != nil && d.Dropped {
			delete(b.msgByID, old)
		}
	}
}

// The checkpoint's wire shape. Pointers between calls, messages, shells and sub-agents are
// indices into Calls, Shells and Subagents.
type ckState struct {
	V int `json:"v"`
	tailfile.Mark

	Line           int     `json:"line"`
	ID             string  `json:"id,omitempty"`
	AgentID        string  `json:"agent_id,omitempty"`
	SidechainKnown bool    `json:"sidechain_known,omitempty"`
	MainSidechain  bool    `json:"main_sidechain,omitempty"`
	NTurns         int     `json:"n_turns"`
	TodoUsed       [2]bool `json:"todo_used"`
	Malformed      int     `json:"malformed,omitempty"`
	Skipped        int     `json:"skipped,omitempty"`

	Calls     []ckCall       `json:"calls,omitempty"`
	Turns     []ckTurn       `json:"turns,omitempty"`
	Cur       bool           `json:"cur,omitempty"` // the last turn is the current one
	Shells    []ckShell      `json:"shells,omitempty"`
	Subagents []ckAgent      `json:"subagents,omitempty"`
	Pending   []int          `json:"pending,omitempty"` // calls by id
	BgCalls   []int          `json:"bg_calls,omitempty"`
	TodoCalls []int          `json:"todo_calls,omitempty"`
	Reads     []ckRead       `json:"reads,omitempty"`
	ByCall    map[string]int `json:"by_call,omitempty"`
	ByID      map[string]int `json:"by_id,omitempty"`
	AgentRead map[string]int `json:"agent_reads,omitempty"`
	Kills     []string       `json:"kills,omitempty"`
	TodoPend  []string       `json:"todo_pending,omitempty"`
	TodoWrite []Todo         `json:"todo_write,omitempty"`
	Tasks     []Todo         `json:"tasks,omitempty"`
	Forgotten []string       `json:"forgotten,omitempty"`
}

type ckCall struct {
	ID     string      `json:"id,omitempty"`
	Name   string      `json:"name,omitempty"`
	Input  []byte      `json:"input,omitempty"` // base64: kept byte for byte
	Time   time.Time   `json:"time,omitzero"`
	Line   int         `json:"line,omitempty"`
	Result *ToolResult `json:"result,omitempty"`
}

type ckMsg struct {
	ID         string    `json:"id,omitempty"`
	Model      string    `json:"model,omitempty"`
	Text       string    `json:"text,omitempty"`
	Calls      []int     `json:"calls,omitempty"`
	StopReason *string   `json:"stop_reason,omitempty"`
	Usage      Usage     `json:"usage,omitzero"`
	Time       time.Time `json:"time,omitzero"`
	Line       int       `json:"line,omitempty"`
	Entries    int       `json:"entries,omitempty"`
	Sidechain  bool      `json:"sidechain,omitempty"`
	APIError   bool      `json:"api_error,omitempty"`
}

type ckTurn struct {
	Index          int           `json:"index"`
	Trigger        MessageKind   `json:"trigger,omitempty"`
	Prompt         string        `json:"prompt,omitempty"`
	Line           int           `json:"line,omitempty"`
	Start          time.Time     `json:"start,omitzero"`
	End            time.Time     `json:"end,omitzero"`
	Messages       []ckMsg       `json:"messages,omitempty"`
	Interrupted    bool          `json:"interrupted,omitempty"`
	StopHookBlocks int           `json:"stop_hook_blocks,omitempty"`
	Duration       time.Duration `json:"duration,omitempty"`
	AssistantCount int           `json:"assistant_count,omitempty"`
	HookAt         int           `json:"hook_at"`
	HookActive     bool          `json:"hook_active,omitempty"`
	HookBlocked    bool          `json:"hook_blocked,omitempty"`
	BlockedBefore  bool          `json:"blocked_before,omitempty"`
}

type ckShell struct {
	Shell
	CallIndex int `json:"call_index"`
}

type ckAgent struct {
	Subagent
	CallIndex int `json:"call_index"`
}

type ckRead struct {
	CallID string `json:"call_id"`
	Shell  int    `json:"shell"`
	Index  int    `json:"index"`
}

// checkpoint encodes the live builder's state.
func (b *builder) checkpoint(mark tailfile.Mark) []byte {
	ck := ckState{
		V: checkpointVersion, Mark: mark,
		Line: b.Line, ID: b.S.ID, AgentID: b.S.AgentID, SidechainKnown: b.SidechainKnown,
		MainSidechain: b.MainSidechain, NTurns: b.NTurns, TodoUsed: b.todoUsed,
		Malformed: b.S.MalformedCount, Skipped: b.S.Skipped,
		TodoWrite: b.todoWrite, Tasks: b.tasks, Forgotten: b.forgotten,
	}
	callIx := make(map[*ToolCall]int)
	withResult := make(map[*ToolCall]bool)
	call := func(c *ToolCall, result bool) int {
		if c == nil {
			return -1
		}
		i, ok := callIx[c]
		if !ok {
			i = len(ck.Calls)
			callIx[c] = i
			ck.Calls = append(ck.Calls, ckCall{ID: c.ID, Name: c.Name, Input: []byte(c.Input), Time: c.Time, Line: c.Line})
		}
		if result && c.Result != nil && !withResult[c] {
			withResult[c] = true
			r := *c.Result
			r.Structured = nil // read when the result arrives, never later
			ck.Calls[i].Result = &r
		}
		return i
	}
	for _, tr := range b.S.Turns {
		t := ckTurn{
			Index: tr.Index, Trigger: tr.Trigger, Prompt: tr.Prompt, Line: tr.Line, Start: tr.Start, End: tr.End,
			Interrupted: tr.Interrupted, StopHookBlocks: tr.StopHookBlocks, Duration: tr.Duration,
			AssistantCount: tr.Book.AssistantCount, HookAt: tr.Book.HookAt, HookActive: tr.Book.HookActive,
			HookBlocked: tr.Book.HookBlocked, BlockedBefore: tr.Book.BlockedBefore,
		}
		for _, m := range tr.Messages {
			cm := ckMsg{ID: m.ID, Model: m.Model, Text: m.Text, StopReason: m.StopReason, Usage: m.Usage,
				Time: m.Time, Line: m.Line, Entries: m.Entries, Sidechain: m.Sidechain, APIError: m.APIError}
			for _, c := range m.ToolCalls {
				cm.Calls = append(cm.Calls, call(c, true))
			}
			t.Messages = append(t.Messages, cm)
		}
		ck.Turns = append(ck.Turns, t)
	}
	ck.Cur = b.Cur != nil && len(b.S.Turns) > 0 && b.Cur == b.S.Turns[len(b.S.Turns)-1]
	shellIx := make(map[*Shell]int)
	for i, sh := range b.S.Shells {
		shellIx[sh] = i
		c := *sh
		c.Call = nil
		ck.Shells = append(ck.Shells, ckShell{Shell: c, CallIndex: call(sh.Call, false)})
	}
	agentIx := make(map[*Subagent]int)
	for i, a := range b.S.Subagents {
		agentIx[a] = i
		c := *a
		c.Call, c.File = nil, nil
		ck.Subagents = append(ck.Subagents, ckAgent{Subagent: c, CallIndex: call(a.Call, false)})
	}
	for _, c := range b.calls {
		ck.Pending = append(ck.Pending, call(c, false))
	}
	for _, c := range b.bgCalls {
		ck.BgCalls = append(ck.BgCalls, call(c, false))
	}
	for _, c := range b.todoCalls {
		ck.TodoCalls = append(ck.TodoCalls, call(c, false))
	}
	for id, ref := range b.shellReads {
		ck.Reads = append(ck.Reads, ckRead{CallID: id, Shell: shellIx[ref.shell], Index: ref.index})
	}
	index := func(m map[string]*Subagent) map[string]int {
		out := make(map[string]int, len(m))
		for id, a := range m {
			out[id] = agentIx[a]
		}
		return out
	}
	ck.ByCall, ck.ByID, ck.AgentRead = index(b.agentByCall), index(b.agentByID), index(b.agentReads)
	for id := range b.pendingKills {
		ck.Kills = append(ck.Kills, id)
	}
	for id := range b.todoPending {
		ck.TodoPend = append(ck.TodoPend, id)
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
	if json.Unmarshal(data, &ck) != nil || ck.V != checkpointVersion || !ck.valid() {
		return nil
	}
	return &ck
}

// valid reports whether every index in ck is in range.
func (ck *ckState) valid() bool {
	okCall := func(i int, none bool) bool { return (none && i == -1) || (i >= 0 && i < len(ck.Calls)) }
	for _, t := range ck.Turns {
		for _, m := range t.Messages {
			for _, i := range m.Calls {
				if !okCall(i, false) {
					return false
				}
			}
		}
	}
	for _, sh := range ck.Shells {
		if !okCall(sh.CallIndex, true) {
			return false
		}
	}
	for _, a := range ck.Subagents {
		if !okCall(a.CallIndex, true) {
			return false
		}
	}
	for _, list := range [][]int{ck.Pending, ck.BgCalls, ck.TodoCalls} {
		for _, i := range list {
			if !okCall(i, false) {
				return false
			}
		}
	}
	for _, r := range ck.Reads {
		if r.Shell < 0 || r.Shell >= len(ck.Shells) || r.Index < 0 || r.Index >= len(ck.Shells[r.Shell].Reads) {
			return false
		}
	}
	for _, m := range []map[string]int{ck.ByCall, ck.ByID, ck.AgentRead} {
		for _, i := range m {
			if i < 0 || i >= len(ck.Subagents) {
				return false
			}
		}
	}
	return ck.Offset >= 0
}

// restore rebuilds a live builder from ck.
func (ck *ckState) restore(o Options) *builder {
	b := newBuilder(o)
	b.Live = true
	b.Line, b.SidechainKnown, b.MainSidechain, b.NTurns, b.todoUsed = ck.Line, ck.SidechainKnown, ck.MainSidechain, ck.NTurns, ck.TodoUsed
	b.S.ID, b.S.AgentID, b.S.MalformedCount, b.S.Skipped = ck.ID, ck.AgentID, ck.Malformed, ck.Skipped
	b.todoWrite, b.tasks = ck.TodoWrite, ck.Tasks
	calls := make([]*ToolCall, len(ck.Calls))
	for i, c := range ck.Calls {
		calls[i] = &ToolCall{ID: c.ID, Name: c.Name, Input: json.RawMessage(c.Input), Time: c.Time, Line: c.Line, Result: c.Result}
	}
	at := func(i int) *ToolCall {
		if i < 0 {
			return nil
		}
		return calls[i]
	}
	for _, t := range ck.Turns {
		tr := &Turn{
			Index: t.Index, Trigger: t.Trigger, Prompt: t.Prompt, Line: t.Line, Start: t.Start, End: t.End,
			Interrupted: t.Interrupted, StopHookBlocks: t.StopHookBlocks, Duration: t.Duration,
			Book: TurnBook{AssistantCount: t.AssistantCount, HookAt: t.HookAt, HookActive: t.HookActive,
				HookBlocked: t.HookBlocked, BlockedBefore: t.BlockedBefore},
		}
		for _, cm := range t.Messages {
			m := &Message{ID: cm.ID, Role: "assistant", Kind: KindAssistant, Model: cm.Model, Text: cm.Text,
				StopReason: cm.StopReason, Usage: cm.Usage, Time: cm.Time, Line: cm.Line, Entries: cm.Entries,
				Sidechain: cm.Sidechain, APIError: cm.APIError}
			for _, i := range cm.Calls {
				m.ToolCalls = append(m.ToolCalls, calls[i])
			}
			if m.ID != "" {
				b.msgByID[m.ID] = m
			}
			tr.Messages = append(tr.Messages, m)
		}
		b.S.Turns = append(b.S.Turns, tr)
	}
	if ck.Cur && len(b.S.Turns) > 0 {
		b.Cur = b.S.Turns[len(b.S.Turns)-1]
	}
	for _, id := range ck.Forgotten {
		if _, ok := b.msgByID[id]; !ok {
			b.msgByID[id] = &Message{ID: id, Role: "assistant", Kind: KindAssistant, Dropped: true}
		}
		b.forgotten = append(b.forgotten, id)
	}
	for _, cs := range ck.Shells {
		sh := cs.Shell
		sh.Call = at(cs.CallIndex)
		p := &sh
		b.S.Shells = append(b.S.Shells, p)
		if p.ID != "" {
			if _, dup := b.shellByID[p.ID]; !dup {
				b.shellByID[p.ID] = p
			}
		}
	}
	for _, ca := range ck.Subagents {
		a := ca.Subagent
		a.Call = at(ca.CallIndex)
		b.S.Subagents = append(b.S.Subagents, &a)
	}
	for _, i := range ck.Pending {
		if c := calls[i]; c.ID != "" {
			b.calls[c.ID] = c
		}
	}
	for _, i := range ck.BgCalls {
		b.bgCalls = append(b.bgCalls, calls[i])
	}
	for _, i := range ck.TodoCalls {
		b.todoCalls = append(b.todoCalls, calls[i])
	}
	for _, r := range ck.Reads {
		b.shellReads[r.CallID] = shellReadRef{shell: b.S.Shells[r.Shell], index: r.Index}
	}
	fill := func(dst map[string]*Subagent, src map[string]int) {
		for id, i := range src {
			dst[id] = b.S.Subagents[i]
		}
	}
	fill(b.agentByCall, ck.ByCall)
	fill(b.agentByID, ck.ByID)
	fill(b.agentReads, ck.AgentRead)
	for _, id := range ck.Kills {
		b.pendingKills[id] = true
	}
	for _, id := range ck.TodoPend {
		b.todoPending[id] = true
	}
	return b
}
