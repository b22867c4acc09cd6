package stall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchMessage builds a realistic agent message of about size bytes: the testdata message
// (prose, lists, a table, fenced and inline code, URLs) repeated, ending on a dangling
// announcement.
func benchMessage(b *testing.B, size int) string {
	b.Helper()
	chunk, err := os.ReadFile(filepath.Join("testdata", "agent_message.md"))
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.Grow(size + len(chunk))
	for sb.Len() < size {
		sb.Write(chunk)
		sb.WriteString("\n")
	}
	sb.WriteString("All checks pass. Now let me update the changelog and open the pull request.")
	return sb.String()
}

var benchSizes = []struct {
	name string
	size int
}{{"10KB", 10 << 10}, {"100KB", 100 << 10}}

func BenchmarkClassifyLexical(b *testing.B) {
	for _, sz := range benchSizes {
		msg := benchMessage(b, sz.size)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if !ClassifyLexical(msg, Interactive).Stalled {
					b.Fatal("the benchmark message must be a stall")
				}
			}
		})
	}
}

func BenchmarkSentences(b *testing.B) {
	for _, sz := range benchSizes {
		msg := benchMessage(b, sz.size)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if len(Sentences(msg)) == 0 {
					b.Fatal("no sentences")
				}
			}
		})
	}
}

func BenchmarkLastSentences(b *testing.B) {
	for _, sz := range benchSizes {
		msg := benchMessage(b, sz.size)
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if LastSentences(msg, 3) == "" {
					b.Fatal("empty tail")
				}
			}
		})
	}
}

func BenchmarkOpenTodos(b *testing.B) {
	for _, sz := range benchSizes {
		msg := benchMessage(b, sz.size) + "\n<todo>\n- [x] parse\n- [ ] test\n</todo>"
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if !HasUncheckedTodo(msg) {
					b.Fatal("the open item was not found")
				}
			}
		})
	}
}
