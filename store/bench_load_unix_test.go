//go:build unix

package store_test

import (
	"context"
	"encoding/json"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/store"
)

// loadTurns are the endings make load's clients send (loadtest's turns), decoded.
var loadTurns = []string{
	`{"harness":"load","message":{"text":"I updated the loader. Now I'll run the tests:","provider":"anthropic","finish_reason":"end_turn"}}`,
	`{"harness":"load","message":{"text":"All tests pass and the docs are updated.","provider":"openai","finish_reason":"stop"}}`,
	`{"harness":"load","error":{"provider":"anthropic","status":529,"body":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}}`,
	`{"harness":"load","now":"2026-08-23T10:10:00Z","message":{"text":"Let me look at the chart."},"jobs":[{"id":"j1","label":"npm test","status":"running"}]}`,
	`{"harness":"load","run_started_at":"2026-08-23T10:00:00Z","host_wakes":false,"message":{"text":"Done."},"processes":[{"id":"p1","command":"go test ./...","started_at":"2026-08-23T10:01:00Z","status":"exited","exited_at":"2026-08-23T10:04:00Z","exit_code":1,"log_size":512}]}`,
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAppendLoad is the group commit under make load: each append is the events of 16
// decisions (decision, termination reasons, finish-reason observation) from 16 of 32
// interleaved sessions, on a log that grows as make load's does. It reports the CPU time
// of the appends per decision (building the events is left out), which a shared machine
// disturbs less than the wall time.
func BenchmarkAppendLoad(b *testing.B) {
	ctx := context.Background()
	const sessions, perCommit = 32, 16
	sup := stopgate.New(stopgate.Config{})
	type decided struct {
		turn stopgate.Turn
		d    stopgate.Decision
	}
	var tmpl [sessions][]decided
	for s := range sessions {
		for _, body := range loadTurns {
			var t stopgate.Turn
			if err := json.Unmarshal([]byte(body), &t); err != nil {
				b.Fatal(err)
			}
			t.Session = "client-" + strconv.Itoa(s)
			tmpl[s] = append(tmpl[s], decided{t, sup.Decide(ctx, t)})
		}
	}
	for _, be := range benchBackends(b) {
		b.Run(be.name, func(b *testing.B) {
			dsn, opts := be.open(b)
			s, err := store.Open(ctx, dsn, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ReportAllocs()
			decisions, events := 0, 0
			var batch []store.Event
			var cpu time.Duration // in Append alone
			for b.Loop() {
				batch = batch[:0]
				for range perCommit {
					sess := decisions % sessions
					dt := tmpl[sess][(decisions/sessions)%len(loadTurns)]
					evs, err := store.DecisionEvents(dt.turn, dt.d, time.Now())
					if err != nil {
						b.Fatal(err)
					}
					if obs, ok, err := store.FinalMessageObservation(dt.turn, time.Now()); err != nil {
						b.Fatal(err)
					} else if ok {
						evs = append(evs, obs)
					}
					batch = append(batch, evs...)
					decisions++
				}
				events += len(batch)
				c0 := cpuTime(b)
				if err := s.Append(ctx, batch...); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime(b) - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(decisions), "cpu-µs/decision")
			b.ReportMetric(float64(events)/float64(decisions), "events/decision")
			b.ReportMetric(0, "ns/op")
		})
	}
}
