package transcript

import (
	"bytes"
	"os"
	"testing"
)

// largestSession is the largest real session in the shared data (3.4 MB, 1881 lines).
const largestSession = "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"

func BenchmarkRead(b *testing.B) {
	data, err := os.ReadFile(shared(b, largestSession))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSummary(b *testing.B) {
	s := readFixture(b, shared(b, largestSession), nil)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Summary()
	}
}
