package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// TestEventsRecorded records decisions through the API and reads them back, through the API
// and from the store itself.
func TestEventsRecorded(t *testing.T) {
	st := openStore(t)
	s, ts := start(t, Options{Store: st})
	clock := time.Date(2026, 8, 23, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { clock = clock.Add(time.Minute); return clock }

	turns := []struct {
		harness, session, body string
		verdict                stopgate.Verdict
	}{
		{"claude-code", "a", `{"message":{"text":"Let me check the tests."}}`, stopgate.Continue},
		{"claude-code", "a", `{"message":{"text":"All tests pass."}}`, stopgate.Stop},
		{"codex", "b", `{"message":{"text":"Now I'll run the linter:"}}`, stopgate.Continue},
		{"codex", "b", `{"error":{"provider":"openai","status":401}}`, stopgate.Stop},
	}
	var ids []string
	for _, tt := range turns {
		body := fmt.Sprintf(`{"harness":%q,"session":%q,%s`, tt.harness, tt.session, strings.TrimPrefix(tt.body, "{"))
		resp, b := post(t, ts.URL+"/v1/decide", body)
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		if got := resp.Header.Get(HeaderRecorded); got != RecordedYes {
			t.Fatalf("%s: %q", HeaderRecorded, got)
		}
		id := resp.Header.Get(HeaderEventID)
		if id == "" {
			t.Fatal("no event id")
		}
		ids = append(ids, id)
		if v := decodeObject(t, b)["verdict"]; v != string(tt.verdict) {
			t.Fatalf("verdict %v, want %s", v, tt.verdict)
		}
	}

	// The decision events, read from the store: one per decision, its payload the answer.
	decisions, err := st.Query(context.Background(), store.Filter{Kind: store.KindDecision})
	if err != nil {
		t.Fatal(err)
	}
	if len(decisions) != len(turns) {
		t.Fatalf("%d decision events, want %d", len(decisions), len(turns))
	}
	for i, e := range decisions {
		if e.ID != ids[i] || e.Harness != turns[i].harness || e.Session != turns[i].session || e.Verdict != turns[i].verdict {
			t.Errorf("event %d: %+v", i, e)
		}
		var d stopgate.Decision
		if err := json.Unmarshal(e.Payload, &d); err != nil || d.Verdict != turns[i].verdict || len(d.Trail) != len(stopgate.Checks()) {
			t.Errorf("event %d payload: %v %s", i, err, e.Payload)
		}
	}

	query := func(q string) []store.Event {
		t.Helper()
		resp, b := do(t, "GET", ts.URL+"/v1/events?"+q, "", nil)
		if resp.StatusCode != 200 {
			t.Fatalf("?%s: %d %s", q, resp.StatusCode, b)
		}
		var out struct{ Events []store.Event }
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out.Events
	}
	idsOf := func(evs []store.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.ID)
		}
		return out
	}
	newest := slices.Clone(ids)
	slices.Reverse(newest)
	tests := []struct {
		query string
		want  []string
	}{
		{"kind=decision", newest},
		{"kind=decision&limit=2", newest[:2]},
		{"kind=decision&session=a", []string{ids[1], ids[0]}},
		{"kind=decision&harness=codex", []string{ids[3], ids[2]}},
		{"kind=decision&verdict=continue", []string{ids[2], ids[0]}},
		{"kind=decision&check=stall", []string{ids[2], ids[0]}},
		{"kind=decision&since=2026-08-23T10:02:00Z", []string{ids[3], ids[2], ids[1]}},
		{"kind=decision&until=2026-08-23T10:02:00Z", []string{ids[0]}},
		{"kind=decision&since=2026-08-23T12:01:00%2B02:00&until=2026-08-23T10:03:00Z", []string{ids[1], ids[0]}},
		{"kind=decision&since=2026-08-23T12:01:00+02:00&until=2026-08-23T10:03:00Z", []string{ids[1], ids[0]}}, // an unencoded +
		{"kind=decision&session=nobody", nil},
	}
	for _, tt := range tests {
		if got := idsOf(query(tt.query)); !slices.Equal(got, tt.want) {
			t.Errorf("?%s: %v, want %v", tt.query, got, tt.want)
		}
	}
	// The termination events refer to their decision.
	terms := query("kind=termination&session=b&category=auth_failed")
	if len(terms) != 1 || terms[0].Ref != ids[3] || terms[0].Category != "auth_failed" {
		t.Errorf("termination of the 401: %+v", terms)
	}
	if all := query(""); len(all) < len(turns) || all[0].Time.Before(all[len(all)-1].Time) {
		t.Errorf("no filter: %d events, not newest first", len(all))
	}

	// The stats the dashboard reads.
	resp, b := do(t, "GET", ts.URL+"/v1/stats?bucket=1h&harness=claude-code", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("stats: %d %s", resp.StatusCode, b)
	}
	var stats struct {
		store.Stats
		PendingShare *float64 `json:"pending_share"`
	}
	if err := json.Unmarshal(b, &stats); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range stats.Decisions {
		n += c.Count
	}
	if n != 2 || stats.Nudges != 1 || stats.PendingShare == nil {
		t.Errorf("stats for claude-code: %s", b)
	}
}

func TestEventsBadQuery(t *testing.T) {
	_, ts := start(t, Options{Store: openStore(t)})
	tests := []struct{ path, errSub string }{
		{"/v1/events?sesion=a", `unknown query parameter "sesion"`},
		{"/v1/events?session=a&session=b", `"session" given 2 times`},
		{"/v1/events?kind=decisions", `kind "decisions"`},
		{"/v1/events?check=stalls", `check "stalls": want one of error,`},
		{"/v1/events?verdict=maybe", `verdict "maybe"`},
		{"/v1/events?category=sad", `category "sad"`},
		{"/v1/events?since=yesterday", `since "yesterday": want an RFC 3339 time`},
		{"/v1/events?until=2026-13-01T00:00:00Z", `until "2026-13-01T00:00:00Z"`},
		{"/v1/events?since=2026-08-23T10:00:00Z&until=2026-08-23T10:00:00Z", "is not before until"},
		{"/v1/events?limit=0", `limit "0": want a whole number from 1 to 1000`},
		{"/v1/events?limit=1001", `limit "1001"`},
		{"/v1/events?limit=ten", `limit "ten"`},
		{"/v1/stats?bucket=fortnight", `bucket "fortnight"`},
		{"/v1/stats?bucket=1ms", `bucket "1ms"`},
		{"/v1/stats?kind=decision", `unknown query parameter "kind"`},
		{"/v1/stats?since=now", `since "now"`},
	}
	for _, tt := range tests {
		resp, b := do(t, "GET", ts.URL+tt.path, "", nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s", tt.path, resp.StatusCode, b)
			continue
		}
		if msg := errorOf(t, b); !strings.Contains(msg, tt.errSub) {
			t.Errorf("%s: error %q, want it to contain %q", tt.path, msg, tt.errSub)
		}
	}
}

// TestStoreFailure closes the store under a running server: decisions are still answered,
// marked unrecorded, logged and counted; reads answer 503.
func TestStoreFailure(t *testing.T) {
	for _, appendEach := range []bool{false, true} {
		t.Run(fmt.Sprintf("AppendEach=%t", appendEach), func(t *testing.T) {
			var logs logBuffer
			st := openStore(t)
			_, ts := start(t, Options{Store: st, AppendEach: appendEach, Logger: logs.logger()})
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			resp, b := post(t, ts.URL+"/v1/decide", `{"session":"s","message":{"text":"Let me check the tests."}}`)
			if resp.StatusCode != 200 || decodeObject(t, b)["verdict"] != "continue" {
				t.Fatalf("the decision must stand: %d %s", resp.StatusCode, b)
			}
			if got := resp.Header.Get(HeaderRecorded); got != RecordedFailed || resp.Header.Get(HeaderEventID) != "" {
				t.Errorf("%s %q, %s %q", HeaderRecorded, got, HeaderEventID, resp.Header.Get(HeaderEventID))
			}
			resp, b = do(t, "GET", ts.URL+"/v1/events", "", nil)
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(errorOf(t, b), "closed") {
				t.Errorf("events from a closed store: %d %s", resp.StatusCode, b)
			}
			resp, _ = do(t, "GET", ts.URL+"/v1/stats", "", nil)
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("stats from a closed store: %d", resp.StatusCode)
			}
			m := scrape(t, ts.URL)
			for series, want := range map[string]float64{
				`stopgate_decisions_unrecorded_total`:      1,
				`stopgate_store_errors_total{op="append"}`: 1,
				`stopgate_store_errors_total{op="query"}`:  1,
				`stopgate_store_errors_total{op="stats"}`:  1,
				`stopgate_store_appended_events_total`:     0,
			} {
				if got := m.value(t, series); got != want {
					t.Errorf("%s = %v, want %v", series, got, want)
				}
			}
			if !strings.Contains(logs.String(), "decision not recorded") || !strings.Contains(logs.String(), "session=s") {
				t.Errorf("the failure is not logged:\n%s", logs.String())
			}
		})
	}
}

// TestUnstorableTurn: a turn whose identity the log cannot hold is decided, not recorded.
func TestUnstorableTurn(t *testing.T) {
	st := openStore(t)
	_, ts := start(t, Options{Store: st})
	resp, b := post(t, ts.URL+"/v1/decide", `{"session":"nul\u0000byte"}`)
	if resp.StatusCode != 200 || resp.Header.Get(HeaderRecorded) != RecordedFailed {
		t.Errorf("%d %s %s", resp.StatusCode, resp.Header.Get(HeaderRecorded), b)
	}
	// It does not poison decisions committed beside it.
	resp, _ = post(t, ts.URL+"/v1/decide", `{"session":"fine"}`)
	if resp.Header.Get(HeaderRecorded) != RecordedYes {
		t.Errorf("the next decision: %s", resp.Header.Get(HeaderRecorded))
	}
}

// TestConcurrentDecisions fires decisions from many clients at once: every one acknowledged is
// in the store, exactly once.
func TestConcurrentDecisions(t *testing.T) {
	for _, appendEach := range []bool{false, true} {
		t.Run(fmt.Sprintf("AppendEach=%t", appendEach), func(t *testing.T) {
			st := openStore(t)
			_, ts := start(t, Options{Store: st, AppendEach: appendEach})
			const clients, each = 16, 25
			var mu sync.Mutex
			acked := map[string]bool{}
			var wg sync.WaitGroup
			for c := range clients {
				wg.Go(func() {
					for i := range each {
						resp, b := post(t, ts.URL+"/v1/decide", fmt.Sprintf(`{"session":"c%d-%d","message":{"text":"Let me check the tests."}}`, c, i))
						if resp.StatusCode != 200 || resp.Header.Get(HeaderRecorded) != RecordedYes {
							t.Errorf("%d %s %s", resp.StatusCode, resp.Header.Get(HeaderRecorded), b)
							return
						}
						mu.Lock()
						acked[resp.Header.Get(HeaderEventID)] = true
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			assertStored(t, st, acked, clients*each)
		})
	}
}

// assertStored checks that the store holds exactly n decision events, among them every
// acknowledged one.
func assertStored(t *testing.T, st store.Store, acked map[string]bool, n int) {
	t.Helper()
	evs, err := st.Query(context.Background(), store.Filter{Kind: store.KindDecision})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, e := range evs {
		stored[e.ID] = true
	}
	if len(evs) != n || len(stored) != n {
		t.Errorf("%d decision events (%d distinct), want %d", len(evs), len(stored), n)
	}
	for id := range acked {
		if !stored[id] {
			t.Errorf("acknowledged decision %s is not stored", id)
		}
	}
}
