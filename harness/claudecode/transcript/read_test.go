package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// readString reads an inline transcript.
func readString(t *testing.T, jsonl string, opts *Options) *Session {
	t.Helper()
	s, err := Read(strings.NewReader(jsonl), opts)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return s
}

// lines joins JSONL lines.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// Inline entry builders for table tests. They write the minimal envelope Claude Code writes.
func uPrompt(ts, text string) string {
	return `{"type":"user","sessionId":"s","timestamp":"` + ts + `","message":{"role":"user","content":` + jsonString(text) + `}}`
}

func uText(ts, text string, extra string) string {
	return `{"type":"user","sessionId":"s","timestamp":"` + ts + `"` + extra + `,"message":{"role":"user","content":[{"type":"text","text":` + jsonString(text) + `}]}}`
}

func uResult(ts, id, text string) string {
	return `{"type":"user","sessionId":"s","timestamp":"` + ts + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + jsonString(text) + `}]}}`
}

func aText(ts, mid, text string) string {
	return `{"type":"assistant","sessionId":"s","timestamp":"` + ts + `","message":{"id":"` + mid + `","role":"assistant","model":"m","content":[{"type":"text","text":` + jsonString(text) + `}],"stop_reason":null}}`
}

func aCall(ts, mid, id, name, input string) string {
	return `{"type":"assistant","sessionId":"s","timestamp":"` + ts + `","message":{"id":"` + mid + `","role":"assistant","model":"m","content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}],"stop_reason":null}}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestReadMergesAssistantEntries(t *testing.T) {
	s := readFixture(t, "testdata/claude-code/short.jsonl", nil)
	var m *Message
	for _, x := range s.Messages {
		if x.ID == "msg_01MKH1ccEGrZGNPvu8pYiiQa" {
			m = x
		}
	}
	if m == nil {
		t.Fatal("message msg_01MKH1ccEGrZGNPvu8pYiiQa not found")
	}
	if m.Entries != 5 || m.Role != "assistant" || m.Kind != KindAssistant || m.Model != "claude-opus-4-6" {
		t.Errorf("merged message = %d entries, role %q, kind %q, model %q; want 5, assistant, assistant, claude-opus-4-6", m.Entries, m.Role, m.Kind, m.Model)
	}
	if want := "Let me check the project structure and try running the server to see the error."; m.Text != want {
		t.Errorf("Text = %q, want %q (thinking excluded, blank block dropped)", m.Text, want)
	}
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].Name != "Bash" || m.ToolCalls[1].Name != "Glob" {
		t.Fatalf("ToolCalls = %v, want Bash then Glob", m.ToolCalls)
	}
	var in struct{ Command string }
	if err := json.Unmarshal(m.ToolCalls[0].Input, &in); err != nil || in.Command != "mix phx.server 2>&1 | head -80" {
		t.Errorf("Bash input = %s (%v)", m.ToolCalls[0].Input, err)
	}
	if m.StopReason != nil {
		t.Errorf("StopReason = %q, want nil (the file has null)", *m.StopReason)
	}
	if m.Usage.CacheCreationInputTokens != 13835 || m.Usage.OutputTokens != 13 {
		t.Errorf("Usage = %+v", m.Usage)
	}
	if got := m.Time.Format(time.RFC3339Nano); got != "2026-02-10T21:11:59.186Z" || m.Line != 5 {
		t.Errorf("Time = %s, Line = %d; want the first entry's, 2026-02-10T21:11:59.186Z on line 5", got, m.Line)
	}
}

// TestReadMessageIDsMatchFile checks, on every real session, that there is exactly one
// assistant Message per distinct message.id and that every tool_use block became a ToolCall.
func TestReadMessageIDsMatchFile(t *testing.T) {
	paths := []string{"testdata/claude-code/short.jsonl", "testdata/claude-code/tool_heavy.jsonl", "testdata/claude-code/subagent.jsonl"}
	for _, id := range realSessions {
		paths = append(paths, shared(t, id+".jsonl"))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			ids, uses, results := scanIDs(t, p)
			s := readFixture(t, p, nil)
			gotIDs, gotCalls, linked, unlinked := 0, 0, 0, 0
			for _, m := range s.Messages {
				if m.Role == "assistant" {
					gotIDs++
					gotCalls += len(m.ToolCalls)
				}
				for _, r := range m.ToolResults {
					found := false
					for _, x := range s.Messages {
						for _, c := range x.ToolCalls {
							if c.ID == r.ToolUseID {
								found = c.Result == r
							}
						}
					}
					if found {
						linked++
					} else {
						unlinked++
					}
				}
			}
			if gotIDs != ids || gotCalls != uses {
				t.Errorf("assistant messages %d, tool calls %d; file has %d message ids, %d tool_use blocks", gotIDs, gotCalls, ids, uses)
			}
			if linked != results || unlinked != 0 {
				t.Errorf("linked %d results, %d unlinked; file has %d tool_result blocks", linked, unlinked, results)
			}
		})
	}
}

// scanIDs counts, independently of the package, the distinct assistant message ids, the
// tool_use blocks and the tool_result blocks of a transcript.
func scanIDs(t *testing.T, path string) (ids, uses, results int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e struct {
			Type    string
			Message struct {
				ID      string
				Content json.RawMessage
			}
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		var blocks []struct{ Type string }
		_ = json.Unmarshal(e.Message.Content, &blocks)
		for _, b := range blocks {
			switch {
			case e.Type == "assistant" && b.Type == "tool_use":
				uses++
			case e.Type == "user" && b.Type == "tool_result":
				results++
			}
		}
		if e.Type == "assistant" && !seen[e.Message.ID] {
			seen[e.Message.ID] = true
			ids++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, uses, results
}

func TestReadToolResults(t *testing.T) {
	s := readFixture(t, "testdata/claude-code/short.jsonl", nil)
	var calls []*ToolCall
	for _, m := range s.Messages {
		calls = append(calls, m.ToolCalls...)
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2", len(calls))
	}
	for _, c := range calls {
		r := c.Result
		if r == nil {
			t.Fatalf("call %s has no result", c.ID)
		}
		if !r.IsError || !strings.HasPrefix(r.Text, "The user doesn't want to proceed") || string(r.Structured) != `"User rejected tool use"` {
			t.Errorf("result of %s = error %v, text %.40q, structured %s", c.Name, r.IsError, r.Text, r.Structured)
		}
	}

	// A structured toolUseResult is kept as raw JSON.
	s = readFixture(t, "testdata/claude-code/tool_heavy.jsonl", nil)
	for _, m := range s.Messages {
		for _, c := range m.ToolCalls {
			if c.Name == "Glob" {
				var g struct{ NumFiles int }
				if c.Result == nil || json.Unmarshal(c.Result.Structured, &g) != nil || g.NumFiles != 1 {
					t.Errorf("Glob result structured = %v", c.Result)
				}
			}
		}
	}
}

func TestReadTurns(t *testing.T) {
	type want struct {
		trigger     MessageKind
		final       string
		calls       int
		interrupted bool
		messages    int
	}
	cases := []struct {
		name  string
		jsonl string
		want  []want
	}{
		{
			name: "prompt, tool call, result, answer",
			jsonl: lines(
				uPrompt("2026-01-01T00:00:00Z", "fix it"),
				aText("2026-01-01T00:00:01Z", "m1", "Looking."),
				aCall("2026-01-01T00:00:02Z", "m1", "t1", "Bash", `{"command":"ls"}`),
				uResult("2026-01-01T00:00:03Z", "t1", "a b"),
				aText("2026-01-01T00:00:04Z", "m2", "Fixed it."),
			),
			want: []want{{KindPrompt, "Fixed it.", 1, false, 4}},
		},
		{
			name: "tool results, feedback, interrupts, meta and command output start no turn",
			jsonl: lines(
				uPrompt("2026-01-01T00:00:00Z", "go"),
				aCall("2026-01-01T00:00:01Z", "m1", "t1", "Read", `{}`),
				uResult("2026-01-01T00:00:02Z", "t1", "x"),
				uText("2026-01-01T00:00:03Z", "Stop hook feedback:\n- keep going", ""),
				uText("2026-01-01T00:00:04Z", "Base directory for this skill: /x", `,"isMeta":true`),
				uPrompt("2026-01-01T00:00:05Z", "<local-command-stdout>ok</local-command-stdout>"),
				uPrompt("2026-01-01T00:00:06Z", "<system-reminder>note</system-reminder>"),
				aText("2026-01-01T00:00:07Z", "m2", "Going."),
				uText("2026-01-01T00:00:08Z", "[Request interrupted by user]", ""),
			),
			want: []want{{KindPrompt, "Going.", 1, true, 9}},
		},
		{
			name: "a delivered task notification and a slash command start turns",
			jsonl: lines(
				uPrompt("2026-01-01T00:00:00Z", "start"),
				aText("2026-01-01T00:00:01Z", "m1", "Started."),
				uPrompt("2026-01-01T00:01:00Z", "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"),
				aText("2026-01-01T00:01:01Z", "m2", "It finished."),
				uText("2026-01-01T00:02:00Z", "notice without markup", `,"origin":{"kind":"task-notification"}`),
				uPrompt("2026-01-01T00:03:00Z", "<command-name>/review</command-name>"),
				aText("2026-01-01T00:03:01Z", "m3", "Reviewed."),
			),
			want: []want{
				{KindPrompt, "Started.", 0, false, 2},
				{KindNotification, "It finished.", 0, false, 2},
				{KindNotification, "", 0, false, 1},
				{KindCommand, "Reviewed.", 0, false, 2},
			},
		},
		{
			name: "messages before the first prompt form an implicit turn",
			jsonl: lines(
				uText("2026-01-01T00:00:00Z", "caveat", `,"isMeta":true`),
				aText("2026-01-01T00:00:01Z", "m1", "Resuming."),
				uPrompt("2026-01-01T00:00:02Z", "next"),
			),
			want: []want{{"", "Resuming.", 0, false, 1}, {KindPrompt, "", 0, false, 1}},
		},
		{
			name: "sidechain entries in a main transcript join no turn",
			jsonl: lines(
				uPrompt("2026-01-01T00:00:00Z", "go"),
				`{"type":"user","isSidechain":true,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"brief"}}`,
				`{"type":"assistant","isSidechain":true,"timestamp":"2026-01-01T00:00:02Z","message":{"id":"side","content":[{"type":"text","text":"side answer"}]}}`,
				aText("2026-01-01T00:00:03Z", "m1", "Main answer."),
			),
			want: []want{{KindPrompt, "Main answer.", 0, false, 2}},
		},
		{
			name:  "no messages, no turns",
			jsonl: lines(`{"type":"file-history-snapshot","messageId":"x","snapshot":{}}`),
			want:  nil,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readString(t, c.jsonl, nil)
			if len(s.Turns) != len(c.want) {
				t.Fatalf("%d turns, want %d", len(s.Turns), len(c.want))
			}
			for i, w := range c.want {
				got := s.Turns[i]
				if got.Index != i || got.Trigger != w.trigger || got.FinalText != w.final || got.ToolCalls != w.calls ||
					got.Interrupted != w.interrupted || len(got.Messages) != w.messages {
					t.Errorf("turn %d = {index %d, trigger %q, final %q, calls %d, interrupted %v, %d messages}, want %+v",
						i, got.Index, got.Trigger, got.FinalText, got.ToolCalls, got.Interrupted, len(got.Messages), w)
				}
				if got.End.Before(got.Start) {
					t.Errorf("turn %d ends %v before it starts %v", i, got.End, got.Start)
				}
			}
		})
	}
}

func TestReadTurnTimesAndStopReason(t *testing.T) {
	s := readString(t, lines(
		uPrompt("2026-01-01T00:00:00Z", "go"),
		`{"type":"assistant","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m1","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn"}}`,
		`{"type":"system","subtype":"turn_duration","durationMs":2500,"timestamp":"2026-01-01T00:00:02.5Z"}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-01T00:09:00Z","content":"later"}`,
	), nil)
	if len(s.Turns) != 1 {
		t.Fatalf("%d turns", len(s.Turns))
	}
	tu := s.Turns[0]
	if tu.StopReason == nil || *tu.StopReason != "end_turn" {
		t.Errorf("StopReason = %v, want end_turn", tu.StopReason)
	}
	if tu.Duration.Milliseconds() != 2500 {
		t.Errorf("Duration = %v, want 2.5s", tu.Duration)
	}
	if got := tu.End.Format("15:04:05.0"); got != "00:00:02.5" {
		t.Errorf("End = %s, want 00:00:02.5 (queue operations do not extend a turn)", got)
	}
	if got := s.End.Format("15:04:05"); got != "00:09:00" {
		t.Errorf("Session.End = %s, want 00:09:00", got)
	}
}

func TestReadMalformed(t *testing.T) {
	s := readFixture(t, "testdata/handwritten/malformed.jsonl", nil)
	type want struct {
		line int
		is   error  // a sentinel, or nil
		as   string // "syntax" or "type" for JSON errors
	}
	wants := []want{
		{3, nil, "syntax"},
		{4, ErrNotObject, ""},
		{5, ErrNoType, ""},
		{7, nil, "type"},
		{11, ErrNotObject, ""},
		{12, nil, "syntax"},
	}
	if s.MalformedCount != len(wants) || len(s.Malformed) != len(wants) {
		t.Fatalf("malformed %d (%d kept): %v", s.MalformedCount, len(s.Malformed), s.Malformed)
	}
	for i, w := range wants {
		le := s.Malformed[i]
		if le.Line != w.line {
			t.Errorf("malformed[%d].Line = %d, want %d", i, le.Line, w.line)
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case w.is != nil && !errors.Is(le, w.is):
			t.Errorf("line %d: %v, want %v", w.line, le, w.is)
		case w.as == "syntax" && !errors.As(le, &syn):
			t.Errorf("line %d: %v, want a *json.SyntaxError", w.line, le)
		case w.as == "type" && !errors.As(le, &typ):
			t.Errorf("line %d: %v, want a *json.UnmarshalTypeError", w.line, le)
		}
		if !strings.HasPrefix(le.Error(), "transcript: line ") {
			t.Errorf("Error() = %q", le.Error())
		}
	}
	if s.Skipped != 1 || s.Entries["brand-new-entry"] != 1 {
		t.Errorf("Skipped = %d, Entries[brand-new-entry] = %d; want 1, 1", s.Skipped, s.Entries["brand-new-entry"])
	}
	if s.Lines != 12 {
		t.Errorf("Lines = %d, want 12", s.Lines)
	}
	// The prompt, the assistant message (an unknown block kept out, its text merged in) and
	// the orphan tool result with a bad timestamp survive.
	if len(s.Messages) != 3 || s.Messages[1].Text != "Hello!" || s.Messages[1].Entries != 2 || !s.Messages[2].Time.IsZero() {
		t.Errorf("messages = %d; %+v", len(s.Messages), s.Messages)
	}

	for _, c := range []struct {
		max, kept int
	}{{2, 2}, {-1, 0}, {0, 6}} {
		s := readFixture(t, "testdata/handwritten/malformed.jsonl", &Options{MaxMalformed: c.max})
		if len(s.Malformed) != c.kept || s.MalformedCount != 6 {
			t.Errorf("MaxMalformed %d: kept %d of %d, want %d of 6", c.max, len(s.Malformed), s.MalformedCount, c.kept)
		}
	}
}

func TestReadLongLines(t *testing.T) {
	// A tool result of 3 MiB of multi-byte text: far beyond the 64 KiB read buffer.
	big := strings.Repeat("é", 3<<19)
	jsonl := lines(
		uPrompt("2026-01-01T00:00:00Z", "cat it"),
		aCall("2026-01-01T00:00:01Z", "m1", "t1", "Read", `{"file_path":"/big"}`),
		`{"type":"user","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":`+jsonString(big)+`}]},"toolUseResult":{"file":{"content":`+jsonString(big)+`}}}`,
		aText("2026-01-01T00:00:03Z", "m2", "Read it."),
	)
	cases := []struct {
		name       string
		opts       *Options
		malformed  int
		textLen    int // want len(Result.Text); -1: no result
		truncated  bool
		structured bool
	}{
		{"defaults", nil, 0, DefaultMaxResultBytes, true, false},
		{"keep everything", &Options{MaxResultBytes: -1}, 0, len(big), false, true},
		{"odd limit cuts at a rune boundary", &Options{MaxResultBytes: 1001}, 0, 1000, true, false},
		{"line over MaxLineBytes", &Options{MaxLineBytes: 1 << 20}, 1, -1, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := readString(t, jsonl, c.opts)
			if s.MalformedCount != c.malformed {
				t.Fatalf("malformed = %v", s.Malformed)
			}
			if c.malformed > 0 && (!errors.Is(s.Malformed[0], ErrLineTooLong) || s.Malformed[0].Line != 3) {
				t.Errorf("malformed[0] = %v, want line 3: line too long", s.Malformed[0])
			}
			if len(s.Turns) != 1 || s.Turns[0].FinalText != "Read it." {
				t.Fatalf("the line after the long one was not read: %+v", s.Turns)
			}
			r := s.Messages[1].ToolCalls[0].Result
			if c.textLen < 0 {
				if r != nil {
					t.Errorf("result of a skipped line: %+v", r)
				}
				return
			}
			if r == nil {
				t.Fatal("no result")
			}
			if len(r.Text) != c.textLen || r.TextTruncated != c.truncated || !utf8.ValidString(r.Text) {
				t.Errorf("Text: %d bytes, truncated %v, valid %v; want %d bytes, truncated %v", len(r.Text), r.TextTruncated, utf8.ValidString(r.Text), c.textLen, c.truncated)
			}
			if (r.Structured != nil) != c.structured || r.StructuredDropped == c.structured {
				t.Errorf("Structured kept %v, dropped %v; want kept %v", r.Structured != nil, r.StructuredDropped, c.structured)
			}
		})
	}
}

// errReader yields data, then fails.
type errReader struct {
	data io.Reader
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if err == io.EOF {
		return n, r.err
	}
	return n, err
}

func TestReadIOError(t *testing.T) {
	boom := errors.New("disk on fire")
	src := lines(uPrompt("2026-01-01T00:00:00Z", "hi"), aText("2026-01-01T00:00:01Z", "m1", "Hello."))
	s, err := Read(&errReader{strings.NewReader(src), boom}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
	if s == nil || len(s.Messages) != 2 || s.Turns[0].FinalText != "Hello." {
		t.Errorf("partial session = %+v", s)
	}
}

func TestReadFile(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		_, err := ReadFile(filepath.Join(t.TempDir(), "nope.jsonl"), nil)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want fs.ErrNotExist", err)
		}
	})

	main := shared(t, "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	t.Run("sub-agent files only when asked", func(t *testing.T) {
		for _, opts := range []*Options{nil, {}} {
			if s := readFixture(t, main, opts); len(s.AgentFiles) != 0 || s.Subagents[0].File != nil {
				t.Errorf("opts %v: %d agent files read", opts, len(s.AgentFiles))
			}
		}
	})
	t.Run("subagents directory", func(t *testing.T) {
		s := readFixture(t, main, &Options{Subagents: true})
		if len(s.AgentFiles) != 2 {
			t.Fatalf("%d agent files, want 2", len(s.AgentFiles))
		}
		got := map[string]bool{}
		for _, af := range s.AgentFiles {
			got[af.AgentID] = af.Compaction
		}
		if c, ok := got["a881341"]; !ok || c {
			t.Errorf("agent-a881341: present %v, compaction %v", ok, c)
		}
		if c, ok := got["acompact-fffbd0"]; !ok || !c {
			t.Errorf("agent-acompact-fffbd0: present %v, compaction %v", ok, c)
		}
		a := s.Subagents[0]
		if a.File == nil || a.File.AgentID != "a881341" || a.File.Session.AgentID != "a881341" || len(a.File.Session.Turns) != 1 {
			t.Errorf("Task not linked to its file: %+v", a.File)
		}
	})
	t.Run("older layout: agent file beside the session", func(t *testing.T) {
		s := readFixture(t, "testdata/handwritten/v2_0/0000000a-0000-4000-8000-000000000020.jsonl", &Options{Subagents: true})
		if len(s.AgentFiles) != 1 || s.Subagents[0].File != s.AgentFiles[0] || s.AgentFiles[0].Session.Turns[0].FinalText == "" {
			t.Errorf("agent files = %+v", s.AgentFiles)
		}
	})
	t.Run("an agent id is no path", func(t *testing.T) {
		dir := t.TempDir()
		sess := filepath.Join(dir, "s.jsonl")
		src := lines(
			uPrompt("2026-01-01T00:00:00Z", "go"),
			aCall("2026-01-01T00:00:01Z", "m1", "t1", "Task", `{"description":"d","prompt":"p"}`),
			`{"type":"user","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"status":"completed","agentId":"../../x"}}`,
		)
		if err := os.WriteFile(sess, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// Where a reader that trusted the id would look: dir/agent-../../x.jsonl is dir/x.jsonl.
		if err := os.WriteFile(filepath.Join(dir, "agent-../../x.jsonl"), []byte(lines(uPrompt("2026-01-01T00:00:00Z", "planted"))), 0o644); err != nil {
			t.Fatal(err)
		}
		s := readFixture(t, sess, &Options{Subagents: true})
		if len(s.AgentFiles) != 0 || s.Subagents[0].AgentID != "../../x" {
			t.Errorf("agent files %v, id %q", s.AgentFiles, s.Subagents[0].AgentID)
		}
	})
	t.Run("unreadable sub-agent file is an error", func(t *testing.T) {
		dir := t.TempDir()
		sess := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(sess, []byte(lines(uPrompt("2026-01-01T00:00:00Z", "go"))), 0o644); err != nil {
			t.Fatal(err)
		}
		// A dangling symlink named like an agent file cannot be opened.
		sub := filepath.Join(dir, "s", "subagents")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(sub, "agent-a1.jsonl")); err != nil {
			t.Fatal(err)
		}
		s, err := ReadFile(sess, &Options{Subagents: true})
		if !errors.Is(err, fs.ErrNotExist) || s == nil {
			t.Errorf("err = %v, session %v; want fs.ErrNotExist and the main session", err, s != nil)
		}
	})
}

func TestReadSessionFacts(t *testing.T) {
	s := readFixture(t, shared(t, "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"), nil)
	if s.ID != "8463c716-a2ea-4c14-9efa-87158ebd9f20" || s.GitBranch != "spotter-fum" ||
		s.CWD != "/home/USER/projects/spotter-worktrees/spotter-fum" || len(s.Versions) != 1 || s.Versions[0] != "2.1.39" {
		t.Errorf("session = id %q, branch %q, cwd %q, versions %v", s.ID, s.GitBranch, s.CWD, s.Versions)
	}
	if s.Start.IsZero() || !s.End.After(s.Start) || s.AgentID != "" {
		t.Errorf("start %v, end %v, agent %q", s.Start, s.End, s.AgentID)
	}
	sum := 0
	for _, n := range s.Entries {
		sum += n
	}
	if sum != s.Lines {
		t.Errorf("entries sum to %d, lines %d (the file has no blank or malformed line)", sum, s.Lines)
	}
}

func TestReadVersions(t *testing.T) {
	s := readString(t, lines(
		`{"type":"user","version":"2.0.76","timestamp":"2026-01-01T00:00:00Z","message":{"content":"a"}}`,
		`{"type":"user","version":"2.1.1","timestamp":"2026-01-01T00:00:01Z","message":{"content":"b"}}`,
		`{"type":"user","version":"2.0.76","timestamp":"2026-01-01T00:00:02Z","message":{"content":"c"}}`,
	), nil)
	if strings.Join(s.Versions, ",") != "2.0.76,2.1.1" {
		t.Errorf("Versions = %v", s.Versions)
	}
}

func TestReadEmpty(t *testing.T) {
	for _, src := range []string{"", "\n\n", "   \n"} {
		s := readString(t, src, nil)
		if len(s.Messages) != 0 || s.MalformedCount != 0 || s.Entries == nil {
			t.Errorf("%q: %+v", src, s)
		}
	}
	s := readString(t, "\r\n"+uPrompt("2026-01-01T00:00:00Z", "crlf")+"\r\n", nil)
	if len(s.Messages) != 1 || s.Lines != 2 {
		t.Errorf("CRLF: %d messages, %d lines", len(s.Messages), s.Lines)
	}
}

func TestReadBytesReaderNeverErrs(t *testing.T) {
	data, err := os.ReadFile("testdata/claude-code/subagent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(data), nil); err != nil {
		t.Fatal(err)
	}
}

// TestReadLocalTurns checks that a turn no model answered (a local slash command and its
// output, Claude Code's synthetic "No response requested.") is Local, and that a synthetic
// reply is not a turn's final text.
func TestReadLocalTurns(t *testing.T) {
	synth := func(ts, mid string) string {
		return `{"type":"assistant","sessionId":"s","timestamp":"` + ts + `","message":{"id":"` + mid + `","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}],"stop_reason":"stop_sequence"}}`
	}
	apiErr := `{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:09Z","isApiErrorMessage":true,"message":{"id":"e1","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 529 overloaded"}],"stop_reason":"stop_sequence"}}`
	s := readString(t, lines(
		uPrompt("2026-01-01T00:00:00Z", "hi"),
		aText("2026-01-01T00:00:01Z", "m1", "Hello."),
		uText("2026-01-01T00:00:02Z", "Continue from where you left off.", `,"isMeta":true`),
		synth("2026-01-01T00:00:02Z", "s1"),
		uPrompt("2026-01-01T00:00:03Z", "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>"),
		uPrompt("2026-01-01T00:00:04Z", "<local-command-stdout>Set model to opus</local-command-stdout>"),
		uPrompt("2026-01-01T00:00:05Z", "<command-name>/login</command-name>\n<command-message>login</command-message>\n<command-args></command-args>"),
		synth("2026-01-01T00:00:06Z", "s2"),
		uPrompt("2026-01-01T00:00:08Z", "again"),
		apiErr,
		uPrompt("2026-01-01T00:00:10Z", "cut off before the reply"),
	), nil)
	want := []struct {
		local bool
		final string
	}{{false, "Hello."}, {true, ""}, {true, ""}, {false, "API Error: 529 overloaded"}, {true, ""}}
	if len(s.Turns) != len(want) {
		t.Fatalf("%d turns, want %d", len(s.Turns), len(want))
	}
	for i, w := range want {
		if tr := s.Turns[i]; tr.Local != w.local || tr.FinalText != w.final {
			t.Errorf("turn %d: local %v, final %q; want %v, %q", i, tr.Local, tr.FinalText, w.local, w.final)
		}
	}
	synthetic := 0
	for _, m := range s.Messages {
		if m.Synthetic {
			synthetic++
		}
	}
	if synthetic != 2 {
		t.Errorf("%d synthetic messages, want 2 (an API error message is none)", synthetic)
	}
}
