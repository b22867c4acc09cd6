package termination

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzClassifyStop feeds arbitrary JSON to the metadata feeder. It must never panic: ok means
// a valid category with a detail, and the observation made of the fragment carries the token
// that decided.
func FuzzClassifyStop(f *testing.F) {
	for _, s := range []string{
		`{"response_metadata":{"finish_reason":"content_filter"}}`,
		`{"response_metadata":{"stop_reason":"end_turn","stopReason":"refusal"}}`,
		`{"additional_kwargs":{"amazon-bedrock-guardrailAction":"INTERVENED"}}`,
		`{"additional_kwargs":{"finishReason":"SAFETY"},"response_metadata":{"model_provider":"google"}}`,
		`{"choices":[{"index":0,"finish_reason":null},{"index":1,"finish_reason":"length"}]}`,
		`{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}`,
		`{"type":"message_delta","delta":{"stop_reason":"pause_turn"}}`,
		`{"promptFeedback":{"blockReason":"OTHER"}}`,
		`{"messageStop":{"stopReason":"malformed_tool_use"}}`,
		`{"finish_reason":"ERROR_TOXIC","message":{}}`,
		`{"finish_reason":"ÉTAT"}`,
		`{"finish_reason":42}`,
		`[]`, `null`, `"stop"`, `{}`,
	} {
		f.Add("", []byte(s))
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "metadata"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", "metadata", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add("openai", b)
	}
	f.Fuzz(func(t *testing.T, provider string, data []byte) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return
		}
		c, ok := ClassifyStop(provider, v)
		if ok && !c.Category.Valid() {
			t.Fatalf("ClassifyStop = %+v: not a valid category", c)
		}
		if !ok && c != (Classification{}) {
			t.Fatalf("ClassifyStop = %+v with ok false", c)
		}
		if ok && c.Detail == "" {
			t.Fatalf("ClassifyStop = %+v: no detail", c)
		}
		if o := Observe(obsNow, PathInvoke, v); o.Present != ok || o.Token != c.Detail && provider == "" {
			t.Fatalf("Observe = %+v, ClassifyStop = %+v", o, c)
		}
	})
}

// FuzzObservationUnmarshal feeds arbitrary bytes to Observation's JSON reader: it must never
// panic, and whatever it accepts must survive a round trip unchanged.
func FuzzObservationUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"at":"2026-09-10T02:03:07.123456789Z","path":"invoke","token":"stop"}`,
		`{"at":"2026-09-10T14:03:07+12:00","path":"stream","token":null}`,
		`{"at":"2026-09-10T02:03:07Z"}`,
		`{"path":"events","token":"length"}`,
		`{"at":"yesterday"}`,
		`{"at":"2026-09-10T02:03:07Z","token":7}`,
		`{"at":"9999-12-31T23:00:00-05:00"}`,
		`{"at":"0000-01-01T00:30:00+01:00"}`,
		`null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var o Observation
		if err := json.Unmarshal(data, &o); err != nil {
			return
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", o, err)
		}
		var back Observation
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		if back != o {
			t.Fatalf("round trip: %+v became %+v", o, back)
		}
	})
}
