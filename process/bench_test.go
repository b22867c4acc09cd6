//go:build unix

package process

import (
	"context"
	"fmt"
	"testing"
)

// benchManager returns a Manager closed when the benchmark ends.
func benchManager(b *testing.B) *Manager {
	b.Helper()
	m := New(nil)
	b.Cleanup(func() {
		if err := m.Close(); err != nil {
			b.Errorf("Close: %v", err)
		}
	})
	return m
}

// benchRun starts script and waits for it to exit.
func benchRun(b *testing.B, m *Manager, script string) string {
	b.Helper()
	ctx := context.Background()
	info, err := m.Start(ctx, StartOptions{Command: script})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Wait(ctx, info.ID); err != nil {
		b.Fatal(err)
	}
	return info.ID
}

// BenchmarkRead reads a 64 MiB log in chunks, rewinding at the end: the cost of task_output on a
// chatty build.
func BenchmarkRead(b *testing.B) {
	const logSize = 64 << 20
	m := benchManager(b)
	id := benchRun(b, m, fmt.Sprintf("head -c %d /dev/zero", logSize))
	p := m.procs[id]
	for _, chunk := range []int{4 << 10, 64 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("chunk=%dKiB", chunk>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(chunk))
			for b.Loop() {
				r, err := m.Read(id, chunk)
				if err != nil {
					b.Fatal(err)
				}
				if r.EOF {
					m.mu.Lock()
					p.readOffset = 0
					m.mu.Unlock()
				}
			}
		})
	}
}

// BenchmarkReadNothing is a Read that finds no new output: a gate's look at a silent process.
func BenchmarkReadNothing(b *testing.B) {
	m := benchManager(b)
	id := benchRun(b, m, "exit 0")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Read(id, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList snapshots every process, as a gate does at each stop attempt.
func BenchmarkList(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("procs=%d", n), func(b *testing.B) {
			m := benchManager(b)
			for range n {
				benchRun(b, m, "echo x")
			}
			b.ReportAllocs()
			for b.Loop() {
				if got := len(m.List()); got != n {
					b.Fatalf("List has %d processes, want %d", got, n)
				}
			}
		})
	}
}
