package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// geminiLog builds a hand-written Gemini CLI session file in the 0.61.0 shape, one record a
// line. Everything in it is made up: ids, times and text.
type geminiLog struct {
	t     *testing.T
	base  time.Time
	lines []string
}

func newGeminiLog(t *testing.T) *geminiLog {
	g := &geminiLog{t: t, base: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	g.raw(map[string]any{
		"sessionId": "gem-1", "projectHash": "abc123", "startTime": g.ts(0), "lastUpdated": g.ts(0), "kind": "main",
	})
	return g
}

// ts is the time sec seconds after the log's base, as Gemini CLI writes it.
func (g *geminiLog) ts(sec float64) string {
	return g.base.Add(time.Duration(sec * float64(time.Second))).Format("2006-01-02T15:04:05.000Z")
}

func (g *geminiLog) at(sec float64) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, g.ts(sec))
	return t
}

// raw appends one record.
func (g *geminiLog) raw(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		g.t.Fatal(err)
	}
	g.lines = append(g.lines, string(b))
}

// user writes a user message whose content is the text parts.
func (g *geminiLog) user(sec float64, id string, texts ...string) {
	var parts []any
	for _, s := range texts {
		parts = append(parts, map[string]any{"text": s})
	}
	g.raw(map[string]any{"id": id, "timestamp": g.ts(sec), "type": "user", "content": parts})
	g.raw(map[string]any{"$set": map[string]any{"lastUpdated": g.ts(sec)}})
}

// geminiCallSpec is one tool call of a model message: a name, its arguments, and once complete its
// status and output.
type geminiCallSpec struct {
	id, name string
	args     any
	status   string // "" while pending
	output   string
	sec      float64
}

// model writes a model message, then, when it has tool calls, the same message again with them
// (as Gemini CLI does once they complete) and the user message carrying their responses.
func (g *geminiLog) model(sec float64, id, text string, calls ...geminiCallSpec) {
	msg := map[string]any{"id": id, "timestamp": g.ts(sec), "type": "gemini", "content": text, "thoughts": []any{},
		"tokens": map[string]any{"input": 10, "output": 3, "cached": 0, "thoughts": 0, "tool": 0, "total": 13}, "model": "gemini-2.5-flash"}
	g.raw(msg)
	if len(calls) == 0 {
		return
	}
	var tcs, responses []any
	for _, c := range calls {
		tc := map[string]any{"id": c.id, "name": c.name, "args": c.args}
		if c.status != "" {
			key := "output"
			if c.status == "error" {
				key = "error"
			}
			resp := map[string]any{"functionResponse": map[string]any{"id": c.id, "name": c.name, "response": map[string]any{key: c.output}}}
			tc["result"] = []any{resp}
			tc["status"] = c.status
			tc["timestamp"] = g.ts(c.sec)
			responses = append(responses, resp)
		}
		tcs = append(tcs, tc)
	}
	msg["toolCalls"] = tcs
	g.raw(msg)
	if len(responses) > 0 {
		g.raw(map[string]any{"id": id + "-r", "timestamp": g.ts(calls[len(calls)-1].sec), "type": "user", "content": responses})
	}
}

func (g *geminiLog) String() string { return strings.Join(g.lines, "\n") + "\n" }

func (g *geminiLog) read(opts *Options) *GeminiSession {
	g.t.Helper()
	s, err := ReadGemini(strings.NewReader(g.String()), opts)
	if err != nil {
		g.t.Fatal(err)
	}
	return s
}

// ids returns the ids of the session's messages.
func geminiIDs(s *GeminiSession) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.ID)
	}
	return out
}

func TestReadGeminiRecords(t *testing.T) {
	tests := []struct {
		name    string
		build   func(g *geminiLog)
		ids     []string
		records map[string]int
		skipped int
	}{
		{
			name: "a rewritten message keeps its place",
			build: func(g *geminiLog) {
				g.user(1, "u1", "Run the tests.")
				g.model(2, "m1", "Running them.", geminiCallSpec{id: "c1", name: "run_shell_command", args: map[string]any{"command": "go test"}, status: "success", output: "ok", sec: 3})
				g.model(4, "m2", "They pass.")
			},
			ids:     []string{"u1", "m1", "m1-r", "m2"},
			records: map[string]int{"metadata": 1, "message": 5, "$set": 1},
		},
		{
			name: "a rewind drops the message and what follows",
			build: func(g *geminiLog) {
				g.user(1, "u1", "First.")
				g.model(2, "m1", "One.")
				g.user(3, "u2", "Second.")
				g.model(4, "m2", "Two.")
				g.raw(map[string]any{"$rewindTo": "u2"})
				g.user(5, "u3", "Third.")
			},
			ids:     []string{"u1", "m1", "u3"},
			records: map[string]int{"metadata": 1, "message": 5, "$set": 3, "$rewindTo": 1},
		},
		{
			name: "a rewind to an unknown id drops everything",
			build: func(g *geminiLog) {
				g.user(1, "u1", "First.")
				g.raw(map[string]any{"$rewindTo": "nope"})
				g.model(2, "m1", "After.")
			},
			ids:     []string{"m1"},
			records: map[string]int{"metadata": 1, "message": 2, "$set": 1, "$rewindTo": 1},
		},
		{
			name: "a $set of messages replaces them all",
			build: func(g *geminiLog) {
				g.user(1, "u1", "First.")
				g.model(2, "m1", "One.")
				g.raw(map[string]any{"$set": map[string]any{"messages": []any{
					map[string]any{"id": "ctx", "type": "user", "content": []any{map[string]any{"text": "<session_context/>"}}},
					map[string]any{"id": "u1", "type": "user", "content": []any{map[string]any{"text": "First."}}},
					"not a message", map[string]any{"no": "id"},
				}}})
				g.model(3, "m2", "Two.")
			},
			ids:     []string{"ctx", "u1", "m2"},
			records: map[string]int{"metadata": 1, "message": 3, "$set": 2},
		},
		{
			name: "unknown records are skipped",
			build: func(g *geminiLog) {
				g.raw(map[string]any{"$unset": []string{"x"}})
				g.raw(map[string]any{"id": 7, "type": "user"}) // an id that is not a string
				g.user(1, "u1", "Hi.")
			},
			ids:     []string{"u1"},
			records: map[string]int{"metadata": 1, "message": 1, "$set": 1},
			skipped: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGeminiLog(t)
			tt.build(g)
			s := g.read(nil)
			if got := geminiIDs(s); strings.Join(got, ",") != strings.Join(tt.ids, ",") {
				t.Errorf("messages %q, want %q", got, tt.ids)
			}
			if fmt.Sprint(s.Records) != fmt.Sprint(tt.records) || s.Skipped != tt.skipped {
				t.Errorf("records %v skipped %d, want %v and %d", s.Records, s.Skipped, tt.records, tt.skipped)
			}
			if s.ID != "gem-1" || s.ProjectHash != "abc123" || s.Kind != "main" || !s.Start.Equal(g.at(0)) || s.Legacy {
				t.Errorf("metadata %q %q %q %v legacy=%v", s.ID, s.ProjectHash, s.Kind, s.Start, s.Legacy)
			}
		})
	}
}

func TestReadGeminiMessage(t *testing.T) {
	line := `{"id":"m","timestamp":"2026-11-01T09:00:01.500Z","type":"gemini","content":[{"text":"Let me think","thought":true},{"text":"Done"},{"text":"."}],` +
		`"displayContent":"shown","thoughts":[{"subject":"s","description":"d"}],"tokens":{"input":5,"output":2,"cached":1,"thoughts":0,"tool":0,"total":8},"model":"gemini-2.5-pro",` +
		`"toolCalls":[{"id":"c1","name":"read_file","args":{"path":"a.go"},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"package a"}}}],"status":"success","timestamp":"2026-11-01T09:00:02Z","agentId":"sub-1"},` +
		`{"id":"c2","name":"replace","args":null,"result":[{"functionResponse":{"id":"c2","name":"replace","response":{"error":"no match"}}}],"status":"error"},` +
		`{"id":"c3","name":"web_fetch","args":{},"result":[{"functionResponse":{"id":"c3","name":"web_fetch","response":{"content":[1,2]}}},{"text":"and text"}],"status":"cancelled"},` +
		`"not a call",{"id":"c4","name":"glob","result":null}]}` + "\n" +
		`{"id":"u","timestamp":"2026-11-01T09:00:03Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}},{"text":"plus a note"}]}` + "\n" +
		`{"id":"s","type":"info","content":"plain string","tokens":null,"thoughts":"nope","toolCalls":{"x":1}}` + "\n"
	s, err := ReadGemini(strings.NewReader(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Messages) != 3 {
		t.Fatalf("%d messages", len(s.Messages))
	}
	m := s.Messages[0]
	if m.Text != "Done." || m.DisplayText != "shown" || m.Thoughts != 1 || m.Model != "gemini-2.5-pro" || m.Tokens == nil || m.Tokens.Total != 8 || m.Line != 1 ||
		!m.Time.Equal(time.Date(2026, 11, 1, 9, 0, 1, 5e8, time.UTC)) || m.Prompt() {
		t.Errorf("model message %+v", m)
	}
	want := []struct {
		id, name, args, status, result string
		failed                         bool
	}{
		{"c1", "read_file", `{"path":"a.go"}`, "success", "package a", false},
		{"c2", "replace", "", "error", "no match", true},
		{"c3", "web_fetch", `{}`, "cancelled", `{"content":[1,2]}` + "\nand text", true},
		{"c4", "glob", "", "", "", false},
	}
	if len(m.ToolCalls) != len(want) {
		t.Fatalf("%d tool calls, want %d", len(m.ToolCalls), len(want))
	}
	for i, w := range want {
		c := m.ToolCalls[i]
		if c.ID != w.id || c.Name != w.name || string(c.Args) != w.args || c.Status != w.status || c.Result != w.result || c.Failed() != w.failed {
			t.Errorf("call %d = %+v (args %s), want %+v", i, c, c.Args, w)
		}
	}
	if c := m.ToolCalls[0]; c.AgentID != "sub-1" || !c.Time.Equal(time.Date(2026, 11, 1, 9, 0, 2, 0, time.UTC)) {
		t.Errorf("call 0 agent %q time %v", c.AgentID, c.Time)
	}
	if c := m.ToolCalls[1]; !c.Time.Equal(m.Time) {
		t.Errorf("a call without a timestamp has time %v, want its message's %v", c.Time, m.Time)
	}
	if u := s.Messages[1]; u.Text != "plus a note" || u.ToolResponses != 1 || u.Prompt() {
		t.Errorf("tool-result message %+v", u)
	}
	if i := s.Messages[2]; i.Type != GeminiInfo || i.Text != "plain string" || i.Tokens != nil || i.Thoughts != 0 || i.ToolCalls != nil || !i.Time.IsZero() {
		t.Errorf("info message %+v", i)
	}
}

func TestReadGeminiLegacy(t *testing.T) {
	doc := map[string]any{
		"sessionId": "legacy-1", "projectHash": "p", "startTime": "2026-01-02T03:04:05.000Z", "lastUpdated": "2026-01-02T03:05:00.000Z",
		"summary": "Fixed a bug", "directories": []string{"/w"},
		"messages": []any{
			map[string]any{"id": "u1", "timestamp": "2026-01-02T03:04:06.000Z", "type": "user", "content": "Fix it."},
			map[string]any{"id": "m1", "timestamp": "2026-01-02T03:04:07.000Z", "type": "gemini", "content": "Fixed.",
				"toolCalls": []any{map[string]any{"id": "t", "name": "write_todos", "status": "success",
					"args": map[string]any{"todos": []any{map[string]any{"description": "Ship", "status": "in_progress"}}}}}},
		},
	}
	pretty, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		in        string
		lines     int
		malformed int
	}{
		{"pretty-printed, as the .json files are", string(pretty) + "\n", bytes.Count(pretty, []byte("\n")) + 1, 0},
		{"pretty-printed, no final newline, blank line first", "\n" + string(pretty), bytes.Count(pretty, []byte("\n")) + 2, 0},
		{"on one line", string(compact) + "\n", 1, 0},
		{"with data after it", string(pretty) + "\n{\"x\":1}\n", bytes.Count(pretty, []byte("\n")) + 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadGemini(strings.NewReader(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Legacy || s.ID != "legacy-1" || s.Summary != "Fixed a bug" || len(s.Directories) != 1 || strings.Join(geminiIDs(s), ",") != "u1,m1" ||
				s.Messages[0].Text != "Fix it." || !s.Messages[0].Prompt() {
				t.Errorf("legacy=%v id=%q summary=%q dirs=%v messages=%q", s.Legacy, s.ID, s.Summary, s.Directories, geminiIDs(s))
			}
			if len(s.Todos) != 1 || s.Todos[0].Content != "Ship" || !s.Todos[0].Open() {
				t.Errorf("todos %+v", s.Todos)
			}
			if s.Lines != tt.lines || s.MalformedCount != tt.malformed {
				t.Errorf("lines %d malformed %d (%v), want %d and %d", s.Lines, s.MalformedCount, s.Malformed, tt.lines, tt.malformed)
			}
		})
	}

	// A legacy object cut short is one malformed line; a larger one than MaxLineBytes too.
	s, err := ReadGemini(strings.NewReader(string(pretty[:len(pretty)/2])), nil)
	if err != nil || s.MalformedCount != 1 || len(s.Messages) != 0 {
		t.Errorf("a truncated legacy file: %v, malformed %d, %d messages", err, s.MalformedCount, len(s.Messages))
	}
	s, err = ReadGemini(strings.NewReader(string(pretty)), &Options{MaxLineBytes: 64})
	if err != nil || s.MalformedCount != 1 || !errors.Is(s.Malformed[0], ErrLineTooLong) {
		t.Errorf("an oversized legacy file: %v, %v", err, s.Malformed)
	}
}

func TestReadGeminiMalformed(t *testing.T) {
	in := strings.Join([]string{
		`{"sessionId":"s","projectHash":"h"}`,
		`not json`,
		`[1,2]`,
		``,
		`{"id":"u1","type":"user","content":[{"text":"` + strings.Repeat("x", 200) + `"}]}`,
		`{"id":"u2","type":"user","content":"é` + strings.Repeat("y", 100) + `"}`,
		`{"broken":`,
	}, "\n")
	s, err := ReadGemini(strings.NewReader(in), &Options{MaxLineBytes: 150, MaxResultBytes: 50, MaxMalformed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s.Lines != 7 || s.MalformedCount != 4 || len(s.Malformed) != 2 || s.Malformed[0].Line != 2 || !errors.Is(s.Malformed[1], ErrNotObject) {
		t.Errorf("lines %d malformed %d %v", s.Lines, s.MalformedCount, s.Malformed)
	}
	if len(s.Messages) != 1 || s.Messages[0].ID != "u2" || len(s.Messages[0].Text) > 50 || !utf8.ValidString(s.Messages[0].Text) {
		t.Errorf("messages %q, text %q", geminiIDs(s), s.Messages[0].Text)
	}
}

// geminiFailingReader returns data, then err.
type geminiFailingReader struct {
	data []byte
	err  error
}

func (r *geminiFailingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadGeminiIOError(t *testing.T) {
	boom := errors.New("boom")
	in := `{"sessionId":"s","projectHash":"h"}` + "\n" + `{"id":"u1","type":"user","content":"hi"}` + "\n"
	s, err := ReadGemini(&geminiFailingReader{data: []byte(in), err: boom}, nil)
	if !errors.Is(err, boom) || s == nil || len(s.Messages) != 1 {
		t.Errorf("err %v, session %+v", err, s)
	}
	if _, err := ReadGeminiFile(filepath.Join(t.TempDir(), "missing.jsonl"), nil); err == nil {
		t.Error("ReadGeminiFile of a missing file succeeded")
	}
}

func TestReadGeminiTodos(t *testing.T) {
	todos := func(items ...string) map[string]any {
		list := []any{}
		for i := 0; i+1 < len(items); i += 2 {
			list = append(list, map[string]any{"description": items[i], "status": items[i+1]})
		}
		return map[string]any{"todos": list}
	}
	tests := []struct {
		name  string
		calls []geminiCallSpec
		want  string // "nil" for a nil list
	}{
		{"never written", nil, "nil"},
		{"the last list wins", []geminiCallSpec{
			{id: "a", name: "write_todos", args: todos("One", "pending", "Two", "pending"), status: "success", sec: 1},
			{id: "b", name: "write_todos", args: todos("One", "completed", "Two", "blocked", "Three", "cancelled"), status: "success", sec: 2},
		}, "One:completed Two:blocked Three:cancelled"},
		{"a failed write is not the list", []geminiCallSpec{
			{id: "a", name: "write_todos", args: todos("One", "in_progress"), status: "success", sec: 1},
			{id: "b", name: "write_todos", args: todos("Other", "pending"), status: "error", output: "invalid", sec: 2},
		}, "One:in_progress"},
		{"an empty list is a list", []geminiCallSpec{{id: "a", name: "write_todos", args: todos(), status: "success", sec: 1}}, ""},
		{"arguments without a list are not one", []geminiCallSpec{{id: "a", name: "write_todos", args: map[string]any{"x": 1}, status: "success", sec: 1}}, "nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGeminiLog(t)
			g.user(0, "u", "Plan it.")
			for i, c := range tt.calls {
				g.model(c.sec, fmt.Sprintf("m%d", i), "", c)
			}
			s := g.read(nil)
			got := "nil"
			if s.Todos != nil {
				var parts []string
				for _, td := range s.Todos {
					if td.Tool != GeminiToolWriteTodos {
						t.Errorf("todo tool %q", td.Tool)
					}
					parts = append(parts, td.Content+":"+string(td.Status))
				}
				got = strings.Join(parts, " ")
			}
			if got != tt.want {
				t.Errorf("todos %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadGeminiShells(t *testing.T) {
	bg := func(id, command string, pid int, sec float64) geminiCallSpec {
		return geminiCallSpec{id: id, name: "run_shell_command", args: map[string]any{"command": command, "is_background": true}, status: "success",
			output: fmt.Sprintf("<untrusted_context>\nCommand moved to background (PID: %d). Output hidden. Press Ctrl+B to view.\n</untrusted_context>", pid), sec: sec}
	}
	list := func(id string, sec float64, lines ...string) geminiCallSpec {
		return geminiCallSpec{id: id, name: "list_background_processes", args: map[string]any{}, status: "success", output: strings.Join(lines, "\n"), sec: sec}
	}
	read := func(id string, pid int, status string, sec float64) geminiCallSpec {
		return geminiCallSpec{id: id, name: "read_background_output", args: map[string]any{"pid": pid}, status: status, output: "Full Log Output:\nout", sec: sec}
	}
	type shellWant struct {
		id, command, status string
		code                *int
		started, finished   float64 // -1: zero
		readAt              float64 // -1: zero
		reads               int
	}
	code := func(n int) *int { return &n }
	tests := []struct {
		name  string
		calls []geminiCallSpec
		want  []shellWant
	}{
		{"a foreground command is no shell", []geminiCallSpec{
			{id: "f", name: "run_shell_command", args: map[string]any{"command": "ls"}, status: "success", output: "Output: a\nBackground PIDs: 9", sec: 1},
		}, nil},
		{"a background command never listed is running", []geminiCallSpec{bg("a", "make serve", 101, 1), read("r", 101, "success", 2)},
			[]shellWant{{"101", "make serve", "running", nil, 1, -1, -1, 1}}},
		{"an exit listed, then a read, is read", []geminiCallSpec{
			bg("a", "go test ./...", 101, 1),
			list("l1", 2, "- [PID 101] RUNNING: `go test ./...`"),
			list("l2", 3, "- [PID 101] EXITED: `go test ./...` (Exit Code: 3)"),
			read("r", 101, "success", 4),
		}, []shellWant{{"101", "go test ./...", "failed", code(3), 1, 3, 4, 1}}},
		{"a read before the exit was listed is not", []geminiCallSpec{
			bg("a", "go test ./...", 101, 1),
			read("r", 101, "success", 2),
			list("l", 3, "- [PID 101] EXITED: `go test ./...` (Exit Code: 0)"),
		}, []shellWant{{"101", "go test ./...", "completed", code(0), 1, 3, -1, 1}}},
		{"a failed read sees nothing", []geminiCallSpec{
			bg("a", "sleep 1", 101, 1),
			list("l", 2, "- [PID 101] EXITED: `sleep 1` (Signal: SIGTERM)"),
			read("r", 101, "error", 3),
		}, []shellWant{{"101", "sleep 1", "failed", nil, 1, 2, -1, 1}}},
		{"a listed process the session did not start", []geminiCallSpec{
			list("l", 2, "- [PID 7] EXITED: `old job` (Exit Code: 1)", "garbage line"),
			read("r", 8, "success", 3), // unknown pid: ignored
		}, []shellWant{{"7", "old job", "failed", code(1), -1, 2, -1, 0}}},
		{"a reused pid is a new process", []geminiCallSpec{
			bg("a", "first", 101, 1),
			list("l", 2, "- [PID 101] EXITED: `first` (Exit Code: 0)"),
			bg("b", "second", 101, 3),
		}, []shellWant{{"101", "second", "running", nil, 3, -1, -1, 0}}},
		{"a failed start is no shell", []geminiCallSpec{
			{id: "a", name: "run_shell_command", args: map[string]any{"command": "x", "is_background": true}, status: "error", output: "Command moved to background (PID: 5)", sec: 1},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGeminiLog(t)
			g.user(0, "u", "Go.")
			for i, c := range tt.calls {
				g.model(c.sec, fmt.Sprintf("m%d", i), "", c)
			}
			s := g.read(nil)
			if len(s.Shells) != len(tt.want) {
				t.Fatalf("%d shells, want %d: %+v", len(s.Shells), len(tt.want), s.Shells)
			}
			at := func(sec float64) time.Time {
				if sec < 0 {
					return time.Time{}
				}
				return g.at(sec)
			}
			for i, w := range tt.want {
				sh := s.Shells[i]
				if sh.ID != w.id || sh.Command != w.command || string(sh.Status) != w.status || fmt.Sprint(geminiDeref(sh.ExitCode)) != fmt.Sprint(geminiDeref(w.code)) ||
					!sh.Started.Equal(at(w.started)) || !sh.Finished.Equal(at(w.finished)) || !sh.ReadAt.Equal(at(w.readAt)) || len(sh.Reads) != w.reads {
					t.Errorf("shell %d = %+v, want %+v", i, sh, w)
				}
			}
		})
	}
}

// geminiDeref returns *p, or nil.
func geminiDeref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// geminiDigest is what a golden file holds of a GeminiSession: everything, long text cut.
type geminiDigest struct {
	ID          string         `json:"id"`
	ProjectHash string         `json:"project_hash"`
	Kind        string         `json:"kind"`
	Start       time.Time      `json:"start"`
	LastUpdated time.Time      `json:"last_updated"`
	Legacy      bool           `json:"legacy"`
	Lines       int            `json:"lines"`
	Records     map[string]int `json:"records"`
	Skipped     int            `json:"skipped"`
	Malformed   int            `json:"malformed"`
	Messages    []geminiMsg    `json:"messages"`
	Todos       []Todo         `json:"todos"`
	Shells      []*Shell       `json:"shells"`
}

type geminiMsg struct {
	ID            string        `json:"id"`
	Type          string        `json:"type"`
	Time          time.Time     `json:"time"`
	Text          string        `json:"text"`
	DisplayText   string        `json:"display_text,omitempty"`
	Prompt        bool          `json:"prompt"`
	ToolResponses int           `json:"tool_responses,omitempty"`
	Model         string        `json:"model,omitempty"`
	Tokens        *GeminiTokens `json:"tokens,omitempty"`
	Line          int           `json:"line"`
	Calls         []geminiCall  `json:"calls,omitempty"`
}

type geminiCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args,omitempty"`
	Status string          `json:"status"`
	Result string          `json:"result"`
	Time   time.Time       `json:"time"`
}

func digestGemini(s *GeminiSession) geminiDigest {
	cut := func(text string) string {
		const n = 120
		r := []rune(text)
		if len(r) <= n {
			return text
		}
		return string(r[:n]) + fmt.Sprintf("… [%d runes]", len(r))
	}
	d := geminiDigest{ID: s.ID, ProjectHash: s.ProjectHash, Kind: s.Kind, Start: s.Start, LastUpdated: s.LastUpdated, Legacy: s.Legacy,
		Lines: s.Lines, Records: s.Records, Skipped: s.Skipped, Malformed: s.MalformedCount, Todos: s.Todos, Shells: s.Shells}
	for _, m := range s.Messages {
		dm := geminiMsg{ID: m.ID, Type: m.Type, Time: m.Time, Text: cut(m.Text), DisplayText: cut(m.DisplayText), Prompt: m.Prompt(),
			ToolResponses: m.ToolResponses, Model: m.Model, Tokens: m.Tokens, Line: m.Line}
		for _, c := range m.ToolCalls {
			dm.Calls = append(dm.Calls, geminiCall{ID: c.ID, Name: c.Name, Args: c.Args, Status: c.Status, Result: cut(c.Result), Time: c.Time})
		}
		d.Messages = append(d.Messages, dm)
	}
	return d
}

// TestReadGeminiGolden pins the whole reading of a real session file Gemini CLI 0.61.0 wrote in
// the end-to-end suite (a write_todos list, a denial's continuation prompt, the list rewritten;
// see ../testdata/gemini/README.md), and of hand-written ones for what it lacks.
func TestReadGeminiGolden(t *testing.T) {
	shells := func() string {
		g := newGeminiLog(t)
		g.user(0, "u", "Run the suite in the background.")
		g.model(1, "m1", "Starting it.", geminiCallSpec{id: "a", name: "run_shell_command", args: map[string]any{"command": "go test ./...", "is_background": true},
			status: "success", output: "Command moved to background (PID: 4242). Output hidden. Press Ctrl+B to view.", sec: 1.5})
		g.model(2, "m2", "", geminiCallSpec{id: "l", name: "list_background_processes", args: map[string]any{}, status: "success",
			output: "- [PID 4242] EXITED: `go test ./...` (Exit Code: 1)", sec: 9})
		g.model(10, "m3", "The suite failed; I have not read why yet.")
		return g.String()
	}
	tests := []struct {
		name string
		in   func(t *testing.T) []byte
	}{
		{"gemini-0.61.0-todos", func(t *testing.T) []byte {
			b, err := os.ReadFile(filepath.Join("..", "testdata", "gemini", "session-0.61.0.jsonl"))
			if err != nil {
				t.Fatalf("the recorded session file is missing: %v", err)
			}
			return b
		}},
		{"gemini-handwritten-shells", func(*testing.T) []byte { return []byte(shells()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadGemini(bytes.NewReader(tt.in(t)), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := marshalGolden(t, digestGemini(s))
			file := filepath.Join("testdata", "golden", tt.name+".golden.json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("reading differs from %s (run with -update and review the diff)\ngot:\n%s", file, got)
			}
		})
	}
}

// BenchmarkReadGemini reads a session of 500 prompts, each answered with a tool call (its
// message written twice, as Gemini CLI writes it) and a reply: about 2,500 records.
func BenchmarkReadGemini(b *testing.B) {
	g := newGeminiLog(&testing.T{})
	for i := range 500 {
		sec := float64(10 * i)
		g.user(sec, fmt.Sprintf("u%d", i), fmt.Sprintf("Step %d: run the tests.", i))
		g.model(sec+1, fmt.Sprintf("m%d", i), "Running them.", geminiCallSpec{id: fmt.Sprintf("c%d", i), name: "run_shell_command",
			args: map[string]any{"command": "go test ./..."}, status: "success", output: strings.Repeat("ok  \tpkg\t0.1s\n", 20), sec: sec + 2})
		g.model(sec+3, fmt.Sprintf("r%d", i), "They pass.")
	}
	data := []byte(g.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s, err := ReadGemini(bytes.NewReader(data), nil)
		if err != nil || len(s.Messages) != 2000 {
			b.Fatalf("%v, %d messages", err, len(s.Messages))
		}
	}
}
