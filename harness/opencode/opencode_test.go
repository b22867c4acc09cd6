package opencode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// payload is a session.idle payload in the shape the plugin sends, its messages as opencode
// 1.18.33's storage recorded them in a probe run (a prompt, a bash call, a stalled reply, the
// plugin's continuation, another stalled reply), and an open todo.
const payload = `{"hook_event_name":"session.idle","session_id":"ses_1","cwd":"/p","timestamp":1796165620500,
"stop_hook_active":true,"nudges":["Do the thing you promised."],
"messages":[
 {"info":{"id":"m1","role":"user","time":{"created":1796165603161}},"parts":[{"type":"text","text":"say hi"}]},
 {"info":{"id":"m2","role":"assistant","finish":"tool-calls","time":{"created":1796165608783}},"parts":[{"type":"step-start"},{"type":"text","text":"Plan."},{"type":"tool","tool":"bash","callID":"call_1","state":{"status":"completed","input":{"command":"echo hi"},"output":"hi\n"}}]},
 {"info":{"id":"m3","role":"assistant","finish":"stop","time":{"created":1796165619403}},"parts":[{"type":"text","text":"All done. Let me check the logs."}]},
 {"info":{"id":"m4","role":"user","time":{"created":1796165620435}},"parts":[{"type":"text","text":"Do the thing you promised."}]},
 {"info":{"id":"m5","role":"assistant","finish":"stop","time":{"created":1796165620440}},"parts":[{"type":"text","text":"Let me check the logs."}]}
],
"todos":[{"content":"Update the changelog","status":"pending","priority":"medium"}]}`

func TestDecodeAndTurn(t *testing.T) {
	p, err := DecodePayload(strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	if p.Event() != EventIdle || !p.StopHookActive || len(p.Messages) != 5 || len(p.Todos) != 1 || len(p.Ignored) != 0 {
		t.Fatalf("payload = %+v", p)
	}
	turn := Turn(p.SessionID, p.Messages, p.Todos, p.Nudges, time.UnixMilli(p.Timestamp))
	if turn.Message == nil || turn.Message.Text != "Let me check the logs." || turn.Message.FinishReason != "stop" {
		t.Errorf("message = %+v", turn.Message)
	}
	// The continuation does not start a run: the run is the prompt's.
	if !turn.RunStartedAt.Equal(time.UnixMilli(1796165603161)) {
		t.Errorf("run started %v, want the prompt's time", turn.RunStartedAt)
	}
	if len(turn.Steps) != 3 || turn.Steps[0].Tool != "bash" || turn.Steps[0].Result != "hi\n" {
		t.Errorf("steps = %+v", turn.Steps)
	}
	if len(turn.Todos) != 1 || !turn.Todos[0].Open() || turn.HostWakes == nil || *turn.HostWakes {
		t.Errorf("todos %+v hostwakes %v", turn.Todos, turn.HostWakes)
	}
	if got := Stops(p.Messages); len(got) != 2 || got[0] != 3 || got[1] != 5 {
		t.Errorf("stops = %v, want [3 5]", got)
	}
}

func TestDecodePayloadErrors(t *testing.T) {
	for _, in := range []string{"", "[]", "null", `{"a":1} {}`} {
		if _, err := DecodePayload(strings.NewReader(in)); !errors.Is(err, ErrPayload) {
			t.Errorf("%q: err = %v, want ErrPayload", in, err)
		}
	}
	p, err := DecodePayload(strings.NewReader(`{"session_id":1,"messages":[{"info":3},{"info":{"role":"user"}}],"todos":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 || strings.Join(p.Ignored, ",") != "session_id,messages[…],todos" || p.Todos != nil {
		t.Errorf("payload = %+v", p)
	}
}

func FuzzDecodePayload(f *testing.F) {
	f.Add(payload)
	f.Add(`{"messages":[{"parts":[{"type":"tool","state":{"status":"running"}}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := DecodePayload(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrPayload) {
				t.Fatalf("error not wrapping ErrPayload: %v", err)
			}
			return
		}
		_ = Turn(p.SessionID, p.Messages, p.Todos, p.Nudges, time.Time{})
		_ = Stops(p.Messages)
	})
}

func TestInstaller(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.json")
	os.WriteFile(path, []byte(`{"model":"x/y","plugin":["opencode-wakatime"]}`), 0o644)
	in := Installer{}
	cmd := in.Command("/opt/stopgate", "--", "--state-dir=/s")
	for i, want := range []bool{true, false} {
		changed, err := in.Install(path, cmd)
		if err != nil || changed != want {
			t.Fatalf("install %d: %v %v, want %v", i, changed, err, want)
		}
	}
	var cfg struct {
		Model  string
		Plugin []string
	}
	b, _ := os.ReadFile(path)
	_ = json.Unmarshal(b, &cfg)
	if cfg.Model != "x/y" || len(cfg.Plugin) != 2 || cfg.Plugin[0] != "opencode-wakatime" || !strings.HasSuffix(cfg.Plugin[1], "/"+PluginFileName) {
		t.Fatalf("config after install:\n%s", b)
	}
	src, err := os.ReadFile(filepath.Join(dir, PluginFileName))
	quoted, _ := json.Marshal(cmd)
	if err != nil || !strings.Contains(string(src), "const COMMAND = "+string(quoted)+";") || strings.Contains(string(src), "__STOPGATE_") {
		t.Fatalf("plugin source lacks the command: %v", err)
	}
	if changed, err := in.Uninstall(path); !changed || err != nil {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), PluginFileName) || !strings.Contains(string(b), "opencode-wakatime") {
		t.Fatalf("after uninstall:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, PluginFileName)); !os.IsNotExist(err) {
		t.Error("the plugin file is still there")
	}
	os.WriteFile(path, []byte("{ // comment\n}"), 0o644)
	if _, err := in.Install(path, cmd); !errors.Is(err, ErrConfig) {
		t.Errorf("a JSONC file: %v, want ErrConfig", err)
	}
}
