package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkClassifyError is `stopgate classify error` for one line, without the process: the
// line decoded into an ErrorInput, then classified. The lines are the inputs of the
// hand-labelled error corpus (termination/testdata/corpus), round-robin: ns/op is per error.
func BenchmarkClassifyError(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "termination", "testdata", "corpus", "errors.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			b.Fatal(err)
		}
		lines = append(lines, r.Input)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		var in ErrorInput
		if err := Decode(bytes.NewReader(lines[i%len(lines)]), &in); err != nil {
			b.Fatal(err)
		}
		if _, err := ClassifyError(in); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
