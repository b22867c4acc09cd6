package loopguard

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCanonicalArgs(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"   \n", ""},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"{ \"a\" : [1, 2,\n 3] }", `{"a":[1,2,3]}`},
		{`{"a":{"y":true,"x":null}}`, `{"a":{"x":null,"y":true}}`},
		{`{"path":"\u0061.go"}`, `{"path":"a.go"}`},
		{`{"html":"<b>&</b>"}`, `{"html":"<b>&</b>"}`},
		{`{"n":1.0}`, `{"n":1.0}`}, // number literals are kept
		{`{"n":12345678901234567890123}`, `{"n":12345678901234567890123}`},
		{`{"a":1,"a":2}`, `{"a":2}`}, // the last duplicate wins
		{`[3,1,2]`, `[3,1,2]`},       // array order is meaning
		{`"ls -la"`, `"ls -la"`},
		{`42`, `42`},
		{`null`, `null`},
		{"  ls -la  ", "ls -la"}, // text: trimmed, otherwise as is
		{"ls  -la", "ls  -la"},
		{`{"a":1} trailing`, `{"a":1} trailing`}, // not one JSON value: text
		{`{"a":1}{"b":2}`, `{"a":1}{"b":2}`},
		{`{"a":`, `{"a":`},
		{"true story", "true story"},
	}
	for _, tt := range tests {
		if got := CanonicalArgs(tt.in); got != tt.want {
			t.Errorf("CanonicalArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzCanonicalArgs: arguments come from the model, so anything goes. Canonicalising must never
// panic, must be idempotent, must keep valid JSON valid, and must not care about the order of
// an object's keys.
func FuzzCanonicalArgs(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"b":1,"a":[1,{"d":2,"c":"x"}]}`, ` [1, 2] `, `"\u00e9"`, `ls -la`, `{"a":1}x`, `1e400`, `{"a":"\ud800"}`, "\xff", `-0`, `{"a":{"a":{"a":[]}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CanonicalArgs(s)
		if again := CanonicalArgs(c); again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, c, again)
		}
		if json.Valid([]byte(s)) && !json.Valid([]byte(c)) {
			t.Fatalf("valid JSON %q canonicalised to invalid %q", s, c)
		}
		// Wrapping the value in an object next to another key, in either order, gives the same
		// canonical form.
		if json.Valid([]byte(s)) && strings.TrimSpace(s) != "" {
			a := CanonicalArgs(`{"z":` + s + `,"a":0}`)
			b := CanonicalArgs(`{"a":0,"z":` + s + `}`)
			if a != b {
				t.Fatalf("key order mattered: %q vs %q", a, b)
			}
		}
	})
}

func TestStepJSON(t *testing.T) {
	tests := []struct {
		in   string
		want Step
	}{
		{`{"tool":"read_file","args":"{\"path\":\"a.go\"}","result":"x"}`, Step{Tool: "read_file", Args: `{"path":"a.go"}`, Result: "x"}},
		{`{"tool":"bash","args":{"cmd":"go test"},"error":"exit status 1"}`, Step{Tool: "bash", Args: `{"cmd":"go test"}`, Error: "exit status 1"}},
		{`{"tool":"t","args":[1, 2]}`, Step{Tool: "t", Args: `[1,2]`}},
		{`{"tool":"t","args":{"b":1, "a":2}}`, Step{Tool: "t", Args: `{"a":2,"b":1}`}},
		{`{"tool":"t","args":null}`, Step{Tool: "t"}},
		{`{"tool":"t","args":7}`, Step{Tool: "t", Args: "7"}},
		{`{"text":"Let me check."}`, Step{Text: "Let me check."}},
		{`{}`, Step{}},
	}
	for _, tt := range tests {
		var s Step
		if err := json.Unmarshal([]byte(tt.in), &s); err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if s != tt.want {
			t.Errorf("%s: decoded %+v, want %+v", tt.in, s, tt.want)
		}
	}
	// An object and its string spelling are the same call.
	var a, b Step
	_ = json.Unmarshal([]byte(`{"tool":"t","args":{"y":1,"x":2}}`), &a)
	_ = json.Unmarshal([]byte(`{"tool":"t","args":"{\"x\":2,\"y\":1}"}`), &b)
	if CanonicalArgs(a.Args) != CanonicalArgs(b.Args) {
		t.Errorf("object args %q and string args %q differ", a.Args, b.Args)
	}
	// Decoding replaces every field.
	s := Step{Tool: "old", Args: "old", Text: "old"}
	if err := json.Unmarshal([]byte(`{"tool":"new"}`), &s); err != nil || s != (Step{Tool: "new"}) {
		t.Errorf("decoding into a used Step: %+v, %v", s, err)
	}
	for _, bad := range []string{`[]`, `{"tool":1}`, `{"args":"unterminated}`, `{"args":}`} {
		var s Step
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("%s: decoded without error to %+v", bad, s)
		}
	}
	b2, _ := json.Marshal(Step{Tool: "t", Args: `{"a":1}`, Error: "boom"})
	if string(b2) != `{"tool":"t","args":"{\"a\":1}","error":"boom"}` {
		t.Errorf("encoded %s", b2)
	}
}

// FuzzStepJSON: steps arrive as JSON from harness transcripts. Whatever decodes must re-encode
// and decode to the same step.
func FuzzStepJSON(f *testing.F) {
	for _, s := range []string{`{"tool":"a","args":{"x":1}}`, `{"tool":"a","args":"x"}`, `{"text":""}`, `{"args":[1,"2"]}`, `{"args":null,"error":"e"}`, `{"args":  {"b":1}  }`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var st Step
		if err := json.Unmarshal([]byte(s), &st); err != nil {
			return
		}
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var back Step
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		if back != st {
			t.Fatalf("round trip changed %+v to %+v", st, back)
		}
	})
}

// FuzzCheck runs the guard on arbitrary runs decoded from JSON: it must not panic, and its
// verdict must be coherent (a message exactly when it acts, a reason exactly when it halts).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`[]`,
		`[{"tool":"a","args":{"x":1},"result":"r"},{"tool":"a","args":"{\"x\":1}","result":"r"},{"tool":"a","args":{"x":1},"result":"r"}]`,
		`[{"tool":"a","error":"e"},{"tool":"b","error":"e"},{"tool":"a","error":"e"}]`,
		`[{"text":""},{"text":" "},{"text":""}]`,
		`[{"tool":"a"},{"tool":"b"},{"tool":"a"},{"tool":"b"},{"text":"done"}]`,
	} {
		f.Add(s, 0, 0)
	}
	f.Fuzz(func(t *testing.T, s string, warn, halt int) {
		var steps []Step
		if err := json.Unmarshal([]byte(s), &steps); err != nil {
			return
		}
		cfg := Config{RepeatedCall: Threshold{Warn: warn % 10, Halt: halt % 10}, ErrorBudget: halt % 7}
		v := cfg.Check(steps)
		if (v.Message != "") != (v.Action != None) {
			t.Fatalf("message %q for %s", v.Message, v.Action)
		}
		if v.Reason.IsZero() == (v.Action == Halt) {
			t.Fatalf("reason %v for %s", v.Reason, v.Action)
		}
		if v.Action != None && v.Count < 1 {
			t.Fatalf("count %d for %s", v.Count, v.Action)
		}
	})
}
