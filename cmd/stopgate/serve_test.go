package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stopgate/stopgate/server"
	"github.com/stopgate/stopgate/store"
)

func TestServeHelp(t *testing.T) {
	out, _, code := runCmd(t, "", "help", "serve")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"POST /v1/decide", "GET  /v1/events", "/metrics", "--addr", "--token", "STOPGATE_TOKEN",
		"Stopgate-Recorded", "SIGTERM", "--no-record", "--store", "--mode", "curl"} {
		if !strings.Contains(out, want) {
			t.Errorf("help serve does not mention %q:\n%s", want, out)
		}
	}
	if list, _, _ := runCmd(t, "", "--help"); !strings.Contains(list, "serve") {
		t.Errorf("the command list does not name serve:\n%s", list)
	}
}

// TestServeUsageErrors: what serve refuses before it listens, each with exit 2 and a message
// naming the problem, and without creating the event log.
func TestServeUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a non-loopback address without a token", []string{"--addr", "0.0.0.0:0"}, "requires a token: set --token or STOPGATE_TOKEN"},
		{"arguments", []string{"extra"}, `unexpected arguments ["extra"]`},
		{"a bad log level", []string{"--log-level", "loud"}, `--log-level "loud"`},
		{"a body limit of zero", []string{"--max-body", "0"}, "--max-body 0"},
		{"a bad budget", []string{"--budget", "stalls=1"}, `"stalls" is not a check`},
		{"a missing config file", []string{"--config", "/nonexistent/config.toml"}, "/nonexistent/config.toml"},
		{"a model without its key", []string{"--model", "openai:gpt-5-mini"}, "OPENAI_API_KEY"},
		{"a negative retention", []string{"--retain-events", "-1"}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "events.db")
			args := append([]string{"serve", "--store", db}, tt.args...)
			_, errOut, code := runCmd(t, "", args...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, exitUsage, tt.want)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("the event log was created: %v", err)
			}
		})
	}
}

// TestServeInProcess runs the command in-process until its context ends.
func TestServeInProcess(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "events.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, w := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--store", db, "--mode", "autonomous"}, env{
			stdin: strings.NewReader(""), stdout: w, stderr: &stderr, getenv: func(string) string { return "" },
		})
		w.Close()
	}()
	url := firstLine(t, stdout)
	go io.Copy(io.Discard, stdout)

	resp, body := request(t, "POST", url+"/v1/decide", `{"session":"in-process","message":{"text":"Shall I proceed?"}}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, `"verdict":"continue"`) || resp.Header.Get(server.HeaderRecorded) != "true" {
		t.Errorf("--mode autonomous makes a permission-ask a stall: %d %s %s", resp.StatusCode, resp.Header.Get(server.HeaderRecorded), body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
	assertDecisions(t, db, "in-process", 1)
}

// TestServeRetention checks that serve applies its retention bound: a log holding more events
// than --retain-events keeps only the newest once serve has started (the pruner runs right
// after the store opens).
func TestServeRetention(t *testing.T) {
	db := filepath.Join(t.TempDir(), "events.db")
	turns := strings.Repeat(`{"session":"old","message":{"text":"Done."}}`+"\n", 5)
	if _, stderr, code := runCmd(t, turns, "decide", "--store", db); code != 0 {
		t.Fatalf("decide: exit %d, %s", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, w := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--store", db, "--retain-events", "3", "--no-record"}, env{
			stdin: strings.NewReader(""), stdout: w, stderr: &stderr, getenv: func(string) string { return "" },
		})
		w.Close()
	}()
	url := firstLine(t, stdout)
	go io.Copy(io.Discard, stdout)
	// Wait (bounded by the test's deadline, not a timer) until the pruner has run.
	for {
		_, body := request(t, "GET", url+"/v1/events?limit=1000", "", nil)
		if n := strings.Count(body, `"kind":`); n <= 3 {
			if n != 3 {
				t.Errorf("%d events kept, want the newest 3", n)
			}
			break
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// TestServeSubprocess builds stopgate, runs 'stopgate serve' on a free loopback port, talks to
// it, and stops it with SIGTERM.
func TestServeSubprocess(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "stopgate")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tests := []struct {
		name  string
		args  []string
		env   []string
		auth  http.Header
		check func(t *testing.T, url string)
	}{
		{name: "loopback, no token"},
		{name: "a token from the environment", env: []string{"STOPGATE_TOKEN=tok3n"},
			auth: http.Header{"Authorization": {"Bearer tok3n"}},
			check: func(t *testing.T, url string) {
				if resp, _ := request(t, "POST", url+"/v1/decide", `{}`, nil); resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("no token: %d", resp.StatusCode)
				}
			}},
		{name: "no recording", args: []string{"--no-record"}},
		{name: "one append per decision", args: []string{"--group-commit=false", "--full-sync"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "events.db")
			cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--store", db}, tt.args...)...)
			cmd.Env = append([]string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_STATE_HOME=" + dir, "PATH=" + os.Getenv("PATH")}, tt.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill() // should the test fail before SIGTERM
			url := firstLine(t, stdout)
			if !strings.HasPrefix(url, "http://127.0.0.1:") {
				t.Fatalf("printed %q, want the URL", url)
			}

			resp, body := request(t, "GET", url+"/healthz", "", nil)
			if resp.StatusCode != 200 || strings.TrimSpace(body) != `{"status":"ok"}` {
				t.Errorf("/healthz: %d %s", resp.StatusCode, body)
			}
			resp, body = request(t, "POST", url+"/v1/decide", `{"session":"sub","message":{"text":"Let me check the tests."}}`, tt.auth)
			if resp.StatusCode != 200 || !strings.Contains(body, `"verdict":"continue"`) {
				t.Errorf("/v1/decide: %d %s", resp.StatusCode, body)
			}
			recorded := slices.Contains(tt.args, "--no-record")
			wantHeader := map[bool]string{false: "true", true: "off"}[recorded]
			if got := resp.Header.Get(server.HeaderRecorded); got != wantHeader {
				t.Errorf("%s %q, want %q", server.HeaderRecorded, got, wantHeader)
			}
			if resp, body := request(t, "GET", url+"/", "", tt.auth); resp.StatusCode != 200 || !strings.Contains(body, "<html") {
				t.Errorf("the dashboard at /: %d %.200s", resp.StatusCode, body)
			}
			if tt.check != nil {
				tt.check(t, url)
			}

			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("after SIGTERM: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "msg=stopped") {
				t.Errorf("no clean stop in the log:\n%s", stderr.String())
			}
			want := 1
			if recorded {
				want = 0
			}
			assertDecisions(t, db, "sub", want)
		})
	}
}

// TestServeMatchesCommands sends the same input to each command and to its endpoint: the
// answers are the same bytes.
func TestServeMatchesCommands(t *testing.T) {
	srv, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tests := []struct {
		cmd  []string
		path string
		in   string
	}{
		{[]string{"classify", "error"}, "/v1/classify/error", `{"provider":"openai","status":400,"body":{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}}`},
		{[]string{"classify", "stop"}, "/v1/classify/stop", `{"payload":{"candidates":[{"finishReason":"SAFETY"}]}}`},
		{[]string{"classify", "stop"}, "/v1/classify/stop", `{"provider":"openai","payload":{"usage":{"total_tokens":3}}}`},
		{[]string{"stall"}, "/v1/stall", `{"text":"Progress.\n<todo>\n- [x] parse\n- [ ] test & ship\n</todo>"}`},
		{[]string{"gate"}, "/v1/gate", `{"run_started_at":"2026-08-23T10:00:00Z","subagents":[{"id":"a1","status":"running","started_at":"2026-08-23T10:02:00Z"}]}`},
		{[]string{"salvage"}, "/v1/salvage", `{"status":400,"body":"{\"error\":{\"message\":\"Failed to call a function.\",\"code\":\"tool_use_failed\",\"failed_generation\":\"All tests pass.\\n<function=suggest_followups>{\\\"suggestions\\\":[\\\"Ship it\\\"]}</function>\"}}"}`},
		{[]string{"decide"}, "/v1/decide", `{"message":{"text":"I added <b>the endpoint</b> & docs. Now I'll run the tests:"},"todos":[{"content":"x","status":"completed"}]}`},
		{[]string{"decide"}, "/v1/decide", `{"error":{"provider":"anthropic","status":529}}`},
	}
	for _, tt := range tests {
		cli, errOut, code := runCmd(t, tt.in+"\n", tt.cmd...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.cmd, code, errOut)
		}
		_, api := request(t, "POST", ts.URL+tt.path, tt.in, nil)
		if cli != api {
			t.Errorf("%s and %s differ:\ncli: %s\napi: %s", strings.Join(tt.cmd, " "), tt.path, cli, api)
		}
	}
}

// firstLine reads the first line of r.
func firstLine(t *testing.T, r io.Reader) string {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (got %q)", err, line)
	}
	return strings.TrimSpace(line)
}

// request makes one request and returns the response and its body.
func request(t *testing.T, method, url, body string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// assertDecisions opens the event log at db and checks it holds n decisions of session.
func assertDecisions(t *testing.T, db, session string, n int) {
	t.Helper()
	st, err := store.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Query(context.Background(), store.Filter{Kind: store.KindDecision, Session: session})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != n {
		t.Errorf("%d decisions of session %q recorded, want %d", len(evs), session, n)
	}
	for _, e := range evs {
		var d map[string]any
		if err := json.Unmarshal(e.Payload, &d); err != nil || d["verdict"] == nil {
			t.Errorf("payload %s: %v", e.Payload, err)
		}
	}
}
