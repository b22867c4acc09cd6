package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/gemini/chat"
	"github.com/stopgate/stopgate/harness/internal/harnesstest"
	"github.com/stopgate/stopgate/hook"
)

// chatLog builds a hand-written Gemini CLI JSONL session in the 0.61 shape. Everything in it
// is made up: ids, times and text.
type chatLog struct {
	t     *testing.T
	base  time.Time
	lines []string
}

func newChatLog(t *testing.T) *chatLog {
	l := &chatLog{t: t, base: time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)}
	l.raw(map[string]any{"sessionId": "gem-9", "projectHash": "p9", "startTime": l.ts(0), "lastUpdated": l.ts(0), "kind": "main"})
	return l
}

func (l *chatLog) ts(sec float64) string {
	return l.base.Add(time.Duration(sec * float64(time.Second))).Format("2006-01-02T15:04:05.000Z")
}

func (l *chatLog) raw(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		l.t.Fatal(err)
	}
	l.lines = append(l.lines, string(b))
}

func (l *chatLog) user(sec float64, id, text string) {
	l.raw(map[string]any{"id": id, "timestamp": l.ts(sec), "type": "user", "content": []any{map[string]any{"text": text}}})
}

// model writes a model message with one call (none when name is empty), then the same message
// again with the call completed, as Gemini CLI does, and the user message of its response.
func (l *chatLog) model(sec float64, id, text, name string, args any, status, output string) {
	msg := map[string]any{"id": id, "timestamp": l.ts(sec), "type": "gemini", "content": text, "model": "gemini-2.5-flash"}
	l.raw(msg)
	if name == "" {
		return
	}
	resp := map[string]any{"functionResponse": map[string]any{"id": id + "-c", "name": name, "response": map[string]any{"output": output}}}
	msg["toolCalls"] = []any{map[string]any{"id": id + "-c", "name": name, "args": args, "status": status, "timestamp": l.ts(sec + 0.5), "result": []any{resp}}}
	l.raw(msg)
	l.raw(map[string]any{"id": id + "-r", "timestamp": l.ts(sec + 0.5), "type": "user", "content": []any{resp}})
}

func (l *chatLog) data() []byte { return []byte(strings.Join(l.lines, "\n") + "\n") }

// geminiSessions are the sessions the incremental property is checked on: the recorded one
// and hand-written ones with long runs, updates, rewinds and background shells.
func geminiSessions(t *testing.T) map[string][]byte {
	t.Helper()
	rec, err := os.ReadFile("testdata/gemini/session-0.61.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{"recorded-0.61.0": rec}

	l := newChatLog(t)
	sec := 1.0
	for p := range 11 {
		l.user(sec, fmt.Sprintf("u%d", p), fmt.Sprintf("Task %d: make it pass.", p))
		l.raw(map[string]any{"$set": map[string]any{"lastUpdated": l.ts(sec)}})
		if p == 2 {
			l.model(sec+1, "todo", "Planning.", "write_todos", map[string]any{"todos": []any{map[string]any{"description": "test", "status": "in_progress"}}}, "success", "ok")
			l.model(sec+2, "bg", "", "run_shell_command", map[string]any{"command": "make e2e"}, "success", "Command moved to background (PID: 41)")
		}
		n := 2
		if p == 9 {
			n = 125 // a long run: the prompts before it folded past the window
		}
		for i := range n {
			sec++
			status := "success"
			if i%9 == 4 {
				status = "error"
			}
			l.model(sec, fmt.Sprintf("m%d-%d", p, i), fmt.Sprintf("Step %d.", i), "run_shell_command", map[string]any{"command": fmt.Sprintf("go test -run T%d", i)}, status, fmt.Sprintf("ok %d", i))
		}
		if p == 6 {
			l.model(sec+1, "ls", "", "list_background_processes", map[string]any{}, "success", "- [PID 41] EXITED: `make e2e` (Exit Code: 1)")
			l.model(sec+2, "rd", "", "read_background_output", map[string]any{"pid": 41}, "success", "FAIL")
		}
		sec += 3
		l.model(sec, fmt.Sprintf("f%d", p), fmt.Sprintf("Done with task %d.", p), "", nil, "", "")
		if p%4 == 1 {
			l.user(sec+1, fmt.Sprintf("h%d", p), "Your last message ended with a promise: keep going.")
			l.model(sec+2, fmt.Sprintf("g%d", p), "Kept going.", "", nil, "", "")
		}
		if p == 7 {
			l.raw(map[string]any{"id": "e7", "timestamp": l.ts(sec + 3), "type": "error", "content": "429 quota exceeded"})
		}
		if p == 8 {
			l.raw(map[string]any{"$rewindTo": "f8"}) // a rewind inside the window
			l.model(sec+4, "f8b", "Done again.", "", nil, "", "")
		}
		if p == 10 {
			l.raw(map[string]any{"$rewindTo": "m9-3"}) // a rewind into what a tail read folded
			l.model(sec+5, "after", "Rewound.", "", nil, "", "")
		}
		sec += 5
	}
	l.lines = append(l.lines, `[not a record]`)
	out["hand-written"] = l.data()
	return out
}

// geminiTail is the Gemini CLI hook's reader under the incremental property: the Turns of an
// AfterAgent stop with each prompt the session holds as the payload's (an old one's run is
// read whole, as the hook does), with none, and with a prompt_response.
func geminiTail(prompts []string) harnesstest.Tail {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	resp := "Done."
	payloads := []Payload{{HookEventName: EventAfterAgent}, {HookEventName: EventAfterAgent, PromptResponse: &resp}}
	for _, p := range prompts {
		p := p
		payloads = append(payloads, Payload{HookEventName: EventAfterAgent, Prompt: &p})
	}
	return harnesstest.Tail{
		Tail: func(t *testing.T, path string, ck []byte) (any, []byte) {
			// readSession, with one tail read for every payload.
			s, next, err := chat.ReadTail(path, ck, nil)
			if err != nil {
				t.Fatal(err)
			}
			if next == nil {
				next = []byte("null") // read whole, nothing to go on from: the next read is whole too
			}
			var whole *chat.GeminiSession
			var out []stopgate.Turn
			for _, p := range payloads {
				cs := s
				if needsWhole(s, p.Prompt) {
					if whole == nil {
						if whole, err = chat.ReadGeminiFile(path, nil); err != nil {
							t.Fatal(err)
						}
					}
					cs = whole
				}
				out = append(out, Turn(p, cs, now))
			}
			return out, next
		},
		Whole: func(t *testing.T, path string) any {
			s, err := chat.ReadGeminiFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out []stopgate.Turn
			for _, p := range payloads {
				out = append(out, Turn(p, s, now))
			}
			return out
		},
	}
}

// sessionPrompts returns the distinct prompts of the session data, and one it does not hold.
func sessionPrompts(t *testing.T, data []byte) []string {
	s, err := chat.ReadGemini(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range s.Messages {
		if m.Prompt() && !seen[m.Text] {
			seen[m.Text] = true
			out = append(out, m.Text)
		}
	}
	return append(out, "A prompt no message holds.")
}

// TestReadTailEqualsWholeRead is the incremental reader's property for Gemini CLI: for every
// golden session, cut at every line boundary (and inside lines), the Turns built by reading on
// from earlier cut points (every one before, and random sequences of them) equal the Turns
// built from the whole prefix.
func TestReadTailEqualsWholeRead(t *testing.T) {
	for name, data := range geminiSessions(t) {
		t.Run(name, func(t *testing.T) {
			harnesstest.CheckIncremental(t, name, data, 16, geminiTail(sessionPrompts(t, data)))
		})
	}
}

// TestReadTailFingerprint checks that a checkpoint is not used on a session file it does not
// describe (truncated, rewritten, replaced, another path): each is read whole.
func TestReadTailFingerprint(t *testing.T) {
	s := geminiSessions(t)
	data := s["hand-written"]
	harnesstest.CheckFingerprint(t, data, s["recorded-0.61.0"], geminiTail(sessionPrompts(t, data)))
}

// TestReadTailBounded checks that the checkpoint stays bounded on a long run, and that it is
// used: a stop after the first reads on from it.
func TestReadTailBounded(t *testing.T) {
	l := newChatLog(t)
	l.user(1, "u", "Do it all.")
	for i := range 1000 {
		l.model(2+float64(i), fmt.Sprintf("m%d", i), "", "run_shell_command", map[string]any{"command": fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 200))}, "success", strings.Repeat("y", 500))
	}
	data := l.data()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, ck, err := chat.ReadTail(path, nil, nil)
	if err != nil || ck == nil {
		t.Fatalf("%v, checkpoint %d bytes", err, len(ck))
	}
	if len(ck) > len(data)/4 || len(s.Messages) > 300 {
		t.Errorf("checkpoint %d bytes for a %d-byte session, %d messages kept", len(ck), len(data), len(s.Messages))
	}
}

// TestReadTailLegacy checks that a legacy session file (one JSON document) is read whole,
// with no checkpoint.
func TestReadTailLegacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.json")
	doc := "{\n  \"sessionId\": \"old\",\n  \"messages\": [\n    {\"id\": \"a\", \"type\": \"user\", \"content\": \"Hi.\"},\n    {\"id\": \"b\", \"type\": \"gemini\", \"content\": \"Hello.\"}\n  ]\n}\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ck, err := chat.ReadTail(path, nil, nil)
	if err != nil || ck != nil || !s.Legacy || len(s.Messages) != 2 || s.ID != "old" {
		t.Fatalf("legacy read: %v, checkpoint %q, session %+v", err, ck, s)
	}
}

// TestHookKeepsCheckpoint runs the Gemini CLI hook twice on a session that grows between the
// stops: the state file keeps the reader's checkpoint at the end of the file each time.
func TestHookKeepsCheckpoint(t *testing.T) {
	data := geminiSessions(t)["recorded-0.61.0"]
	ends := harnesstest.LineEnds(data)
	half := ends[len(ends)/2]
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, data[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	payload := fmt.Sprintf(`{"session_id":"g1","transcript_path":%q,"hook_event_name":"AfterAgent","stop_hook_active":false}`, path)
	offset := func() int64 {
		var out, errb bytes.Buffer
		hook.Run(context.Background(), strings.NewReader(payload), &out, &errb, Hook{}, &hook.Options{StateDir: dir, Now: fixedNow})
		st, found, err := hook.LoadState(hook.StatePath(dir, geminiStateKey("g1"), ""))
		if err != nil || !found {
			t.Fatalf("state: found %v, %v (stderr %s)", found, err, errb.String())
		}
		var ck struct {
			Offset int64 `json:"offset"`
		}
		if err := json.Unmarshal(st.Reader, &ck); err != nil {
			t.Fatalf("state has no reader checkpoint: %v (%s)", err, st.Reader)
		}
		return ck.Offset
	}
	if got := offset(); got != int64(half) {
		t.Fatalf("first stop: checkpoint at %d, want %d", got, half)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[half:]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := offset(); got != int64(len(data)) {
		t.Fatalf("second stop: checkpoint at %d, want %d", got, len(data))
	}
}

// TestReadTailBadCheckpoint checks that a checkpoint that is not one reads the session file
// whole, and that a damaged one neither fails nor panics.
func TestReadTailBadCheckpoint(t *testing.T) {
	data := geminiSessions(t)["hand-written"]
	harnesstest.CheckBadCheckpoints(t, data, geminiTail(sessionPrompts(t, data)))
}

// BenchmarkReadTail measures the Gemini CLI hook's read of a 30 MB session (one long run of
// 20,000 shell calls, each message written twice as Gemini CLI does): the first stop, and a
// stop after one more line.
func BenchmarkReadTail(b *testing.B) {
	l := newChatLog(&testing.T{})
	l.user(1, "u", "Do it all.")
	for i := range 20000 {
		l.model(2+float64(i), fmt.Sprintf("m%d", i), "", "run_shell_command", map[string]any{"command": fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 200))}, "success", strings.Repeat("y", 500))
	}
	data := l.data()
	l.lines = nil
	l.model(30000, "last", "Done.", "", nil, "", "")
	harnesstest.BenchTail(b, data, l.data(), func(path string, ck []byte) []byte {
		_, next, err := chat.ReadTail(path, ck, nil)
		if err != nil {
			b.Fatal(err)
		}
		return next
	})
}
