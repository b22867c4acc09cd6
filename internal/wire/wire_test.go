package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/stall"
)

func TestDecode(t *testing.T) {
	type in struct {
		Name   string         `json:"name"`
		Count  int            `json:"count"`
		Extras map[string]any `json:"extras"`
	}
	tests := []struct {
		name   string
		input  string
		want   in
		errSub string
	}{
		{name: "an object", input: `{"name":"a","count":2}`, want: in{Name: "a", Count: 2}},
		{name: "white space around it", input: " \n{\"name\":\"a\"}\n\t ", want: in{Name: "a"}},
		{name: "unknown fields", input: `{"name":"a","shoe":44}`, want: in{Name: "a"}},
		{name: "numbers kept exact", input: `{"extras":{"n":12345678901234567890}}`, want: in{Extras: map[string]any{"n": json.Number("12345678901234567890")}}},
		{name: "null", input: `null`},
		{name: "wrong type", input: `{"count":"two"}`, errSub: `field "count": expected int, got string`},
		{name: "not an object", input: `[1]`, errSub: "expected a JSON object, got array"},
		{name: "a syntax error", input: `{"name":}`, errSub: "not valid JSON at byte 9"},
		{name: "truncated", input: `{"name":"a"`, errSub: "unexpected end of input"},
		{name: "empty", input: ``, errSub: "the input is empty"},
		{name: "only space", input: "  \n", errSub: "the input is empty"},
		{name: "two values", input: `{} {}`, errSub: "unexpected data after the JSON value"},
		{name: "trailing garbage", input: `{} x`, errSub: "unexpected data after the JSON value"},
		{name: "a stray brace", input: `{}}`, errSub: "unexpected data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got in
			err := Decode(strings.NewReader(tt.input), &got)
			if tt.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errSub) {
					t.Errorf("error %v, want it to contain %q", err, tt.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestDecodeReaderError: the reader's own error is wrapped, not described as bad JSON.
func TestDecodeReaderError(t *testing.T) {
	for _, input := range []string{`{"name":"` + strings.Repeat("x", 100) + `"}`, `{}` + strings.Repeat(" ", 100) + `x`} {
		r := http.MaxBytesReader(httptest.NewRecorder(), readCloser{strings.NewReader(input)}, 50)
		var v map[string]any
		err := Decode(r, &v)
		if _, ok := errors.AsType[*http.MaxBytesError](err); !ok {
			t.Errorf("%.20s…: %v does not wrap the reader's *http.MaxBytesError", input, err)
		}
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func TestNormalizeNumbers(t *testing.T) {
	var v any
	if err := Decode(strings.NewReader(`{"a":[1,2.5,{"b":-3}],"c":"4","d":1e400}`), &v); err != nil {
		t.Fatal(err)
	}
	got := NormalizeNumbers(v)
	want := map[string]any{"a": []any{1.0, 2.5, map[string]any{"b": -3.0}}, "c": "4", "d": "1e400"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%#v, want %#v", got, want)
	}
}

func TestErrorInput(t *testing.T) {
	tests := []struct {
		in       string
		category string
		code     string
		errSub   string
		retryMS  int64
	}{
		{in: `{"provider":"openai","status":"429"}`, category: "rate_limited"},
		{in: `{"status":429.0}`, errSub: `field "status": 429.0 is not an HTTP status`},
		{in: `{"status":99}`, errSub: `is not an HTTP status (100-599)`},
		{in: `{"status":true}`, errSub: `field "status"`},
		{in: `{"provider":"openai","status":400,"body":"{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.\",\"code\":\"context_length_exceeded\"}}"}`, category: "context_overflow"},
		{in: `{"provider":"openai","status":400,"body":{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","code":"context_length_exceeded"}}}`, category: "context_overflow"},
		{in: `{"status":429,"code":1234}`, category: "rate_limited", code: "1234"},
		{in: `{"name":"AbortError"}`, category: "cancelled"},
		{in: `{"status":429,"headers":{"Retry-After":"7"}}`, category: "rate_limited", retryMS: 7000},
		{in: `{"status":429,"headers":{"retry-after-ms":"1500","retry-after":"2"}}`, category: "rate_limited", retryMS: 1500},
		{in: `{"status":429,"body":"Rate limit reached. Please try again in 4.5s."}`, category: "rate_limited", retryMS: 4500},
		{in: `{"status":429,"headers":{"retry-after":"soon"}}`, category: "rate_limited"},
	}
	for _, tt := range tests {
		var in ErrorInput
		if err := Decode(strings.NewReader(tt.in), &in); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		r, err := ClassifyError(in)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("%s: error %v, want %q", tt.in, err, tt.errSub)
			}
			continue
		}
		if err != nil || r.Category == nil || string(*r.Category) != tt.category || r.RetryAfterMS != tt.retryMS {
			t.Errorf("%s: %+v %v", tt.in, r, err)
		}
		if tt.code != "" {
			if a, _ := in.APIError(); a.Code != tt.code {
				t.Errorf("%s: code %q, want %q", tt.in, a.Code, tt.code)
			}
		}
	}
}

func TestClassifyStop(t *testing.T) {
	r := ClassifyStop(StopInput{Provider: "anthropic", Payload: map[string]any{"stop_reason": "max_tokens"}})
	if r.Category == nil || *r.Category != "output_truncated" || r.Detail != "max_tokens" {
		t.Errorf("%+v", r)
	}
	r = ClassifyStop(StopInput{Provider: "openai", Payload: map[string]any{"usage": map[string]any{}}})
	if r.Category != nil || r.Provider != "openai" {
		t.Errorf("no token: %+v", r)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"category":null`) {
		t.Errorf("no token: %s", b)
	}
}

func TestStall(t *testing.T) {
	v, err := Stall(t.Context(), StallInput{Text: "I updated the parser. Let me check the tests."}, nil)
	if err != nil || !v.Stalled || v.By != "lexical" || v.Sentence != "Let me check the tests." || v.Todos == nil {
		t.Errorf("%+v %v", v, err)
	}
	v, err = Stall(t.Context(), StallInput{Text: "All tests pass."}, nil)
	if err != nil || v.Stalled || v.Sentence != "" || v.Todos == nil || v.ClassifierReason != nil {
		t.Errorf("%+v %v", v, err)
	}
	if _, err := Stall(t.Context(), StallInput{Mode: "sleepy"}, nil); err == nil || !strings.Contains(err.Error(), `field "mode": "sleepy"`) {
		t.Errorf("bad mode: %v", err)
	}
}

func TestSalvage(t *testing.T) {
	s, err := Salvage(SalvageInput{Status: json.RawMessage(`400`), Body: json.RawMessage(`{"error":{"message":"model does not support tools"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(b), `"followups":[]`) || !strings.Contains(string(b), `"salvaged":false`) {
		t.Errorf("%s %v", b, err)
	}
	if _, err := Salvage(SalvageInput{Body: json.RawMessage(`"unterminated`)}); err == nil {
		t.Error("a body that is not a JSON string was accepted")
	}
}

func TestCheckTurn(t *testing.T) {
	for mode, ok := range map[stall.Mode]bool{"": true, stall.Interactive: true, stall.Autonomous: true, "sleepy": false, "Autonomous": false} {
		err := CheckTurn(stopgate.Turn{Mode: mode})
		if (err == nil) != ok {
			t.Errorf("mode %q: %v", mode, err)
		}
	}
}
