package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// TestRecording checks that the hook and decide write every decision, with its termination
// reasons, to the event log, and that -no-record writes nothing.
func TestRecording(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "events.db")

	_, stderr, code := runEnv(t, nil, hookPayload("rec-1", stalledMessage), "hook", "claude-code", "--state-dir", dir, "--store", db)
	if code != 0 || stderr != "" {
		t.Fatalf("hook: exit %d, stderr %q", code, stderr)
	}
	turns := `{"session":"rec-2","message":{"text":"Let me check the tests."}}` + "\n" +
		`{"session":"rec-2","message":{"text":"All tests pass."}}` + "\n"
	if _, stderr, code := runEnv(t, nil, turns, "decide", "--store", db); code != 0 || stderr != "" {
		t.Fatalf("decide: exit %d, stderr %q", code, stderr)
	}
	if _, _, code := runEnv(t, nil, turns, "decide", "--store", db, "--no-record"); code != 0 {
		t.Fatalf("decide -no-record: exit %d", code)
	}

	st, err := store.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	events, err := st.Query(context.Background(), store.Filter{Kind: store.KindDecision})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.Session+":"+string(e.Check)+":"+string(e.Verdict))
	}
	want := "rec-1:stall:continue rec-2:stall:continue rec-2:completed:stop"
	if strings.Join(got, " ") != want {
		t.Errorf("decisions recorded: %q, want %q", strings.Join(got, " "), want)
	}
	terms, err := st.Query(context.Background(), store.Filter{Kind: store.KindTermination, Session: "rec-2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) != 1 || terms[0].Category != termination.Completed {
		t.Errorf("termination events for rec-2: %+v, want one, completed", terms)
	}
	// One finish-reason observation per decided final message; none carried a token, and the
	// absence is what is recorded.
	obs, err := st.Query(context.Background(), store.Filter{Kind: store.KindObservation})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 3 {
		t.Fatalf("%d observations recorded, want 3 (one per final message)", len(obs))
	}
	var o termination.Observation
	if err := o.UnmarshalJSON(obs[0].Payload); err != nil || o.Present || o.Path != store.PathFinalMessage {
		t.Errorf("observation %+v (%v), want an absent token on the final-message path", o, err)
	}
}

func TestRecordingFailureDoesNotLoseDecisions(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "\x00events.db")
	turns := `{"message":{"text":"Let me check the tests."}}` + "\n" + `{"message":{"text":"Done."}}` + "\n"
	out, stderr, code := runEnv(t, nil, turns, "decide", "--store", bad)
	if code != 0 {
		t.Errorf("exit %d; a log that cannot be written must not fail the decisions", code)
	}
	if n := strings.Count(out, `"verdict"`); n != 2 {
		t.Errorf("%d decisions written, want 2:\n%s", n, out)
	}
	if strings.Count(stderr, "event log") != 1 {
		t.Errorf("stderr should report the log once: %q", stderr)
	}
}
