package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestDecodePayload(t *testing.T) {
	tests := []struct {
		name, in  string
		event     string
		active    bool
		ignored   []string
		wantErr   bool
		sessionID string
	}{
		{"agentStop as 1.0.102 sends it", `{"sessionId":"s1","timestamp":1796164459870,"cwd":"/p","transcriptPath":"/h/events.jsonl","stopReason":"end_turn","stop_hook_active":true}`, EventAgentStop, true, nil, false, "s1"},
		{"camelCase stopHookActive", `{"sessionId":"s1","stopHookActive":true}`, EventAgentStop, true, nil, false, "s1"},
		{"subagentStop", `{"sessionId":"s1","agentName":"task","agentId":"a1","response":"done"}`, EventSubagentStop, false, nil, false, "s1"},
		{"wrong types read as absent", `{"sessionId":7,"stop_hook_active":"yes"}`, EventAgentStop, false, []string{"sessionId", "stop_hook_active"}, false, ""},
		{"not an object", `[1]`, "", false, nil, true, ""},
		{"two values", `{} {}`, "", false, nil, true, ""},
		{"empty", ``, "", false, nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := DecodePayload(strings.NewReader(tt.in))
			if tt.wantErr {
				if !errors.Is(err, ErrPayload) {
					t.Fatalf("err = %v, want ErrPayload", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Event() != tt.event || p.StopHookActive != tt.active || p.SessionID != tt.sessionID || strings.Join(p.Ignored, ",") != strings.Join(tt.ignored, ",") {
				t.Errorf("got event %q active %v session %q ignored %v", p.Event(), p.StopHookActive, p.SessionID, p.Ignored)
			}
		})
	}
}

func FuzzDecodePayload(f *testing.F) {
	f.Add(`{"sessionId":"s","timestamp":1,"stop_hook_active":true}`)
	f.Add(`{"response":null,"agentId":3}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := DecodePayload(strings.NewReader(in))
		if err != nil && !errors.Is(err, ErrPayload) {
			t.Fatalf("error not wrapping ErrPayload: %v", err)
		}
		_ = p.Event()
	})
}

func FuzzRead(f *testing.F) {
	b, _ := os.ReadFile("testdata/events.jsonl")
	f.Add(string(b))
	f.Add(`{"type":"assistant.message","data":{"content":"x","toolRequests":[{"toolCallId":"c","name":"bash","arguments":{}}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Read(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrNotSession) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for _, end := range Stops(s) {
			_ = stopAt(s, end, time.Time{})
		}
	})
}

// TestTurnGolden reads a real Copilot CLI 1.0.102 event log (recorded from the e2e model
// server's probe run with stopgate as the repository hook: a tool call, then stalls that
// stopgate blocked until its budget ran out) and compares the Turn at its last stop, and the audit's reading, with golden files.
func TestTurnGolden(t *testing.T) {
	s, err := ReadFile("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if s.Malformed != 0 || s.ID == "" || len(s.StopHooks) < 2 || !s.StopHooks[0].Blocked || s.StopHooks[0].Active || !s.StopHooks[1].Active {
		t.Fatalf("session = id %q, %d malformed, stop hooks %+v", s.ID, s.Malformed, s.StopHooks)
	}
	continuations := 0
	for _, m := range s.Messages {
		if m.Kind == KindUser && m.Continuation {
			continuations++
		}
	}
	if continuations == 0 {
		t.Fatal("no stop hook continuation recognised")
	}
	p := Payload{SessionID: s.ID, StopHookActive: true, Timestamp: s.StopHooks[len(s.StopHooks)-1].Stamp}
	if !s.HasStop(p.Timestamp) {
		t.Fatal("HasStop does not find the last hook run")
	}
	turn := Turn(p, s, nil, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	got, _ := json.MarshalIndent(turn, "", "  ")
	golden(t, "testdata/turn.golden.json", got)

	ss, err := Reader{}.Read("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.MarshalIndent(struct {
		Turns  int
		Nudges []harness.Nudge
	}{len(ss[0].Turns), ss[0].Nudges}, "", "  ")
	golden(t, "testdata/audit.golden.json", got)
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s", path, got)
	}
}

func TestReadTodos(t *testing.T) {
	todos, err := ReadTodos(context.Background(), filepath.Join(t.TempDir(), DatabaseName))
	if err != nil || todos != nil {
		t.Fatalf("a missing database = %v, %v; want nil, nil", todos, err)
	}
}

func TestInstaller(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".github", "hooks", HooksFileName)
	in := Installer{}
	other := `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"echo other"}],"preToolUse":[{"type":"command","bash":"lint"}]}}`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := in.Command("/opt/stopgate", "--", "--state-dir=/s")
	if !in.IsHookCommand(cmd) || in.IsHookCommand("echo other") || !in.IsHookCommand("X=1 /bin/stopgate-dev hook copilot") {
		t.Fatal("IsHookCommand misreads")
	}
	for i, want := range []bool{true, false} {
		changed, err := in.Install(path, cmd)
		if err != nil || changed != want {
			t.Fatalf("install %d: changed %v err %v, want %v", i, changed, err, want)
		}
	}
	if changed, _ := in.Install(path, in.Command("/new/stopgate")); !changed {
		t.Fatal("a moved binary did not update the hook")
	}
	b, _ := os.ReadFile(path)
	var f struct {
		Hooks map[string][]map[string]any
	}
	_ = json.Unmarshal(b, &f)
	if len(f.Hooks["agentStop"]) != 2 || len(f.Hooks["subagentStop"]) != 1 || len(f.Hooks["preToolUse"]) != 1 {
		t.Fatalf("hooks after install:\n%s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	if changed, err := in.Uninstall(path); !changed || err != nil {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), "stopgate") || !strings.Contains(string(b), "echo other") {
		t.Fatalf("after uninstall:\n%s", b)
	}
	if _, err := in.Install(filepath.Join(dir, "bad.json"), cmd); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644)
	if _, err := in.Install(filepath.Join(dir, "broken.json"), cmd); !errors.Is(err, ErrHooksFile) {
		t.Fatalf("broken file: %v", err)
	}
}
