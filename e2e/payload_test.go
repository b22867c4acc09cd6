package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// payloadFixture is a real Stop hook payload from Claude Code 2.1.332, captured by
// TestClaudeCodeUnreadBackgroundProcess at its first stop (a background shell in flight) and
// sanitized: ids and temporary paths replaced by fixed stand-ins, the key order and every
// value's type kept. Regenerate it with
//
//	go test ./e2e -run TestClaudeCodeUnreadBackgroundProcess -record-payload
//
// Every scenario checks each live payload against its shape (see assertPayloadShape), so a
// Claude Code that adds, drops or retypes a field fails the suite.
const payloadFixture = "testdata/claude-code-2.1.332-stop.json"

// The stand-ins the sanitized fixture uses.
const (
	fixtureSession = "00000000-0000-4000-8000-000000000001"
	fixturePrompt  = "00000000-0000-4000-8000-000000000002"
	fixtureHome    = "/home/user"
	fixtureProject = "/home/user/project"
	fixtureTmp     = "/tmp"
)

// loadFixture reads the recorded payload.
func loadFixture(t *testing.T) map[string]any {
	t.Helper()
	return loadPayloadFixture(t, payloadFixture, "Stop payload", "-record-payload")
}

// shape describes a JSON value's structure: its kind, and for an object the shapes of its
// fields, for an array the shape of its first element.
func shape(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + shape(v[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		if len(v) == 0 {
			return "[]"
		}
		return "[" + shape(v[0]) + "]"
	case string:
		return "string"
	case bool:
		return "bool"
	case float64:
		return "number"
	case nil:
		return "null"
	}
	return "?"
}

// assertPayloadShape checks that a live payload has the recorded payload's fields with the
// same JSON types. Arrays are compared by their first element where both have one; an empty
// array matches any array.
func assertPayloadShape(t *testing.T, p map[string]any) {
	t.Helper()
	want := loadFixture(t)
	var keys []string
	for k := range p {
		keys = append(keys, k)
	}
	for k := range want {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		g, gok := p[k]
		w, wok := want[k]
		switch {
		case !gok:
			t.Errorf("the Stop payload lacks %q, which %s has", k, payloadFixture)
		case !wok:
			t.Errorf("the Stop payload has %q (%s), which %s lacks", k, shape(g), payloadFixture)
		case shape(g) == "[]" && strings.HasPrefix(shape(w), "["):
		case shape(w) == "[]" && strings.HasPrefix(shape(g), "["):
		case shape(g) != shape(w):
			t.Errorf("the Stop payload's %q is %s, %s has %s", k, shape(g), payloadFixture, shape(w))
		}
	}
}

// recordStopPayload writes the session's i-th Stop payload, sanitized, to payloadFixture.
func recordStopPayload(t *testing.T, s *session, i int) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(s.capture, "stop-*.json"))
	if err != nil || len(names) <= i {
		t.Fatalf("no stop payload %d to record (%v)", i, err)
	}
	sort.Strings(names)
	raw, err := os.ReadFile(names[i])
	if err != nil {
		t.Fatal(err)
	}
	p := s.payloads()[i]
	text := string(raw)
	// Longest first: the project's encoded form in transcript_path, then the paths.
	base := filepath.Dir(s.home)
	repl := []string{
		p["session_id"].(string), fixtureSession,
		p["prompt_id"].(string), fixturePrompt,
		encodeProjectDir(s.project), encodeProjectDir(fixtureProject),
		s.project, fixtureProject,
		s.home, fixtureHome,
		filepath.Join(base, "tmp"), fixtureTmp,
	}
	text = strings.NewReplacer(repl...).Replace(text)
	if strings.Contains(text, base) {
		t.Fatalf("the sanitized payload still holds the test's directory %s:\n%s", base, text)
	}
	if err := os.WriteFile(payloadFixture, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", payloadFixture)
}

// encodeProjectDir is how Claude Code names a project's directory under ~/.claude/projects:
// the absolute path with every character that is not a letter or a digit replaced by '-'.
func encodeProjectDir(path string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, path)
}

// TestPayloadFixture checks the recorded payload itself: a Stop event with every field the
// hook package reads, and nothing left of the machine it was captured on.
func TestPayloadFixture(t *testing.T) {
	p := loadFixture(t)
	want := map[string]any{
		"session_id":             fixtureSession,
		"prompt_id":              fixturePrompt,
		"cwd":                    fixtureProject,
		"hook_event_name":        "Stop",
		"permission_mode":        "bypassPermissions",
		"stop_hook_active":       false,
		"last_assistant_message": "The job is running in the background.",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s: %s = %v, want %v", payloadFixture, k, p[k], v)
		}
	}
	tp, _ := p["transcript_path"].(string)
	if want := fixtureHome + "/.claude/projects/" + encodeProjectDir(fixtureProject) + "/" + fixtureSession + ".jsonl"; tp != want {
		t.Errorf("transcript_path = %q, want %q", tp, want)
	}
	tasks, _ := p["background_tasks"].([]any)
	if len(tasks) != 1 {
		t.Fatalf("background_tasks = %v, want one shell", p["background_tasks"])
	}
	task := tasks[0].(map[string]any)
	if task["type"] != "shell" || task["status"] != "running" || !strings.HasSuffix(task["command"].(string), "echo done-output; exit 3") {
		t.Errorf("background task %v", task)
	}
	if crons, ok := p["session_crons"].([]any); !ok || len(crons) != 0 {
		t.Errorf("session_crons = %v, want []", p["session_crons"])
	}
	b, _ := os.ReadFile(payloadFixture)
	for _, leak := range []string{"/tmp/Test", os.TempDir() + "/Test", "stopgate-e2e"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("%s holds %q", payloadFixture, leak)
		}
	}
}
