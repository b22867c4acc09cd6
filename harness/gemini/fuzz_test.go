package gemini

import (
	"bytes"
	"encoding/json"
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"github.com/stopgate/stopgate/harness/internal/turns"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/gemini/chat"
)

var geminiPayloadSeeds = []string{
	`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"AfterAgent","timestamp":"2026-11-01T09:00:00.000Z","prompt":"Fix it.","prompt_response":"Let me run the tests.","stop_hook_active":false}`,
	`{"prompt_response":"[no response text]","stop_hook_active":true}`,
	`{"prompt":"","prompt_response":"","hook_event_name":"BeforeTool"}`,
	`{"stop_hook_active":"yes","cwd":[],"prompt":7,"timestamp":null}`,
	`[]`, `null`, `"AfterAgent"`, `{`, ``,
}

// FuzzDecodeGeminiPayload checks the decoder never panics, fails only with hookio.ErrPayload, and that
// what it decodes survives a round trip through JSON, absent and empty kept apart.
func FuzzDecodeGeminiPayload(f *testing.F) {
	for _, s := range geminiPayloadSeeds {
		f.Add(s)
	}
	if b, err := os.ReadFile(geminiPayloadFile); err == nil {
		f.Add(string(b))
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

// FuzzGeminiDecision runs every decodable payload, with a session file read from the second
// input, through the conversion, the supervisor and the encoder, and checks the answer is either
// nothing or one {"decision":"deny"} line, and the Turn within its bounds.
func FuzzGeminiDecision(f *testing.F) {
	session, err := os.ReadFile(geminiSessionFile)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range geminiPayloadSeeds {
		f.Add(s, "")
		f.Add(s, string(session))
	}
	f.Add(`{"prompt":"Go."}`, `{"sessionId":"s","projectHash":"h"}`+"\n"+`{"id":"u","type":"user","content":"Go."}`+"\n"+`{"id":"e","type":"error","content":"boom"}`)
	sup := stopgate.New(stopgate.Config{})
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, in, file string) {
		p, err := DecodePayload(strings.NewReader(in))
		if err != nil {
			return
		}
		var s *chat.GeminiSession
		if file != "" {
			if s, err = chat.ReadGemini(strings.NewReader(file), nil); err != nil {
				t.Fatal(err)
			}
		}
		tu := Turn(p, s, now)
		if len(tu.Steps) > turns.MaxSteps || tu.Harness != Name {
			t.Fatalf("turn with %d steps, harness %q", len(tu.Steps), tu.Harness)
		}
		out, _ := geminiAnswer(sup.Decide(t.Context(), tu))
		if out == nil {
			return
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil || len(v) != 2 || v["decision"] != "deny" || out[len(out)-1] != '\n' || bytes.Count(out, []byte("\n")) != 1 {
			t.Fatalf("answer %q is not one deny line (%v)", out, err)
		}
		if len(out) > hookio.MaxMessageBytes+200 {
			t.Fatalf("answer of %d bytes", len(out))
		}
	})
}

// FuzzGeminiSettings checks Install and Uninstall on any settings file: either an
// error that leaves the file alone, or a valid JSON file with the hook installed once, that a
// second install leaves as it is and Uninstall clears.
func FuzzGeminiSettings(f *testing.F) {
	for _, name := range []string{"empty.json", "keys.json", "null.json", "old.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gemini", "settings", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`{"hooks":{"AfterAgent":[{"hooks":"x"},7,{"hooks":[{"type":"command","command":"stopgate hook gemini-cli"},null]}]}}`)
	f.Add(`{"hooks":{"AfterAgent":null,"BeforeAgent":[]},"hooksConfig":{"enabled":false}}`)
	f.Fuzz(func(t *testing.T, in string) {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(path, geminiTestCommand); err != nil {
			if got, _ := os.ReadFile(path); string(got) != in {
				t.Fatalf("a failed install wrote the file: %v", err)
			}
			return
		}
		installed, _ := os.ReadFile(path)
		if !json.Valid(installed) {
			t.Fatalf("install wrote invalid JSON:\n%s", installed)
		}
		if n := strings.Count(string(installed), geminiTestCommand); n < 1 {
			t.Fatalf("the command appears %d times:\n%s", n, installed)
		}
		if changed, err := Install(path, geminiTestCommand); changed || err != nil {
			t.Fatalf("a second install: %v, %v", changed, err)
		}
		if _, err := Uninstall(path); err != nil {
			t.Fatalf("uninstall after install: %v", err)
		}
		removed, _ := os.ReadFile(path)
		if !json.Valid(removed) {
			t.Fatalf("uninstall wrote invalid JSON:\n%s", removed)
		}
		var s struct {
			Hooks map[string]json.RawMessage `json:"hooks"`
		}
		_ = json.Unmarshal(removed, &s)
		if strings.Contains(string(s.Hooks[EventAfterAgent]), geminiTestCommand) {
			t.Fatalf("uninstall left the hook:\n%s", removed)
		}
		_, _ = HooksDisabled(path)
	})
}
