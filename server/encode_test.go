package server

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// TestDecisionShape: appendDecision knows the fields of the types it writes. When this fails,
// a field was added or changed: update appendDecision and decisionShape (until then the
// server encodes decisions with encoding/json, correct but slower).
func TestDecisionShape(t *testing.T) {
	if !decisionShapeOK {
		t.Fatal("stopgate.Decision, TrailEntry or Nudges changed shape; appendDecision is not used")
	}
}

// awkward are strings with everything a JSON string encoder must handle.
var awkward = []string{
	"", "plain", `quote " and backslash \`, "controls \x00\x01\x1f \b\f\n\r\t \x7f", "html <a href=\"x\">&amp;</a>",
	"utf-8 é 😀 中文", "bad utf-8 \xff\xfe \xc3", "separators \u2028 \u2029", "\ufffd literal", strings.Repeat("long ", 200),
}

// TestAppendDecisionMatchesEncodingJSON: byte for byte what encodeLine writes, for real
// decisions and for decisions made of awkward strings.
func TestAppendDecisionMatchesEncodingJSON(t *testing.T) {
	var decisions []stopgate.Decision
	sup := stopgate.New(stopgate.Config{})
	for _, body := range []string{benchTurn,
		`{"message":{"text":"All done.","provider":"anthropic","finish_reason":"end_turn"}}`,
		`{"error":{"provider":"openai","status":429,"body":"{\"error\":{\"type\":\"rate_limit_exceeded\",\"message\":\"<slow> & down\"}}"}}`,
		`{"message":{"text":"Let me run the tests."},"nudges":{"consecutive":2,"given":{"stall":1}}}`,
		`{"mode":"autonomous","message":{"text":"Shall I continue?"},"todos":[{"content":"x","status":"pending"}]}`,
		`{}`,
	} {
		var turn stopgate.Turn
		if err := json.Unmarshal([]byte(body), &turn); err != nil {
			t.Fatal(err)
		}
		decisions = append(decisions, sup.Decide(context.Background(), turn))
	}
	for _, s := range awkward {
		r := &termination.Reason{Category: termination.ProviderError, Detail: s, Provider: s}
		decisions = append(decisions,
			stopgate.Decision{Verdict: stopgate.Verdict(s), Check: stopgate.Check(s), Message: s, Reason: r,
				Trail:  []stopgate.TrailEntry{{Check: stopgate.Check(s), Outcome: stopgate.Outcome(s), Why: s, Reason: r}, {Why: s}},
				Nudges: stopgate.Nudges{Consecutive: len(s)}},
			stopgate.Decision{Verdict: stopgate.Stop, Trail: []stopgate.TrailEntry{}, Message: s})
	}
	decisions = append(decisions, stopgate.Decision{}) // a nil trail is null
	for i, d := range decisions {
		var want bytes.Buffer
		if err := encodeLine(&want, d); err != nil {
			t.Fatal(err)
		}
		got, err := appendDecision(nil, d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("decision %d:\n got  %s\n want %s", i, got, want.Bytes())
		}
	}
}

// FuzzAppendString: appendString writes what encoding/json writes with HTML escaping off.
func FuzzAppendString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		if err := encodeLine(&want, s); err != nil {
			t.Fatal(err)
		}
		if got := append(appendString(nil, s), '\n'); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want.Bytes())
		}
	})
}

func BenchmarkEncodeDecision(b *testing.B) {
	var turn stopgate.Turn
	if err := json.Unmarshal([]byte(benchTurn), &turn); err != nil {
		b.Fatal(err)
	}
	d := stopgate.New(stopgate.Config{}).Decide(context.Background(), turn)
	for _, bc := range []struct {
		name string
		enc  func(*bytes.Buffer, stopgate.Decision) error
	}{
		{"encoding-json", func(buf *bytes.Buffer, d stopgate.Decision) error { return encodeLine(buf, d) }},
		{"appendDecision", encodeDecision},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := bc.enc(&buf, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
