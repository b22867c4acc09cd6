package e2e

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	fa "github.com/stopgate/stopgate/e2e/internal/fakeanthropic"
)

// The scenarios below run Claude Code 2.1.332 (`claude -p`) with `stopgate hook claude-code`
// as the project's Stop hook, the model scripted per request, and assert on the requests the
// model server received and on Claude Code's final result. Each one runs in its own home,
// project and state directory and on its own server, so they run in parallel.

// bash returns a Bash tool call.
func bash(id, command, description string) fa.Block {
	return fa.ToolUse(id, "Bash", map[string]any{"command": command, "description": description})
}

// hasResult reports whether r carries the result of tool call id.
func hasResult(r *fa.Request, id string) bool {
	_, ok := r.ToolResult(id)
	return ok
}

// sideRequest answers a Messages request that is not the agent loop's.
func sideRequest() fa.Response { return fa.Reply(fa.Text("OK")) }

// assertCompleted checks that the run ended normally with text as its final result.
func assertCompleted(t *testing.T, res result, text string) {
	t.Helper()
	if res.IsError || res.Subtype != "success" || res.TerminalReason != "completed" || res.StopReason != "end_turn" {
		t.Errorf("run ended with is_error=%v subtype=%q terminal_reason=%q stop_reason=%q, want a normal completion",
			res.IsError, res.Subtype, res.TerminalReason, res.StopReason)
	}
	if res.Result != text {
		t.Errorf("final result %q, want %q", res.Result, text)
	}
}

// assertPayloads checks the Stop payloads Claude Code sent: one per stop, stop_hook_active
// set exactly on the stops that follow a blocked one (active[i]), each last_assistant_message
// the message that stop ended on (messages[i]), and each shaped like the recorded fixture.
func assertPayloads(t *testing.T, s *session, active []bool, messages []string) {
	t.Helper()
	ps := s.payloads()
	if len(ps) != len(active) {
		s.dump()
		t.Fatalf("Claude Code ran the Stop hooks %d times, want %d", len(ps), len(active))
	}
	for i, p := range ps {
		if p["hook_event_name"] != "Stop" || p["stop_hook_active"] != active[i] || p["last_assistant_message"] != messages[i] {
			t.Errorf("stop %d: hook_event_name=%v stop_hook_active=%v last_assistant_message=%q, want Stop, %v, %q",
				i, p["hook_event_name"], p["stop_hook_active"], p["last_assistant_message"], active[i], messages[i])
		}
		assertPayloadShape(t, p)
	}
}

// assertStopgateDecided checks that stopgate ran cleanly at every stop of the session and
// blocked exactly blocks of them: the transcript records a hook_blocking_error for each block
// and nothing else for stopgate (a stopgate that failed open, or noted anything, would have
// written to stderr, which Claude Code records as a hook_success entry), and stopgate's state
// directory holds the session's nudge counts. Without this, an allowed stop could pass because
// the hook never ran.
func assertStopgateDecided(t *testing.T, s *session, blocks int) {
	t.Helper()
	n := 0
	for _, o := range s.hookOutcomes() {
		if o.kind != "hook_blocking_error" {
			t.Errorf("stopgate's run was recorded as %+v, want only blocks and silent allows", o)
			continue
		}
		n++
	}
	if n != blocks {
		t.Errorf("the transcript records %d blocks by stopgate, want %d", n, blocks)
	}
	assertStateKept(t, s.state, s.payloads())
}

// TestClaudeCodeTrailingPromise: a final message that promises an action it did not take is
// blocked once, with the promising sentence quoted in what the model receives next; the model
// then acts and sums up, and that stop is allowed.
func TestClaudeCodeTrailingPromise(t *testing.T) {
	t.Parallel()
	const (
		promise  = "Let me check the tests."
		stalled  = "I read the parser and found the off-by-one. " + promise
		acting   = "Right, running them now."
		summary  = "I fixed the off-by-one in the parser and ran the tests: they pass."
		checkID  = "toolu_check"
		checkCmd = "echo ok"
	)
	s := newSession(t, func(r *fa.Request) fa.Response {
		switch {
		case !isAgentRequest(r):
			return sideRequest()
		case hasResult(r, checkID):
			return fa.Reply(fa.Text(summary))
		case len(pendingNudges(r)) > 0:
			return fa.Reply(fa.Text(acting), bash(checkID, checkCmd, "Run the tests"))
		default:
			return fa.Reply(fa.Text(stalled))
		}
	})
	s.useStopgate()
	res := s.run("Fix the off-by-one in the parser.")

	assertCompleted(t, res, summary)
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (stall, nudged action, summary)", len(reqs))
	}
	got := pendingNudges(reqs[1])
	if len(got) != 1 || !quotes(got[0], promise) {
		t.Errorf("after the stalled stop the model received nudges %q, want one quoting %q", got, promise)
	}
	if res, ok := reqs[2].ToolResult(checkID); !ok || strings.TrimSpace(res.ResultText()) != "ok" {
		t.Errorf("the nudged tool call's result = %+v (found %v), want ok", res, ok)
	}
	all := s.lastNudges()
	t.Logf("nudges the model received: %q", all)
	if len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertPayloads(t, s, []bool{false, true}, []string{stalled, summary})
	assertStopgateDecided(t, s, 1)
}

// TestClaudeCodeUnreadBackgroundProcess: a background Bash the run started, which failed and
// whose output the agent never read, blocks the stop with the process gate's message naming
// the command; once the agent has read its output file, the stop is allowed.
//
// Claude Code wakes the agent when a background task ends (a <task-notification> turn), so a
// stop while the command still runs is a parked run, and allowed; the stop after the
// notification is the one the gate holds. The command fails (exit 3) because a clean exit
// needs no reading. It waits for a file that a second Stop hook creates, so it is still
// running when Claude Code builds the first stop's payload whatever the machine's speed, and
// it ends right after.
func TestClaudeCodeUnreadBackgroundProcess(t *testing.T) {
	t.Parallel()
	const (
		command  = "until [ -e .release ]; do sleep 0.05; done; echo done-output; exit 3"
		bgID     = "toolu_bg"
		readID   = "toolu_read"
		parked   = "The job is running in the background."
		notified = "The background job has finished."
		summary  = "I read the job's output: it printed done-output and exited with code 3, as this fixture expects. Done."
	)
	s := newSession(t, func(r *fa.Request) fa.Response {
		last := r.LastMessage()
		switch {
		case !isAgentRequest(r):
			return sideRequest()
		case hasResult(r, readID):
			return fa.Reply(fa.Text(summary))
		case len(pendingNudges(r)) > 0:
			res, _ := r.ToolResult(bgID)
			m := outputFileRE.FindStringSubmatch(res.ResultText())
			if m == nil {
				return fa.Reply(fa.Text("I cannot find the output file."))
			}
			return fa.Reply(fa.ToolUse(readID, "Read", map[string]any{"file_path": m[1]}))
		case strings.Contains(last.Text(), "<task-notification>"):
			return fa.Reply(fa.Text(notified))
		case hasResult(r, bgID):
			return fa.Reply(fa.Text(parked))
		default:
			return fa.Reply(fa.ToolUse(bgID, "Bash", map[string]any{
				"command": command, "description": "Run the job", "run_in_background": true,
			}))
		}
	})
	s.setUserStopHooks(stopHook{command: "touch " + shellQuote(filepath.Join(s.project, ".release")), timeout: 30})
	s.useStopgate()
	res := s.run("Run the job in the background.")
	if *recordPayload {
		recordStopPayload(t, s, 0)
	}

	assertCompleted(t, res, summary)
	reqs := s.agentRequests()
	if len(reqs) != 5 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 5 (start, parked, notified, nudged read, summary)", len(reqs))
	}
	start, _ := reqs[1].ToolResult(bgID)
	if !outputFileRE.MatchString(start.ResultText()) {
		t.Errorf("the background start result %q names no output file", start.ResultText())
	}
	if !strings.Contains(reqs[2].LastMessage().Text(), "<task-notification>") || reqs[2].LastMessage().Role != "user" {
		t.Errorf("the third request does not carry the task notification: %.300q", reqs[2].LastMessage().Text())
	}
	if n := pendingNudges(reqs[2]); len(n) != 0 {
		t.Errorf("the stop while the job ran (a parked run) was blocked: %q", n)
	}
	got := pendingNudges(reqs[3])
	if len(got) != 1 || !strings.Contains(got[0], "echo done-output; exit 3") {
		t.Errorf("after the notified stop the model received nudges %q, want one naming %q", got, command)
	}
	if read, ok := reqs[4].ToolResult(readID); !ok || !strings.Contains(read.ResultText(), "done-output") {
		t.Errorf("reading the output file gave %q, want the job's output", read.ResultText())
	}
	all := s.lastNudges()
	t.Logf("nudges the model received: %q", all)
	if len(all) != 1 {
		t.Errorf("the run held %d nudges, want exactly 1: %q", len(all), all)
	}
	assertPayloads(t, s, []bool{false, false, true}, []string{parked, notified, summary})
	assertStopgateDecided(t, s, 1)
	// The first stop saw the job in flight in background_tasks; the later ones saw none.
	ps := s.payloads()
	tasks, _ := ps[0]["background_tasks"].([]any)
	if task, _ := firstObject(tasks); len(tasks) != 1 || task["type"] != "shell" || task["command"] != command || task["status"] != "running" {
		t.Errorf("first stop's background_tasks = %v, want the command, running", ps[0]["background_tasks"])
	}
	for i, p := range ps[1:] {
		if tasks, ok := p["background_tasks"].([]any); !ok || len(tasks) != 0 {
			t.Errorf("stop %d's background_tasks = %v, want []", i+1, p["background_tasks"])
		}
	}
}

// firstObject returns list[0] as a JSON object.
func firstObject(list []any) (map[string]any, bool) {
	if len(list) == 0 {
		return nil, false
	}
	m, ok := list[0].(map[string]any)
	return m, ok
}

// taskNumberRE reads the id from a TaskCreate result: "Task #3 created successfully: …".
var taskNumberRE = regexp.MustCompile(`Task #(\d+) created`)

// TestClaudeCodeTodos: open items on the agent's task list block the stop, naming the open
// item; a list whose items are all completed does not.
//
// Claude Code 2.1.332 offers no todo tool to the model by default; with
// CLAUDE_CODE_ENABLE_TODO_TOOLS=1 it lists TaskCreate, TaskGet, TaskList and TaskUpdate among the
// deferred tools, whose schemas the model loads with ToolSearch before calling them.
func TestClaudeCodeTodos(t *testing.T) {
	t.Parallel()
	for _, tt := range todoCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The script walks a fixed plan, one tool call a request: load the task tools,
			// create each item, complete the first tt.done, stop; after a nudge, complete the
			// rest and stop again.
			s := newSession(t, func(r *fa.Request) fa.Response {
				if !isAgentRequest(r) {
					return sideRequest()
				}
				if !hasResult(r, "toolu_search") {
					return fa.Reply(fa.ToolUse("toolu_search", "ToolSearch", map[string]any{"query": "select:TaskCreate,TaskUpdate"}))
				}
				ids := make([]string, len(tt.items))
				for i, item := range tt.items {
					res, ok := r.ToolResult(fmt.Sprintf("toolu_create%d", i))
					if !ok {
						return fa.Reply(fa.ToolUse(fmt.Sprintf("toolu_create%d", i), "TaskCreate", map[string]any{
							"subject": item, "description": item + " for the release.",
						}))
					}
					m := taskNumberRE.FindStringSubmatch(res.ResultText())
					if m == nil {
						return fa.Reply(fa.Text("TaskCreate said: " + res.ResultText()))
					}
					ids[i] = m[1]
				}
				complete := tt.done
				if len(nudges(r)) > 0 {
					complete = len(tt.items)
				}
				for i := range complete {
					if id := fmt.Sprintf("toolu_update%d", i); !hasResult(r, id) {
						return fa.Reply(fa.ToolUse(id, "TaskUpdate", map[string]any{"taskId": ids[i], "status": "completed"}))
					}
				}
				if complete == len(tt.items) && len(nudges(r)) > 0 {
					return fa.Reply(fa.Text(tt.final))
				}
				return fa.Reply(fa.Text(tt.first))
			}, "CLAUDE_CODE_ENABLE_TODO_TOOLS=1")
			s.useStopgate()
			want := tt.first
			if tt.open != "" {
				want = tt.final
			}
			res := s.run("Prepare the release.")
			assertCompleted(t, res, want)

			reqs := s.agentRequests()
			if !slices.Contains(reqs[0].ToolNames(), "ToolSearch") || reqs[0].HasTool("TaskCreate") || reqs[0].HasTool("TodoWrite") {
				t.Errorf("first request's tools %v: want ToolSearch, and no task or todo tool before it is loaded", reqs[0].ToolNames())
			}
			if !reqs[1].HasTool("TaskCreate") || !reqs[1].HasTool("TaskUpdate") {
				t.Errorf("after ToolSearch the tools are %v, want TaskCreate and TaskUpdate", reqs[1].ToolNames())
			}
			// One request a step: search, each create, each update, each stop.
			wantReqs := 1 + len(tt.items) + tt.done + 1
			if tt.open != "" {
				wantReqs += len(tt.items) - tt.done + 1
			}
			if len(reqs) != wantReqs {
				s.dump()
				t.Fatalf("the model was asked %d times, want %d", len(reqs), wantReqs)
			}
			all := s.lastNudges()
			t.Logf("nudges the model received: %q", all)
			if tt.open == "" {
				if len(all) != 0 {
					t.Errorf("a run with every item completed was nudged: %q", all)
				}
				assertPayloads(t, s, []bool{false}, []string{tt.first})
				assertStopgateDecided(t, s, 0)
				return
			}
			tt.assertNudge(t, all)
			assertPayloads(t, s, []bool{false, true}, []string{tt.first, tt.final})
			assertStopgateDecided(t, s, 1)
		})
	}
}

// TestClaudeCodeLegitimateEnds: a plain completion summary, and a question to the user in
// interactive mode (the default), are allowed with no block: one request for the one turn,
// one stop.
func TestClaudeCodeLegitimateEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range legitimateEnds {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, func(r *fa.Request) fa.Response {
				if !isAgentRequest(r) {
					return sideRequest()
				}
				return fa.Reply(fa.Text(tt.message))
			})
			s.useStopgate()
			res := s.run("Add a --verbose flag.")
			assertCompleted(t, res, tt.message)
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a legitimate end was nudged: %q", all)
			}
			assertPayloads(t, s, []bool{false}, []string{tt.message})
			assertStopgateDecided(t, s, 0)
		})
	}
}

// TestClaudeCodeStallBudget: an agent that keeps stalling is nudged as many times as the
// stall budget allows (2 a run by default), and then allowed to stop.
func TestClaudeCodeStallBudget(t *testing.T) {
	t.Parallel()
	messages := budgetStalls.messages()
	s := newSession(t, func(r *fa.Request) fa.Response {
		if !isAgentRequest(r) {
			return sideRequest()
		}
		return fa.Reply(fa.Text(messages[min(len(nudges(r)), len(messages)-1)]))
	})
	s.useStopgate()
	res := s.run("Find out why the test fails.")

	assertCompleted(t, res, messages[2])
	reqs := s.agentRequests()
	if len(reqs) != 3 {
		s.dump()
		t.Fatalf("the model was asked %d times, want 3 (a stall, then one per nudge)", len(reqs))
	}
	assertBudgetNudges(t, s.lastNudges())
	assertPayloads(t, s, []bool{false, true, true}, messages)
	assertStopgateDecided(t, s, 2)
}

// TestClaudeCodeBrokenHookFailsOpen: a Stop hook that crashes, prints garbage, cannot start or
// runs out of time lets Claude Code stop normally: the stalled message is the final result, the
// model is asked once, and nothing reaches it. The transcript's record of the hook's run shows
// it did run, and failed the way the case means it to.
func TestClaudeCodeBrokenHookFailsOpen(t *testing.T) {
	t.Parallel()
	const stalled = "I read the parser. Let me check the tests."
	tests := []struct {
		name string
		// setup installs the broken hook in s.
		setup func(t *testing.T, s *session)
		// want is the transcript's attachment for the hook's run: its type, and the exit
		// code, stdout and stderr prefix where they are recorded ("-" skips a field).
		want hookOutcome
	}{
		{
			name: "stopgate with a config file broken after install",
			setup: func(t *testing.T, s *session) {
				// install checks the configuration, so break it afterwards, as an edit would.
				s.useStopgate()
				breakConfig(t, s.home)
			},
			// stopgate fails open on purpose: exit 0, nothing on stdout, why on stderr.
			want: hookOutcome{kind: "hook_success", exitCode: 0, stdout: "", stderr: "stopgate: config "},
		},
		{
			name: "script exits 1 with garbage",
			setup: func(t *testing.T, s *session) {
				s.setProjectStopHook(stopHook{command: writeScript(t, s.home, "crash", crashHook), timeout: 30})
			},
			want: hookOutcome{kind: "hook_non_blocking_error", exitCode: 1, stdout: "panic: {\"decision\": oops\n", stderr: "-"},
		},
		{
			name: "script prints garbage and exits 0",
			setup: func(t *testing.T, s *session) {
				s.setProjectStopHook(stopHook{command: writeScript(t, s.home, "garbage", `cat >/dev/null; echo 'not JSON {"decision":"block"'`), timeout: 30})
			},
			// Stdout that does not start with "{" is plain text, not a decision.
			want: hookOutcome{kind: "hook_success", exitCode: 0, stdout: "not JSON {\"decision\":\"block\"\n", stderr: ""},
		},
		{
			name: "command does not exist",
			setup: func(t *testing.T, s *session) {
				s.setProjectStopHook(stopHook{command: filepath.Join(s.home, "no-such-hook"), timeout: 30})
			},
			want: hookOutcome{kind: "hook_non_blocking_error", exitCode: 127, stdout: "", stderr: "-"},
		},
		{
			name: "hook runs out of time",
			setup: func(t *testing.T, s *session) {
				// exec, so the kill at the 1 s timeout reaches the sleep itself and nothing
				// outlives the run.
				s.setProjectStopHook(stopHook{command: writeScript(t, s.home, "slow", slowHook), timeout: 1})
			},
			want: hookOutcome{kind: "hook_cancelled", exitCode: -1, stdout: "-", stderr: "-"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, func(r *fa.Request) fa.Response {
				if !isAgentRequest(r) {
					return sideRequest()
				}
				return fa.Reply(fa.Text(stalled))
			})
			tt.setup(t, s)
			res := s.run("Fix the parser.")
			assertCompleted(t, res, stalled)
			if n := len(s.agentRequests()); n != 1 {
				s.dump()
				t.Errorf("the model was asked %d times, want 1", n)
			}
			if all := s.lastNudges(); len(all) != 0 {
				t.Errorf("a broken hook's output reached the model: %q", all)
			}
			assertPayloads(t, s, []bool{false}, []string{stalled})

			got := s.hookOutcomes()
			if len(got) != 1 {
				t.Fatalf("the transcript records %d runs of the project's Stop hook, want 1: %+v", len(got), got)
			}
			g, w := got[0], tt.want
			if g.kind != w.kind || w.exitCode >= 0 && g.exitCode != w.exitCode ||
				w.stdout != "-" && g.stdout != w.stdout || w.stderr != "-" && !strings.HasPrefix(g.stderr, w.stderr) {
				t.Errorf("the hook's run was recorded as %+v, want %+v", g, w)
			}
			if w.kind == "hook_cancelled" && !g.timedOut {
				t.Errorf("the cancelled hook is not recorded as timed out: %+v", g)
			}
		})
	}
}

var recordPayload = flag.Bool("record-payload", false, "rewrite "+payloadFixture+" from a live Stop payload")
