package gemini

import (
	"context"
	"encoding/json"
	"flag"
	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/internal/harnesstest"
	"github.com/stopgate/stopgate/harness/internal/hooksfile"
	"github.com/stopgate/stopgate/harness/internal/turns"
	"github.com/stopgate/stopgate/hook"
	"github.com/stopgate/stopgate/model"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

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

func ptr[T any](v T) *T { return &v }

// payloadJSON renders a payload as Claude Code would write it.
func payloadJSON(t *testing.T, p map[string]any) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkFailOpen checks the stop proceeds with lines lines on stderr, each beginning
// "stopgate:", the last saying want.
func checkFailOpen(t *testing.T, stdout, stderr string, code, lines int, want string) {
	t.Helper()
	if code != 0 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout)
	}
	got := strings.SplitAfter(stderr, "\n")
	if got[len(got)-1] == "" {
		got = got[:len(got)-1]
	}
	if len(got) != lines {
		t.Errorf("stderr = %q, want %d line(s)", stderr, lines)
	}
	for _, l := range got {
		if !strings.HasPrefix(l, "stopgate: ") || !strings.HasSuffix(l, "\n") {
			t.Errorf("stderr line %q does not begin \"stopgate: \"", l)
		}
	}
	if len(got) == 0 || !strings.Contains(got[len(got)-1], want) || !strings.HasSuffix(got[len(got)-1], "letting the agent stop\n") {
		t.Errorf("stderr = %q, want it to end on %q and letting the agent stop", stderr, want)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// topLevel decodes a settings file's top-level members in order.
func topLevel(t *testing.T, data string) hooksfile.Object {
	t.Helper()
	obj, err := hooksfile.DecodeObject([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// semantic decodes JSON for a comparison that ignores white space.
func semantic(t *testing.T, data string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return v
}

// goldenTurn renders a Turn for a golden file (harnesstest.GoldenTurn).
func goldenTurn(t *testing.T, tu stopgate.Turn) []byte { return harnesstest.GoldenTurn(t, tu) }

// Options are the hook driver's options, as the tests of the whole invocation set them.
type Options = hook.Options

// GeminiCLI runs one whole Gemini CLI hook invocation through the shared driver, as
// `stopgate hook gemini-cli` does.
func GeminiCLI(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts *Options) int {
	return hook.Run(ctx, stdin, stdout, stderr, Hook{}, opts)
}

const (
	stalled   = "I fixed the parser. Let me run the tests."
	completed = "All tests pass and the change is pushed."
)

func fixedNow() time.Time { return time.Date(2026, 3, 1, 10, 5, 0, 0, time.UTC) }

type recorder struct {
	turns []stopgate.Turn
	decs  []stopgate.Decision
	err   error
	panic bool
}

func (r *recorder) Record(_ context.Context, t stopgate.Turn, d stopgate.Decision) error {
	if r.panic {
		panic("recorder broke")
	}
	r.turns, r.decs = append(r.turns, t), append(r.decs, d)
	return r.err
}

// turnJSON renders a Turn as compact JSON, for comparing two.
func turnJSON(t testing.TB, tu stopgate.Turn) string {
	t.Helper()
	b, err := json.Marshal(tu)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readText returns the contents of the file at path.
func readText(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// blockingClient is a model client that answers only when its context ends.
type blockingClient struct{}

func (blockingClient) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	<-ctx.Done()
	return model.Response{}, ctx.Err()
}

// maxSteps is the bound every Turn's steps keep to.
const maxSteps = turns.MaxSteps
