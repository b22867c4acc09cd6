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

// FuzzDecodeEntry feeds arbitrary lines to the fast decoder: it never panics, and a line
// encoding/json rejects as no object is rejected too.
func FuzzDecodeEntry(f *testing.F) {
	for _, s := range []string{`{"type":"user","message":{"content":"hi"}}`, `{"type":"progress","data":{"type":"agent_progress","agentId":"a1","message":{}}}`,
		`{"type":"user","toolUseResult":{"a":[1,"\"]"]}}`, `{"a":"\\"}`, `{"a":`, `[]`, `{"a":tru}`, `{"type":"x",}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var e rawEntry
		b := newBuilder((*Options)(nil).Resolved())
		err := b.decodeEntry(line, &e)
		var v any
		if json.Unmarshal(line, &v) != nil {
			if _, isObj := v.(map[string]any); !isObj && err == nil && firstByte(line) != '{' {
				t.Fatalf("accepted %q", line)
			}
		}
	})
}
