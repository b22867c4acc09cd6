package rollout

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stopgate/stopgate/harness/internal/session"
)

// CodexSession is a Codex CLI session reconstructed from its rollout file
// (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl).
//
// The embedded Session is the harness-neutral view, in the types the Claude Code reader fills:
//
//   - Messages: the model's output items of one response (its text, reasoning and tool calls)
//     merged into one assistant Message; each run of tool outputs one user Message of
//     KindToolResult; user messages classified as prompts (which start turns), stop-hook
//     continuations (KindHookFeedback) and harness context (KindMeta); developer messages are
//     KindMeta.
//   - Turns: the session split at each user prompt.
//   - Todos: the latest update_plan call's plan, each step a Todo of Tool "update_plan".
//   - Shells: exec_command calls that returned "Process running with session ID N" (a
//     background exec session, Shell.ID N), their write_stdin polls as Reads, and how they
//     ended where a poll saw "Process exited with code N" or an item_completed event
//     recorded the exit.
//   - StopHooks: one StopHookFeedback record per <hook_prompt> message, a Stop hook's block
//     reason handed back to the model.
//   - Compactions: compacted entries.
//
// Subagents are not read from rollouts: a Codex sub-agent's work is a rollout of its own.
type CodexSession struct {
	*Session
	// Meta is the rollout's session_meta; the zero value when the file has none.
	Meta CodexMeta
	// Tasks are the turns Codex ran (task_started … task_complete or turn_aborted), in order.
	Tasks []*CodexTask
	// Plan is the latest update_plan call; nil when the session never updated a plan, so an
	// unknown plan is not read as an empty one.
	Plan *CodexPlan
	// Errors are the error events, in order.
	Errors []CodexError
}

// CodexMeta is a rollout's session_meta entry.
type CodexMeta struct {
	ID         string
	Time       time.Time
	CWD        string
	Originator string // "codex_exec", "codex_cli_rs", "codex_vscode", …
	CLIVersion string
	// Source is where the session came from ("exec", "cli", "vscode", …); for a sub-agent's
	// rollout, where Codex writes an object, its JSON text.
	Source        string
	ModelProvider string
	// AgentNickname and AgentRole are set on a sub-agent's rollout.
	AgentNickname string
	AgentRole     string
}

// CodexTask is one turn as Codex ran it: from task_started (or turn_started) to task_complete
// (turn_complete) or turn_aborted. A Stop hook's block continues the same task, so a task
// spans every stop of one user turn.
type CodexTask struct {
	TurnID string
	// Turn is the index in Session.Turns of the turn whose prompt the task answered; -1 when
	// the rollout holds no prompt for it.
	Turn      int
	Started   time.Time
	Completed time.Time // zero while the task runs, or when it was aborted
	// Model, CWD, ApprovalPolicy, SandboxPolicy and Effort are from the task's turn_context.
	Model          string
	CWD            string
	ApprovalPolicy string
	SandboxPolicy  string
	Effort         string
	// LastAgentMessage is task_complete's last_agent_message; nil when not recorded.
	LastAgentMessage *string
	// Duration is task_complete's duration_ms.
	Duration time.Duration
	// Aborted is turn_aborted's reason ("interrupted", "replaced", "review_ended",
	// "budget_limited", …); empty when the task was not aborted.
	Aborted string
}

// CodexPlan is the latest update_plan call.
type CodexPlan struct {
	Explanation string
	Time        time.Time
	Line        int
}

// CodexError is an error event.
type CodexError struct {
	Time    time.Time
	Line    int
	Message string
	// Turn is the index in Session.Turns of the turn it happened in; -1 before any.
	Turn int
}

// ShellGone is the status of a background exec session Codex no longer knows (a poll
// answered "Unknown process id"): it ended, and how is not recorded.
const ShellGone ShellStatus = "gone"

// ReadCodex reads a Codex CLI rollout from r in one streaming pass and reconstructs the
// session. Unknown entry types, payload types and fields are skipped (counted in
// Session.Skipped and Session.Entries); a line that is not a well-formed entry is counted
// and described as Read does. Only an error from r is returned, with the session built from
// the lines before it.
func ReadCodex(r io.Reader, opts *Options) (*CodexSession, error) {
	b := newCodexBuilder(opts.Resolved())
	err := b.readLines(r)
	s := b.finish()
	if err != nil {
		return s, fmt.Errorf("rollout: reading after line %d: %w", b.Line, err)
	}
	return s, nil
}

// ReadCodexFile reads the rollout at path, as ReadCodex does.
func ReadCodexFile(path string, opts *Options) (*CodexSession, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	defer f.Close()
	s, err := ReadCodex(f, opts)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Wire shapes of a rollout line. Only the fields the reader uses are declared.

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexMetaWire struct {
	ID            string          `json:"id"`
	Timestamp     string          `json:"timestamp"`
	CWD           string          `json:"cwd"`
	Originator    string          `json:"originator"`
	CLIVersion    string          `json:"cli_version"`
	Source        json.RawMessage `json:"source"`
	ModelProvider string          `json:"model_provider"`
	AgentNickname string          `json:"agent_nickname"`
	AgentRole     string          `json:"agent_role"`
	// Meta is where some 2025 builds nested the same fields.
	Meta *codexMetaWire `json:"meta"`
}

type codexContextWire struct {
	TurnID         string          `json:"turn_id"`
	CWD            string          `json:"cwd"`
	Model          string          `json:"model"`
	ApprovalPolicy flexString      `json:"approval_policy"`
	SandboxPolicy  json.RawMessage `json:"sandbox_policy"`
	Effort         flexString      `json:"effort"`
}

type codexItemWire struct {
	Type      string           `json:"type"`
	ID        string           `json:"id"`
	Role      string           `json:"role"`
	Content   []codexContent   `json:"content"`
	Name      string           `json:"name"`
	Arguments json.RawMessage  `json:"arguments"`
	Input     json.RawMessage  `json:"input"`
	Action    json.RawMessage  `json:"action"`
	CallID    string           `json:"call_id"`
	Output    codexOutputValue `json:"output"`
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexOutputValue is a tool output: a string, a list of content items, or (older builds) an
// object {"content": …, "success": bool}.
type codexOutputValue struct {
	Text    string
	Failed  bool
	Present bool
}

func (o *codexOutputValue) UnmarshalJSON(b []byte) error {
	*o = codexOutputValue{Present: true}
	switch firstByte(b) {
	case '"':
		return json.Unmarshal(b, &o.Text)
	case '[':
		var items []codexContent
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
		o.Text = contentItemsText(items)
	case '{':
		var obj struct {
			Content json.RawMessage `json:"content"`
			Success *flexBool       `json:"success"`
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return err
		}
		var inner codexOutputValue
		if len(obj.Content) > 0 && inner.UnmarshalJSON(obj.Content) == nil {
			o.Text = inner.Text
		}
		o.Failed = obj.Success != nil && !bool(*obj.Success)
	default:
		o.Present = false
	}
	return nil
}

type codexEventWire struct {
	Type             string          `json:"type"`
	TurnID           string          `json:"turn_id"`
	LastAgentMessage *string         `json:"last_agent_message"`
	DurationMS       flexInt         `json:"duration_ms"`
	Reason           flexString      `json:"reason"`
	Message          flexString      `json:"message"`
	Item             *codexEventItem `json:"item"`
	CompletedAtMS    flexInt         `json:"completed_at_ms"`
	// exec_command_end
	ProcessID flexString `json:"process_id"`
	CallID    string     `json:"call_id"`
	ExitCode  *flexInt   `json:"exit_code"`
}

type codexEventItem struct {
	Type      string     `json:"type"`
	ID        string     `json:"id"`
	ProcessID flexString `json:"process_id"`
	Status    string     `json:"status"`
	ExitCode  *flexInt   `json:"exit_code"`
}

type codexCompactedWire struct {
	Message string `json:"message"`
}

// Tool inputs the reader follows.
type codexToolArgs struct {
	Cmd         json.RawMessage `json:"cmd"`
	Command     json.RawMessage `json:"command"`
	SessionID   flexString      `json:"session_id"`
	Chars       string          `json:"chars"`
	Explanation string          `json:"explanation"`
	Plan        *[]struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"plan"`
}

// codexKnownTypes are the rollout line types this reader knows, read or deliberately ignored.
var codexKnownTypes = map[string]bool{
	"session_meta": true, "turn_context": true, "response_item": true, "event_msg": true,
	"compacted": true, "world_state": true, "token_usage_record": true,
	"inter_agent_communication": true,
}

// codexBuilder accumulates a CodexSession from rollout lines.
type codexBuilder struct {
	*session.Builder // the limits, Session, line count, malformed-line and entry bookkeeping, turns
	cs               *CodexSession

	task      *CodexTask
	ctx       codexContextWire
	open      *Message // the assistant message the current response is filling
	results   *Message // the tool-result message the current run of outputs is filling
	execCalls map[string]*ToolCall
	pollCalls map[string]*Shell // write_stdin call id → the shell it polls
	shells    map[string]*Shell // background exec sessions by session id
	execItems map[string]*Shell // exec_command call id → the shell it started
	calls     map[string]*ToolCall
	todoWrite []Todo // the latest plan's steps
}

func newCodexBuilder(o Options) *codexBuilder {
	b := &codexBuilder{
		Builder:   session.NewBuilder(o),
		calls:     make(map[string]*ToolCall),
		execCalls: make(map[string]*ToolCall),
		pollCalls: make(map[string]*Shell),
		shells:    make(map[string]*Shell),
		execItems: make(map[string]*Shell),
	}
	b.cs = &CodexSession{Session: b.S}
	b.SidechainKnown = true
	return b
}

// readLines feeds each line of r to entry, up to MaxLineBytes; a longer line is counted as
// malformed, as the Claude Code reader does.
func (b *codexBuilder) readLines(r io.Reader) error {
	return scanLines(r, b.O.MaxLineBytes, func(line []byte, tooLong bool) {
		b.Line++
		if tooLong {
			b.Malformed(ErrLineTooLong)
			return
		}
		b.entry(line)
	})
}

func (b *codexBuilder) entry(line []byte) {
	switch firstByte(line) {
	case 0:
		return
	case '{':
	default:
		b.Malformed(ErrNotObject)
		return
	}
	var l codexLine
	if err := json.Unmarshal(line, &l); err != nil {
		b.Malformed(err)
		return
	}
	if l.Type == "" {
		b.Malformed(ErrNoType)
		return
	}
	t := parseTime(l.Timestamp)
	b.stamp(t)
	k := entryKey{typ: l.Type}
	switch l.Type {
	case "session_meta":
		b.meta(l.Payload)
	case "turn_context":
		b.turnContext(l.Payload)
	case "response_item":
		k.sub = b.responseItem(l.Payload, t)
	case "event_msg":
		k.sub = b.event(l.Payload, t)
	case "compacted":
		b.compacted(l.Payload, t)
	default:
		if !codexKnownTypes[l.Type] {
			b.S.Skipped++
		}
	}
	b.Count(k.typ, k.sub)
	if b.Cur != nil && t.After(b.Cur.End) && l.Type != "session_meta" {
		b.Cur.End = t
	}
}

// stamp widens the session's time span to t.
func (b *codexBuilder) stamp(t time.Time) {
	s := b.S
	if t.IsZero() {
		return
	}
	if s.Start.IsZero() || t.Before(s.Start) {
		s.Start = t
	}
	if t.After(s.End) {
		s.End = t
	}
}

func (b *codexBuilder) meta(raw json.RawMessage) {
	var m codexMetaWire
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	if m.ID == "" && m.Meta != nil {
		m = *m.Meta
	}
	cm := &b.cs.Meta
	if cm.ID != "" {
		return // a forked or resumed rollout repeats the meta of its origin; the first is ours
	}
	*cm = CodexMeta{
		ID: m.ID, Time: parseTime(m.Timestamp), CWD: m.CWD, Originator: m.Originator,
		CLIVersion: m.CLIVersion, ModelProvider: m.ModelProvider,
		AgentNickname: m.AgentNickname, AgentRole: m.AgentRole,
	}
	var src string
	if json.Unmarshal(m.Source, &src) == nil {
		cm.Source = src
	} else if len(m.Source) > 0 && string(m.Source) != "null" {
		cm.Source = string(m.Source)
	}
	b.S.ID, b.S.CWD = m.ID, m.CWD
	if m.AgentNickname != "" || m.AgentRole != "" {
		b.S.AgentID = cmp.Or(m.AgentNickname, m.AgentRole)
	}
	if m.CLIVersion != "" && !slices.Contains(b.S.Versions, m.CLIVersion) {
		b.S.Versions = append(b.S.Versions, m.CLIVersion)
	}
}

func (b *codexBuilder) turnContext(raw json.RawMessage) {
	var c codexContextWire
	if json.Unmarshal(raw, &c) != nil {
		return
	}
	b.ctx = c
	if b.S.CWD == "" {
		b.S.CWD = c.CWD
	}
	if tk := b.task; tk != nil && (c.TurnID == "" || c.TurnID == tk.TurnID) {
		b.applyContext(tk)
	}
}

// applyContext gives tk the latest turn_context's settings.
func (b *codexBuilder) applyContext(tk *CodexTask) {
	c := &b.ctx
	tk.Model, tk.CWD, tk.ApprovalPolicy, tk.Effort = c.Model, c.CWD, string(c.ApprovalPolicy), string(c.Effort)
	tk.SandboxPolicy = policyName(c.SandboxPolicy)
}

// policyName reads a sandbox policy written as a string or as an object {"type": …}.
func policyName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Type string `json:"type"`
		Mode string `json:"mode"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return cmp.Or(obj.Type, obj.Mode)
	}
	return ""
}

// closeResponse ends the assistant message and the tool-output message being filled.
func (b *codexBuilder) closeResponse() {
	b.open, b.results = nil, nil
}

// responseItem handles a response_item and returns its payload type.
func (b *codexBuilder) responseItem(raw json.RawMessage, t time.Time) string {
	var it codexItemWire
	if err := json.Unmarshal(raw, &it); err != nil {
		b.Malformed(err)
		return ""
	}
	switch it.Type {
	case "message":
		if it.Role == "assistant" {
			m := b.assistant(t)
			appendText(m, contentItemsText(it.Content))
			if m.ID == "" {
				m.ID = it.ID
			}
			return it.Type
		}
		b.closeResponse()
		b.userMessage(&it, t)
	case "reasoning":
		b.assistant(t)
	case "function_call", "custom_tool_call", "local_shell_call":
		m := b.assistant(t)
		call := &ToolCall{ID: it.CallID, Name: it.Name, Time: t, Line: b.Line}
		switch it.Type {
		case "function_call":
			call.Input = jsonArguments(it.Arguments)
		case "custom_tool_call":
			call.Input = jsonArguments(it.Input)
		default:
			call.Name = "local_shell"
			call.Input = it.Action
			if call.ID == "" {
				call.ID = it.ID
			}
		}
		m.ToolCalls = append(m.ToolCalls, call)
		if call.ID != "" {
			b.calls[call.ID] = call
		}
		b.callEffects(call)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		b.open = nil
		if b.results == nil {
			b.results = &Message{ID: it.ID, Role: "user", Kind: KindToolResult, Time: t, Line: b.Line}
			b.keep(b.results)
			b.Place(b.results)
		}
		b.results.Entries++
		text, cut := b.Cut(it.Output.Text)
		r := &ToolResult{ToolUseID: it.CallID, IsError: it.Output.Failed, Text: text, TextTruncated: cut, Time: t, Line: b.Line}
		b.results.ToolResults = append(b.results.ToolResults, r)
		if call := b.calls[it.CallID]; call != nil && call.Result == nil {
			call.Result = r
			b.outputEffects(call, r, it.Output.Text)
		}
	default:
		b.closeResponse()
	}
	return it.Type
}

// keep adds m to Session.Messages, except in a live read (ReadTail), which keeps none.
func (b *codexBuilder) keep(m *Message) {
	if !b.Live {
		b.S.Messages = append(b.S.Messages, m)
	}
}

// assistant returns the assistant message of the current response, starting one if needed.
func (b *codexBuilder) assistant(t time.Time) *Message {
	b.results = nil
	if b.open != nil {
		b.open.Entries++
		return b.open
	}
	m := &Message{Role: "assistant", Kind: KindAssistant, Model: b.ctx.Model, Time: t, Line: b.Line, Entries: 1}
	b.open = m
	b.keep(m)
	b.Place(m)
	return m
}

// The markup Codex wraps around the user-role messages it writes itself.
var codexMetaPrefixes = []string{
	"<environment_context>", "<user_instructions>", "<skills_instructions>", "# AGENTS.md",
	"<permissions instructions>", "<collaboration_mode>", "<turn_aborted>", "<user_shell_command>",
	"<subagent_notification>", "<model_switch>", "<personality_spec>", "<apps_instructions>",
}

// hookPromptRE finds the continuation a Stop hook's block handed to the model.
var hookPromptRE = regexp.MustCompile(`(?s)<hook_prompt\b[^>]*>(.*?)</hook_prompt>`)

// userMessage handles a user or developer message.
func (b *codexBuilder) userMessage(it *codexItemWire, t time.Time) {
	full := contentItemsText(it.Content)
	text, _ := b.Cut(full)
	m := &Message{ID: it.ID, Role: it.Role, Kind: KindPrompt, Text: text, Time: t, Line: b.Line, Entries: 1}
	trimmed := strings.TrimSpace(full)
	switch {
	case it.Role != "user":
		m.Kind = KindMeta
	case strings.HasPrefix(trimmed, "<hook_prompt"):
		m.Kind = KindHookFeedback
	default:
		for _, p := range codexMetaPrefixes {
			if strings.HasPrefix(trimmed, p) {
				m.Kind = KindMeta
				break
			}
		}
	}
	b.keep(m)
	b.Place(m)
	switch m.Kind {
	case KindPrompt:
		if tk := b.task; tk != nil && tk.Turn < 0 {
			tk.Turn = b.Cur.Index
		}
	case KindHookFeedback:
		var parts []string
		for _, sm := range hookPromptRE.FindAllStringSubmatch(full, -1) {
			parts = append(parts, html.UnescapeString(sm[1]))
		}
		h := &StopHook{Kind: StopHookFeedback, Event: "Stop", Time: t, Line: b.Line, Turn: -1, Blocked: true}
		h.Text, _ = b.Cut(strings.Join(parts, "\n\n"))
		if cur := b.Cur; cur != nil {
			h.Turn = cur.Index
			h.Active = cur.StopHookBlocks > 0
			cur.StopHookBlocks++
		}
		if !b.Live {
			b.S.StopHooks = append(b.S.StopHooks, h)
		}
	}
}

// contentItemsText joins the text of input_text and output_text items.
func contentItemsText(items []codexContent) string {
	var parts []string
	for _, c := range items {
		switch c.Type {
		case "input_text", "output_text", "text":
			if c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
	}
	return joinText(parts)
}

// jsonArguments returns a call's arguments as JSON: the object a JSON-encoded string holds,
// or the string itself as JSON when it holds no JSON (a freeform tool's input).
func jsonArguments(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil
		}
		return raw
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	q, _ := json.Marshal(s)
	return q
}

// callEffects applies what a tool call says on its own: update_plan replaces the plan.
func (b *codexBuilder) callEffects(call *ToolCall) {
	switch call.Name {
	case "update_plan":
		var a codexToolArgs
		decodeLoose(call.Input, &a)
		if a.Plan == nil {
			return
		}
		todos := make([]Todo, 0, len(*a.Plan))
		for _, p := range *a.Plan {
			todos = append(todos, Todo{Content: p.Step, Status: TodoStatus(p.Status), Tool: "update_plan"})
		}
		b.todoWrite = todos
		b.cs.Plan = &CodexPlan{Explanation: a.Explanation, Time: call.Time, Line: call.Line}
	case "exec_command", "shell", "container.exec", "local_shell":
		b.execCalls[call.ID] = call
	case "write_stdin":
		var a codexToolArgs
		decodeLoose(call.Input, &a)
		if sh := b.shells[string(a.SessionID)]; sh != nil {
			b.pollCalls[call.ID] = sh
		}
	}
}

// The lines unified exec writes at the head of a tool output.
var (
	runningRE = regexp.MustCompile(`(?m)^Process running with session ID (\d+)\s*$`)
	exitedRE  = regexp.MustCompile(`(?m)^Process exited with code (-?\d+)\s*$`)
)

// execStatus reads a unified exec output: the session id of a process still running, or the
// exit code of one that ended.
func execStatus(text string) (session string, exit *int) {
	// Only the header, before "Output:", is Codex's; the rest is the command's own output.
	head, _, _ := strings.Cut(text, "\nOutput:")
	if m := runningRE.FindStringSubmatch(head); m != nil {
		return m[1], nil
	}
	if m := exitedRE.FindStringSubmatch(head); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return "", &n
		}
	}
	return "", nil
}

// outputEffects applies what a tool output says: a background exec session started, a poll
// saw it running or ended.
func (b *codexBuilder) outputEffects(call *ToolCall, r *ToolResult, text string) {
	if _, ok := b.execCalls[call.ID]; ok {
		session, _ := execStatus(text)
		if session == "" {
			return // it ran in the foreground, or failed to start
		}
		var a codexToolArgs
		decodeLoose(call.Input, &a)
		sh := &Shell{ID: session, Call: call, Command: commandText(a.Cmd, a.Command), Started: r.Time, Status: ShellRunning}
		if sh.Started.IsZero() {
			sh.Started = call.Time
		}
		if old := b.shells[session]; old != nil && old.Running() {
			// Codex reuses an id only once its process is gone; the old one ended unseen.
			old.Status = ShellGone
		}
		b.shells[session] = sh
		b.execItems[call.ID] = sh
		b.S.Shells = append(b.S.Shells, sh)
		return
	}
	sh := b.pollCalls[call.ID]
	if sh == nil {
		return
	}
	rd := ShellRead{Tool: call.Name, CallID: call.ID, Time: r.Time, Status: ShellRunning}
	session, exit := execStatus(text)
	switch {
	case exit != nil:
		rd.Status, rd.ExitCode = exitStatus(*exit), exit
		b.endShell(sh, *exit, r.Time)
	case session != "":
	case strings.Contains(text, "Unknown process id"):
		rd.Status = ShellGone
		if sh.Running() {
			sh.Status, sh.Finished = ShellGone, r.Time
		}
	default:
		rd.Error, rd.Status = true, ""
	}
	sh.Reads = append(sh.Reads, rd)
}

func exitStatus(code int) ShellStatus {
	if code == 0 {
		return ShellCompleted
	}
	return ShellFailed
}

// endShell records that sh exited with code at t, unless its end is already known.
func (b *codexBuilder) endShell(sh *Shell, code int, t time.Time) {
	if !sh.Running() && sh.ExitCode != nil {
		return
	}
	c := code
	sh.Status, sh.ExitCode = exitStatus(code), &c
	if sh.Finished.IsZero() || (!t.IsZero() && t.Before(sh.Finished)) {
		sh.Finished = t
	}
}

// commandText reads exec_command's cmd (a string) or the older shell tool's command (a list
// of words).
func commandText(raws ...json.RawMessage) string {
	for _, raw := range raws {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
		var words []string
		if json.Unmarshal(raw, &words) == nil && len(words) > 0 {
			// ["bash", "-lc", "cmd"] is how the shell tool wraps a command line.
			if len(words) == 3 && strings.HasSuffix(words[1], "c") && strings.HasPrefix(words[1], "-") {
				return words[2]
			}
			return strings.Join(words, " ")
		}
	}
	return ""
}

// event handles an event_msg and returns its payload type.
func (b *codexBuilder) event(raw json.RawMessage, t time.Time) string {
	var e codexEventWire
	if err := json.Unmarshal(raw, &e); err != nil {
		b.Malformed(err)
		return ""
	}
	switch e.Type {
	case "task_started", "turn_started":
		b.closeResponse()
		b.task = &CodexTask{TurnID: e.TurnID, Turn: -1, Started: t}
		if b.ctx.TurnID != "" && b.ctx.TurnID == e.TurnID {
			b.applyContext(b.task) // written before the task's start
		}
		b.cs.Tasks = append(b.cs.Tasks, b.task)
	case "task_complete", "turn_complete":
		b.closeResponse()
		tk := b.taskFor(e.TurnID, t)
		tk.Completed = t
		if e.LastAgentMessage != nil {
			s := *e.LastAgentMessage
			tk.LastAgentMessage = &s
		}
		tk.Duration = time.Duration(e.DurationMS) * time.Millisecond
		if i := b.cs.TurnPos(tk.Turn); i >= 0 {
			b.S.Turns[i].Duration = tk.Duration
		}
		b.task = nil
	case "turn_aborted":
		b.closeResponse()
		tk := b.taskFor(e.TurnID, t)
		tk.Aborted = cmp.Or(string(e.Reason), "aborted")
		if string(e.Reason) == "interrupted" && b.Cur != nil {
			b.Cur.Interrupted = true
		}
		b.task = nil
	case "token_count":
		b.closeResponse()
	case "error", "stream_error":
		if e.Type == "error" && !b.Live {
			b.cs.Errors = append(b.cs.Errors, CodexError{Time: t, Line: b.Line, Message: b.CutText(string(e.Message)), Turn: b.TurnIndex()})
		}
	case "context_compacted":
		b.closeResponse()
	case "item_completed":
		if it := e.Item; it != nil && it.Type == "CommandExecution" && it.ExitCode != nil {
			end := t
			if e.CompletedAtMS > 0 {
				end = time.UnixMilli(int64(e.CompletedAtMS)).UTC()
			}
			b.execEnded(it.ID, string(it.ProcessID), int(*it.ExitCode), end)
		}
	case "exec_command_end":
		if e.ExitCode != nil {
			b.execEnded(e.CallID, string(e.ProcessID), int(*e.ExitCode), t)
		}
	}
	return e.Type
}

// execEnded records that the process exec_command call callID started (or the exec session
// process) exited with code at t. It applies only to background sessions this reader knows.
func (b *codexBuilder) execEnded(callID, process string, code int, t time.Time) {
	sh := b.execItems[callID]
	if sh == nil && process != "" {
		sh = b.shells[process]
	}
	if sh == nil {
		return
	}
	b.endShell(sh, code, t)
}

// taskFor returns the running task, or a task for an end whose start is not in the file.
func (b *codexBuilder) taskFor(turnID string, t time.Time) *CodexTask {
	if tk := b.task; tk != nil && (turnID == "" || tk.TurnID == "" || tk.TurnID == turnID) {
		return tk
	}
	tk := &CodexTask{TurnID: turnID, Turn: b.TurnIndex()}
	b.cs.Tasks = append(b.cs.Tasks, tk)
	return tk
}

func (b *codexBuilder) compacted(raw json.RawMessage, t time.Time) {
	b.closeResponse()
	if b.Live {
		return
	}
	var c codexCompactedWire
	_ = json.Unmarshal(raw, &c)
	b.S.Compactions = append(b.S.Compactions, &Compaction{Time: t, Line: b.Line, Summary: b.CutText(c.Message), Turn: b.TurnIndex()})
}

// finish completes the derived state once every line is read.
func (b *codexBuilder) finish() *CodexSession {
	s := b.Builder.Finish()
	s.Todos = append([]Todo(nil), b.todoWrite...)
	if b.cs.Plan != nil && s.Todos == nil {
		s.Todos = []Todo{} // the plan is known, and empty
	}
	b.cs.Session = s
	return b.cs
}
