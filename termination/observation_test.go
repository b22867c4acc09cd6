package termination

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// obsNow is the instant the observation tests pass in; there is no clock.
var obsNow = time.Date(2026, 9, 10, 14, 3, 7, 123456789, time.FixedZone("NZST", 12*3600))

func TestObservationJSON(t *testing.T) {
	tests := []struct {
		name string
		obs  Observation
		want string
	}{
		{"token, instant in UTC", Observation{At: obsNow, Path: PathInvoke, Token: "stop", Present: true},
			`{"at":"2026-09-10T02:03:07.123456789Z","path":"invoke","token":"stop"}`},
		{"absent token is null", Observation{At: obsNow, Path: PathStream},
			`{"at":"2026-09-10T02:03:07.123456789Z","path":"stream","token":null}`},
		{"zero value", Observation{},
			`{"at":"0001-01-01T00:00:00Z","path":"","token":null}`},
		{"free-text path, whole seconds", Observation{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Path: "subagent", Token: "end_turn", Present: true},
			`{"at":"2026-01-02T03:04:05Z","path":"subagent","token":"end_turn"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.obs)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
			var back Observation
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			want := tc.obs
			want.At = want.At.UTC()
			if back != want {
				t.Errorf("round trip: got %+v, want %+v", back, want)
			}
		})
	}
}

func TestObservationUnmarshal(t *testing.T) {
	tests := []struct {
		name, in string
		want     Observation
	}{
		{"token", `{"at":"2026-09-10T02:03:07Z","path":"events","token":"length"}`,
			Observation{At: time.Date(2026, 9, 10, 2, 3, 7, 0, time.UTC), Path: PathEvents, Token: "length", Present: true}},
		{"null token", `{"at":"2026-09-10T02:03:07Z","path":"invoke","token":null}`,
			Observation{At: time.Date(2026, 9, 10, 2, 3, 7, 0, time.UTC), Path: PathInvoke}},
		{"missing token", `{"at":"2026-09-10T02:03:07Z","path":"invoke"}`,
			Observation{At: time.Date(2026, 9, 10, 2, 3, 7, 0, time.UTC), Path: PathInvoke}},
		{"an offset is stored in UTC", `{"at":"2026-09-10T14:03:07.5+12:00","path":"invoke","token":"stop"}`,
			Observation{At: time.Date(2026, 9, 10, 2, 3, 7, 500000000, time.UTC), Path: PathInvoke, Token: "stop", Present: true}},
		{"empty token is a token", `{"at":"2026-09-10T02:03:07Z","path":"invoke","token":""}`,
			Observation{At: time.Date(2026, 9, 10, 2, 3, 7, 0, time.UTC), Path: PathInvoke, Present: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got Observation
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}

	t.Run("null leaves the value", func(t *testing.T) {
		o := Observation{Path: PathInvoke, Token: "stop", Present: true}
		if err := json.Unmarshal([]byte(`null`), &o); err != nil {
			t.Fatal(err)
		}
		if o.Token != "stop" {
			t.Errorf("null changed the value: %+v", o)
		}
	})

	bad := []struct {
		name, in string
		is       func(error) bool
	}{
		{"missing at", `{"path":"invoke","token":"stop"}`, func(err error) bool { return errors.Is(err, errObservationAt) }},
		{"at not RFC 3339", `{"at":"10 Sep 26 02:03 UTC","token":"stop"}`, func(err error) bool {
			_, ok := errors.AsType[*time.ParseError](err)
			return ok
		}},
		{"token not a string", `{"at":"2026-09-10T02:03:07Z","token":42}`, func(err error) bool {
			_, ok := errors.AsType[*json.UnmarshalTypeError](err)
			return ok
		}},
		{"UTC year past 9999", `{"at":"9999-12-31T23:00:00-05:00"}`, func(err error) bool { return errors.Is(err, errObservationYear) }},
		{"UTC year before 0", `{"at":"0000-01-01T00:30:00+01:00"}`, func(err error) bool { return errors.Is(err, errObservationYear) }},
		{"not an object", `["2026-09-10T02:03:07Z"]`, func(err error) bool {
			_, ok := errors.AsType[*json.UnmarshalTypeError](err)
			return ok
		}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			var o Observation
			err := json.Unmarshal([]byte(tc.in), &o)
			if err == nil || !tc.is(err) {
				t.Errorf("err = %v, want the wrapped cause", err)
			}
		})
	}
}

func TestObservationMarshalYearRange(t *testing.T) {
	for _, at := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := json.Marshal(Observation{At: at}); !errors.Is(err, errObservationYear) {
			t.Errorf("Marshal at %v: err = %v, want the year error", at, err)
		}
	}
}

func TestObservationString(t *testing.T) {
	tests := []struct {
		obs  Observation
		want string
	}{
		{Observation{Path: PathInvoke, Token: "stop", Present: true}, "finish_reason path=invoke token=stop"},
		{Observation{Path: PathStream}, "finish_reason path=stream token=<absent>"},
	}
	for _, tc := range tests {
		if got := tc.obs.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestObserve(t *testing.T) {
	o := Observe(obsNow, PathInvoke, metaJSON(t, `{"choices":[{"finish_reason":"STOP"}]}`))
	want := Observation{At: obsNow.UTC(), Path: PathInvoke, Token: "stop", Present: true}
	if o != want {
		t.Errorf("got %+v, want %+v", o, want)
	}
	if o.At.Location() != time.UTC {
		t.Errorf("instant kept its zone %v", o.At.Location())
	}
	if o := Observe(obsNow, PathInvoke, metaJSON(t, `{"choices":[{"finish_reason":null}]}`)); o.Present || o.Token != "" {
		t.Errorf("no reason observed as %+v, want absent", o)
	}
}

// TestClaudeCodeTranscriptAbsence reads a real Claude Code session: its transcript writes each
// assistant content block as its own line with stop_reason null, so every line is a message
// whose provider said nothing there, and must be observed as absent, never as a token.
func TestClaudeCodeTranscriptAbsence(t *testing.T) {
	path := filepath.Join("..", "testdata", "transcripts", "claude-code", "spotter", "short.jsonl") // the repository's sample
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	assistant := 0
	for sc.Scan() {
		var line struct {
			Type    string         `json:"type"`
			Message map[string]any `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Type != "assistant" {
			continue
		}
		assistant++
		if _, present := line.Message["stop_reason"]; !present {
			t.Fatalf("assistant line %d has no stop_reason key: the fixture changed shape", assistant)
		}
		if o := Observe(obsNow, PathStream, line.Message); o.Present {
			t.Errorf("assistant line %d: observed token %q, want absent", assistant, o.Token)
		}
		if c, ok := ClassifyStop("anthropic", line.Message); ok {
			t.Errorf("assistant line %d: ClassifyStop = %+v, want no signal", assistant, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if assistant == 0 {
		t.Fatal("no assistant lines read")
	}
}
