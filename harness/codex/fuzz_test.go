package codex

import (
	"bytes"
	"encoding/json"
	"github.com/stopgate/stopgate/harness/internal/hookio"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var codexPayloadSeeds = []string{
	`{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"/w","hook_event_name":"Stop","model":"gpt-5","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"Let me run the tests."}`,
	`{"hook_event_name":"SubagentStop","agent_id":"a","agent_type":"worker","agent_transcript_path":null,"last_assistant_message":null}`,
	`{"stop_hook_active":"yes","cwd":[],"turn_id":7}`,
	`[]`, `null`, `"Stop"`, `{`, ``,
}

// FuzzDecodeCodexPayload checks the decoder never panics, fails only with hookio.ErrPayload, and that
// what it decodes survives a round trip through JSON.
func FuzzDecodeCodexPayload(f *testing.F) {
	for _, s := range codexPayloadSeeds {
		f.Add(s)
	}
	if b, err := os.ReadFile(codexPayloadFile); err == nil {
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

// FuzzCodex runs whole invocations on any payload and any rollout, and checks the hook always
// exits 0 and answers nothing or one {"decision":"block","reason":…} line.
func FuzzCodex(f *testing.F) {
	rollout, err := os.ReadFile(codexRolloutFile)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range codexPayloadSeeds {
		f.Add(s, string(rollout))
	}
	f.Add(`{"last_assistant_message":"Done.","stop_hook_active":true}`, "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\":[{\\\"step\\\":\\\"x\\\",\\\"status\\\":\\\"pending\\\"}]}\"}}")
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, payload, rollout string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "rollout.jsonl")
		if err := os.WriteFile(path, []byte(rollout), 0o644); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if json.Unmarshal([]byte(payload), &m) == nil && m != nil {
			m["transcript_path"], m["session_id"] = path, "fuzz"
			b, _ := json.Marshal(m)
			payload = string(b)
		}
		var out, errOut bytes.Buffer
		code := Codex(t.Context(), strings.NewReader(payload), &out, &errOut, &Options{StateDir: dir, Now: func() time.Time { return now }})
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if out.Len() == 0 {
			return
		}
		var v map[string]string
		if err := json.Unmarshal(out.Bytes(), &v); err != nil || len(v) != 2 || v["decision"] != "block" || strings.TrimSpace(v["reason"]) == "" || bytes.Count(out.Bytes(), []byte("\n")) != 1 {
			t.Fatalf("answer %q is not one block line (%v)", out.Bytes(), err)
		}
	})
}

// FuzzCodexHooksFile checks Install and Uninstall on any hooks file: either an error
// that leaves the file alone, or a valid JSON file with the hook installed once per event,
// that a second install leaves as it is and uninstall clears.
func FuzzCodexHooksFile(f *testing.F) {
	const cmd = "/usr/local/bin/stopgate hook codex"
	f.Add(``)
	f.Add(`{}`)
	f.Add(`{"description":"x","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify"}]}]}}`)
	f.Add(`{"hooks":{"Stop":[{"hooks":"x"},7,{"hooks":[{"type":"command","command":"stopgate hook codex --x"},null]}]}}`)
	f.Add(`{"hooks":{"Stop":null,"SubagentStop":[]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		path := filepath.Join(t.TempDir(), "hooks.json")
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(path, cmd); err != nil {
			if got, _ := os.ReadFile(path); string(got) != in {
				t.Fatalf("a failed install wrote the file: %v", err)
			}
			return
		}
		installed, _ := os.ReadFile(path)
		if !json.Valid(installed) || strings.Count(string(installed), cmd) < 2 {
			t.Fatalf("install wrote:\n%s", installed)
		}
		if _, err := Trust(path); err != nil {
			t.Fatalf("Trust of an installed file: %v", err)
		}
		if changed, err := Install(path, cmd); changed || err != nil {
			t.Fatalf("a second install: %v, %v", changed, err)
		}
		if _, err := Uninstall(path); err != nil {
			t.Fatalf("uninstall after install: %v", err)
		}
		removed, _ := os.ReadFile(path)
		var hooks struct {
			Hooks map[string]json.RawMessage `json:"hooks"`
		}
		if !json.Valid(removed) || json.Unmarshal(removed, &hooks) != nil {
			t.Fatalf("uninstall wrote:\n%s", removed)
		}
		for _, e := range []string{EventStop, EventSubagentStop} {
			if strings.Contains(string(hooks.Hooks[e]), cmd) {
				t.Fatalf("uninstall left the hook in %s:\n%s", e, removed)
			}
		}
	})
}
