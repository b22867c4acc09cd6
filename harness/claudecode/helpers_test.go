package claudecode

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/hook"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/harness/claudecode/transcript"
	"github.com/stopgate/stopgate/internal/dataset"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// sharedFile returns the path of a file of the real Claude Code sessions of marot/spotter (MIT;
// see testdata/transcripts/claude-code/spotter/PROVENANCE.md at the repository's root): the
// repository's sample, else the evaluation data set, without which the test is skipped outside
// `make eval`.
func sharedFile(tb testing.TB, name string) string {
	tb.Helper()
	return dataset.Spotter(tb, name)
}

// golden compares got with testdata/golden/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test . -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run with -update and review the diff)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// jsonl builds a hand-written Claude Code transcript in the CLI 2.1.39 shape, one entry a line.
// Everything in it is made up: ids, times and text.
type jsonl struct {
	t     *testing.T
	id    string
	agent string // set for a sub-agent's own transcript (isSidechain, agentId)
	base  time.Time
	lines []string
	n     int
}

func newJSONL(t *testing.T, session string) *jsonl {
	return &jsonl{t: t, id: session, base: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
}

// at returns the time sec seconds after the transcript's base.
func (j *jsonl) at(sec float64) time.Time {
	return j.base.Add(time.Duration(sec * float64(time.Second)))
}

func (j *jsonl) entry(sec float64, typ string, fields map[string]any) {
	j.n++
	e := map[string]any{
		"type":        typ,
		"sessionId":   j.id,
		"uuid":        fmt.Sprintf("00000000-0000-4000-8000-%012d", j.n),
		"timestamp":   j.at(sec).Format(time.RFC3339Nano),
		"isSidechain": j.agent != "",
		"userType":    "external",
		"cwd":         "/work/demo",
		"version":     "2.1.39",
	}
	if j.agent != "" {
		e["agentId"] = j.agent
	}
	for k, v := range fields {
		e[k] = v
	}
	b, err := json.Marshal(e)
	if err != nil {
		j.t.Fatal(err)
	}
	j.lines = append(j.lines, string(b))
}

// prompt writes a prompt the user typed.
func (j *jsonl) prompt(sec float64, text string) {
	j.entry(sec, "user", map[string]any{"message": map[string]any{"role": "user", "content": text}})
}

// notification writes a delivered background-task notification (it starts a turn).
func (j *jsonl) notification(sec float64, id, status string, code int) {
	text := fmt.Sprintf("<task-notification>\n<task-id>%s</task-id>\n<status>%s</status>\n<summary>Background command \"x\" %s with exit code %d</summary>\n</task-notification>", id, status, status, code)
	j.entry(sec, "user", map[string]any{"message": map[string]any{"role": "user", "content": text}})
}

// say writes an assistant text block of message id; stop is its stop_reason ("" for null).
func (j *jsonl) say(sec float64, id, text, stop string) {
	j.assistant(sec, id, map[string]any{"type": "text", "text": text}, stop, false)
}

// apiError writes a synthetic API-error assistant message.
func (j *jsonl) apiError(sec float64, id, text string) {
	j.assistant(sec, id, map[string]any{"type": "text", "text": text}, "", true)
}

// call writes a tool_use block of message id.
func (j *jsonl) call(sec float64, id, toolID, name string, input any) {
	j.assistant(sec, id, map[string]any{"type": "tool_use", "id": toolID, "name": name, "input": input}, "", false)
}

func (j *jsonl) assistant(sec float64, id string, block map[string]any, stop string, apiErr bool) {
	var sr any
	if stop != "" {
		sr = stop
	}
	f := map[string]any{"message": map[string]any{
		"id": id, "model": "claude-opus-4-6", "role": "assistant", "type": "message",
		"content": []any{block}, "stop_reason": sr,
	}}
	if apiErr {
		f["isApiErrorMessage"] = true
	}
	j.entry(sec, "assistant", f)
}

// result writes the tool_result of toolID, with the entry's toolUseResult when structured is
// not nil.
func (j *jsonl) result(sec float64, toolID, text string, isErr bool, structured any) {
	f := map[string]any{"message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": toolID, "content": text, "is_error": isErr},
	}}}
	if structured != nil {
		f["toolUseResult"] = structured
	}
	j.entry(sec, "user", f)
}

// background writes a run_in_background Bash call and its start result for shell id.
func (j *jsonl) background(sec float64, msgID, toolID, id, command string) {
	j.call(sec, msgID, toolID, "Bash", map[string]any{"command": command, "run_in_background": true})
	j.result(sec+0.5, toolID, "Command running in background with ID: "+id+". Output is being written to: /tmp/claude/tasks/"+id+".output", false,
		map[string]any{"stdout": "", "stderr": "", "interrupted": false, "backgroundTaskId": id})
}

func (j *jsonl) String() string { return strings.Join(j.lines, "\n") + "\n" }

// read reads the transcript back.
func (j *jsonl) read() *transcript.Session {
	j.t.Helper()
	s, err := transcript.Read(strings.NewReader(j.String()), nil)
	if err != nil {
		j.t.Fatal(err)
	}
	return s
}

// write saves the transcript as a file in dir and returns its path.
func (j *jsonl) write(dir string) string {
	j.t.Helper()
	p := filepath.Join(dir, j.id+".jsonl")
	if err := os.WriteFile(p, []byte(j.String()), 0o644); err != nil {
		j.t.Fatal(err)
	}
	return p
}

func ptr[T any](v T) *T { return &v }

// Options are the hook driver's options with Claude Code's answer style, as the tests of the
// whole invocation set them.
type Options struct {
	Supervisor *stopgate.Supervisor
	StateDir   string
	Timeout    time.Duration
	Style      Style
	Now        func() time.Time
	Recorder   hook.Recorder
	// RecordTimeout is hook.Options.RecordTimeout.
	RecordTimeout time.Duration
}

// ClaudeCode runs one whole Claude Code hook invocation through the shared driver, as
// `stopgate hook claude-code` does.
func ClaudeCode(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts *Options) int {
	var o Options
	if opts != nil {
		o = *opts
	}
	return hook.Run(ctx, stdin, stdout, stderr, Hook{Style: o.Style}, &hook.Options{
		Supervisor: o.Supervisor, StateDir: o.StateDir, Timeout: o.Timeout, Now: o.Now, Recorder: o.Recorder,
		RecordTimeout: o.RecordTimeout,
	})
}
