package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"github.com/stopgate/stopgate/harness/sweagent"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spotterJSONL returns the JSONL files of the shared spotter folder (sessions and sub-agent
// transcripts) and their total size: what both the audit and the plain JSON-lines pass read.
func spotterJSONL(b *testing.B) ([]string, int64) {
	b.Helper()
	var files []string
	var size int64
	err := filepath.WalkDir(shared(b, "claude-code", "spotter"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files, size = append(files, p), size+fi.Size()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, size
}

// BenchmarkAuditSpotter audits the shared spotter folder (about 17 MB of Claude Code JSONL):
// reading, Turn building and deciding every stop, on one worker and on one per CPU. Compare
// its MB/s with BenchmarkJSONLinesValid, a bare pass over the same bytes.
func BenchmarkAuditSpotter(b *testing.B) {
	_, size := spotterJSONL(b)
	dir := shared(b, "claude-code", "spotter")
	for _, bm := range []struct {
		name    string
		workers int
	}{{"workers=1", 1}, {"workers=GOMAXPROCS", 0}} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				rep, err := Run(b.Context(), []string{dir}, &Options{Workers: bm.workers})
				if err != nil || rep.Total.Sessions == 0 {
					b.Fatalf("%v, %d sessions", err, rep.Total.Sessions)
				}
			}
		})
	}
}

// BenchmarkJSONLinesValid is the in-process baseline: one bufio pass over the same JSONL files,
// each line checked with json.Valid, and nothing else.
func BenchmarkJSONLinesValid(b *testing.B) {
	files, size := spotterJSONL(b)
	b.SetBytes(size)
	b.ReportAllocs()
	br := bufio.NewReaderSize(nil, 64<<10)
	var line []byte
	for b.Loop() {
		lines := 0
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			br.Reset(f)
			for {
				chunk, err := br.ReadSlice('\n')
				line = append(line, chunk...)
				if errors.Is(err, bufio.ErrBufferFull) {
					continue
				}
				if len(line) > 0 {
					if !json.Valid(line) && len(strings.TrimSpace(string(line))) > 0 {
						b.Fatalf("%s: line %d is not JSON", p, lines+1)
					}
					lines++
				}
				line = line[:0]
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			f.Close()
		}
	}
}

// BenchmarkParseTrajectory reads the hand-written SWE-agent trajectory with the most steps.
func BenchmarkParseTrajectory(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(handwritten, "swe-agent", "demo__demo-10-loop.traj"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sweagent.ParseTrajectory("demo__demo-10-loop.traj", data); err != nil {
			b.Fatal(err)
		}
	}
}
