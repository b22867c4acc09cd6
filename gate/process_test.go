package gate

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// ms is a point in time given in milliseconds, as the origin's fixtures give them.
func ms(n int64) time.Time { return time.UnixMilli(n).UTC() }

func msp(n int64) *time.Time { t := ms(n); return &t }

func code(n int) *int { return &n }

// runStart and proc are the origin tests' fixture: RUN_START = 1000, a running "pnpm test"
// started at 1010, nothing read, nothing logged.
var runStart = ms(1000)

func proc(edit func(*Process)) Process {
	p := Process{ID: "aaaa1111", Command: "pnpm test", StartedAt: ms(1010), Status: StatusRunning}
	if edit != nil {
		edit(&p)
	}
	return p
}

// exited edits p into a process that exited with code c.
func exited(p *Process, c int) { p.Status = StatusExited; p.ExitCode = code(c) }

func TestIsUnresolvedOriginVectors(t *testing.T) {
	// Research section 9, isUnresolvedProcess: I1-I7 from the origin's tests, I8-I11 derived from
	// its code. The fixtures carry no exit or read times, as the origin's did.
	tests := []struct {
		name string
		p    Process
		want bool
	}{
		{"I1 running, nothing read", proc(nil), true},
		{"I2 predates the run", proc(func(p *Process) { p.StartedAt = ms(999) }), false},
		{"I3 running, read 42 of 42", proc(func(p *Process) { p.ReadOffset, p.LogSize = 42, 42 }), false},
		{"I4 exit 0, 900 bytes unread", proc(func(p *Process) { exited(p, 0); p.LogSize = 900 }), false},
		{"I5 exit 1, 100 of 900 read", proc(func(p *Process) { exited(p, 1); p.LogSize, p.ReadOffset = 900, 100 }), true},
		{"I6 exit 1, 900 of 900 read", proc(func(p *Process) { exited(p, 1); p.LogSize, p.ReadOffset = 900, 900 }), false},
		{"I7 started exactly at run start", proc(func(p *Process) { p.StartedAt = runStart }), true},
		// The origin let this one through (0 < 0 is false), so a silent crash passed. Fixed (E2).
		{"I8 exit 1, empty log, never read", proc(func(p *Process) { exited(p, 1) }), true},
		{"I9 running, read 5 of 10000", proc(func(p *Process) { p.ReadOffset, p.LogSize = 5, 10000 }), false},
		{"I10 exit 2, 10 bytes unread", proc(func(p *Process) { exited(p, 2); p.LogSize = 10 }), true},
		{"I11 exit -1, 10 bytes unread", proc(func(p *Process) { exited(p, -1); p.LogSize = 10 }), true},
		{"I11 exit 137, 10 bytes unread", proc(func(p *Process) { exited(p, 137); p.LogSize = 10 }), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsUnresolved(tt.p, runStart); got != tt.want {
				t.Errorf("IsUnresolved = %t, want %t", got, tt.want)
			}
		})
	}
}

// TestIsUnresolvedDefectFixes pins each fix of research section 8 (E2-E10), each with the case
// that must still block beside the case that must not.
func TestIsUnresolvedDefectFixes(t *testing.T) {
	const exit = 5000
	const hour = 3_600_000
	tests := []struct {
		name string
		p    Process
		want bool
	}{
		// E2: a non-zero exit with an empty log blocks until a read at or after the exit.
		{"E2 silent crash blocks", proc(func(p *Process) { exited(p, 1); p.ExitedAt = msp(exit) }), true},
		{"E2 silent crash read at the exit instant", proc(func(p *Process) {
			exited(p, 1)
			p.ExitedAt, p.LastReadAt = msp(exit), msp(exit)
		}), false},
		{"E2 silent crash read after exit", proc(func(p *Process) {
			exited(p, 1)
			p.ExitedAt, p.LastReadAt = msp(exit), msp(exit+1)
		}), false},
		{"E2 silent crash, exit time unknown, a read recorded", proc(func(p *Process) {
			exited(p, 1)
			p.LastReadAt = msp(exit)
		}), false},

		// E3: a running process that printed nothing is acknowledged by a read that returned nothing.
		{"E3 silent and running, empty read counts", proc(func(p *Process) { p.LastReadAt = msp(2000) }), false},
		{"E3 silent and running, never read", proc(nil), true},

		// E4: a process the agent stopped never blocks as a failure.
		{"E4 stopped by agent: signal, unread bytes", proc(func(p *Process) {
			p.Status, p.Signal, p.StoppedByAgent, p.ExitedAt, p.LogSize = StatusExited, "SIGTERM", true, msp(exit), 300
		}), false},
		{"E4 stopped by agent, recorded as code 1 as the origin did", proc(func(p *Process) {
			exited(p, 1)
			p.StoppedByAgent, p.LogSize = true, 300
		}), false},
		{"E4 stop requested, still shutting down", proc(func(p *Process) { p.StoppedByAgent = true }), false},
		{"E4 a signal the agent did not ask for is a failure", proc(func(p *Process) {
			p.Status, p.Signal, p.ExitedAt, p.LogSize = StatusExited, "SIGKILL", msp(exit), 300
		}), true},

		// E5: no recency window: a job started in the run that fails an hour later is still seen.
		{"E5 failed an hour into the run", proc(func(p *Process) {
			exited(p, 1)
			p.StartedAt, p.ExitedAt, p.LogSize = ms(2000), msp(2000+hour), 800
		}), true},
		{"E5 started an hour into the run, still running", proc(func(p *Process) { p.StartedAt = ms(1000 + hour) }), true},

		// E6: a read before the exit cannot acknowledge output written as the process failed,
		// even when a stale log size makes the offsets look complete.
		{"E6 read before exit, stale size looks fully read", proc(func(p *Process) {
			exited(p, 1)
			p.ExitedAt, p.LastReadAt, p.ReadOffset, p.LogSize = msp(exit), msp(exit-1), 300, 300
		}), true},
		{"E6 read after exit", proc(func(p *Process) {
			exited(p, 1)
			p.ExitedAt, p.LastReadAt, p.ReadOffset, p.LogSize = msp(exit), msp(exit+10), 900, 900
		}), false},

		// E7: read while running, then failed: blocks again until read after the exit.
		{"E7 read while running, then failed", proc(func(p *Process) {
			exited(p, 2)
			p.LastReadAt, p.ExitedAt, p.ReadOffset, p.LogSize = msp(2000), msp(exit), 40, 900
		}), true},

		// E8: a process from an earlier run stays exempt even when it fails now.
		{"E8 earlier run, failed now", proc(func(p *Process) {
			exited(p, 1)
			p.StartedAt, p.ExitedAt, p.LogSize = ms(500), msp(exit), 100
		}), false},

		// Absence means unknown.
		{"exit code unknown, never read, blocks", proc(func(p *Process) {
			p.Status, p.ExitedAt, p.LogSize = StatusExited, msp(exit), 50
		}), true},
		{"exit code unknown, read after exit", proc(func(p *Process) {
			p.Status, p.ExitedAt, p.LastReadAt = StatusExited, msp(exit), msp(exit+1)
		}), false},
		{"exit recorded under a stale running status", proc(func(p *Process) {
			p.ExitCode, p.LogSize, p.LastReadAt = code(3), 10, msp(2000)
		}), true},
		{"status unknown, nothing recorded", proc(func(p *Process) { p.Status = "" }), false},
		{"status not recognised", proc(func(p *Process) { p.Status = "zombie" }), false},
		{"start unknown", proc(func(p *Process) { p.StartedAt = time.Time{} }), false},
		{"clean exit, nothing read", proc(func(p *Process) {
			exited(p, 0)
			p.ExitedAt, p.LogSize = msp(exit), 10
		}), false},
		{"code 0 but killed by a signal", proc(func(p *Process) {
			exited(p, 0)
			p.Signal, p.ExitedAt = "SIGSEGV", msp(exit)
		}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsUnresolved(tt.p, runStart); got != tt.want {
				t.Errorf("IsUnresolved = %t, want %t", got, tt.want)
			}
		})
	}
}

// TestIsUnresolvedRunStartUnknown: E10, the origin counted every process as in-run when the
// host never set a run start. Here a zero run start blocks nothing.
func TestIsUnresolvedRunStartUnknown(t *testing.T) {
	for _, p := range []Process{proc(nil), proc(func(p *Process) { exited(p, 1); p.LogSize = 10 })} {
		if IsUnresolved(p, time.Time{}) {
			t.Errorf("%+v blocks with an unknown run start", p)
		}
	}
}

func TestSelectUnresolved(t *testing.T) {
	// S1: dddd predates the run; aaaa and bbbb tie on start and are ordered by id.
	in := []Process{
		proc(func(p *Process) { p.ID, p.StartedAt = "cccc", ms(1030) }),
		proc(func(p *Process) { p.ID, p.StartedAt = "bbbb", ms(1010) }),
		proc(func(p *Process) { p.ID, p.StartedAt = "aaaa", ms(1010) }),
		proc(func(p *Process) { p.ID, p.StartedAt = "dddd", ms(995) }),
	}
	orig := slices.Clone(in)
	var got []string
	for _, p := range SelectUnresolved(in, runStart) {
		got = append(got, p.ID)
	}
	if want := []string{"aaaa", "bbbb", "cccc"}; !slices.Equal(got, want) {
		t.Errorf("ids = %q, want %q", got, want)
	}
	if !slices.EqualFunc(in, orig, func(a, b Process) bool { return a.ID == b.ID }) {
		t.Error("SelectUnresolved reordered its input")
	}
	// Byte order, not locale order: upper case sorts before lower case.
	mixed := []Process{proc(func(p *Process) { p.ID = "b" }), proc(func(p *Process) { p.ID = "B" })}
	if sel := SelectUnresolved(mixed, runStart); sel[0].ID != "B" {
		t.Errorf("first id = %q, want byte order (B before b)", sel[0].ID)
	}
	if sel := SelectUnresolved(nil, runStart); len(sel) != 0 {
		t.Errorf("nil input selected %d", len(sel))
	}
}

func TestProcessGateMessage(t *testing.T) {
	// M1: nothing unresolved gives no message.
	for _, procs := range [][]Process{nil, {proc(func(p *Process) { exited(p, 0); p.LogSize = 10 })}} {
		if msg := ProcessGateMessage(procs, runStart); msg != "" {
			t.Errorf("ProcessGateMessage(%+v) = %q, want none", procs, msg)
		}
	}

	// M2: a running and a failed process.
	m2 := ProcessGateMessage([]Process{
		proc(func(p *Process) { p.ID, p.Command = "run1", "pnpm dev" }),
		proc(func(p *Process) { p.ID, p.Command = "fail1", "pnpm build"; exited(p, 2); p.LogSize = 500 }),
	}, runStart)
	for _, want := range []string{"run1 (pnpm dev)", "fail1 (pnpm build)", "exited with code 2", "task_output", "task_stop", `["fail1", "run1"]`} {
		if !strings.Contains(m2, want) {
			t.Errorf("M2 message lacks %q:\n%s", want, m2)
		}
	}
	if strings.Index(m2, "Still running") > strings.Index(m2, "Ended without a clean exit") {
		t.Errorf("M2: the running section must come before the ended one:\n%s", m2)
	}

	// M3: only a running process: no ended section.
	m3 := ProcessGateMessage([]Process{proc(nil)}, runStart)
	if !strings.Contains(m3, "Still running") || strings.Contains(m3, "Ended without a clean exit") {
		t.Errorf("M3 message:\n%s", m3)
	}
	// The escape hatch says how to finish with a process deliberately left running.
	if !strings.Contains(m3, "read its output once, say that you are leaving it running") {
		t.Errorf("M3 lacks the leave-it-running escape:\n%s", m3)
	}

	// Every way of ending, and a command that would break the bullet layout.
	all := ProcessGateMessage([]Process{
		proc(func(p *Process) { p.ID, p.Command = "run1", "pnpm dev" }),
		proc(func(p *Process) {
			p.ID, p.Command, p.StartedAt = "heredoc", "cat <<EOF\n  line one\n\tline two\nEOF", ms(1020)
		}),
		proc(func(p *Process) { p.ID, p.Command = "fail1", "pnpm build"; exited(p, 2); p.LogSize = 500 }),
		proc(func(p *Process) {
			p.ID, p.Command, p.StartedAt = "oom1", "go test ./...", ms(1040)
			p.Status, p.Signal, p.ExitedAt = StatusExited, "SIGKILL", msp(9000)
		}),
		proc(func(p *Process) {
			p.ID, p.Command, p.StartedAt, p.Status, p.ExitedAt = "gone1", "make", ms(1050), StatusExited, msp(9000)
		}),
		proc(func(p *Process) { p.ID, p.Command, p.StartedAt = "long1", strings.Repeat("x", 400), ms(1060) }),
		proc(func(p *Process) { p.ID, p.Command, p.StartedAt = "", "", ms(1070) }),
	}, runStart)
	golden(t, "process_message.golden", all+"\n")
}

// TestProcessGateCap: the process gate blocks until its cap of injections is spent.
func TestProcessGateCap(t *testing.T) {
	tests := []struct {
		name     string
		procs    []Process
		injected int
		want     bool
	}{
		{"F1 first injection", []Process{proc(nil)}, 0, true},
		{"F2 one spent", []Process{proc(nil)}, 1, true},
		{"F2 cap reached", []Process{proc(nil)}, 2, false},
		{"F2 past the cap", []Process{proc(nil)}, 3, false},
		{"F3 nothing blocks", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check(Input{RunStartedAt: runStart, Processes: tt.procs, Injections: Injections{ProcessGate: tt.injected}})
			msg, ok := r.Message, r.Blocked
			if ok != tt.want {
				t.Fatalf("ok = %t, want %t", ok, tt.want)
			}
			if ok != (msg != "") {
				t.Errorf("ok = %t with message %q", ok, msg)
			}
			if ok && !strings.Contains(msg, "aaaa1111") {
				t.Errorf("message does not name the process: %q", msg)
			}
		})
	}
}

// TestProcessJSON pins the CLI's JSON shape: snake_case names, absent fields omitted, and an
// exit code of 0 kept distinct from an unknown one.
func TestProcessJSON(t *testing.T) {
	p := proc(func(p *Process) {
		exited(p, 0)
		p.ExitedAt, p.LogSize, p.ReadOffset, p.LastReadAt = msp(5000), 10, 4, msp(6000)
	})
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"aaaa1111","command":"pnpm test","started_at":"1970-01-01T00:00:01.01Z","status":"exited","exited_at":"1970-01-01T00:00:05Z","exit_code":0,"read_offset":4,"log_size":10,"last_read_at":"1970-01-01T00:00:06Z"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Process
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.ExitCode == nil || *back.ExitCode != 0 || !back.ExitedAt.Equal(*p.ExitedAt) || back.ReadOffset != 4 {
		t.Errorf("round trip lost facts: %+v", back)
	}

	full := `{"id":"x","command":"c","started_at":"2026-08-23T10:00:00Z","status":"exited","exited_at":"2026-08-23T10:04:10Z","exit_code":1,"signal":"SIGTERM","stopped_by_agent":true,"read_offset":7,"log_size":9,"last_read_at":"2026-08-23T10:05:00Z"}`
	var q Process
	if err := json.Unmarshal([]byte(full), &q); err != nil {
		t.Fatal(err)
	}
	if q.Signal != "SIGTERM" || !q.StoppedByAgent || q.LogSize != 9 || q.LastReadAt == nil || *q.ExitCode != 1 {
		t.Errorf("decoded %+v", q)
	}
	b, _ = json.Marshal(q)
	if string(b) != full {
		t.Errorf("re-encoded\n got %s\nwant %s", b, full)
	}

	var unknown Process
	if err := json.Unmarshal([]byte(`{"id":"y","status":"exited"}`), &unknown); err != nil {
		t.Fatal(err)
	}
	if unknown.ExitCode != nil || unknown.LastReadAt != nil || !unknown.StartedAt.IsZero() {
		t.Errorf("absent fields decoded as values: %+v", unknown)
	}
	if b, _ := json.Marshal(Process{}); string(b) != `{}` {
		t.Errorf("zero Process encodes as %s, want {}", b)
	}
}
