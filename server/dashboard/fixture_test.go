package dashboard_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// now is the fixed clock every page is rendered at. With the default 24-hour window the
// overview covers [2026-03-13 16:00, 2026-03-14 16:00) UTC.
var now = time.Date(2026, 3, 14, 15, 37, 0, 0, time.UTC)

// at returns today's h:m, UTC.
func at(h, m int) time.Time { return time.Date(2026, 3, 14, h, m, 0, 0, time.UTC) }

// The hostile text: a session id and a message that would run script if left unescaped.
const (
	hostileSession = `evil/"><b>x</b>&amp;`
	hostileMessage = `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> & "quotes"`
)

// record is one decision the fixture log holds.
type record struct {
	at   time.Time
	turn stopgate.Turn
	dec  stopgate.Decision
}

// running is a job still running: the turn has pending work.
var running = []stopgate.Job{{ID: "j1", Label: "npm test", Status: "running"}}

// fixture is the log the handler and browser tests read. Within the 24-hour window it holds
// 7 decisions (completed→stop, stall→continue, processes→continue while a job runs,
// error→retry, error→stop, pending_wake→stop while a job runs, todos→continue): 4 nudges, 1
// of them while work was pending; and 4 termination reasons. One more session, three days
// old, lies outside the window and inside 7d.
func fixture() []record {
	rateLimited := termination.New(termination.SiteSupervisor, termination.SourceException,
		termination.Classification{Category: termination.RateLimited, Provider: "openai", Detail: "429"})
	authFailed := termination.New(termination.SiteSupervisor, termination.SourceException,
		termination.Classification{Category: termination.AuthFailed, Provider: "openai", Detail: "401"})
	suspended := termination.Control(termination.SiteSupervisor, termination.Suspended)
	completed := termination.Control(termination.SiteSupervisor, termination.Completed)

	claude := func(session string, jobs []stopgate.Job) stopgate.Turn {
		return stopgate.Turn{Harness: "claude-code", Session: session, Jobs: jobs,
			Message: &stopgate.Message{Text: "…", Provider: "anthropic"}}
	}
	codex := func(session string, jobs []stopgate.Job) stopgate.Turn {
		return stopgate.Turn{Harness: "codex", Session: session, Jobs: jobs,
			Message: &stopgate.Message{Text: "…", Provider: "openai"}}
	}
	return []record{
		{at(13, 5), claude("s-alpha", nil), decision(stopgate.Continue, stopgate.CheckStall,
			`Your last message ended with "Now I'll run the tests:", but the turn ended before you did it.`,
			nil, stopgate.Blocked, "lexical: ends on a colon that introduces nothing", nil)},
		{at(13, 20), claude("s-alpha", nil), decision(stopgate.Stop, stopgate.CheckCompleted, "", &completed, "", "", nil)},
		{at(14, 10), codex("s-beta", running), decision(stopgate.Continue, stopgate.CheckProcesses,
			"Background-process completion gate: you cannot finish while bg1 is unresolved.",
			nil, stopgate.Blocked, "unresolved: bg1", nil)},
		{at(14, 40), codex("s-beta", nil), decision(stopgate.Retry, stopgate.CheckError,
			"Rate limited; retrying.", &rateLimited, stopgate.Blocked, "rate_limited: retry after back-off", &rateLimited)},
		{at(15, 30), codex("s-beta", nil), decision(stopgate.Stop, stopgate.CheckError, "",
			&authFailed, stopgate.Ended, "the run ended on an error no retry can fix: auth_failed", &authFailed)},
		{at(15, 35), claude("s-gamma", running), decision(stopgate.Stop, stopgate.CheckPendingWake, "",
			&suspended, stopgate.Parked, "job j1 (npm test) is running", &suspended)},
		{at(15, 0), claude(hostileSession, nil), decision(stopgate.Continue, stopgate.CheckTodos, hostileMessage,
			nil, stopgate.Blocked, `1 open item: <b>"fix & ship"</b>`, nil)},
		{now.Add(-72 * time.Hour), stopgate.Turn{Harness: "gemini-cli", Session: "s-old",
			Message: &stopgate.Message{Text: "Done.", Provider: "google"}},
			decision(stopgate.Stop, stopgate.CheckCompleted, "", &completed, "", "", nil)},
	}
}

// decision builds a decision the way the supervisor does: every check on the trail in order,
// those before the decider passing, the decider with outcome, why and reason, those after it
// skipped. A completed decision has every check passing.
func decision(v stopgate.Verdict, check stopgate.Check, msg string, reason *termination.Reason,
	outcome stopgate.Outcome, why string, entryReason *termination.Reason) stopgate.Decision {
	d := stopgate.Decision{Verdict: v, Check: check, Message: msg, Reason: reason}
	decided := false
	for _, c := range stopgate.Checks() {
		e := stopgate.TrailEntry{Check: c, Outcome: stopgate.Pass, Why: "nothing found"}
		switch {
		case decided:
			e.Outcome, e.Why = stopgate.Skipped, "an earlier check decided"
		case c == check:
			e.Outcome, e.Why, e.Reason = outcome, why, entryReason
			decided = true
		}
		d.Trail = append(d.Trail, e)
	}
	if v != stopgate.Stop {
		d.Nudges.Consecutive = 1
	}
	return d
}

// openStore returns a fresh SQLite store in a temporary directory, holding the events of
// records.
func openStore(t *testing.T, records []record) store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "events.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	for _, r := range records {
		events, err := store.DecisionEvents(r.turn, r.dec, r.at)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Append(ctx, events...); err != nil {
			t.Fatal(err)
		}
	}
	return st
}
