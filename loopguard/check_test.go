package loopguard

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/termination"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Step builders for the vectors.

func call(tool, args, result string) Step { return Step{Tool: tool, Args: args, Result: result} }

func fail(tool, args, err string) Step { return Step{Tool: tool, Args: args, Error: err} }

func reply(text string) Step { return Step{Text: text} }

// times repeats s n times.
func times(n int, s ...Step) []Step {
	var out []Step
	for range n {
		out = append(out, s...)
	}
	return out
}

// seq concatenates step lists.
func seq(parts ...[]Step) []Step { return slices.Concat(parts...) }

var (
	readA  = call("read_file", `{"path":"a.go"}`, "package a")
	grepX  = call("grep", `{"pattern":"x"}`, "a.go:1: x")
	testKO = fail("bash", `{"cmd":"go test ./..."}`, "exit status 1")
)

// TestCheck holds the vectors: the anchors' scenarios at the default thresholds and at the
// anchors' own, and the false positives that matter.
func TestCheck(t *testing.T) {
	loopReason := termination.Control(termination.SiteToolLoopGuard, termination.ToolLoopGuard)
	budgetReason := termination.Control(termination.SiteToolErrorBudget, termination.ToolErrorBudget)

	tests := []struct {
		name    string
		cfg     Config
		steps   []Step
		action  Action
		pattern Pattern
		count   int
		reason  termination.Reason
	}{
		{name: "no steps", steps: nil, action: None},
		{name: "one call", steps: []Step{readA}, action: None},

		// Identical call, identical result.
		{name: "identical x2", steps: times(2, readA), action: None},
		{name: "identical x3 warns (Cline's soft limit)", steps: times(3, readA), action: Warn, pattern: RepeatedCall, count: 3},
		{name: "identical x4 after the warning", steps: times(4, readA), action: None},
		{name: "identical x5 halts (Gemini CLI, Cline's hard limit)", steps: times(5, readA), action: Halt, pattern: RepeatedCall, count: 5, reason: loopReason},
		{name: "identical x50 still halts", steps: times(50, readA), action: Halt, pattern: RepeatedCall, count: 5, reason: loopReason},
		{name: "OpenHands: 4 identical action-observation pairs", cfg: Config{RepeatedCall: Threshold{Halt: 4}}, steps: times(4, readA), action: Halt, pattern: RepeatedCall, count: 4, reason: loopReason},
		{name: "Roo Code limit 3: the 4th identical call is stopped", cfg: Config{RepeatedCall: Threshold{Warn: -1, Halt: 4}}, steps: times(4, readA), action: Halt, pattern: RepeatedCall, count: 4, reason: loopReason},
		{name: "origin middleware: loop guard threshold 3", cfg: Config{RepeatedCall: Threshold{Halt: 3}}, steps: times(3, readA), action: Halt, pattern: RepeatedCall, count: 3, reason: loopReason},
		{name: "origin middleware: WARN mode sets no reason", cfg: Config{RepeatedCall: Threshold{Warn: 3, Halt: -1}}, steps: times(3, readA), action: Warn, pattern: RepeatedCall, count: 3},
		{name: "WARN mode never halts", cfg: Config{RepeatedCall: Threshold{Warn: 3, Halt: -1}}, steps: times(40, readA), action: None},
		{name: "spellings of the same arguments are the same call", steps: []Step{
			call("read_file", `{"path":"a.go","limit":10}`, "x"),
			call("read_file", `{ "limit": 10, "path": "a.go" }`, "x"),
			call("read_file", "{\"path\":\"\\u0061.go\",\n\"limit\":10}", "x\n"),
		}, action: Warn, pattern: RepeatedCall, count: 3},
		{name: "text arguments", steps: times(5, call("shell", "ls -la", "total 0")), action: Halt, pattern: RepeatedCall, count: 5, reason: loopReason},

		// The same call failing.
		{name: "one failure", steps: []Step{testKO}, action: None},
		{name: "same call failed twice warns", steps: times(2, testKO), action: Warn, pattern: RepeatedError, count: 2},
		{name: "same call failed 3 times halts (OpenHands)", steps: times(3, testKO), action: Halt, pattern: RepeatedError, count: 3, reason: loopReason},
		{name: "same call failing with changing errors", steps: []Step{
			fail("fetch", `{"url":"u"}`, "timeout after 10.2s"),
			fail("fetch", `{"url":"u"}`, "timeout after 10.9s"),
			fail("fetch", `{"url":"u"}`, "connection reset"),
		}, action: Halt, pattern: RepeatedError, count: 3, reason: loopReason},
		{name: "OpenHands SDK: nudge at 3, halt at 4", cfg: Config{RepeatedError: Threshold{Warn: 3, Halt: 4}, ErrorBudget: -1}, steps: times(3, testKO), action: Warn, pattern: RepeatedError, count: 3},
		{name: "OpenHands SDK: the 4th halts", cfg: Config{RepeatedError: Threshold{Warn: 3, Halt: 4}, ErrorBudget: -1}, steps: times(4, testKO), action: Halt, pattern: RepeatedError, count: 4, reason: loopReason},

		// The tool-error budget.
		{name: "two different failures", steps: []Step{fail("a", "", "e1"), fail("b", "", "e2")}, action: None},
		{name: "origin middleware: tool-error budget cap 3", steps: []Step{fail("a", "", "e1"), fail("b", "", "e2"), fail("c", "", "e3")}, action: Halt, pattern: ConsecutiveErrors, count: 3, reason: budgetReason},
		{name: "budget of 5", cfg: Config{ErrorBudget: 5}, steps: []Step{fail("a", "", "e"), fail("b", "", "e"), fail("c", "", "e"), fail("d", "", "e")}, action: None},
		{name: "budget off", cfg: Config{ErrorBudget: -1}, steps: []Step{fail("a", "", "e"), fail("b", "", "e"), fail("c", "", "e")}, action: None},

		// Alternation.
		{name: "A B A", steps: times(1, readA, grepX, readA), action: None},
		{name: "A B A B warns", steps: times(2, readA, grepX), action: Warn, pattern: Alternation, count: 4},
		{name: "A B A B A", steps: seq(times(2, readA, grepX), []Step{readA}), action: None},
		{name: "A B x3 halts (OpenHands' 6)", steps: times(3, readA, grepX), action: Halt, pattern: Alternation, count: 6, reason: loopReason},
		{name: "alternating failures: the budget ends it first", steps: []Step{fail("a", "", "e"), fail("b", "", "e"), fail("a", "", "e")}, action: Halt, pattern: ConsecutiveErrors, count: 3, reason: budgetReason},

		// Replies.
		{name: "one empty reply", steps: []Step{readA, reply("")}, action: None},
		{name: "two empty replies warn (Roo Code's second strike)", steps: []Step{readA, reply(""), reply("  \n")}, action: Warn, pattern: EmptyReplies, count: 2},
		{name: "three empty replies halt (OpenHands)", steps: times(3, reply("")), action: Halt, pattern: EmptyReplies, count: 3, reason: loopReason},
		{name: "same reply twice warns", steps: []Step{reply("All done."), reply("All  done.\n")}, action: Warn, pattern: RepeatedMessage, count: 2},
		{name: "same reply 3 times halts (OpenHands monologue)", steps: times(3, reply("All done.")), action: Halt, pattern: RepeatedMessage, count: 3, reason: loopReason},
		{name: "different replies", steps: []Step{reply("Let me check."), reply("Checking now."), reply("Done.")}, action: None},
		{name: "replies are case-sensitive", steps: []Step{reply("done"), reply("Done")}, action: None},
		{name: "a call between replies breaks the monologue", steps: []Step{reply("All done."), readA, reply("All done.")}, action: None},

		// Where the steps end.
		{name: "closing words do not hide a loop", steps: seq(times(5, readA), []Step{reply("The file will not change; stopping.")}), action: Halt, pattern: RepeatedCall, count: 5, reason: loopReason},
		{name: "three closing replies are still the ending", steps: seq(times(5, readA), []Step{reply("a"), reply("b"), reply("c")}), action: Halt, pattern: RepeatedCall, count: 5, reason: loopReason},
		{name: "past that, an earlier loop is out of reach", steps: seq(times(5, readA), []Step{reply("a"), reply("b"), reply("c"), reply("d")}), action: None},
		{name: "closing words: a call pattern's warning is not due", steps: seq(times(3, readA), []Step{reply("Hmm.")}), action: None},
		{name: "a loop halt outranks a reply warning", steps: seq(times(5, readA), times(2, reply(""))), action: Halt, pattern: RepeatedCall, count: 5, reason: loopReason},
		{name: "a reply halt outranks nothing but comes out", steps: seq(times(3, readA), times(3, reply(""))), action: Halt, pattern: EmptyReplies, count: 3, reason: loopReason},

		// False positives that matter.
		{name: "polling a build that is progressing", steps: []Step{
			call("job_output", `{"id":"b1"}`, "compiling 1/40"),
			call("job_output", `{"id":"b1"}`, "compiling 9/40"),
			call("job_output", `{"id":"b1"}`, "compiling 23/40"),
			call("job_output", `{"id":"b1"}`, "compiling 38/40"),
			call("job_output", `{"id":"b1"}`, "linking"),
			call("job_output", `{"id":"b1"}`, "done"),
		}, action: None},
		{name: "a retried call that then succeeds", steps: []Step{testKO, testKO, call("bash", `{"cmd":"go test ./..."}`, "ok")}, action: None},
		{name: "the error budget resets on success", steps: []Step{fail("a", "", "e"), fail("b", "", "e"), readA, fail("c", "", "e"), fail("d", "", "e")}, action: None},
		{name: "the same read of a file that changed in between", steps: []Step{
			call("read_file", `{"path":"a.go"}`, "v1"),
			call("read_file", `{"path":"a.go"}`, "v1"),
			call("read_file", `{"path":"a.go"}`, "v2"),
			call("read_file", `{"path":"a.go"}`, "v2"),
		}, action: None},
		{name: "different args each time", steps: []Step{
			call("read_file", `{"path":"a.go"}`, "x"),
			call("read_file", `{"path":"b.go"}`, "x"),
			call("read_file", `{"path":"c.go"}`, "x"),
			call("read_file", `{"path":"d.go"}`, "x"),
			call("read_file", `{"path":"e.go"}`, "x"),
		}, action: None},
		{name: "same args, different tools", steps: []Step{
			call("read_file", `{"path":"a.go"}`, "x"), call("stat", `{"path":"a.go"}`, "x"), call("read_file", `{"path":"a.go"}`, "x"),
		}, action: None},
		{name: "a reply between calls breaks the streak", steps: []Step{readA, readA, reply("Reading again."), readA, readA}, action: None},
		{name: "edit and test with a new patch each time", steps: []Step{
			call("edit", `{"patch":"p1"}`, "ok"), fail("bash", `{"cmd":"go test"}`, "FAIL x"),
			call("edit", `{"patch":"p2"}`, "ok"), fail("bash", `{"cmd":"go test"}`, "FAIL y"),
			call("edit", `{"patch":"p3"}`, "ok"), call("bash", `{"cmd":"go test"}`, "ok"),
		}, action: None},
		{name: "alternating calls whose results change", steps: []Step{
			call("status", "", "1/3"), call("sleep", "5", ""), call("status", "", "2/3"), call("sleep", "5", ""), call("status", "", "3/3"), call("sleep", "5", ""),
		}, action: None},
		{name: "one call flapping between two results", steps: []Step{
			call("health", "", "up"), call("health", "", "down"), call("health", "", "up"), call("health", "", "down"), call("health", "", "up"), call("health", "", "down"),
		}, action: None},

		// Thresholds turned off.
		{name: "every check off", cfg: Config{
			RepeatedCall: Threshold{-1, -1}, RepeatedError: Threshold{-1, -1}, Alternation: Threshold{-1, -1},
			RepeatedMessage: Threshold{-1, -1}, EmptyReplies: Threshold{-1, -1}, ErrorBudget: -1,
		}, steps: seq(times(9, testKO), times(9, reply(""))), action: None},
		{name: "a warn at or above the halt never shows", cfg: Config{RepeatedCall: Threshold{Warn: 4, Halt: 4}}, steps: times(4, readA), action: Halt, pattern: RepeatedCall, count: 4, reason: loopReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.cfg.Check(tt.steps)
			if v.Action != tt.action || v.Pattern != tt.pattern {
				t.Fatalf("got %s %q, want %s %q (message %q)", v.Action, v.Pattern, tt.action, tt.pattern, v.Message)
			}
			if v.Count != tt.count {
				t.Errorf("count %d, want %d", v.Count, tt.count)
			}
			if v.Reason != tt.reason {
				t.Errorf("reason %v, want %v", v.Reason, tt.reason)
			}
			if (v.Message != "") != (v.Action != None) {
				t.Errorf("message %q for action %s", v.Message, v.Action)
			}
			if v.Action == None && v != (Verdict{}) {
				t.Errorf("a None verdict carries %+v", v)
			}
		})
	}
}

// TestCheckStepByStep feeds a run to the guard one step at a time, as a harness does, and pins
// the warn-once-then-halt sequence of each pattern.
func TestCheckStepByStep(t *testing.T) {
	tests := []struct {
		name  string
		steps []Step
		want  string // one letter per step: n(one), w(arn), h(alt)
	}{
		{"identical calls", times(7, readA), "nnwnhhh"},
		{"same failing call", times(4, testKO), "nwhh"},
		{"different failing calls", []Step{fail("a", "", "e"), fail("b", "", "e"), fail("c", "", "e"), fail("d", "", "e")}, "nnhh"},
		{"alternation", times(4, readA, grepX), "nnnwnhhh"},
		{"empty replies", times(4, reply("")), "nwhh"},
		{"repeated reply", times(4, reply("Done.")), "nwhh"},
		{"identical calls, then recovery", seq(times(3, readA), []Step{grepX}, times(3, readA)), "nnwnnnw"},
	}
	letter := map[Action]byte{None: 'n', Warn: 'w', Halt: 'h'}
	for _, tt := range tests {
		var got []byte
		for i := range tt.steps {
			got = append(got, letter[Config{}.Check(tt.steps[:i+1]).Action])
		}
		if string(got) != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestCheckDoesNotModifySteps(t *testing.T) {
	steps := []Step{call("t", `{"b":1,"a":2}`, "x"), call("t", `{"a":2,"b":1}`, "x"), call("t", `{"b":1,"a":2}`, "x")}
	orig := slices.Clone(steps)
	Config{}.Check(steps)
	if !slices.Equal(steps, orig) {
		t.Errorf("steps changed: %+v", steps)
	}
}

func TestVerdictMetadata(t *testing.T) {
	halt := Config{}.Check(times(5, readA))
	md := halt.Metadata()
	if md[MetadataLivelocked] != true || md[MetadataLoop] != "repeated_call" || len(md) != 2 {
		t.Errorf("loop halt metadata = %v", md)
	}
	if !halt.Livelocked() {
		t.Error("a loop halt must be livelocked")
	}
	for _, v := range []Verdict{
		Config{}.Check(times(3, readA)), // a warning
		Config{}.Check([]Step{fail("a", "", "e"), fail("b", "", "e"), fail("c", "", "e")}), // the error budget
		Config{}.Check(nil),
	} {
		if v.Livelocked() || v.Metadata() != nil {
			t.Errorf("%s %s: livelocked %t, metadata %v; want false, nil", v.Action, v.Pattern, v.Livelocked(), v.Metadata())
		}
	}
	if r := halt.Reason; r.Source != termination.SourceControl || r.RetryableAsIs() || !r.RetryableAfterRemedy() || r.Remedy() != termination.ChangeRequest {
		t.Errorf("loop reason %v", r)
	}
}

func TestVerdictJSON(t *testing.T) {
	v := Config{}.Check(times(3, testKO))
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"action":"halt","pattern":"repeated_error","tool":"bash","args":"{\"cmd\":\"go test ./...\"}","count":3,` +
		`"message":"Loop guard halted the run: bash with arguments {\"cmd\":\"go test ./...\"} was called 3 times in a row and failed each time (last error: exit status 1).",` +
		`"reason":{"category":"tool_loop_guard","site":"loopguard.halt","source":"control","retryable_as_is":false,"retryable_after_remedy":true,"remedy":"change-request"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != v {
		t.Errorf("round trip: %+v, want %+v", back, v)
	}
	if b, _ := json.Marshal(Verdict{}); string(b) != `{"action":"none"}` {
		t.Errorf("zero verdict encodes as %s", b)
	}
	var a Action
	if err := json.Unmarshal([]byte(`"explode"`), &a); err == nil {
		t.Error("an unknown action decoded")
	}
	if _, err := json.Marshal(Action(7)); err == nil {
		t.Error("an out-of-range action encoded")
	}
	if Action(7).String() != "Action(7)" {
		t.Errorf("String() = %q", Action(7).String())
	}
}

// TestMessages pins the wording of every verdict's message.
func TestMessages(t *testing.T) {
	long := strings.Repeat("very long argument ", 30)
	cases := []struct {
		name  string
		steps []Step
	}{
		{"repeated call, warn", times(3, readA)},
		{"repeated call, halt", times(5, readA)},
		{"repeated call, no arguments", times(3, call("list_tasks", "", "none"))},
		{"repeated call, long arguments", times(3, call("write", fmt.Sprintf(`{"text":%q}`, long), "ok"))},
		{"repeated error, warn", times(2, testKO)},
		{"repeated error, halt", times(3, fail("bash", `{"cmd":"make"}`, "make: *** No rule to make target 'all'.\nStop."))},
		{"alternation, warn", times(2, readA, grepX)},
		{"alternation, halt", times(3, readA, grepX)},
		{"error budget", []Step{fail("a", "", "e1"), fail("b", "", "e2"), fail("write_file", `{"path":"/etc/x"}`, "permission denied")}},
		{"repeated message, warn", times(2, reply("I have finished the task. Let me know if you need anything else."))},
		{"repeated message, halt", times(3, reply("Done \"quoted\".\n"))},
		{"empty replies, warn", times(2, reply(""))},
		{"empty replies, halt", times(3, reply(" "))},
	}
	var b strings.Builder
	for _, c := range cases {
		v := Config{}.Check(c.steps)
		fmt.Fprintf(&b, "## %s (%s %s)\n%s\n\n", c.name, v.Action, v.Pattern, v.Message)
	}
	path := filepath.Join("testdata", "messages.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("messages differ from %s\ngot:\n%s", path, b.String())
	}
}

func TestSameText(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"", "", true},
		{"a b", "a  b", true},
		{" a\tb\n", "a b", true},
		{"ab", "a b", false},
		{"a b", "a bc", false},
		{"é x", "é\u00a0x", true},
		{"\xff", "\xfe", false},
		{"\xff", "\xff", true},
	}
	for _, tt := range tests {
		if got := sameText(tt.a, tt.b); got != tt.want {
			t.Errorf("sameText(%q, %q) = %t, want %t", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{" a \n b ", 10, "a b"},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "éé…"},
	}
	for _, tt := range tests {
		if got := clip(tt.in, tt.max); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
