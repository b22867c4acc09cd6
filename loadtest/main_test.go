package main

import (
	"context"
	"os"
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
	bin := buildStopgate(t)
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

// TestRunKilled kills the server with SIGKILL under load, mid-batch, and checks that every
// decision acknowledged as recorded before the kill is in the log afterwards.
func TestRunKilled(t *testing.T) {
	bin := buildStopgate(t)
	cfg := config{bin: bin, n: 2000, c: 16, timeout: time.Minute, groupCommit: true, killAfter: 300, dir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	rep, err := run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.killed || rep.acked < cfg.killAfter || rep.storedDecisions < rep.acked {
		t.Errorf("%+v", rep)
	}
}

// TestRunPostgres runs a small load recorded in PostgreSQL, when STOPGATE_TEST_POSTGRES names
// a server (scripts/postgres.sh starts one; make test sets it), and the comparison of recorded
// and unrecorded. It fails without one, as the store suites do.
func TestRunPostgres(t *testing.T) {
	dsn := os.Getenv("STOPGATE_TEST_POSTGRES")
	if dsn == "" {
		t.Fatal("STOPGATE_TEST_POSTGRES is not set: export STOPGATE_TEST_POSTGRES=\"$(scripts/postgres.sh)\" (make test does)")
	}
	bin := buildStopgate(t)
	cfg := config{bin: bin, n: 200, c: 8, timeout: time.Minute, groupCommit: true, postgres: dsn}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	var out strings.Builder
	if err := compare(ctx, &out, cfg, 1); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"PostgreSQL", "recorded ÷ unrecorded", "round 1: ", "verified: /v1/stats counts 200 decisions"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
}

func buildStopgate(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stopgate")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/stopgate").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
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
