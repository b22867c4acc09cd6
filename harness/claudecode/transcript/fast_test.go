package transcript

import (
	"bufio"
	"encoding/json"
	"github.com/stopgate/stopgate/internal/dataset"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDecodeEntryMatchesUnmarshal checks the fast decoder against encoding/json on every
// line of the golden transcripts: the same entry, but for data, of which only type and
// agentId are read.
func TestDecodeEntryMatchesUnmarshal(t *testing.T) {
	var files []string
	for _, pat := range []string{"testdata/handwritten/*.jsonl", "testdata/handwritten/v2_0/*.jsonl", "testdata/claude-code/*.jsonl", filepath.Join(dataset.Sample(t, dataset.SpotterDir), "*.jsonl")} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	n := 0
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for line := 1; sc.Scan(); line++ {
			if firstByte(sc.Bytes()) != '{' {
				continue
			}
			for _, live := range []bool{false, true} {
				var want, got rawEntry
				werr := json.Unmarshal(sc.Bytes(), &want)
				b := newBuilder((*Options)(nil).Resolved())
				b.Live = live
				gerr := b.decodeEntry(sc.Bytes(), &got)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("%s:%d: error %v, want %v", path, line, gerr, werr)
				}
				if want.Data != nil {
					want.Data = &rawProgress{Type: want.Data.Type, AgentID: want.Data.AgentID}
				}
				if string(want.ToolUseResult) != string(got.ToolUseResult) {
					t.Fatalf("%s:%d: toolUseResult differs", path, line)
				}
				want.ToolUseResult, got.ToolUseResult = nil, nil
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("%s:%d: entry differs:\n got %+v\nwant %+v", path, line, got, want)
				}
				n++
			}
		}
		f.Close()
	}
	if n < 100 {
		t.Fatalf("only %d lines checked", n)
	}
}

// FuzzDecodeEntry feeds arbitrary lines to the fast decoder: it never panics, a line
// encoding/json accepts decodes to the entry encoding/json makes, and a line encoding/json
// rejects as no object is rejected too.
func FuzzDecodeEntry(f *testing.F) {
	for _, s := range []string{`{"type":"user","message":{"content":"hi"}}`, `{"type":"progress","data":{"type":"agent_progress","agentId":"a1","message":{}}}`,
		`{"type":"user","toolUseResult":{"a":[1,"\"]"]}}`, `{"a":"\\"}`, `{"a":`, `[]`, `{"a":tru}`, `{"type":"x",}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var e, want rawEntry
		b := newBuilder((*Options)(nil).Resolved())
		err := b.decodeEntry(line, &e)
		if json.Unmarshal(line, &want) == nil {
			// What encoding/json accepts, the fast decoder decodes the same.
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if want.Data != nil {
				want.Data = &rawProgress{Type: want.Data.Type, AgentID: want.Data.AgentID}
			}
			if !reflect.DeepEqual(want, e) {
				t.Fatalf("%q: entry differs:\n got %+v\nwant %+v", line, e, want)
			}
		}
		var v any
		if json.Unmarshal(line, &v) != nil {
			if _, isObj := v.(map[string]any); !isObj && err == nil && firstByte(line) != '{' {
				t.Fatalf("accepted %q", line)
			}
		}
	})
}

// TestDecodeEntryEdgeCases checks the fast decoder against encoding/json on lines that take
// its fallbacks: keys in another case, duplicates, escapes, invalid UTF-8, control bytes,
// nulls and values of another type.
func TestDecodeEntryEdgeCases(t *testing.T) {
	for _, line := range []string{
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"x\ny","signature":"s"},{"type":"text","text":"héllo\n\"q\""}]}}`,
		`{"type":"assistant","Message":{"id":"m1"}}`,
		`{"type":"assistant","message":{"id":"m1"},"message":{"model":"x"}}`,
		`{"type":"assistant","message":{"ID":"m1","content":"a"}}`,
		`{"type":"assistant","message":{"id":"m1","id":"m2"}}`,
		`{"type":"assistant","message":{"id":5}}`,
		`{"type":"assistant","message":null}`,
		`{"type":"assistant","message":{"content":null,"stop_reason":null,"usage":null,"model":null}}`,
		`{"type":"assistant","message":{"content":[null,{"type":"tool_use","id":"c1","name":"Bash","input":null}],"stop_reason":"end_turn","usage":{"input_tokens":"3"}}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"a"}],"is_error":"true"}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c1","content":null,"Content":"x"}]}}`,
		`{"type":"user","message":{"content":[{"type":"image","source":{"data":"AAAA"}}]}}`,
		`{"type":"user","message":{"content":[]}}`,
		`{"type":"user","message":{"content":{"a":1}}}`,
		`{"type":"user","message":{"content":[5]}}`,
		"{\"type\":\"user\",\"message\":{\"content\":\"bad\xffutf8\"}}",
		"{\"type\":\"user\",\"message\":{\"content\":\"ctl\x01\"}}",
		`{"type":"user","message":{"content":"\u00e9\ud83d\ude00"}}`,
		`{"Type":"user"}`,
		`{"type":"user","type":"assistant"}`,
		`{"t\u0079pe":"user"}`,
		`{"type":"progress","data":{"type":"agent_progress","agentId":7,"message":{"x":[1]}}}`,
		`{"type":"progress","data":{"Type":"x"}}`,
		`{"type":"progress","data":"str"}`,
		`{"type":"progress","data":{"type":"a"},"data":{"type":"b"}}`,
		`{"type":"system","isMeta":"yes"}`,
		`{"type":"system","isMeta":null,"isSidechain":true,"hookCount":"2","durationMs":1.5,"stopReason":12,"agentId":"a"}`,
		`{"type":"system","content":"c","hookErrors":["e",{"x":1}],"hookInfos":[{"command":"x"}],"origin":{"kind":"k"}}`,
		`{"type":"x","unknown":{"deep":[1,2,{"a":"b"}]},"ünïcode":1}`,
		`{"type":5}`,
	} {
		var want, got rawEntry
		werr := json.Unmarshal([]byte(line), &want)
		b := newBuilder((*Options)(nil).Resolved())
		gerr := b.decodeEntry([]byte(line), &got)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: error %v, want %v", line, gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if want.Data != nil {
			want.Data = &rawProgress{Type: want.Data.Type, AgentID: want.Data.AgentID}
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: entry differs:\n got %+v\nwant %+v", line, got, want)
		}
	}
}
