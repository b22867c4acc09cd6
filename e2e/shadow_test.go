package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	fa "github.com/stopgate/stopgate/e2e/internal/fakeanthropic"
	"github.com/stopgate/stopgate/store"
)

// TestClaudeCodeShadow: installed with `stopgate hook install claude-code --shadow`, the hook
// decides the trailing promise as it would live, records it in the event log as a shadow
// would-block whose message quotes the promise, and lets the agent stop: one request to the
// model, no block in the transcript, no nudge counted; `stopgate audit --shadow` reports it
// under SHADOW with the sentence, apart from real nudges. Installing again with --live makes the
// same stall a real block.
func TestClaudeCodeShadow(t *testing.T) {
	t.Parallel()
	script := func(r *fa.Request) fa.Response {
		if !isAgentRequest(r) {
			return sideRequest()
		}
		if len(pendingNudges(r)) > 0 {
			return fa.Reply(fa.Text(tpSummary))
		}
		return fa.Reply(fa.Text(tpStalled))
	}
	s := newSession(t, script)
	s.useStopgate("--shadow")
	res := s.run(tpPrompt)

	assertCompleted(t, res, tpStalled)
	if n := len(s.agentRequests()); n != 1 {
		t.Errorf("the model was asked %d times, want 1: shadow mode never blocks", n)
	}
	for _, o := range s.hookOutcomes() {
		if o.kind == "hook_blocking_error" || o.stdout != "" {
			t.Errorf("the shadow hook answered %+v, want no block and nothing on stdout", o)
		}
	}
	session, _ := s.payloads()[0]["session_id"].(string)
	events := decisionEvents(t, s.home, session)
	if len(events) != 1 || events[0].Verdict != stopgate.Shadow || events[0].Check != stopgate.CheckStall {
		t.Fatalf("the event log holds decisions %+v, want one shadow would-block by the stall check", events)
	}
	var d stopgate.Decision
	if err := json.Unmarshal(events[0].Payload, &d); err != nil {
		t.Fatal(err)
	}
	if !quotes(d.Message, tpPromise) {
		t.Errorf("the recorded would-block's message %q does not quote %q", d.Message, tpPromise)
	}

	// stopgate audit --shadow reads the hook's event log for the session's shadow
	// would-blocks and shows them apart from real nudges, with the sentence.
	transcript, _ := s.payloads()[0]["transcript_path"].(string)
	cmd := exec.Command(stopgateBinary(t), "audit", "--shadow", "--json", transcript)
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("stopgate audit --shadow: %v\n%s", err, out)
	}
	var rep struct {
		HookLog  bool `json:"hook_log"`
		Sessions []struct {
			Session string
			Counts  struct{ Nudges, Shadow int }
			Shadow  []struct{ Check, Message string }
		}
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("stopgate audit --shadow --json: %v\n%s", err, out)
	}
	if !rep.HookLog || len(rep.Sessions) != 1 || rep.Sessions[0].Counts.Shadow != 1 || rep.Sessions[0].Counts.Nudges != 0 ||
		len(rep.Sessions[0].Shadow) != 1 || rep.Sessions[0].Shadow[0].Check != string(stopgate.CheckStall) || !quotes(rep.Sessions[0].Shadow[0].Message, tpPromise) {
		t.Errorf("stopgate audit --shadow reported %s, want the session's one shadow stall quoting %q and no nudge", out, tpPromise)
	}
	cmd = exec.Command(stopgateBinary(t), "audit", "--shadow", transcript)
	cmd.Env = s.env
	table, err := cmd.Output()
	if err != nil || !strings.Contains(string(table), "SHADOW") || !strings.Contains(string(table), "Shadow would-blocks the hook recorded and let happen (1):") {
		t.Errorf("stopgate audit --shadow (table): %v\n%s", err, table)
	}

	// Going live is one command: the same stall is now blocked.
	live := newSession(t, script)
	live.useStopgate("--live")
	res = live.run(tpPrompt)
	assertCompleted(t, res, tpSummary)
	if n := len(live.agentRequests()); n != 2 {
		t.Errorf("live: the model was asked %d times, want 2 (stall, then the summary after the nudge)", n)
	}
	lsession, _ := live.payloads()[0]["session_id"].(string)
	if ev := decisionEvents(t, live.home, lsession); len(ev) != 2 || ev[0].Verdict != stopgate.Continue {
		t.Errorf("live: the event log holds decisions %+v, want a continue then a stop", ev)
	}
}

// decisionEvents returns the decisions of session in the default event log under home, oldest
// first.
func decisionEvents(t *testing.T, home, session string) []store.Event {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, ".local", "state", "stopgate", "events.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Query(ctx, store.Filter{Kind: store.KindDecision, Session: session})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		t.Logf("decision: %s %s %s", e.Check, e.Verdict, strings.TrimSpace(string(e.Payload))[:min(200, len(e.Payload))])
	}
	return evs
}
