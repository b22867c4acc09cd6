package rollout

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/stopgate/stopgate/harness/internal/session"
	"github.com/stopgate/stopgate/harness/internal/tailfile"
)

// checkpointVersion is the version of the checkpoint encoding; another version is read whole.
const checkpointVersion = 1

// ReadTail reads the rollout at path for a stop hook, going on from checkpoint, what an
// earlier ReadTail of the same file returned; nil or an unusable checkpoint reads the file
// whole. It returns the session as it stands and the checkpoint for the next call.
//
// The session is the live view of the rollout's last turn: Meta, ID, AgentID, the turns of
// the current run with the assistant messages of their last KeepSteps steps (and each turn's
// last message and last message with text), Todos and Plan, Shells, and the Tasks whose turn
// is among those turns (and the running one). Messages, StopHooks, Compactions, Errors and
// user messages in turns are left out, and Turn.Index (so CodexTask.Turn too) is the turn's
// index in the whole file: look a task's turn up with TurnPos. Everything the Codex Turn
// reads of the last turn equals what ReadCodexFile finds in the whole file.
//
// The checkpoint holds that derived state (bounded: the current run's last KeepSteps steps,
// the session's background exec sessions, the tool calls still awaiting an output), the
// byte offset reached and a fingerprint of the bytes before it (package
// harness/internal/tailfile). A file that was truncated, rewritten or replaced, or another
// path, fails the fingerprint and is read whole; so is a checkpoint of another version. A
// line being written (no newline yet) is read but not checkpointed: the next call reads it
// again.
func ReadTail(path string, checkpoint []byte, opts *Options) (*CodexSession, []byte, error) {
	s, next, _, err := readTail(path, checkpoint, opts)
	return s, next, err
}

// readTail is ReadTail, also reporting whether the checkpoint was used.
func readTail(path string, checkpoint []byte, opts *Options) (s *CodexSession, next []byte, resumed bool, err error) {
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
		return nil, nil, false, fmt.Errorf("rollout: %w", err)
	}
	defer f.Close()
	var b *codexBuilder
	var start int64
	if ck := decodeCheckpoint(checkpoint); ck != nil && f.Resumes(ck.Mark) {
		b, start, resumed = ck.restore(o), ck.Offset, true
	}
	if b == nil {
		b = newCodexBuilder(o)
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
			b.prune()
		}
	}, func(offset int64) {
		b.prune()
		if m, ok := f.Mark(offset); ok {
			next = b.checkpoint(m)
		}
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("rollout: %s: reading after line %d: %w", path, b.Line, err)
	}
	return b.finish(), next, resumed, nil
}

// TurnPos returns the position in s.Turns of the turn whose Index is index; -1 when s holds
// none. In a whole read the two are the same; in a tail read (ReadTail) Turns holds only the
// current run.
func (s *CodexSession) TurnPos(index int) int {
	if s == nil || s.Session == nil {
		return -1
	}
	for i, tr := range s.Turns {
		if tr.Index == index {
			return i
		}
	}
	return -1
}

// steps counts the loop-guard steps an assistant message yields, as turns.Steps counts them.
func steps(m *Message) int {
	if m.Kind != KindAssistant || m.APIError || m.Model == session.SyntheticModel && len(m.ToolCalls) == 0 {
		return 0
	}
	if len(m.ToolCalls) > 0 {
		return len(m.ToolCalls)
	}
	if m.Text != "" {
		return 1
	}
	return 0
}

// prune drops, in a live read, what the last turn's stop no longer needs: the messages of the
// current run beyond its last KeepSteps steps (each turn keeping its last message and its
// last message with text), the calls whose output arrived and that no kept message holds,
// and the tasks of turns no longer kept.
func (b *codexBuilder) prune() {
	if !b.Live {
		return
	}
	n := 0
	kept := make(map[*ToolCall]bool)
	for ti := len(b.S.Turns) - 1; ti >= 0; ti-- {
		tr := b.S.Turns[ti]
		lastText, lastMsg := -1, -1
		for i := len(tr.Messages) - 1; i >= 0 && (lastText < 0 || lastMsg < 0); i-- {
			m := tr.Messages[i]
			if lastMsg < 0 && !m.APIError {
				lastMsg = i
			}
			if lastText < 0 && m.Text != "" {
				lastText = i
			}
		}
		var out []*Message
		for i := len(tr.Messages) - 1; i >= 0; i-- {
			m := tr.Messages[i]
			if n < session.KeepSteps || i == lastText || i == lastMsg || m == b.open {
				out = append(out, m)
				for _, c := range m.ToolCalls {
					kept[c] = true
				}
			}
			n += steps(m)
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		tr.Messages = out
	}
	for id, c := range b.calls {
		if c.Result != nil && !kept[c] {
			delete(b.calls, id)
		}
	}
	for id, c := range b.execCalls {
		if c.Result != nil && !kept[c] {
			delete(b.execCalls, id)
		}
	}
	for id := range b.pollCalls {
		if _, ok := b.calls[id]; !ok {
			delete(b.pollCalls, id)
		}
	}
	for _, sh := range b.S.Shells {
		if sh.Call != nil && !kept[sh.Call] {
			sh.Call = nil // no Turn reads it
		}
	}
	tasks := b.cs.Tasks[:0]
	for _, tk := range b.cs.Tasks {
		if tk == b.task || b.cs.TurnPos(tk.Turn) >= 0 {
			tasks = append(tasks, tk)
		}
	}
	clear(b.cs.Tasks[len(tasks):])
	b.cs.Tasks = tasks
}

// The checkpoint's wire shape. Pointers between calls, messages and shells are indices into
// Calls and Shells.
type ckState struct {
	V int `json:"v"`
	tailfile.Mark

	Line      int            `json:"line"`
	NTurns    int            `json:"n_turns"`
	Malformed int            `json:"malformed,omitempty"`
	Skipped   int            `json:"skipped,omitempty"`
	Session   ckSession      `json:"session"`
	Meta      CodexMeta      `json:"meta"`
	Plan      *CodexPlan     `json:"plan,omitempty"`
	Tasks     []CodexTask    `json:"tasks,omitempty"`
	Task      int            `json:"task"` // the running task's index in Tasks; -1 for none
	Context   codexContext   `json:"context"`
	Calls     []ckCall       `json:"calls,omitempty"`
	Turns     []ckTurn       `json:"turns,omitempty"`
	Cur       bool           `json:"cur,omitempty"`     // the last turn is the current one
	Open      bool           `json:"open,omitempty"`    // the last turn's last message is being filled
	Results   bool           `json:"results,omitempty"` // a run of tool outputs is being filled
	Shells    []ckShell      `json:"shells,omitempty"`
	Pending   []int          `json:"pending,omitempty"`    // b.calls
	Exec      []int          `json:"exec,omitempty"`       // b.execCalls
	Polls     map[string]int `json:"polls,omitempty"`      // b.pollCalls: call id → shell
	ByID      map[string]int `json:"by_id,omitempty"`      // b.shells: session id → shell
	ExecItems map[string]int `json:"exec_items,omitempty"` // b.execItems: call id → shell
	TodoWrite []Todo         `json:"todo_write,omitempty"`
}

// ckSession is the Session's own fields a checkpoint keeps.
type ckSession struct {
	ID, AgentID, CWD string
	Versions         []string
	Start, End       time.Time
}

// codexContext is codexContextWire as a checkpoint writes it.
type codexContext struct {
	TurnID, CWD, Model, ApprovalPolicy, Effort string
	SandboxPolicy                              json.RawMessage
}

// ckCall is a ToolCall with its input kept byte for byte (a nil RawMessage would come back
// as "null").
type ckCall struct {
	ToolCall
	In []byte `json:"in,omitempty"`
}

type ckTurn struct {
	session.Turn
	Msgs []ckMsg `json:"msgs,omitempty"`
}

type ckMsg struct {
	session.Message
	Calls []int `json:"calls,omitempty"`
}

type ckShell struct {
	session.Shell
	CallIndex int `json:"call_index"`
}

// checkpoint encodes the live builder's state.
func (b *codexBuilder) checkpoint(mark tailfile.Mark) []byte {
	s := b.S
	ck := ckState{
		V: checkpointVersion, Mark: mark, Line: b.Line, NTurns: b.NTurns,
		Malformed: s.MalformedCount, Skipped: s.Skipped,
		Meta: b.cs.Meta, Plan: b.cs.Plan, Task: -1, TodoWrite: b.todoWrite,
		Context: codexContext{TurnID: b.ctx.TurnID, CWD: b.ctx.CWD, Model: b.ctx.Model,
			ApprovalPolicy: string(b.ctx.ApprovalPolicy), Effort: string(b.ctx.Effort), SandboxPolicy: b.ctx.SandboxPolicy},
	}
	ck.Session.ID, ck.Session.AgentID, ck.Session.CWD, ck.Session.Versions = s.ID, s.AgentID, s.CWD, s.Versions
	ck.Session.Start, ck.Session.End = s.Start, s.End
	for i, tk := range b.cs.Tasks {
		if tk == b.task {
			ck.Task = i
		}
		ck.Tasks = append(ck.Tasks, *tk)
	}
	callIx := make(map[*ToolCall]int)
	call := func(c *ToolCall) int {
		if c == nil {
			return -1
		}
		i, ok := callIx[c]
		if !ok {
			i = len(ck.Calls)
			callIx[c] = i
			cc := ckCall{ToolCall: *c, In: c.Input}
			cc.Input = nil
			ck.Calls = append(ck.Calls, cc)
		}
		return i
	}
	for _, tr := range s.Turns {
		t := ckTurn{Turn: *tr}
		t.Messages = nil
		for _, m := range tr.Messages {
			cm := ckMsg{Message: *m}
			cm.ToolCalls, cm.ToolResults = nil, nil
			for _, c := range m.ToolCalls {
				cm.Calls = append(cm.Calls, call(c))
			}
			t.Msgs = append(t.Msgs, cm)
		}
		ck.Turns = append(ck.Turns, t)
	}
	if n := len(s.Turns); n > 0 {
		last := s.Turns[n-1]
		ck.Cur = b.Cur == last
		ck.Open = b.open != nil && len(last.Messages) > 0 && last.Messages[len(last.Messages)-1] == b.open
	}
	ck.Results = b.results != nil
	shellIx := make(map[*Shell]int)
	for i, sh := range s.Shells {
		shellIx[sh] = i
		c := *sh
		c.Call = nil
		ck.Shells = append(ck.Shells, ckShell{Shell: c, CallIndex: call(sh.Call)})
	}
	for _, c := range b.calls {
		ck.Pending = append(ck.Pending, call(c))
	}
	for _, c := range b.execCalls {
		ck.Exec = append(ck.Exec, call(c))
	}
	index := func(m map[string]*Shell) map[string]int {
		out := make(map[string]int, len(m))
		for id, sh := range m {
			if i, ok := shellIx[sh]; ok {
				out[id] = i
			}
		}
		return out
	}
	ck.Polls, ck.ByID, ck.ExecItems = index(b.pollCalls), index(b.shells), index(b.execItems)
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
	okCall := func(i int) bool { return i >= 0 && i < len(ck.Calls) }
	for _, t := range ck.Turns {
		for _, m := range t.Msgs {
			for _, i := range m.Calls {
				if !okCall(i) {
					return false
				}
			}
		}
	}
	for _, sh := range ck.Shells {
		if sh.CallIndex != -1 && !okCall(sh.CallIndex) {
			return false
		}
	}
	for _, list := range [][]int{ck.Pending, ck.Exec} {
		for _, i := range list {
			if !okCall(i) {
				return false
			}
		}
	}
	for _, m := range []map[string]int{ck.Polls, ck.ByID, ck.ExecItems} {
		for _, i := range m {
			if i < 0 || i >= len(ck.Shells) {
				return false
			}
		}
	}
	if ck.Open && (len(ck.Turns) == 0 || len(ck.Turns[len(ck.Turns)-1].Msgs) == 0) {
		return false
	}
	return ck.Task >= -1 && ck.Task < len(ck.Tasks) && ck.Offset >= 0
}

// restore rebuilds a live builder from ck.
func (ck *ckState) restore(o Options) *codexBuilder {
	b := newCodexBuilder(o)
	b.Live = true
	s := b.S
	b.Line, b.NTurns = ck.Line, ck.NTurns
	s.MalformedCount, s.Skipped = ck.Malformed, ck.Skipped
	s.ID, s.AgentID, s.CWD, s.Versions = ck.Session.ID, ck.Session.AgentID, ck.Session.CWD, ck.Session.Versions
	s.Start, s.End = ck.Session.Start, ck.Session.End
	b.cs.Meta, b.cs.Plan, b.todoWrite = ck.Meta, ck.Plan, ck.TodoWrite
	c := ck.Context
	b.ctx = codexContextWire{TurnID: c.TurnID, CWD: c.CWD, Model: c.Model, ApprovalPolicy: flexString(c.ApprovalPolicy),
		Effort: flexString(c.Effort), SandboxPolicy: c.SandboxPolicy}
	for i := range ck.Tasks {
		tk := ck.Tasks[i]
		b.cs.Tasks = append(b.cs.Tasks, &tk)
		if i == ck.Task {
			b.task = &tk
		}
	}
	calls := make([]*ToolCall, len(ck.Calls))
	for i := range ck.Calls {
		c := ck.Calls[i].ToolCall
		c.Input = json.RawMessage(ck.Calls[i].In)
		calls[i] = &c
	}
	for _, t := range ck.Turns {
		tr := t.Turn
		tr.Messages = nil
		for _, cm := range t.Msgs {
			m := cm.Message
			for _, i := range cm.Calls {
				m.ToolCalls = append(m.ToolCalls, calls[i])
			}
			tr.Messages = append(tr.Messages, &m)
		}
		s.Turns = append(s.Turns, &tr)
	}
	if n := len(s.Turns); n > 0 {
		last := s.Turns[n-1]
		if ck.Cur {
			b.Cur = last
		}
		if ck.Open {
			b.open = last.Messages[len(last.Messages)-1]
		}
	}
	if ck.Results {
		b.results = &Message{Role: "user", Kind: KindToolResult}
	}
	for _, cs := range ck.Shells {
		sh := cs.Shell
		if cs.CallIndex >= 0 {
			sh.Call = calls[cs.CallIndex]
		}
		s.Shells = append(s.Shells, &sh)
	}
	for _, i := range ck.Pending {
		if c := calls[i]; c.ID != "" {
			b.calls[c.ID] = c
		}
	}
	for _, i := range ck.Exec {
		b.execCalls[calls[i].ID] = calls[i]
	}
	fill := func(dst map[string]*Shell, src map[string]int) {
		for id, i := range src {
			dst[id] = s.Shells[i]
		}
	}
	fill(b.pollCalls, ck.Polls)
	fill(b.shells, ck.ByID)
	fill(b.execItems, ck.ExecItems)
	return b
}
