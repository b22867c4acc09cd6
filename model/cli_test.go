//go:build unix

package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate/termination"
)

// fakeClaude writes a stand-in for the claude executable into a temporary directory: a shell
// script that records its arguments and stdin next to itself, then runs body. It returns the
// script's path and the directory.
func fakeClaude(t *testing.T, body string) (path, dir string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "claude")
	script := "#!/bin/sh\n" +
		"for a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"" + dir + "/args\"\n" +
		"cat > \"" + dir + "/stdin\"\n" +
		body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

// printing returns a script body that prints the fixture and exits with code.
func printing(t *testing.T, name string, code int) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "claude-cli", name))
	if err != nil {
		t.Fatal(err)
	}
	return "cat '" + p + "'\nexit " + strconv.Itoa(code)
}

func newCLI(t *testing.T, path string) Client {
	t.Helper()
	c, err := New("claude-cli:haiku", &Options{CLIPath: path})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The CLI tests do not run in parallel: writing an executable while another test forks can
// make the exec fail with ETXTBSY.

func TestCLISuccess(t *testing.T) {
	path, dir := fakeClaude(t, printing(t, "success.json", 0))
	got, err := newCLI(t, path).Complete(context.Background(), classifierRequest)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := Response{Text: "NO", FinishReason: "end_turn", Provider: "claude-cli", Model: "claude-haiku-4-5-20251001"}
	if got != want {
		t.Errorf("Complete = %+v, want %+v", got, want)
	}

	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"-p", "--model", "haiku", "--output-format", "json", "--system-prompt", classifierRequest.System}
	if got := strings.Split(strings.TrimSuffix(string(args), "\n"), "\n"); !slices.Equal(got, wantArgs) {
		t.Errorf("args = %q, want %q", got, wantArgs)
	}
	stdin, err := os.ReadFile(filepath.Join(dir, "stdin"))
	if err != nil {
		t.Fatal(err)
	}
	if string(stdin) != classifierRequest.Prompt {
		t.Errorf("stdin = %q, want the prompt %q", stdin, classifierRequest.Prompt)
	}
}

func TestCLINoSystemPrompt(t *testing.T) {
	path, dir := fakeClaude(t, printing(t, "success.json", 0))
	if _, err := newCLI(t, path).Complete(context.Background(), Request{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "-p\n--model\nhaiku\n--output-format\njson\n"; string(args) != want {
		t.Errorf("args = %q, want %q", args, want)
	}
}

func TestCLIFailures(t *testing.T) {
	tests := []struct {
		name     string
		body     string // script body; "" means print the fixture
		fixture  string
		code     int
		category termination.Category
		provider string // the APIError's provider; "" for no APIError
		status   int
		message  string
	}{
		{name: "api error 529", fixture: "api-error-529.json", code: 1,
			category: termination.ProviderError, provider: "anthropic", status: 529, message: "Overloaded"},
		{name: "invalid api key", fixture: "invalid-api-key.json", code: 1,
			category: termination.AuthFailed, provider: "claude-cli", message: "Invalid API key · Please run /login"},
		{name: "max turns", fixture: "error-max-turns.json", code: 0,
			category: termination.RecursionLimit, provider: "claude-cli", message: "error_max_turns: Reached maximum number of turns (1)"},
		{name: "exit without result", body: "echo 'Error: Credit balance is too low' >&2\nexit 1",
			category: termination.AuthFailed, provider: "claude-cli", message: "claude exited with code 1: claude-cli: Error: Credit balance is too low"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body == "" {
				body = printing(t, tt.fixture, tt.code)
			}
			path, _ := fakeClaude(t, body)
			_, err := newCLI(t, path).Complete(context.Background(), classifierRequest)
			if err == nil {
				t.Fatal("Complete succeeded")
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("Error() = %q, want %q in it", err, tt.message)
			}
			apiErr, ok := errors.AsType[*termination.APIError](err)
			if !ok {
				t.Fatalf("error %v wraps no *termination.APIError", err)
			}
			if apiErr.Provider != tt.provider || apiErr.Status != tt.status {
				t.Errorf("APIError provider, status = %q, %d; want %q, %d", apiErr.Provider, apiErr.Status, tt.provider, tt.status)
			}
			assertReason(t, err, tt.category)
		})
	}
}

func TestCLIMalformedOutput(t *testing.T) {
	for name, body := range map[string]string{
		"not json":   "echo 'Welcome to Claude Code'",
		"not result": `echo '{"type":"assistant","message":{}}'`,
		"silent":     "exit 0",
	} {
		t.Run(name, func(t *testing.T) {
			path, _ := fakeClaude(t, body)
			_, err := newCLI(t, path).Complete(context.Background(), classifierRequest)
			if !errors.Is(err, ErrMalformedResponse) {
				t.Fatalf("err = %v, want ErrMalformedResponse", err)
			}
			assertReason(t, err, termination.ProviderError)
		})
	}
}

func TestCLIDeadline(t *testing.T) {
	// exec so the shell's sleep is the process the deadline kills.
	path, _ := fakeClaude(t, "exec sleep 60")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := newCLI(t, path).Complete(ctx, classifierRequest)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	assertReason(t, err, termination.Timeout)
}

func TestParseCLIResult(t *testing.T) {
	tests := []struct {
		name, out string
		want      cliResult
		wantErr   bool
	}{
		{name: "object", out: `{"type":"result","subtype":"success","is_error":false,"result":"YES","stop_reason":"end_turn"}`,
			want: cliResult{Type: "result", Subtype: "success", Result: "YES", StopReason: "end_turn"}},
		{name: "array takes the last result",
			out:  `[{"type":"system","subtype":"init"},{"type":"result","result":"first"},{"type":"assistant"},{"type":"result","subtype":"success","result":"last"}]`,
			want: cliResult{Type: "result", Subtype: "success", Result: "last"}},
		{name: "array without result", out: `[{"type":"system"}]`, wantErr: true},
		{name: "wrong type", out: `{"type":"assistant"}`, wantErr: true},
		{name: "blank", out: " \n", wantErr: true},
		{name: "truncated", out: `{"type":"result","res`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCLIResult([]byte(tt.out))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %t", err, tt.wantErr)
			}
			if got.Type != tt.want.Type || got.Subtype != tt.want.Subtype || got.Result != tt.want.Result || got.StopReason != tt.want.StopReason {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
