package termination

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
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

// TestFinishReasonLogVectors ports research 10.4's finish-reason log vectors: one observation
// per finished model message, the absence recorded as null, and nothing for a message never
// seen.
func TestFinishReasonLogVectors(t *testing.T) {
	type message struct{ path, fragment string }
	at := `"at":"2026-09-10T02:03:07.123456789Z"`
	tests := []struct {
		name     string
		messages []message
		want     string
	}{
		{"invoke stop", []message{{PathInvoke, `{"content":"done","response_metadata":{"finish_reason":"stop"}}`}},
			`[{` + at + `,"path":"invoke","token":"stop"}]`},
		{"invoke without a reason", []message{{PathInvoke, `{"content":"done","response_metadata":{}}`}},
			`[{` + at + `,"path":"invoke","token":null}]`},
		{"stream length", []message{{PathStream, `{"content":"and then","response_metadata":{"finish_reason":"length"}}`}},
			`[{` + at + `,"path":"stream","token":"length"}]`},
		{"events stop", []message{{PathEvents, `{"content":"done","response_metadata":{"finish_reason":"stop"}}`}},
			`[{` + at + `,"path":"events","token":"stop"}]`},
		{"empty stream", nil, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log ObservationLog
			for _, m := range tc.messages {
				log.Record(Observe(obsNow, m.path, metaJSON(t, m.fragment)))
			}
			b, err := json.Marshal(log.Observations())
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestObservationLogCap(t *testing.T) {
	obs := func(i int) Observation {
		return Observation{At: obsNow.Add(time.Duration(i) * time.Second), Path: PathStream, Token: fmt.Sprint("t", i), Present: true}
	}
	log := ObservationLog{Limit: 3}
	var kept []bool
	for i := range 5 {
		kept = append(kept, log.Record(obs(i)))
	}
	if want := []bool{true, true, true, false, false}; fmt.Sprint(kept) != fmt.Sprint(want) {
		t.Errorf("Record reported %v, want %v", kept, want)
	}
	if log.Len() != 3 || log.Dropped() != 2 {
		t.Errorf("Len %d Dropped %d, want 3 and 2", log.Len(), log.Dropped())
	}
	got := log.Observations()
	for i, o := range got {
		if want := obs(i); o.Token != want.Token || !o.At.Equal(want.At) {
			t.Errorf("observation %d = %+v, want the head %+v", i, o, want)
		}
	}

	log.Reset()
	if log.Len() != 0 || log.Dropped() != 0 || log.Observations() != nil {
		t.Errorf("after Reset: Len %d Dropped %d Observations %v", log.Len(), log.Dropped(), log.Observations())
	}
	if !log.Record(obs(9)) || log.Observations()[0].Token != "t9" {
		t.Errorf("a reset log does not record: %v", log.Observations())
	}
	if got[0].Token != "t0" {
		t.Errorf("Reset changed a copy already handed out: %+v", got[0])
	}

	for _, limit := range []int{0, -1} {
		log := ObservationLog{Limit: limit}
		for i := range DefaultObservationLimit + 1 {
			log.Record(obs(i))
		}
		if log.Len() != DefaultObservationLimit || log.Dropped() != 1 {
			t.Errorf("Limit %d: Len %d Dropped %d, want %d and 1", limit, log.Len(), log.Dropped(), DefaultObservationLimit)
		}
	}
}

func TestObservationLogCopy(t *testing.T) {
	var log ObservationLog
	log.Record(Observation{At: obsNow, Path: PathInvoke, Token: "stop", Present: true})
	got := log.Observations()
	if got[0].At.Location() != time.UTC {
		t.Errorf("Record kept the zone %v", got[0].At.Location())
	}
	got[0].Token = "changed"
	_ = append(got[:1], Observation{Path: "appended"})
	if again := log.Observations(); len(again) != 1 || again[0].Token != "stop" {
		t.Errorf("changing the copy changed the log: %+v", again)
	}
}

// TestPerMessageStopReason ports research 10.4's EXT-205 vectors: every model message of a turn
// is observed, and only the last answer-side one classifies the turn.
func TestPerMessageStopReason(t *testing.T) {
	gemini := func(reason string) string {
		if reason == "" {
			return `{"content":"…","response_metadata":{"model_provider":"google"},"additional_kwargs":{}}`
		}
		return `{"content":"…","response_metadata":{"model_provider":"google"},"additional_kwargs":{"finishReason":"` + reason + `"}}`
	}
	type msg struct {
		fragment string
		hook     bool
		tool     bool
	}
	tests := []struct {
		name     string
		messages []msg
		tokens   string // the observed tokens as JSON
		want     Classification
		ok       bool
	}{
		{"answer MAX_TOKENS, rating hook STOP", []msg{{gemini("MAX_TOKENS"), false, false}, {gemini("STOP"), true, false}},
			`["max_tokens","stop"]`, Classification{Category: OutputTruncated, Provider: "google", Detail: "max_tokens"}, true},
		{"answer STOP, hook MAX_TOKENS", []msg{{gemini("STOP"), false, false}, {gemini("MAX_TOKENS"), true, false}},
			`["stop","max_tokens"]`, Classification{}, false},
		{"hook SAFETY is no refusal", []msg{{gemini("STOP"), false, false}, {gemini("SAFETY"), true, false}},
			`["stop","safety"]`, Classification{}, false},
		{"answer SAFETY is a refusal", []msg{{gemini("SAFETY"), false, false}},
			`["safety"]`, refusal("google", "safety"), true},
		{"reasonless answer, hook STOP", []msg{{gemini(""), false, false}, {gemini("STOP"), true, false}},
			`[null,"stop"]`, Classification{}, false},
		{"tool round MAX_TOKENS, then answer STOP", []msg{{gemini("MAX_TOKENS"), false, true}, {gemini("STOP"), false, false}},
			`["max_tokens","stop"]`, Classification{}, false},
		{"two answers in one round, STOP then MAX_TOKENS", []msg{{gemini("STOP"), false, false}, {gemini("MAX_TOKENS"), false, false}},
			`["stop","max_tokens"]`, Classification{Category: OutputTruncated, Provider: "google", Detail: "max_tokens"}, true},
		{"only a hook's message", []msg{{gemini("MAX_TOKENS"), true, false}},
			`["max_tokens"]`, Classification{}, false},
		{"no message", nil, `[]`, Classification{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log ObservationLog
			msgs := make([]TurnMessage, 0, len(tc.messages))
			for _, m := range tc.messages {
				frag := metaJSON(t, m.fragment)
				log.Record(Observe(obsNow, PathStream, frag))
				msgs = append(msgs, TurnMessage{Fragment: frag, Hook: m.hook, FollowedByToolResult: m.tool})
			}
			tokens := []*string{}
			for _, o := range log.Observations() {
				if o.Present {
					tokens = append(tokens, &o.Token)
				} else {
					tokens = append(tokens, nil)
				}
			}
			if b, _ := json.Marshal(tokens); string(b) != tc.tokens {
				t.Errorf("observed tokens %s, want %s", b, tc.tokens)
			}
			got, ok := DetectTurnStopMetadata("", msgs)
			if got != tc.want || ok != tc.ok {
				t.Errorf("DetectTurnStopMetadata = %+v, %t; want %+v, %t", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestAnswerMessage(t *testing.T) {
	tests := []struct {
		name string
		msgs []TurnMessage
		want int
		ok   bool
	}{
		{"none", nil, -1, false},
		{"one answer", []TurnMessage{{}}, 0, true},
		{"the last answer", []TurnMessage{{}, {}, {Hook: true}}, 1, true},
		{"a tool round is not the answer", []TurnMessage{{FollowedByToolResult: true}}, -1, false},
		{"answer after a tool round", []TurnMessage{{FollowedByToolResult: true}, {}, {Hook: true}, {Hook: true}}, 1, true},
	}
	for _, tc := range tests {
		if got, ok := AnswerMessage(tc.msgs); got != tc.want || ok != tc.ok {
			t.Errorf("%s: AnswerMessage = %d, %t; want %d, %t", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestStartsNewMessage(t *testing.T) {
	tests := []struct {
		name           string
		current, chunk MessageKey
		want           bool
	}{
		{"id-less chunks split by node change", MessageKey{Node: "model_request"}, MessageKey{Node: "rating.after_model"}, true},
		{"id-less, node-less chunks never split", MessageKey{}, MessageKey{}, false},
		{"a chunk with neither joins", MessageKey{ID: "run-1", Node: "model_request"}, MessageKey{}, false},
		{"same id, same node", MessageKey{ID: "run-1", Node: "model_request"}, MessageKey{ID: "run-1", Node: "model_request"}, false},
		{"id changes", MessageKey{ID: "run-1", Node: "model_request"}, MessageKey{ID: "run-2", Node: "model_request"}, true},
		{"id known on one side only, same node", MessageKey{Node: "model_request"}, MessageKey{ID: "run-2", Node: "model_request"}, false},
		{"same id, node changes", MessageKey{ID: "run-1", Node: "model_request"}, MessageKey{ID: "run-1", Node: "guard.before_model"}, true},
	}
	for _, tc := range tests {
		if got := StartsNewMessage(tc.current, tc.chunk); got != tc.want {
			t.Errorf("%s: StartsNewMessage(%+v, %+v) = %t, want %t", tc.name, tc.current, tc.chunk, got, tc.want)
		}
	}

	// Folding id-less chunks by node keeps two messages' tokens apart, where concatenating
	// the turn's chunks read stopstop.
	chunks := []struct {
		key    MessageKey
		reason string
	}{
		{MessageKey{Node: "model_request"}, ""},
		{MessageKey{Node: "model_request"}, "STOP"},
		{MessageKey{Node: "rating.after_model"}, ""},
		{MessageKey{Node: "rating.after_model"}, "STOP"},
	}
	type folded struct {
		key    MessageKey
		reason string
	}
	var msgs []folded
	for i, c := range chunks {
		if i == 0 || StartsNewMessage(msgs[len(msgs)-1].key, c.key) {
			msgs = append(msgs, folded{key: c.key})
		}
		msgs[len(msgs)-1].reason += c.reason
	}
	var turn []TurnMessage
	var log ObservationLog
	for _, m := range msgs {
		frag := map[string]any{"additional_kwargs": map[string]any{"finishReason": m.reason}}
		log.Record(Observe(obsNow, PathStream, frag))
		turn = append(turn, TurnMessage{Fragment: frag, Hook: IsHookNode(m.key.Node)})
	}
	if got := fmt.Sprint(log.Observations()); got != "[finish_reason path=stream token=stop finish_reason path=stream token=stop]" {
		t.Errorf("folded observations %s", got)
	}
	if i, ok := AnswerMessage(turn); !ok || i != 0 {
		t.Errorf("AnswerMessage = %d, %t; want the agent's message 0", i, ok)
	}
}

func TestIsHookNode(t *testing.T) {
	tests := []struct {
		node string
		want bool
	}{
		{"rating.after_model", true},
		{"guard.before_model", true},
		{"summary.before_agent", true},
		{"audit.after_agent", true},
		{"model_request", false},
		{"tools", false},
		{"after_model", false},
		{"rating.after_model.extra", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsHookNode(tc.node); got != tc.want {
			t.Errorf("IsHookNode(%q) = %t, want %t", tc.node, got, tc.want)
		}
	}
}
