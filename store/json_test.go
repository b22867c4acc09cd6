package store

import (
	"encoding/json"
	"strings"
	"testing"
)

// jsonCases are inputs on which validJSON must agree with encoding/json.Valid: each part of
// the grammar, right and wrong, and the nesting limit on either side.
var jsonCases = []string{
	``, ` `, `null`, ` null `, "\t\r\n null \n", `nul`, `nulll`, `NULL`, `true`, `tru`, `truex`, `false`, `fals`,
	`0`, `-0`, `-`, `--1`, `+1`, `01`, `-01`, `1`, `123`, `1.5`, `1.`, `.5`, `1.e5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`,
	`-1.25e-10`, `1.5.5`, `0x10`, `1 2`, `Infinity`, `NaN`, `1_000`,
	`""`, `"a"`, `"`, `"abc`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9"`, `"\u00E9\uD83D\uDE00"`, `"\u12"`, `"\u12G4"`,
	`"\x"`, `"\'"`, `"\a"`, "\"\x00\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"é😀\"", `"a"b"`,
	`"0123456789abcdef0123456789abcdef"`, `"0123456789abcdef0123456789abcde\"f"`, "\"01234567\x01abcdef\"",
	`[]`, `[ ]`, `[1]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`, `[[]]`, `[[]`, `[]]`, `[{}]`, `[1,[2,[3]]]`,
	`{}`, `{ }`, `{"a":1}`, `{"a" : 1 , "b" : [true] }`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{a:1}`,
	`{"a":1 "b":2}`, `{"a":1}}`, `{"a":{"b":{}}}`, `{"":""}`, `{1:2}`, `{"a":1]`, `[1}`, `{"a":[}]}`,
	`{} {}`, `{}x`, `[] `, "[]\x00", `{"z":1,"a":2,"m":{"y":true,"b":false}}`,
	strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting),
	strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1),
	strings.Repeat(`{"a":`, maxNesting) + "1" + strings.Repeat("}", maxNesting),
	strings.Repeat(`{"a":`, maxNesting+1) + "1" + strings.Repeat("}", maxNesting+1),
	strings.Repeat("[", 64) + strings.Repeat("]", 64) + "]",
	strings.Repeat(`[{"a":`, 100) + "[]" + strings.Repeat("}]", 100),
	strings.Repeat(`[{"a":`, 100) + "[]" + strings.Repeat("]}", 100),
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range jsonCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.80q) = %v, json.Valid says %v", c, got, want)
		}
	}
	// Every prefix of a payload with every kind of token: mostly invalid, each in its own way.
	full := `{"verdict":"stop","n":[0,-1.5e+3,true,false,null],"s":"a\"b\\c\u00e9 \ud83d\ude00 long enough to skip","o":{}}`
	for i := range len(full) + 1 {
		for _, c := range []string{full[:i], full[:i] + " ", full[i:]} {
			if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
				t.Errorf("validJSON(%.200q) = %v, json.Valid says %v", c, got, want)
			}
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, c := range jsonCases {
		if len(c) < 1000 { // the fuzzer mutates short inputs faster; the table test has the long ones
			f.Add([]byte(c))
		}
	}
	f.Add([]byte(strings.Repeat(`[{"":`, 70) + strings.Repeat("}]", 70)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Errorf("validJSON(%.200q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

// benchPayload is a decision's JSON, the payload Append sees most.
const benchPayload = `{"verdict":"stop","check":"completed","reason":{"category":"completed","site":"supervisor.decide","source":"control","retryable_as_is":false,"retryable_after_remedy":false},"trail":[{"check":"error","outcome":"pass","why":"the run did not end on an error"},{"check":"stop_metadata","outcome":"pass","why":"ordinary finish (end_turn)"},{"check":"livelock","outcome":"pass","why":"no livelock"},{"check":"subagents","outcome":"unknown","why":"the harness reported none"},{"check":"processes","outcome":"unknown","why":"the harness reported none"},{"check":"pending_wake","outcome":"pass","why":"nothing pending will wake the agent"},{"check":"todos","outcome":"pass","why":"no open items in the final message's checklist"},{"check":"stall","outcome":"pass","why":"lexical: no stall signal"}],"nudges":{"given":{"processes":0,"subagents":0}}}`

func BenchmarkValidJSON(b *testing.B) {
	p := []byte(benchPayload)
	for _, v := range []struct {
		name  string
		valid func([]byte) bool
	}{{"store", validJSON}, {"encoding-json", json.Valid}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				if !v.valid(p) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
