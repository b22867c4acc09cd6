package claudecode

import (
	"bytes"
	"encoding/json"
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"github.com/stopgate/stopgate/harness/internal/hooksfile"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/claudecode/transcript"
)

var payloadSeeds = []string{
	`{"session_id":"abc","transcript_path":"/t.jsonl","stop_hook_active":true}`,
	`{"session_id":"abc","hook_event_name":"Stop","last_assistant_message":"Let me run the tests.","background_tasks":[{"id":"b1","type":"shell","status":"running","command":"make"}],"session_crons":[{"id":"c","schedule":"* * * * *","recurring":true}]}`,
	`{"hook_event_name":"SubagentStop","agent_id":"a","agent_transcript_path":"/a.jsonl","background_tasks":[{"id":"a","type":"subagent","status":"completed"},"x",7]}`,
	`{"background_tasks":[],"session_crons":null,"last_assistant_message":"","effort":"high"}`,
	`{"stop_hook_active":"yes","cwd":[],"effort":{"level":1}}`,
	`[]`, `null`, `"Stop"`, `{`, ``,
}

// FuzzDecodePayload checks the decoder never panics, fails only with hookio.ErrPayload, and that
// what it decodes survives a round trip through JSON, absent and empty lists kept apart.
func FuzzDecodePayload(f *testing.F) {
	for _, s := range payloadSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := DecodePayload(strings.NewReader(in))
		if err != nil {
			if !strings.Contains(err.Error(), hookio.ErrPayload.Error()) {
				t.Fatalf("error %v does not wrap hookio.ErrPayload", err)
			}
			return
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := DecodePayload(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		p.Ignored, q.Ignored = nil, nil
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip changed the payload:\n%#v\n%#v", p, q)
		}
	})
}

// FuzzClaudeCodeDecision runs every decodable payload through the conversion, the supervisor
// and the encoder (without a transcript, so no file is read), and checks the answer is either
// nothing or one JSON object of the documented shape.
func FuzzClaudeCodeDecision(f *testing.F) {
	for _, s := range payloadSeeds {
		f.Add(s, false)
	}
	sup := stopgate.New(stopgate.Config{})
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, in string, contextStyle bool) {
		p, err := DecodePayload(strings.NewReader(in))
		if err != nil {
			return
		}
		style := StyleBlock
		if contextStyle {
			style = StyleContext
		}
		d := sup.Decide(t.Context(), Turn(p, nil, now))
		out, _ := encodeAnswer(d, p.Event(), style)
		if out == nil {
			return
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil || len(v) == 0 || out[len(out)-1] != '\n' || bytes.Count(out, []byte("\n")) != 1 {
			t.Fatalf("answer %q is not one JSON line (%v)", out, err)
		}
		if len(out) > hookio.MaxMessageBytes+200 {
			t.Fatalf("answer of %d bytes", len(out))
		}
	})
}

// FuzzSessionTurn checks every turn of any transcript converts without panicking, the turn
// carrying at most MaxSteps steps.
func FuzzSessionTurn(f *testing.F) {
	for _, name := range []string{"shell_unread_failed.jsonl", "shells_read.jsonl", "agents.jsonl", "todos.jsonl", "stop_hooks.jsonl"} {
		b, err := os.ReadFile(filepath.Join("transcript", "testdata", "handwritten", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := transcript.Read(strings.NewReader(in), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Turns {
			tu := SessionTurn(s, i)
			if len(tu.Steps) > MaxSteps {
				t.Fatalf("turn %d: %d steps", i, len(tu.Steps))
			}
		}
		_ = Turn(Payload{LastAssistantMessage: ptr("x")}, s, time.Time{})
	})
}

// FuzzSettings checks Install and Uninstall on any settings file: either an error that leaves
// the file alone, or a valid JSON file with the hook installed once per event, that a second
// Install leaves as it is and Uninstall clears.
func FuzzSettings(f *testing.F) {
	for _, name := range []string{"empty.json", "keys.json", "hooks.json", "null.json", "old.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "settings", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`{"hooks":{"Stop":[{"hooks":"x"},7,{"hooks":[{"type":"command","command":"stopgate hook claude-code"},null]}]}}`)
	f.Add(`{"hooks":{"Stop":null,"SubagentStop":[]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(path, testCommand); err != nil {
			if got, _ := os.ReadFile(path); string(got) != in {
				t.Fatalf("a failed Install wrote the file: %v", err)
			}
			return
		}
		installed, _ := os.ReadFile(path)
		if !json.Valid(installed) {
			t.Fatalf("Install wrote invalid JSON:\n%s", installed)
		}
		if n := strings.Count(string(installed), testCommand); n < 2 {
			t.Fatalf("the command appears %d times:\n%s", n, installed)
		}
		if changed, err := Install(path, testCommand); changed || err != nil {
			t.Fatalf("a second Install: %v, %v", changed, err)
		}
		if _, err := Uninstall(path); err != nil {
			t.Fatalf("Uninstall after Install: %v", err)
		}
		removed, _ := os.ReadFile(path)
		if !json.Valid(removed) {
			t.Fatalf("Uninstall wrote invalid JSON:\n%s", removed)
		}
		for _, e := range []string{EventStop, EventSubagentStop} {
			if n := runnableCommands(removed, e, testCommand); n > 0 {
				t.Fatalf("Uninstall left %d stopgate hook(s) Claude Code would run in %s:\n%s", n, e, removed)
			}
		}
	})
}

// runnableCommands counts the handlers of event in a settings file that Claude Code would run
// as command: a {"type": "command", "command": command} object in the "hooks" list of a
// matcher group in hooks[event]. Keys are matched exactly, the last of a repeated one winning,
// as JavaScript's JSON.parse reads them. The command text elsewhere (under another key, in a
// handler of another type) is not a hook Claude Code runs, and Uninstall leaves it alone.
func runnableCommands(settings []byte, event, command string) int {
	field := func(b []byte, key string) json.RawMessage {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return nil
		}
		return m[key]
	}
	list := func(b []byte) []json.RawMessage {
		var l []json.RawMessage
		_ = json.Unmarshal(b, &l)
		return l
	}
	str := func(b []byte) string {
		var s string
		_ = json.Unmarshal(b, &s)
		return s
	}
	n := 0
	for _, g := range list(field(field(settings, "hooks"), event)) {
		for _, h := range list(field(g, "hooks")) {
			if str(field(h, "type")) == "command" && str(field(h, "command")) == command {
				n++
			}
		}
	}
	return n
}

// FuzzShellWords checks Command's quoting reads back as the words it quoted.
func FuzzShellWords(f *testing.F) {
	f.Add("/usr/local/bin/stopgate", "--config=/a b/c's.toml")
	f.Add("stopgate", "")
	f.Add(`C:\tools\stopgate.exe`, `--state-dir="x"`)
	f.Fuzz(func(t *testing.T, exe, arg string) {
		if strings.ContainsRune(exe+arg, 0) {
			return // no shell word holds a NUL
		}
		cmd := Command(exe, arg)
		words, ok := hooksfile.ShellWords(cmd)
		if want := []string{exe, "hook", "claude-code", arg}; !ok || !reflect.DeepEqual(words, want) {
			t.Fatalf("hooksfile.ShellWords(%s) = %q, %v; want %q", cmd, words, ok, want)
		}
		_ = IsHookCommand(exe + " " + arg)
	})
}
