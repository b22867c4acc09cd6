package audit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/harness/codex"
	"github.com/stopgate/stopgate/termination"
)

// TestGoldenSample audits the repository's sample of real transcripts and pins the table and
// the JSON report.
func TestGoldenSample(t *testing.T) {
	dir := sample(t)
	rep := run(t, nil, dir)
	var table, js bytes.Buffer
	if err := WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	// The folder's path depends on where the repository (or the data set) is.
	golden(t, "sample.txt", bytes.ReplaceAll(table.Bytes(), []byte(dir), []byte("$SAMPLE")))
	golden(t, "sample.json", bytes.ReplaceAll(js.Bytes(), []byte(dir), []byte("$SAMPLE")))
}

// TestGoldenShared audits the real transcripts of the evaluation data set (`make eval`) and
// pins the table and the JSON report.
func TestGoldenShared(t *testing.T) {
	dir := shared(t)
	rep := run(t, nil, dir)
	var table, js bytes.Buffer
	if err := WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	// The folder's path depends on where the repository (or the data set) is.
	golden(t, "shared.txt", bytes.ReplaceAll(table.Bytes(), []byte(dir), []byte("$SHARED")))
	golden(t, "shared.json", bytes.ReplaceAll(js.Bytes(), []byte(dir), []byte("$SHARED")))
}

// TestGoldenHandwritten audits the hand-written fixtures (every check that blocks, the nudges,
// every exit status, files that are no sessions and broken ones) and pins both outputs.
func TestGoldenHandwritten(t *testing.T) {
	rep := run(t, nil, handwritten)
	var table, js bytes.Buffer
	if err := WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "handwritten.txt", table.Bytes())
	golden(t, "handwritten.json", js.Bytes())
}

// TestTurns checks how each hand-written turn ended and what was decided, one by one.
func TestTurns(t *testing.T) {
	rep := run(t, nil, handwritten)
	tests := []struct {
		session  string
		turn     int
		ending   termination.Category
		detail   string
		verdict  stopgate.Verdict // "" when the turn is not decided
		check    stopgate.Check
		sentence string
	}{
		{"stall", 0, termination.Completed, "", stopgate.Continue, stopgate.CheckStall, "Let me run the tests to confirm the fix."},
		{"stall", 1, termination.Completed, "end_turn", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"background", 0, termination.Completed, "", stopgate.Stop, stopgate.CheckPendingWake, ""},
		{"background", 1, termination.Completed, "", stopgate.Continue, stopgate.CheckProcesses, ""},
		{"todos", 0, termination.Completed, "", stopgate.Continue, stopgate.CheckTodos, ""},
		{"loop", 0, termination.Completed, "", stopgate.Continue, stopgate.CheckLivelock, ""},
		{"claims", 0, termination.Completed, "end_turn", stopgate.Continue, stopgate.CheckClaims, ""},
		{"api_error", 0, termination.ProviderError, "529", stopgate.Retry, stopgate.CheckError, ""},
		{"interrupted", 0, termination.Cancelled, "", "", "", ""},
		{"nudges", 0, termination.Completed, "end_turn", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"nudges", 1, termination.Completed, "end_turn", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"nudges", 2, termination.Completed, "", stopgate.Continue, stopgate.CheckStall, "Let me tag the release."},
		{"truncated", 0, termination.OutputTruncated, "max_tokens", stopgate.Continue, stopgate.CheckStopMetadata, ""},
		{"local_commands", 0, termination.Completed, "end_turn", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"local_commands", 1, termination.Completed, "", "", "", ""}, // /model
		{"local_commands", 2, termination.Completed, "", "", "", ""}, // /login, "No response requested."
		{"local_commands", 3, termination.Completed, "", "", "", ""}, // /exit

		{"demo__demo-1-submitted", 0, termination.Completed, "submitted", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"demo__demo-2-exit_cost", 0, termination.RecursionLimit, "exit_cost", stopgate.Stop, stopgate.CheckError, ""},
		{"demo__demo-3-autosubmitted", 0, termination.RecursionLimit, "submitted (exit_cost)", stopgate.Stop, stopgate.CheckError, ""},
		{"demo__demo-4-exit_context", 0, termination.ContextOverflow, "submitted (exit_context)", stopgate.Retry, stopgate.CheckError, ""},
		{"demo__demo-5-exit_format", 0, termination.ToolErrorBudget, "exit_format", stopgate.Stop, stopgate.CheckError, ""},
		{"demo__demo-6-exit_error", 0, termination.Unknown, "exit_error", stopgate.Stop, stopgate.CheckError, ""},
		{"demo__demo-7-early_exit", 0, termination.ToolError, "early_exit", stopgate.Stop, stopgate.CheckError, ""},
		{"demo__demo-8-exit_api", 0, termination.ProviderError, "exit_api", stopgate.Retry, stopgate.CheckError, ""},
		{"demo__demo-9-exit_command_timeout", 0, termination.Timeout, "exit_command_timeout", stopgate.Retry, stopgate.CheckError, ""},
		{"demo__demo-10-loop", 0, termination.Completed, "exit_forfeit", stopgate.Continue, stopgate.CheckLivelock, ""},
		{"demo__demo-11", 0, termination.Completed, "Submitted", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"demo__demo-12", 0, termination.RecursionLimit, "LimitsExceeded", stopgate.Stop, stopgate.CheckError, ""},
		{"demo__demo-13", 0, termination.RateLimited, "RateLimitError", stopgate.Retry, stopgate.CheckError, ""},
		{"demo__demo-14", 0, termination.Cancelled, "UserInterruption", "", "", ""},
		{"demo__demo-15", 0, termination.Completed, "Submitted", stopgate.Stop, stopgate.CheckCompleted, ""}, // "I'll submit:" with its tool call

		{"codex-stall", 0, termination.Completed, "", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"codex-stall", 1, termination.Completed, "", stopgate.Continue, stopgate.CheckStall, "I'll add the changelog entry next."},
		{"codex-background", 0, termination.Completed, "", stopgate.Continue, stopgate.CheckProcesses, ""},
		{"codex-endings", 0, termination.Cancelled, "interrupted", "", "", ""},
		{"codex-endings", 1, termination.ContextOverflow, "context_window_exceeded", stopgate.Retry, stopgate.CheckError, ""},
		{"codex-endings", 2, termination.RecursionLimit, "budget_limited", stopgate.Stop, stopgate.CheckError, ""},
		{"codex-endings", 3, termination.AuthFailed, "401", stopgate.Stop, stopgate.CheckError, ""},
		{"codex-endings", 4, termination.StreamCut, "response_stream_disconnected", stopgate.Retry, stopgate.CheckError, ""},
		{"codex-cut-off", 0, termination.Completed, "", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"codex-cut-off", 1, termination.Abandoned, "no task_complete", "", "", ""},

		{"gemini-stall", 0, termination.Completed, "", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"gemini-stall", 1, termination.Completed, "", stopgate.Continue, stopgate.CheckStall, "Let me write the regression test now."},
		{"gemini-background", 0, termination.Completed, "", stopgate.Continue, stopgate.CheckProcesses, ""},
		{"gemini-endings", 0, termination.Cancelled, "user_cancelled", "", "", ""},
		{"gemini-endings", 1, termination.RateLimited, "429", stopgate.Retry, stopgate.CheckError, ""},
		{"gemini-endings", 2, termination.OutputTruncated, "max_tokens", stopgate.Continue, stopgate.CheckStopMetadata, ""},
		{"gemini-endings", 3, termination.ToolLoopGuard, "loop_detected", stopgate.Stop, stopgate.CheckError, ""},
		{"gemini-endings", 4, termination.EmptyResponse, "NO_RESPONSE_TEXT", stopgate.Retry, stopgate.CheckError, ""},
		{"gemini-legacy", 0, termination.Completed, "", stopgate.Stop, stopgate.CheckCompleted, ""},
		{"gemini-legacy", 1, termination.Completed, "", stopgate.Continue, stopgate.CheckStall, "I'll check the internal packages next."},
	}
	for _, tt := range tests {
		t.Run(tt.session+"/"+itoa(tt.turn), func(t *testing.T) {
			s := sessionByLabel(t, rep, tt.session)
			if tt.turn >= len(s.Turns) {
				t.Fatalf("%d turns, want turn %d", len(s.Turns), tt.turn)
			}
			tr := s.Turns[tt.turn]
			if tr.Ending != tt.ending || tr.EndingDetail != tt.detail {
				t.Errorf("ending %s (%q), want %s (%q)", tr.Ending, tr.EndingDetail, tt.ending, tt.detail)
			}
			var verdict stopgate.Verdict
			var check stopgate.Check
			if tr.Decision != nil {
				verdict, check = tr.Decision.Verdict, tr.Decision.Check
			}
			if verdict != tt.verdict || check != tt.check {
				t.Errorf("decision %q/%q, want %q/%q (why: %s)", verdict, check, tt.verdict, tt.check, tr.Why)
			}
			if tr.Sentence != tt.sentence {
				t.Errorf("sentence %q, want %q", tr.Sentence, tt.sentence)
			}
			if tt.verdict != "" && tt.verdict != stopgate.Stop && tr.Why == "" {
				t.Error("a would-block turn says no why")
			}
		})
	}
}

// TestNoStop checks the turns that end on no stop of the agent, by the session files of the
// shapes real sessions have: Claude Code's local commands (no model answers them, no Stop
// hook fires) and a Codex rollout cut off mid-turn. They are counted as turns, not as stops,
// and not decided; a synthetic "No response requested." is not the final message of the turn
// before it.
func TestNoStop(t *testing.T) {
	rep := run(t, nil, handwritten)
	tests := []struct {
		session string
		noStop  []string // per turn
		final   string   // of turn 0
	}{
		{"local_commands", []string{"", claudecode.NoStopLocal, claudecode.NoStopLocal, claudecode.NoStopLocal}, "Renamed --verbose to --debug in cmd/main.go and its help text."},
		{"codex-cut-off", []string{"", codex.NoStopCutOff}, "Fixed: Parse now returns ErrEmpty on empty input, and the parser tests pass."},
		{"stall", []string{"", ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.session, func(t *testing.T) {
			s := sessionByLabel(t, rep, tt.session)
			if len(s.Turns) != len(tt.noStop) {
				t.Fatalf("%d turns, want %d", len(s.Turns), len(tt.noStop))
			}
			want := 0
			for i, tr := range s.Turns {
				if tr.NoStop != tt.noStop[i] {
					t.Errorf("turn %d: no stop %q, want %q", i, tr.NoStop, tt.noStop[i])
				}
				if tr.NoStop != "" {
					want++
					if tr.Decision != nil {
						t.Errorf("turn %d: decided %s, though no stop", i, tr.Decision.Verdict)
					}
				}
			}
			if c := s.Counts; c.NoStop != want || c.Stops != c.Turns-c.Interrupted-want {
				t.Errorf("counts: %d turns, %d stops, %d interrupted, %d no stop; want %d no stop", c.Turns, c.Stops, c.Interrupted, c.NoStop, want)
			}
			if tt.final != "" && s.Turns[0].Final != tt.final {
				t.Errorf("turn 0 final %q, want %q", s.Turns[0].Final, tt.final)
			}
		})
	}
}

// TestNudges checks the nudges a stop hook gave in the hand-written session and what followed
// each: tool calls, a reply with none, nothing.
func TestNudges(t *testing.T) {
	rep := run(t, nil, filepath.Join(handwritten, "claude-code", "nudges.jsonl"))
	s := sessionByLabel(t, rep, "nudges")
	want := []struct {
		turn      int
		outcome   NudgeOutcome
		toolCalls int
		text      string
	}{
		{0, Acted, 1, `Your last message ended with "Let me run the tests."`},
		{1, StoppedAgain, 0, `Your last message ended with "I'll update the changelog next."`},
		{2, NoReply, 0, `Your last message ended with "Let me tag the release."`},
	}
	if len(s.Nudges) != len(want) {
		t.Fatalf("%d nudges, want %d: %+v", len(s.Nudges), len(want), s.Nudges)
	}
	for i, w := range want {
		n := s.Nudges[i]
		if n.Turn != w.turn || n.Outcome != w.outcome || n.ToolCalls != w.toolCalls || !strings.HasPrefix(n.Text, w.text) {
			t.Errorf("nudge %d = %+v, want turn %d, %s, %d tool call(s), text starting %q", i, n, w.turn, w.outcome, w.toolCalls, w.text)
		}
	}
	wantOutcomes := map[NudgeOutcome]int{Acted: 1, StoppedAgain: 1, NoReply: 1}
	if !reflect.DeepEqual(s.Counts.NudgeOutcomes, wantOutcomes) || s.Counts.Nudges != 3 {
		t.Errorf("counts: %d nudges, outcomes %v; want 3, %v", s.Counts.Nudges, s.Counts.NudgeOutcomes, wantOutcomes)
	}
}

// TestFiles checks what becomes of files that are no sessions, broken ones and paths that do
// not exist: counted, reported, never fatal.
func TestFiles(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	rep := run(t, nil, filepath.Join(handwritten, "other"), missing, filepath.Join(handwritten, "claude-code", "stall.jsonl"))
	if got, want := rep.Files.Skipped, map[string]int{skipUnknown: 2, "nothing to audit: no turns": 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("skipped %v, want %v (notes.txt, empty.jsonl; a Codex rollout and a Gemini CLI session with no prompt)", got, want)
	}
	named := map[string]string{}
	for _, sk := range rep.Files.SkippedFiles {
		named[filepath.Base(sk.Path)] = sk.Reason
	}
	if len(rep.Files.SkippedFiles) != 4 || named["notes.txt"] != skipUnknown || named["empty.jsonl"] != skipUnknown {
		t.Errorf("skipped files %v; want the four named, notes.txt and empty.jsonl as %q", rep.Files.SkippedFiles, skipUnknown)
	}
	failed := map[string]string{}
	for _, f := range rep.Failures {
		failed[filepath.Base(f.Path)] = f.Error
	}
	for name, sub := range map[string]string{
		"cut-short.traj":       "unexpected end of JSON input",
		"not-a-run.traj":       "not a trajectory",
		filepath.Base(missing): "no such file",
	} {
		if !strings.Contains(failed[name], sub) {
			t.Errorf("failure of %s = %q, want it to say %q", name, failed[name], sub)
		}
	}
	if rep.Files.Failed != 3 || len(rep.Failures) != 3 {
		t.Errorf("%d failed, %d failures; want 3", rep.Files.Failed, len(rep.Failures))
	}
	if rep.Files.Audited != 1 || rep.Total.Sessions != 1 || rep.Sessions[0].Session != "a0d17000-0000-4000-8000-000000000001" {
		t.Errorf("audited %d files into %d sessions; want the one session after the broken files", rep.Files.Audited, rep.Total.Sessions)
	}
}

// TestSubagents checks that Claude Code sub-agent transcripts are read with their session and
// audited once, that a compaction summariser's is not audited, and that one whose session file
// is missing is audited on its own.
func TestSubagents(t *testing.T) {
	spotter := sample(t, "claude-code", "spotter")
	parent := filepath.Join(spotter, "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	agent := filepath.Join(spotter, "258c7280-ae70-4798-800f-63464d01a85d", "subagents", "agent-a881341.jsonl")
	compact := filepath.Join(spotter, "258c7280-ae70-4798-800f-63464d01a85d", "subagents", "agent-acompact-fffbd0.jsonl")
	orphan := filepath.Join(spotter, "6c2214d7-b87e-4432-8e41-22ba294ea584")

	tests := []struct {
		name       string
		paths      []string
		labels     []string
		withParent int
		skipped    map[string]int
	}{
		{"the session brings its agents", []string{parent}, []string{"258c7280", "258c7280/a881341"}, 0, map[string]int{}},
		{"an agent named with its session is audited once", []string{agent, parent, compact}, []string{"258c7280", "258c7280/a881341"}, 1, map[string]int{"nothing to audit: compaction summariser transcript": 1}},
		{"an agent named alone is audited alone", []string{agent}, []string{"258c7280/a881341"}, 0, map[string]int{}},
		{"a compaction summariser is skipped", []string{compact}, nil, 0, map[string]int{"nothing to audit: compaction summariser transcript": 1}},
		{"an agent without its session file", []string{orphan}, []string{"6c2214d7/afc096d"}, 0, map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := run(t, nil, tt.paths...)
			var labels []string
			for _, s := range rep.Sessions {
				labels = append(labels, label(s))
			}
			if !reflect.DeepEqual(labels, tt.labels) {
				t.Errorf("sessions %q, want %q", labels, tt.labels)
			}
			if rep.Files.WithParent != tt.withParent || !reflect.DeepEqual(rep.Files.Skipped, tt.skipped) {
				t.Errorf("files %+v, want %d read with their session, skipped %v", rep.Files, tt.withParent, tt.skipped)
			}
		})
	}

	// Walking the whole folder: every agent file under a session that is there is read with
	// it, and no session appears twice.
	rep := run(t, nil, spotter)
	seen := map[string]bool{}
	for _, s := range rep.Sessions {
		key := s.Session + "/" + s.Agent
		if seen[key] {
			t.Errorf("session %s audited twice", key)
		}
		seen[key] = true
	}
	agents, _ := filepath.Glob(filepath.Join(spotter, "*", "subagents", "agent-*.jsonl"))
	beside := 0
	for _, a := range agents {
		if _, err := os.Stat(filepath.Dir(filepath.Dir(a)) + ".jsonl"); err == nil {
			beside++
		}
	}
	if beside == 0 || rep.Files.WithParent != beside {
		t.Errorf("%d files read with their session, want the %d agent files beside a session file", rep.Files.WithParent, beside)
	}
}

// TestDetectClaudeCode checks which heads read as Claude Code transcripts.
func TestDetectClaudeCode(t *testing.T) {
	long := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.39","type":"user","message":{"role":"user","content":"` + strings.Repeat("x", HeadBytes) + `"}}`
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"a user entry", `{"parentUuid":null,"sessionId":"s","type":"user","uuid":"u","message":{"role":"user","content":"hi"}}` + "\n", true},
		{"a summary first", `{"type":"summary","summary":"Fix","leafUuid":"u"}` + "\n{}", true},
		{"a file-history snapshot first", `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}` + "\n", true},
		{"a queue operation first", `{"type":"queue-operation","operation":"enqueue","timestamp":"t","sessionId":"s"}`, true},
		{"a first line longer than the head", long[:HeadBytes], true},
		{"blank lines first", "\n\n  " + `{"type":"user","uuid":"u"}` + "\n", true},
		{"a Codex rollout", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n", false},
		{"a Gemini CLI session", `{"sessionId":"s","projectHash":"h","startTime":"t"}` + "\n" + `{"id":"m","type":"user"}`, false},
		{"a Gemini CLI message", `{"id":"m","timestamp":"t","type":"user","content":[]}` + "\n", false},
		{"no type", `{"sessionId":"s","uuid":"u"}` + "\n", false},
		{"an array", `[{"type":"user","uuid":"u"}]` + "\n", false},
		{"not JSON", "hello\n", false},
		{"a broken first line", `{"type":"user","uuid":` + "\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (claudecode.Reader{}).Detect("x.jsonl", []byte(tt.head)); got != tt.want {
				t.Errorf("Detect = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPluggedReader checks the seam for other harnesses: a Reader made of functions, with
// SessionOf, is used ahead of the defaults with one line.
func TestPluggedReader(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout-1.jsonl")
	if err := os.WriteFile(path, []byte(`{"timestamp":"t","type":"session_meta","payload":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	codex := ReaderFunc{
		Name:       "codex",
		DetectFunc: func(p string, head []byte) bool { return bytes.Contains(head, []byte(`"session_meta"`)) },
		ReadFunc: func(p string) ([]*Session, error) {
			return []*Session{harness.SessionOf(termination.SiteHookCodex, p, "codex", []stopgate.Turn{
				{Harness: "codex", Session: "r1", Message: &stopgate.Message{Text: "Let me run the tests."}},
				{Harness: "codex", Session: "r1", Message: &stopgate.Message{Text: "Done.", FinishReason: "length", Provider: "openai"}},
			})}, nil
		},
	}
	rep := run(t, &Options{Readers: append([]Reader{codex}, DefaultReaders()...)}, dir)
	if len(rep.Sessions) != 1 {
		t.Fatalf("%d sessions, want 1; files %+v", len(rep.Sessions), rep.Files)
	}
	s := rep.Sessions[0]
	if s.Format != "codex" || s.Harness != "codex" || s.Session != "r1" {
		t.Errorf("session %s/%s/%s", s.Format, s.Harness, s.Session)
	}
	if got := s.Counts.WouldBlockByCheck; !reflect.DeepEqual(got, map[stopgate.Check]int{stopgate.CheckStall: 1, stopgate.CheckStopMetadata: 1}) {
		t.Errorf("would block by check %v", got)
	}
	if s.Ending != termination.OutputTruncated {
		t.Errorf("run ended %s", s.Ending)
	}

	// A reader that skips a file, and one that fails, do not stop the audit.
	skip := ReaderFunc{Name: "skip", DetectFunc: func(string, []byte) bool { return true }}
	rep = run(t, &Options{Readers: []Reader{skip}}, dir)
	if rep.Files.Skipped[ErrSkip.Error()] != 1 {
		t.Errorf("skipped %v", rep.Files.Skipped)
	}
	boom := ReaderFunc{Name: "boom", DetectFunc: func(string, []byte) bool { return true },
		ReadFunc: func(string) ([]*Session, error) { return nil, errors.New("boom") }}
	rep = run(t, &Options{Readers: []Reader{boom}}, dir)
	if len(rep.Failures) != 1 || rep.Failures[0].Error != "boom" {
		t.Errorf("failures %+v", rep.Failures)
	}
	panicky := ReaderFunc{Name: "panicky", DetectFunc: func(string, []byte) bool { return true },
		ReadFunc: func(string) ([]*Session, error) { panic("bad reader") }}
	rep = run(t, &Options{Readers: []Reader{panicky}}, dir, filepath.Join(handwritten, "other", "notes.txt"))
	if len(rep.Failures) != 2 || !strings.Contains(rep.Failures[0].Error, "panicked: bad reader") {
		t.Errorf("failures %+v", rep.Failures)
	}
}

// TestProgress checks that progress is reported once per file, in order, up to the total.
func TestProgress(t *testing.T) {
	var got []Progress
	rep := run(t, &Options{Workers: 3, Progress: func(p Progress) { got = append(got, p) }}, handwritten)
	if len(got) != rep.Files.Found {
		t.Fatalf("%d progress reports, want one per file (%d)", len(got), rep.Files.Found)
	}
	for i, p := range got {
		if p.Done != i+1 || p.Files != rep.Files.Found || p.Path == "" {
			t.Errorf("report %d = %+v", i, p)
		}
	}
	if last := got[len(got)-1]; last.Bytes <= 0 {
		t.Errorf("bytes done %d", last.Bytes)
	}
}

// TestCancelled checks that an audit whose context ends returns its error and what it has.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rep, err := Run(ctx, []string{handwritten}, &Options{Readers: DefaultReaders()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if rep == nil || rep.Sessions == nil {
		t.Errorf("report %+v, want an empty one", rep)
	}
}

// TestWorkersAgree checks that the report does not depend on how many files are read at once.
func TestWorkersAgree(t *testing.T) {
	var one, many bytes.Buffer
	if err := WriteJSON(&one, run(t, &Options{Workers: 1}, handwritten, sample(t))); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&many, run(t, &Options{Workers: 8}, handwritten, sample(t))); err != nil {
		t.Fatal(err)
	}
	if one.String() != many.String() {
		t.Errorf("reports differ with 1 and 8 workers\n%s", firstDiff(many.String(), one.String()))
	}
}
