package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchTurn is a typical turn: a final message that trails off on a promise, a few steps,
// todos and a finished process, so every check has something to read.
const benchTurn = `{"harness":"claude-code","session":"bench","now":"2026-08-23T10:05:00Z",
 "run_started_at":"2026-08-23T10:00:00Z",
 "message":{"text":"I updated the loader and the parser. Now I'll run the tests:","provider":"anthropic","finish_reason":"end_turn"},
 "steps":[{"tool":"bash","args":{"cmd":"go build ./..."},"result":"ok"},{"tool":"edit","args":{"path":"parser.go"},"result":"ok"}],
 "todos":[{"content":"fix the parser","status":"completed"},{"content":"run the tests","status":"in_progress"}],
 "processes":[{"id":"p1","command":"go vet ./...","started_at":"2026-08-23T10:01:00Z","status":"exited","exited_at":"2026-08-23T10:02:00Z","exit_code":0}]}`

// BenchmarkDecide measures POST /v1/decide in-process (no network): the decision alone, and
// recorded in a SQLite event log with and without group commit. Run in parallel, so that
// group commit has decisions to batch: go test -run '^$' -bench Decide -cpu 1,2,8 ./server/
func BenchmarkDecide(b *testing.B) {
	for _, bc := range []struct {
		name  string
		store bool
		each  bool
	}{
		{name: "NoStore"},
		{name: "SQLite/GroupCommit", store: true},
		{name: "SQLite/AppendEach", store: true, each: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := Options{AppendEach: bc.each}
			if bc.store {
				opts.Store = openStore(b)
			}
			s, err := New(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			want := RecordedOff
			if bc.store {
				want = RecordedYes
			}
			b.ReportAllocs()
			b.SetParallelism(4) // a few clients per core, as a server has
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec := serveLocal(s, "POST", "/v1/decide", benchTurn)
					if rec.Code != http.StatusOK || rec.Header().Get(HeaderRecorded) != want {
						b.Errorf("%d %s %s", rec.Code, rec.Header().Get(HeaderRecorded), rec.Body)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			if n := s.metrics.appends.Load(); n > 0 {
				b.ReportMetric(float64(s.metrics.appended.Load())/float64(n), "events/commit")
			}
		})
	}
}

// BenchmarkClassifyError measures POST /v1/classify/error in-process.
func BenchmarkClassifyError(b *testing.B) {
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	body := `{"provider":"openai","status":429,"body":"{\"error\":{\"message\":\"Rate limit reached for gpt-4o\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "http://127.0.0.1/v1/classify/error", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}
