package audit

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// TestShadow: with the hook's event log given (Options.HookLog), the would-blocks a hook in
// shadow mode recorded for an audited session are reported under it, apart from its nudges
// and from the replay's own would-blocks; a shadow decision of another session, of a
// sub-agent, or with another verdict is not. Without the log the report says nothing of
// shadow mode: no SHADOW column.
func TestShadow(t *testing.T) {
	path := filepath.Join("testdata", "handwritten", "claude-code", "stall.jsonl")
	plain := run(t, nil, path)
	if len(plain.Sessions) != 1 {
		t.Fatalf("%s: %d sessions, want 1", path, len(plain.Sessions))
	}
	sr := plain.Sessions[0]
	log, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "events.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	decision := func(id, session, agent string, v stopgate.Verdict, msg string) store.Event {
		payload, _ := json.Marshal(map[string]any{"verdict": v, "check": stopgate.CheckStall, "message": msg})
		return store.Event{ID: id, Kind: store.KindDecision, Time: at, Harness: sr.Harness, Session: session, Agent: agent,
			Check: stopgate.CheckStall, Verdict: v, Payload: payload}
	}
	const msg = `You said "Let me check the tests." but stopped.`
	if err := log.Append(t.Context(),
		decision("a", sr.Session, "", stopgate.Shadow, msg),
		decision("b", sr.Session, "agent-1", stopgate.Shadow, "a sub-agent's"),
		decision("c", "other-session", "", stopgate.Shadow, "another session's"),
		decision("d", sr.Session, "", stopgate.Stop, ""),
	); err != nil {
		t.Fatal(err)
	}
	rep := run(t, &Options{HookLog: log}, path)
	got := rep.Sessions[0]
	if !rep.HookLog || got.Counts.Shadow != 1 || rep.Total.Counts.Shadow != 1 || len(got.Shadow) != 1 ||
		got.Shadow[0].Message != msg || got.Shadow[0].Check != stopgate.CheckStall || !got.Shadow[0].Time.Equal(at) {
		t.Fatalf("HookLog %v, shadow %d (total %d): %+v; want the one shadow stall of the session", rep.HookLog, got.Counts.Shadow, rep.Total.Counts.Shadow, got.Shadow)
	}
	if got.Counts.Nudges != sr.Counts.Nudges || got.Counts.WouldBlock != sr.Counts.WouldBlock {
		t.Errorf("nudges %d, would-blocks %d with the log; %d, %d without: the log must change neither", got.Counts.Nudges, got.Counts.WouldBlock, sr.Counts.Nudges, sr.Counts.WouldBlock)
	}
	var with, without bytes.Buffer
	if err := WriteTable(&with, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&without, plain); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(with.String(), "SHADOW") || !strings.Contains(with.String(), "Shadow would-blocks the hook recorded and let happen (1):") ||
		!strings.Contains(with.String(), "2026-01-02T03:04:05Z") {
		t.Errorf("the table with the log has no SHADOW column or list:\n%s", with.String())
	}
	if strings.Contains(without.String(), "SHADOW") || strings.Contains(without.String(), "Shadow would-blocks") {
		t.Errorf("the table without the log speaks of shadow mode:\n%s", without.String())
	}
}
