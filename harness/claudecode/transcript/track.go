package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"
	"time"
)

// This file follows the tools whose calls and results change session state: background
// shells (Bash, TaskOutput/BashOutput, KillShell/TaskStop, Read of an output file), sub-agents
// (Task/Agent) and todo lists (TodoWrite, TaskCreate/TaskUpdate/TaskList).

// callEffects applies what a tool call does at the moment it is made. main is false for a
// sub-agent's call written into the session's own transcript: its todo list is its own.
func (b *builder) callEffects(call *ToolCall, main bool) {
	switch call.Name {
	case "Bash":
		var in rawToolInput
		decodeLoose(call.Input, &in)
		if in.RunInBackground {
			b.bgCalls = append(b.bgCalls, call)
		}
		b.outputFileReads(call, in.Command)
	case "Read":
		var in rawToolInput
		decodeLoose(call.Input, &in)
		b.outputFileReads(call, in.FilePath)
	case "TaskOutput", "BashOutput", "AgentOutput":
		var in rawToolInput
		decodeLoose(call.Input, &in)
		id := string(cmp.Or(in.TaskID, in.BashID, in.ShellID, in.TaskIDCamel))
		if sh := b.shellByID[id]; sh != nil {
			b.addRead(sh, call)
		} else if a := b.agentByID[id]; a != nil {
			b.agentReads[call.ID] = a
		}
	case "KillShell", "KillBash", "TaskStop":
		b.pendingKills[call.ID] = true
	case "Task", "Agent":
		var in rawToolInput
		decodeLoose(call.Input, &in)
		a := &Subagent{
			Call:        call,
			Tool:        call.Name,
			Type:        in.SubagentType,
			Description: in.Description,
			Background:  bool(in.RunInBackground),
			Started:     call.Time,
		}
		b.S.Subagents = append(b.S.Subagents, a)
		if call.ID != "" {
			b.agentByCall[call.ID] = a
		}
	case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList":
		if !main {
			return
		}
		b.todoCalls = append(b.todoCalls, call)
		b.todoPending[call.ID] = true
	}
}

// outputFileReads records a Read or Bash call that names a known shell's output file.
func (b *builder) outputFileReads(call *ToolCall, s string) {
	if !strings.Contains(s, ".output") {
		return
	}
	for _, sh := range b.S.Shells {
		if sh.ID == "" {
			continue
		}
		if strings.Contains(s, sh.ID+".output") || (sh.OutputFile != "" && strings.Contains(s, sh.OutputFile)) {
			b.addRead(sh, call)
		}
	}
}

func (b *builder) addRead(sh *Shell, call *ToolCall) {
	sh.Reads = append(sh.Reads, ShellRead{Tool: call.Name, CallID: call.ID, Time: call.Time})
	if call.ID != "" {
		b.shellReads[call.ID] = shellReadRef{shell: sh, index: len(sh.Reads) - 1}
	}
}

// resultEffects applies what a tool result says. call is nil when the call is not in the
// transcript; text is the full result text, structured the entry's toolUseResult.
func (b *builder) resultEffects(call *ToolCall, r *ToolResult, text string, structured json.RawMessage) {
	name := ""
	if call != nil {
		name = call.Name
	}
	if ref, ok := b.shellReads[r.ToolUseID]; ok {
		delete(b.shellReads, r.ToolUseID)
		b.readResult(ref, name, r, text, structured)
	}
	switch name {
	case "Bash", "":
		b.bashResult(call, r, text, structured)
	case "TaskOutput", "BashOutput", "AgentOutput":
		if a := b.agentReads[r.ToolUseID]; a != nil {
			delete(b.agentReads, r.ToolUseID)
			b.agentRead(a, r, text, structured)
		}
	case "KillShell", "KillBash", "TaskStop":
		if b.pendingKills[r.ToolUseID] {
			delete(b.pendingKills, r.ToolUseID)
			b.killResult(call, r, text, structured)
		}
	case "Task", "Agent":
		if a := b.agentByCall[r.ToolUseID]; a != nil {
			b.agentResult(a, r, structured)
		}
	case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList":
		if b.todoPending[r.ToolUseID] {
			b.applyTodo(call, r, structured)
		}
	}
}

// bashResult starts a shell when a Bash result says the command runs in the background.
func (b *builder) bashResult(call *ToolCall, r *ToolResult, text string, structured json.RawMessage) {
	id, outputFile, auto := backgroundStart(text)
	if bytes.Contains(structured, []byte("backgroundTaskId")) {
		var tur rawToolUseResult
		decodeLoose(structured, &tur)
		if tur.BackgroundTaskID != "" {
			id = string(tur.BackgroundTaskID)
		}
	}
	if id == "" {
		return
	}
	sh := b.shellByID[id]
	if sh == nil {
		sh = &Shell{ID: id, Status: ShellRunning}
		b.shellByID[id] = sh
		b.S.Shells = append(b.S.Shells, sh)
	}
	sh.Started = r.Time
	sh.AutoBackgrounded = auto
	if outputFile != "" {
		sh.OutputFile = outputFile
	}
	if call != nil {
		sh.Call = call
		var in rawToolInput
		decodeLoose(call.Input, &in)
		sh.Command, sh.Description = in.Command, in.Description
		sh.AutoBackgrounded = !bool(in.RunInBackground)
	}
}

// readResult completes a shell read with what its result reported.
func (b *builder) readResult(ref shellReadRef, name string, r *ToolResult, text string, structured json.RawMessage) {
	rd := &ref.shell.Reads[ref.index]
	rd.Time, rd.Error = r.Time, r.IsError
	if r.IsError || (name != "TaskOutput" && name != "BashOutput") {
		return
	}
	status, code := outputStatus(text)
	var tur rawToolUseResult
	decodeLoose(structured, &tur)
	if tur.Task != nil {
		if tur.Task.Status != "" {
			status = tur.Task.Status
		}
		if tur.Task.ExitCode != nil {
			c := int(*tur.Task.ExitCode)
			code = &c
		}
	}
	rd.Status, rd.ExitCode = normalizeStatus(status), code
	sh := ref.shell
	if finalStatus(rd.Status) {
		if sh.Status != ShellKilled {
			sh.Status = rd.Status
		}
		if code != nil {
			sh.ExitCode = code
		}
		if sh.Finished.IsZero() || r.Time.Before(sh.Finished) {
			sh.Finished = r.Time
		}
	}
}

// killResult marks the target of a successful KillShell/TaskStop as killed by the model.
func (b *builder) killResult(call *ToolCall, r *ToolResult, text string, structured json.RawMessage) {
	if r.IsError || strings.HasPrefix(strings.TrimSpace(text), "<tool_use_error>") {
		return
	}
	var tur rawToolUseResult
	decodeLoose(structured, &tur)
	if tur.Success != nil && !bool(*tur.Success) {
		return
	}
	var in rawToolInput
	decodeLoose(call.Input, &in)
	id := string(cmp.Or(in.ShellID, in.TaskID, in.BashID, in.TaskIDCamel))
	if sh := b.shellByID[id]; sh != nil {
		sh.Status, sh.KilledBy, sh.Killed = ShellKilled, ActorModel, r.Time
		if sh.Finished.IsZero() {
			sh.Finished = r.Time
		}
	} else if a := b.agentByID[id]; a != nil {
		a.Status = string(ShellKilled)
		if a.Finished.IsZero() {
			a.Finished = r.Time
		}
	}
}

// notify applies a task notification. delivered is set when the notice reached the model as
// a message, clear when it was only queued.
func (b *builder) notify(n notification, t time.Time, delivered bool) {
	st := normalizeStatus(n.Status)
	if sh := b.shellByID[n.TaskID]; sh != nil {
		b.notifyShell(sh, n, st, t, delivered)
		return
	}
	a := b.agentByID[n.TaskID]
	if a == nil && n.ToolUseID != "" {
		a = b.agentByCall[n.ToolUseID]
	}
	if a != nil {
		if finalStatus(st) {
			a.Status = n.Status
			if a.Finished.IsZero() || t.Before(a.Finished) {
				a.Finished = t
			}
			if delivered && a.Delivered.IsZero() {
				a.Delivered = t
			}
		}
		return
	}
	// A task this transcript never saw start (started before a resume, or by a tool this
	// package does not follow). Agents and status-less events (Monitor) are not shells.
	if n.Status == "" || strings.HasPrefix(n.Summary, "Agent ") || !validID(n.TaskID) {
		return
	}
	sh := &Shell{ID: n.TaskID, Status: ShellRunning}
	b.shellByID[sh.ID] = sh
	b.S.Shells = append(b.S.Shells, sh)
	b.notifyShell(sh, n, st, t, delivered)
}

func (b *builder) notifyShell(sh *Shell, n notification, st ShellStatus, t time.Time, delivered bool) {
	if sh.OutputFile == "" {
		sh.OutputFile = n.OutputFile
	}
	if n.Summary != "" {
		sh.Summary = b.CutText(n.Summary)
	}
	if finalStatus(st) {
		if sh.Status != ShellKilled {
			sh.Status = st
		}
		if n.ExitCode != nil {
			c := *n.ExitCode
			sh.ExitCode = &c
		}
		if sh.Finished.IsZero() || t.Before(sh.Finished) {
			sh.Finished = t
		}
		if st == ShellKilled && sh.KilledBy == "" {
			sh.KilledBy, sh.Killed = ActorUnknown, t
			if strings.Contains(n.Summary, "by user") || strings.Contains(n.Summary, "by the user") {
				sh.KilledBy = ActorUser
			}
		}
	}
	if delivered && sh.Notified.IsZero() {
		sh.Notified = t
	}
}

// agentResult applies a Task/Agent tool result.
func (b *builder) agentResult(a *Subagent, r *ToolResult, structured json.RawMessage) {
	var tur rawToolUseResult
	decodeLoose(structured, &tur)
	if id := string(tur.AgentID); id != "" {
		a.AgentID = id
		b.agentByID[id] = a
	}
	if r.IsError {
		a.Status, a.Finished, a.Delivered = "error", r.Time, r.Time
		return
	}
	status := string(tur.Status)
	if bool(tur.IsAsync) || status == "async_launched" {
		a.Background, a.Status = true, "async_launched"
		return
	}
	if status == "" {
		status = "completed"
	}
	a.Status, a.Finished, a.Delivered = status, r.Time, r.Time
}

// agentRead applies a TaskOutput read of a background agent.
func (b *builder) agentRead(a *Subagent, r *ToolResult, text string, structured json.RawMessage) {
	if r.IsError {
		return
	}
	status, _ := outputStatus(text)
	var tur rawToolUseResult
	decodeLoose(structured, &tur)
	if tur.Task != nil && tur.Task.Status != "" {
		status = tur.Task.Status
	}
	if !finalStatus(normalizeStatus(status)) {
		return
	}
	a.Status = status
	if a.Finished.IsZero() {
		a.Finished = r.Time
	}
	if a.Delivered.IsZero() {
		a.Delivered = r.Time
	}
}

// applyTodo applies a todo-list call once its result says it succeeded; r is nil for a call
// whose result was never written, which is applied as made.
func (b *builder) applyTodo(call *ToolCall, r *ToolResult, structured json.RawMessage) {
	delete(b.todoPending, call.ID)
	var tur rawToolUseResult
	decodeLoose(structured, &tur)
	if r != nil && (r.IsError || (tur.Success != nil && !bool(*tur.Success))) {
		return
	}
	var in rawToolInput
	decodeLoose(call.Input, &in)
	switch call.Name {
	case "TodoWrite":
		switch {
		case tur.NewTodos != nil:
			b.todoWrite = todosFrom(*tur.NewTodos, "TodoWrite")
		case in.Todos != nil:
			b.todoWrite = todosFrom(*in.Todos, "TodoWrite")
		}
	case "TaskCreate":
		t := Todo{Content: in.Subject, Status: TodoPending, ActiveForm: in.ActiveForm, Tool: "TaskCreate"}
		if tur.Task != nil {
			t.ID = string(tur.Task.ID)
			if t.Content == "" {
				t.Content = tur.Task.Subject
			}
		}
		if t.ID == "" && r != nil {
			t.ID = taskNumber(r.Text)
		}
		if i := b.taskIndex(t.ID); i >= 0 {
			b.tasks[i] = t
		} else {
			b.tasks = append(b.tasks, t)
		}
	case "TaskUpdate":
		id := string(cmp.Or(in.TaskIDCamel, in.TaskID))
		i := b.taskIndex(id)
		if in.Status == "deleted" {
			if i >= 0 {
				b.tasks = append(b.tasks[:i], b.tasks[i+1:]...)
			}
			return
		}
		if i < 0 {
			// A task created before this transcript begins.
			b.tasks = append(b.tasks, Todo{ID: id, Status: TodoPending, Tool: "TaskCreate"})
			i = len(b.tasks) - 1
		}
		t := &b.tasks[i]
		if in.Status != "" {
			t.Status = TodoStatus(in.Status)
		}
		if in.Subject != "" {
			t.Content = in.Subject
		}
		if in.ActiveForm != "" {
			t.ActiveForm = in.ActiveForm
		}
	case "TaskList":
		if tur.Tasks == nil {
			return
		}
		b.tasks = b.tasks[:0]
		for _, rt := range *tur.Tasks {
			if rt.Status == "deleted" {
				continue
			}
			b.tasks = append(b.tasks, Todo{
				ID:         string(cmp.Or(rt.ID, rt.TaskID)),
				Content:    rt.Subject,
				Status:     TodoStatus(rt.Status),
				ActiveForm: rt.ActiveForm,
				Tool:       "TaskCreate",
			})
		}
	}
}

func (b *builder) taskIndex(id string) int {
	if id == "" {
		return -1
	}
	for i := range b.tasks {
		if b.tasks[i].ID == id {
			return i
		}
	}
	return -1
}

func todosFrom(list []rawTodo, tool string) []Todo {
	out := make([]Todo, 0, len(list))
	for _, rt := range list {
		content := rt.Content
		if content == "" {
			content = rt.Subject
		}
		out = append(out, Todo{ID: string(rt.ID), Content: content, Status: TodoStatus(rt.Status), ActiveForm: rt.ActiveForm, Tool: tool})
	}
	return out
}
