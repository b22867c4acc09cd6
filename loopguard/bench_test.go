package loopguard

import (
	"strconv"
	"testing"
)

// The guard reads only the tail it needs, so these histories of 10,000 steps should cost what
// a short one does.

const historyLen = 10_000

func BenchmarkCheckNoLoop(b *testing.B) {
	steps := make([]Step, historyLen)
	for i := range steps {
		steps[i] = call("read_file", `{"path":"f`+strconv.Itoa(i)+`.go"}`, "x")
	}
	b.ReportAllocs()
	for b.Loop() {
		Config{}.Check(steps)
	}
}

func BenchmarkCheckIdenticalLoop(b *testing.B) {
	steps := times(historyLen, readA)
	b.ReportAllocs()
	for b.Loop() {
		Config{}.Check(steps)
	}
}

func BenchmarkCheckRespelledArgs(b *testing.B) {
	// Every call spells its arguments differently, so each comparison canonicalises.
	steps := make([]Step, historyLen)
	for i := range steps {
		args := `{"path":"a.go","limit":10}`
		if i%2 == 1 {
			args = `{"limit": 10, "path": "a.go"}`
		}
		steps[i] = call("read_file", args, "x")
	}
	b.ReportAllocs()
	for b.Loop() {
		Config{}.Check(steps)
	}
}

func BenchmarkCheckAlternation(b *testing.B) {
	steps := times(historyLen/2, readA, grepX)
	b.ReportAllocs()
	for b.Loop() {
		Config{}.Check(steps)
	}
}

func BenchmarkCheckReplies(b *testing.B) {
	steps := times(historyLen, reply("I have finished the task. Let me know if you need anything else."))
	b.ReportAllocs()
	for b.Loop() {
		Config{}.Check(steps)
	}
}

func BenchmarkCanonicalArgs(b *testing.B) {
	args := `{"path": "src/main.go", "offset": 120, "limit": 400, "options": {"follow": true, "encoding": "utf-8"}}`
	b.ReportAllocs()
	for b.Loop() {
		CanonicalArgs(args)
	}
}
