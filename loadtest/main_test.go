package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRun builds stopgate, runs a small load against it in both write modes, and checks that
// the run verifies: every decision answered, acknowledged and persisted exactly once. It
// asserts nothing about speed.
func TestRun(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "stopgate")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/stopgate").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tt := range []struct{ groupCommit, noRecord bool }{{true, false}, {false, false}, {true, true}} {
		cfg := config{bin: bin, n: 300, c: 8, timeout: time.Minute, groupCommit: tt.groupCommit, noRecord: tt.noRecord, dir: t.TempDir()}
		ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
		rep, err := run(ctx, cfg)
		cancel()
		if err != nil {
			t.Fatalf("%+v: %v", tt, err)
		}
		want := cfg.n
		if tt.noRecord {
			want = 0
		}
		if rep.done != cfg.n || rep.storedDecisions != want || rep.acked != want || rep.statsDecisions != int64(want) {
			t.Errorf("%+v: %+v", tt, rep)
		}
		if !tt.groupCommit && rep.commits != float64(cfg.n) {
			t.Errorf("one append per decision: %v commits for %d decisions", rep.commits, cfg.n)
		}
		var out strings.Builder
		rep.print(&out)
		for _, want := range []string{"decisions/s", "p99", "verified"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the report does not say %q:\n%s", want, out.String())
			}
		}
	}
}

func TestRunBounds(t *testing.T) {
	for _, cfg := range []config{{n: 0, c: 1}, {n: 1, c: 0}, {n: maxRequests + 1, c: 1}, {n: 1, c: maxClients + 1}} {
		if _, err := run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "want 1 <= n") {
			t.Errorf("run(%+v): %v", cfg, err)
		}
	}
}

func TestPercentile(t *testing.T) {
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Millisecond
	}
	for p, want := range map[int]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 1: time.Millisecond} {
		if got := pct(lat, p); got != want {
			t.Errorf("pct(%d) = %v, want %v", p, got, want)
		}
	}
	if got := pct([]time.Duration{7}, 99); got != 7 {
		t.Errorf("one sample: %v", got)
	}
}
