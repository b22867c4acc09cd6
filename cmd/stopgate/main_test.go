package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/stopgate/stopgate"
	"strings"
	"testing"
)

// runCmd runs one command line in-process with stdin and returns stdout, stderr and the exit
// status.
func runCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, env{
		stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut,
		getenv: func(string) string { return "" },
	})
	return out.String(), errOut.String(), code
}

// decodeLines decodes every JSON line of out into a map.
func decodeLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line is not JSON: %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

func TestHelp(t *testing.T) {
	out, _, code := runCmd(t, "", "--help")
	if code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, c := range []string{"classify error", "classify stop"} {
		if !strings.Contains(out, c) {
			t.Errorf("--help does not list %q:\n%s", c, out)
		}
	}
	help, _, code := runCmd(t, "", "help", "classify", "error")
	if code != 0 || !strings.Contains(help, `"provider"`) || !strings.Contains(help, "retryable_after_remedy") {
		t.Errorf("help classify error (exit %d) does not describe input and output:\n%s", code, help)
	}
	flagHelp, _, code := runCmd(t, "", "classify", "stop", "--help")
	if code != 0 || !strings.Contains(flagHelp, "payload") {
		t.Errorf("classify stop --help (exit %d):\n%s", code, flagHelp)
	}
	group, _, code := runCmd(t, "", "help", "classify")
	if code != 0 || !strings.Contains(group, "error") || !strings.Contains(group, "stop") {
		t.Errorf("help classify (exit %d):\n%s", code, group)
	}
}

func TestUnknownCommand(t *testing.T) {
	_, errOut, code := runCmd(t, "", "frobnicate")
	if code != exitUsage || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCmd(t, "", "classify", "nonsense")
	if code != exitUsage || !strings.Contains(errOut, `unknown subcommand "nonsense"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCmd(t, "", "help", "nonsense")
	if code != exitUsage || !strings.Contains(errOut, "unknown command") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	_, _, code = runCmd(t, "")
	if code != exitUsage {
		t.Errorf("no arguments: exit %d, want %d", code, exitUsage)
	}
}

func TestClassifyError(t *testing.T) {
	in := strings.Join([]string{
		`{"provider":"openai","status":429,"body":"{\"error\":{\"message\":\"Rate limit reached for gpt-4o\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"}`,
		`{"provider":"openai","status":400,"body":{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}}`,
		`this is not json`,
		`{"provider":"anthropic","status":529,"body":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}`,
		``,
		`{"status":"abc"}`,
		`{"name":"AbortError"}`,
		`{}`,
	}, "\n")
	out, errOut, code := runCmd(t, in, "classify", "error")
	if code != exitUsage {
		t.Errorf("exit %d, want %d because lines were malformed; stderr %q", code, exitUsage, errOut)
	}
	lines := decodeLines(t, out)
	want := []struct {
		category string
		errSub   string
	}{
		{category: "rate_limited"},
		{category: "context_overflow"},
		{errSub: "line 3: not valid JSON"},
		{category: "provider_error"},
		{errSub: `line 6: field "status"`},
		{category: "cancelled"},
		{category: "unknown"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d output lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		got := lines[i]
		if w.errSub != "" {
			if msg, _ := got["error"].(string); !strings.Contains(msg, w.errSub) {
				t.Errorf("line %d: error %q, want it to contain %q", i+1, msg, w.errSub)
			}
			continue
		}
		if got["category"] != w.category {
			t.Errorf("line %d: category %v, want %s (%v)", i+1, got["category"], w.category, got)
		}
		for _, k := range []string{"source", "site", "detail", "provider", "retryable_as_is", "retryable_after_remedy", "remedy"} {
			if _, ok := got[k]; !ok {
				t.Errorf("line %d: key %q missing: %v", i+1, k, got)
			}
		}
	}
	if lines[1]["remedy"] != "reduce-context" || lines[1]["source"] != "exception" || lines[1]["site"] != "classify.error" {
		t.Errorf("overflow line: %v", lines[1])
	}
	if lines[0]["retryable_after_remedy"] != true || lines[0]["remedy"] != "back-off" {
		t.Errorf("rate limit posture: %v", lines[0])
	}
}

func TestClassifyStop(t *testing.T) {
	in := strings.Join([]string{
		`{"provider":"anthropic","payload":{"stop_reason":"max_tokens"}}`,
		`{"provider":"openai","payload":{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}]}}`,
		`{"provider":"openai","payload":{"usage":{"total_tokens":3}}}`,
		`{"payload":{"candidates":[{"finishReason":"SAFETY"}]}}`,
		`{"provider":"anthropic","payload":`,
	}, "\n")
	out, _, code := runCmd(t, in, "classify", "stop")
	if code != exitUsage {
		t.Errorf("exit %d, want %d (the last line is truncated)", code, exitUsage)
	}
	lines := decodeLines(t, out)
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), out)
	}
	if lines[0]["category"] != "output_truncated" || lines[0]["detail"] != "max_tokens" || lines[0]["source"] != "metadata" {
		t.Errorf("max_tokens: %v", lines[0])
	}
	if lines[1]["category"] != "completed" {
		t.Errorf("ordinary finish: %v", lines[1])
	}
	if v, ok := lines[2]["category"]; !ok || v != nil {
		t.Errorf("no token: category must be null, got %v (present %t)", v, ok)
	}
	if lines[3]["category"] != "content_refusal" || lines[3]["provider"] != "google" {
		t.Errorf("gemini safety: %v", lines[3])
	}
	if msg, _ := lines[4]["error"].(string); !strings.HasPrefix(msg, "line 5:") {
		t.Errorf("truncated line: %v", lines[4])
	}
}

func TestClassifyRejectsArguments(t *testing.T) {
	_, errOut, code := runCmd(t, "", "classify", "error", "extra")
	if code != exitUsage || !strings.Contains(errOut, "takes no arguments") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestEachLineLongLine(t *testing.T) {
	long := `{"body":"` + strings.Repeat("x", maxLine+10) + `"}`
	var out bytes.Buffer
	bad, err := eachLine(strings.NewReader(long+"\n{}\n"), &out, func(in errorInput) (any, error) {
		return map[string]string{"ok": "yes"}, nil
	})
	if err != nil || bad != 1 {
		t.Fatalf("bad=%d err=%v", bad, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "line 1: longer than") || !strings.Contains(lines[1], `"ok"`) {
		t.Errorf("output %q", out.String())
	}
}

func TestGate(t *testing.T) {
	in := strings.Join([]string{
		// A test run started this run that failed and was never read: blocks.
		`{"now":"2026-08-23T10:05:00Z","run_started_at":"2026-08-23T10:00:00Z","processes":[{"id":"p1","command":"go test ./...","started_at":"2026-08-23T10:01:00Z","status":"exited","exited_at":"2026-08-23T10:04:00Z","exit_code":1,"log_size":512}]}`,
		// The same, read after it exited: resolved.
		`{"run_started_at":"2026-08-23T10:00:00Z","processes":[{"id":"p1","command":"go test ./...","started_at":"2026-08-23T10:01:00Z","status":"exited","exited_at":"2026-08-23T10:04:00Z","exit_code":1,"read_offset":512,"log_size":512,"last_read_at":"2026-08-23T10:04:30Z"}]}`,
		// A dev server from an earlier run: never blocks.
		`{"run_started_at":"2026-08-23T10:00:00Z","processes":[{"id":"dev","command":"npm run dev","started_at":"2026-08-23T09:00:00Z","status":"running"}]}`,
		// A sub-agent still running blocks before any process.
		`{"run_started_at":"2026-08-23T10:00:00Z","subagents":[{"id":"a1","status":"running","started_at":"2026-08-23T10:02:00Z"}],"processes":[{"id":"p1","command":"make","started_at":"2026-08-23T10:01:00Z","status":"running"}]}`,
		// Budget spent: silent.
		`{"run_started_at":"2026-08-23T10:00:00Z","processes":[{"id":"p1","command":"make","started_at":"2026-08-23T10:01:00Z","status":"running"}],"injections":{"processes":2,"subagents":0}}`,
		`{"processes":"nope"}`,
	}, "\n")
	out, _, code := runCmd(t, in, "gate")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	lines := decodeLines(t, out)
	if len(lines) != 6 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	want := []struct {
		blocked bool
		gate    string
	}{{true, "processes"}, {false, "none"}, {false, "none"}, {true, "subagents"}, {false, "none"}}
	for i, w := range want {
		if lines[i]["blocked"] != w.blocked || lines[i]["gate"] != w.gate {
			t.Errorf("line %d: blocked=%v gate=%v, want %t %s (%v)", i+1, lines[i]["blocked"], lines[i]["gate"], w.blocked, w.gate, lines[i])
		}
	}
	if msg, _ := lines[0]["message"].(string); !strings.Contains(msg, "go test ./...") {
		t.Errorf("the gate message does not name the command: %q", msg)
	}
	if ex, _ := lines[4]["exhausted"].([]any); len(ex) != 1 || ex[0] != "processes" {
		t.Errorf("spent budget: exhausted = %v", lines[4]["exhausted"])
	}
	if msg, _ := lines[5]["error"].(string); !strings.HasPrefix(msg, "line 6:") || !strings.Contains(msg, "processes") {
		t.Errorf("bad line: %v", lines[5])
	}
}

func TestSalvage(t *testing.T) {
	body := `{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"The build is green and all tests pass.\n<function=suggest_followups>{\"suggestions\":[\"Ship it\"]}</function>"}}`
	bodyJSON, _ := json.Marshal(body)
	in := strings.Join([]string{
		`{"status":400,"body":` + string(bodyJSON) + `}`,
		`{"status":400,"body":{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools"}}}`,
		`{"status":"x"}`,
	}, "\n")
	out, _, code := runCmd(t, in, "salvage")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	lines := decodeLines(t, out)
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	if lines[0]["salvaged"] != true || !strings.Contains(lines[0]["content"].(string), "all tests pass") || lines[0]["failure"] != "tool_use_failed" {
		t.Errorf("salvage: %v", lines[0])
	}
	if lines[1]["salvaged"] != false || lines[1]["failure"] != "tools_unsupported" {
		t.Errorf("tools unsupported: %v", lines[1])
	}
	if _, ok := lines[1]["followups"]; !ok {
		t.Errorf("followups must always be present: %v", lines[1])
	}
	if msg, _ := lines[2]["error"].(string); !strings.Contains(msg, `field "status"`) {
		t.Errorf("bad status: %v", lines[2])
	}
}

func TestStall(t *testing.T) {
	in := strings.Join([]string{
		`{"text":"I updated the parser. Let me check the tests."}`,
		`{"text":"All tests pass and the docs are updated."}`,
		`{"text":"Shall I proceed with the migration?","mode":"autonomous"}`,
		`{"text":"Shall I proceed with the migration?","mode":"interactive"}`,
		`{"text":"I keep running the same command.","metadata":{"livelocked":true}}`,
		`{"text":"Progress.\n<todo>\n- [x] parse\n- [ ] test\n</todo>"}`,
		`{"text":"x","mode":"sleepy"}`,
	}, "\n")
	out, _, code := runCmd(t, in, "stall")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	lines := decodeLines(t, out)
	if len(lines) != 7 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	want := []struct {
		stalled bool
		by      string
	}{{true, "lexical"}, {false, "none"}, {true, "lexical"}, {false, "none"}, {true, "livelock"}, {true, "todo"}}
	for i, w := range want {
		if lines[i]["stalled"] != w.stalled || lines[i]["by"] != w.by {
			t.Errorf("line %d: %v, want stalled=%t by=%s", i+1, lines[i], w.stalled, w.by)
		}
	}
	if lines[0]["sentence"] != "Let me check the tests." {
		t.Errorf("sentence %q", lines[0]["sentence"])
	}
	if msg, _ := lines[6]["error"].(string); !strings.Contains(msg, `"mode"`) {
		t.Errorf("bad mode: %v", lines[6])
	}
}

func TestStallModelFlag(t *testing.T) {
	_, errOut, code := runCmd(t, "", "stall", "--model", "openai:gpt-5-mini")
	if code != exitUsage || !strings.Contains(errOut, "OPENAI_API_KEY") {
		t.Errorf("a missing key must be named: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCmd(t, "", "stall", "--model", "nonsense")
	if code != exitUsage || !strings.Contains(errOut, "--model") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestDecide(t *testing.T) {
	in := strings.Join([]string{
		`{"message":{"text":"I added the endpoint. Now I'll run the tests:"}}`,
		`{"message":{"text":"I added the endpoint. Now I'll run the tests:"},"nudges":{"consecutive":1,"given":{"stall":2}}}`,
		`{"error":{"provider":"anthropic","status":529,"body":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}}`,
		`{"now":"2026-08-23T10:10:00Z","message":{"text":"Let me look at the chart."},"jobs":[{"id":"j1","label":"npm test","status":"running"}]}`,
		`{"message":"not an object"}`,
	}, "\n")
	out, _, code := runCmd(t, in, "decide")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	lines := decodeLines(t, out)
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	want := []struct{ verdict, check string }{
		{"continue", "stall"}, {"stop", "completed"}, {"retry", "error"}, {"stop", "pending_wake"},
	}
	for i, w := range want {
		if lines[i]["verdict"] != w.verdict || lines[i]["check"] != w.check {
			t.Errorf("line %d: verdict %v check %v, want %s %s", i+1, lines[i]["verdict"], lines[i]["check"], w.verdict, w.check)
		}
		if trail, _ := lines[i]["trail"].([]any); len(trail) != len(stopgate.Checks()) {
			t.Errorf("line %d: trail of %d checks", i+1, len(trail))
		}
	}
	if msg, _ := lines[0]["message"].(string); !strings.Contains(msg, "Now I'll run the tests:") {
		t.Errorf("the nudge must quote the sentence: %q", msg)
	}
	if msg, _ := lines[4]["error"].(string); !strings.HasPrefix(msg, "line 5:") {
		t.Errorf("bad line: %v", lines[4])
	}
}

func TestDecideFlags(t *testing.T) {
	in := `{"message":{"text":"Shall I proceed?"}}` + "\n"
	out, _, code := runCmd(t, in, "decide", "--mode", "autonomous")
	if code != 0 || !strings.Contains(out, `"verdict":"continue"`) {
		t.Errorf("--mode autonomous: exit %d, %s", code, out)
	}
	out, _, code = runCmd(t, in, "decide", "--mode", "autonomous", "--off", "stall")
	if code != 0 || !strings.Contains(out, `"verdict":"stop"`) {
		t.Errorf("--off stall: exit %d, %s", code, out)
	}
	out, _, code = runCmd(t, in, "decide", "--mode", "autonomous", "--budget", "stall=0")
	if code != 0 || !strings.Contains(out, `"verdict":"stop"`) {
		t.Errorf("--budget stall=0: exit %d, %s", code, out)
	}
	_, errOut, code := runCmd(t, in, "decide", "--budget", "stalls=1")
	if code != exitUsage || !strings.Contains(errOut, `"stalls" is not a check`) {
		t.Errorf("bad budget: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCmd(t, in, "decide", "--config", "/nonexistent/config.toml")
	if code != exitUsage || !strings.Contains(errOut, "/nonexistent/config.toml") {
		t.Errorf("missing named config: exit %d, %q", code, errOut)
	}
}

func TestHookFailsOpenOnBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"hook", "claude-code", "--no-such-flag"},
		{"hook", "claude-code", "--state-dir"},
	} {
		out, errOut, code := runCmd(t, `{"last_assistant_message":"Let me check the tests."}`, args...)
		if code != 0 || out != "" || !strings.HasPrefix(errOut, "stopgate:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; a hook must fail open", args, code, out, errOut)
		}
	}
	// Other commands still refuse a bad command line.
	if _, _, code := runCmd(t, "", "decide", "--no-such-flag"); code != exitUsage {
		t.Errorf("decide --no-such-flag: exit %d", code)
	}
}
