package main

import (
	"bytes"
	"fmt"
	"github.com/stopgate/stopgate/internal/dataset"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// growthSample is the real session the 56 MB transcript repeats (2.8 MB, MIT, in the bundled
// sample; see testdata/transcripts/claude-code/spotter/PROVENANCE.md).
const growthSample = dataset.SpotterDir + "/258c7280-ae70-4798-800f-63464d01a85d.jsonl"

// BenchmarkHookGrowth measures what a stop costs as the session grows, with the hook as a
// whole process (stopgate hook claude-code -no-record), in rounds that interleave:
//
//   - small: a stop on a 6 KB transcript;
//   - first: the first stop on a 56 MB transcript (the sample repeated), no state kept yet;
//   - next: a stop on the same transcript after one more line was appended, going on from
//     the checkpoint the first stop kept;
//   - python: python3 decoding every line of the 56 MB file with json.loads.
//
// It reports the medians, next/small (goal ≤ 2), python/first (goal ≥ 3) and the largest max
// RSS of any hook process (goal ≤ 64 MB), and logs every round. Run it with
//
//	go test ./cmd/stopgate -run '^$' -bench HookGrowth -benchtime 5x
func BenchmarkHookGrowth(b *testing.B) {
	sample, err := os.ReadFile(dataset.Sample(b, growthSample))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "stopgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	big := filepath.Join(dir, "big.jsonl")
	var buf bytes.Buffer
	for buf.Len() < 55<<20 {
		buf.Write(sample)
	}
	if err := os.WriteFile(big, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	buf = bytes.Buffer{}
	small := filepath.Join(dir, "small.jsonl")
	cut := 0
	for cut < 6<<10 {
		cut += bytes.IndexByte(sample[cut:], '\n') + 1
	}
	if err := os.WriteFile(small, sample[:cut], 0o644); err != nil {
		b.Fatal(err)
	}
	last := sample[bytes.LastIndexByte(sample[:len(sample)-1], '\n')+1:]
	hook := func(path, session, stateDir string) (time.Duration, int64) {
		payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done."}`, session, path)
		// /usr/bin/time measures the hook's own peak memory: the benchmark's process is large,
		// and a child's max RSS counted by the benchmark would include it until exec.
		rssFile := filepath.Join(dir, "rss")
		cmd := exec.Command("/usr/bin/time", "-f", "%M", "-o", rssFile, bin, "hook", "claude-code", "-no-record", "-state-dir", stateDir)
		cmd.Stdin = bytes.NewReader([]byte(payload))
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errb
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("hook: %v: %s", err, errb.String())
		}
		d := time.Since(start)
		if bytes.Contains(errb.Bytes(), []byte("unreadable")) {
			b.Fatalf("hook: %s", errb.String())
		}
		kb, err := os.ReadFile(rssFile)
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		fmt.Sscan(string(kb), &n)
		return d, n << 10
	}
	var small_, first, next, py []time.Duration
	var rss int64
	round := 0
	for b.Loop() {
		round++
		stateDir := filepath.Join(dir, fmt.Sprintf("state-%d", round))
		s, r1 := hook(small, fmt.Sprintf("small-%d", round), stateDir)
		f, r2 := hook(big, fmt.Sprintf("big-%d", round), stateDir)
		af, err := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		af.Write(last)
		af.Close()
		n, r3 := hook(big, fmt.Sprintf("big-%d", round), stateDir)
		start := time.Now()
		if out, err := exec.Command("python3", "-c", "import json,sys; [json.loads(l) for l in open(sys.argv[1])]", big).CombinedOutput(); err != nil {
			b.Fatalf("python3: %v: %s", err, out)
		}
		p := time.Since(start)
		rss = max(rss, r1, r2, r3)
		small_, first, next, py = append(small_, s), append(first, f), append(next, n), append(py, p)
		b.Logf("round %d: small %v, first %v, next %v, python %v; max RSS small %d KB, first %d KB, next %d KB",
			round, s.Round(time.Millisecond), f.Round(time.Millisecond), n.Round(time.Millisecond), p.Round(time.Millisecond), r1>>10, r2>>10, r3>>10)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(median(small_)), "small-ms")
	b.ReportMetric(ms(median(first)), "first56MB-ms")
	b.ReportMetric(ms(median(next)), "next56MB-ms")
	b.ReportMetric(ms(median(py)), "python-ms")
	b.ReportMetric(float64(median(next))/float64(median(small_)), "next/small")
	b.ReportMetric(float64(median(py))/float64(median(first)), "python/first")
	b.ReportMetric(float64(rss)/(1<<20), "maxRSS-MB")
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}
