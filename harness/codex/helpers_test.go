package codex

import (
	"context"
	"encoding/json"
	"flag"
	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness/internal/harnesstest"
	"github.com/stopgate/stopgate/hook"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// Options are the hook driver's options, as the tests of the whole invocation set them.
type Options = hook.Options

// Codex runs one whole Codex hook invocation through the shared driver, as
// `stopgate hook codex` does.
func Codex(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, opts *Options) int {
	return hook.Run(ctx, stdin, stdout, stderr, Hook{}, opts)
}

// payloadJSON renders a payload as Claude Code would write it.
func payloadJSON(t *testing.T, p map[string]any) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkBlock checks stdout is exactly one {"decision":"block","reason":...} line, and returns
// the reason.
func checkBlock(t *testing.T, stdout string) string {
	t.Helper()
	if !strings.HasPrefix(stdout, `{"decision":"block","reason":"`) || !strings.HasSuffix(stdout, "\"}\n") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("stdout = %q, want one {\"decision\":\"block\",\"reason\":…} line", stdout)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	reason, _ := v["reason"].(string)
	if len(v) != 2 || v["decision"] != "block" || reason == "" {
		t.Fatalf("stdout = %s, want exactly decision and reason", stdout)
	}
	return reason
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

// goldenTurn renders a Turn for a golden file (harnesstest.GoldenTurn).
func goldenTurn(t *testing.T, tu stopgate.Turn) []byte { return harnesstest.GoldenTurn(t, tu) }
