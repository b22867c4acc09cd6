//go:build unix

package process_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stopgate/stopgate/process"
)

// patience bounds every wait in these tests. It is a deadline for something that should happen,
// never a measurement: the machine may be slow and busy.
const patience = 90 * time.Second

// newManager returns a Manager closed when the test ends, failing the test if Close fails.
func newManager(t *testing.T, opts *process.Options) *process.Manager {
	t.Helper()
	m := process.New(opts)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

func start(t *testing.T, m *process.Manager, opts process.StartOptions) process.Info {
	t.Helper()
	info, err := m.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start(%+v): %v", opts, err)
	}
	return info
}

func startSh(t *testing.T, m *process.Manager, script string) process.Info {
	t.Helper()
	return start(t, m, process.StartOptions{Command: script})
}

func wait(t *testing.T, m *process.Manager, id string) process.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	info, err := m.Wait(ctx, id)
	if err != nil {
		t.Fatalf("Wait(%s): %v", id, err)
	}
	return info
}

func get(t *testing.T, m *process.Manager, id string) process.Info {
	t.Helper()
	info, ok := m.Get(id)
	if !ok {
		t.Fatalf("Get(%s): not found", id)
	}
	return info
}

// poll calls cond until it returns true, failing the test after patience.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readUntil reads id's output until it holds every one of want, and returns all it read.
func readUntil(t *testing.T, m *process.Manager, id string, want ...string) string {
	t.Helper()
	var out []byte
	poll(t, fmt.Sprintf("%s to print %q", id, want), func() bool {
		r, err := m.Read(id, 0)
		if err != nil {
			t.Fatalf("Read(%s): %v", id, err)
		}
		out = append(out, r.Data...)
		for _, w := range want {
			if !bytes.Contains(out, []byte(w)) {
				return false
			}
		}
		return true
	})
	return string(out)
}

// gone reports whether pid no longer runs: it does not exist, or it is a zombie nobody reaped
// (the init of a container may never reap orphans).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // no /proc (not Linux), or it vanished just now: ask kill again next time
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// clock is a fake Options.Now that moves one second forward on every call.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestExitOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		script string
		code   int
		out    string
	}{
		{"passes", "echo out; echo err >&2", 0, "out\nerr\n"},
		{"fails with unread output", "echo boom; exit 1", 1, "boom\n"},
		{"exits 3", "printf abc; exit 3", 3, "abc"},
		{"fails silently", "exit 2", 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, nil)
			started := startSh(t, m, tt.script)
			if !started.Running || started.ExitCode != nil || started.ExitedAt != nil {
				t.Errorf("Start snapshot = %+v, want running with no exit", started)
			}
			if started.Command != tt.script || started.PID <= 1 || len(started.ID) != 8 {
				t.Errorf("Start snapshot = %+v, want Command %q, a PID and an 8-digit id", started, tt.script)
			}

			info := wait(t, m, started.ID)
			if info.Running || info.ExitCode == nil || *info.ExitCode != tt.code || info.Signal != "" {
				t.Errorf("after Wait: Running %v ExitCode %v Signal %q, want exited %d, no signal",
					info.Running, deref(info.ExitCode), info.Signal, tt.code)
			}
			if info.StopRequestedBy != "" || info.StoppedByAgent {
				t.Errorf("after Wait: stop recorded (%q, %v) though nobody asked", info.StopRequestedBy, info.StoppedByAgent)
			}
			if info.ExitedAt == nil || info.ExitedAt.Before(info.StartedAt) {
				t.Errorf("ExitedAt = %v, want a time not before StartedAt %v", info.ExitedAt, info.StartedAt)
			}
			// Unread: the facts a gate needs to block a failed run.
			if info.LogSize != int64(len(tt.out)) || info.ReadOffset != 0 || info.LastReadAt != nil {
				t.Errorf("before Read: LogSize %d ReadOffset %d LastReadAt %v, want %d, 0, nil",
					info.LogSize, info.ReadOffset, info.LastReadAt, len(tt.out))
			}
			if log, err := os.ReadFile(info.LogPath); err != nil || string(log) != tt.out {
				t.Errorf("log file = %q, %v; want %q", log, err, tt.out)
			}

			r, err := m.Read(info.ID, 0)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if string(r.Data) != tt.out || r.Offset != int64(len(tt.out)) || r.LogSize != int64(len(tt.out)) ||
				r.Running || !r.EOF || r.ExitCode == nil || *r.ExitCode != tt.code {
				t.Errorf("Read = %+v (data %q), want all %q at EOF with exit code %d", r, r.Data, tt.out, tt.code)
			}
			after := get(t, m, info.ID)
			if after.ReadOffset != int64(len(tt.out)) || after.LastReadAt == nil || after.LastReadAt.Before(*after.ExitedAt) {
				t.Errorf("after Read: ReadOffset %d LastReadAt %v, want %d and a time not before exit %v",
					after.ReadOffset, after.LastReadAt, len(tt.out), after.ExitedAt)
			}
			r, err = m.Read(info.ID, 0)
			if err != nil || len(r.Data) != 0 || r.Offset != int64(len(tt.out)) || !r.EOF {
				t.Errorf("second Read = %+v, %v; want nothing new at EOF", r, err)
			}
		})
	}
}

func deref(p *int) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(*p)
}

func TestStartRecordsWhatRan(t *testing.T) {
	dir := t.TempDir()
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		opts        process.StartOptions
		wantCommand string
		wantOut     string
	}{
		{
			name:        "args are quoted for display and passed verbatim",
			opts:        process.StartOptions{Args: []string{"printf", "%s|%s|%s", "a b", "it's", ""}},
			wantCommand: `printf '%s|%s|%s' 'a b' 'it'\''s' ''`,
			wantOut:     "a b|it's|",
		},
		{
			name:        "dir and env",
			opts:        process.StartOptions{Command: `pwd; echo "$FOO"`, Dir: dir, Env: []string{"FOO=bar"}},
			wantCommand: `pwd; echo "$FOO"`,
			wantOut:     realDir + "\nbar\n",
		},
		{
			name:        "chosen id",
			opts:        process.StartOptions{Command: "echo hi", ID: "build-1.x_y"},
			wantCommand: "echo hi",
			wantOut:     "hi\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: epoch}
			m := newManager(t, &process.Options{Now: clk.Now})
			info := start(t, m, tt.opts)
			if tt.opts.ID != "" && info.ID != tt.opts.ID {
				t.Errorf("ID = %q, want %q", info.ID, tt.opts.ID)
			}
			if info.Command != tt.wantCommand {
				t.Errorf("Command = %q, want %q", info.Command, tt.wantCommand)
			}
			if want := epoch.Add(time.Second); !info.StartedAt.Equal(want) {
				t.Errorf("StartedAt = %v, want the injected clock's %v", info.StartedAt, want)
			}
			if got := filepath.Base(info.LogPath); got != info.ID+".log" {
				t.Errorf("log file name = %q, want %q", got, info.ID+".log")
			}
			if info := wait(t, m, info.ID); deref(info.ExitCode) != "0" {
				t.Errorf("exit code = %s, want 0", deref(info.ExitCode))
			}
			r, err := m.Read(info.ID, 0)
			if err != nil || string(r.Data) != tt.wantOut {
				t.Errorf("output = %q, %v; want %q", r.Data, err, tt.wantOut)
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	m := newManager(t, nil)
	taken := startSh(t, m, "exit 0").ID

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		opts process.StartOptions
		want error // nil: any error
	}{
		{"neither command nor args", nil, process.StartOptions{}, process.ErrInvalidOptions},
		{"empty program", nil, process.StartOptions{Args: []string{""}}, process.ErrInvalidOptions},
		{"both command and args", nil, process.StartOptions{Command: "true", Args: []string{"true"}}, process.ErrInvalidOptions},
		{"id escaping the log dir", nil, process.StartOptions{Command: "true", ID: "../x"}, process.ErrInvalidOptions},
		{"hidden id", nil, process.StartOptions{Command: "true", ID: ".x"}, process.ErrInvalidOptions},
		{"id with a slash", nil, process.StartOptions{Command: "true", ID: "a/b"}, process.ErrInvalidOptions},
		{"id too long", nil, process.StartOptions{Command: "true", ID: strings.Repeat("a", 65)}, process.ErrInvalidOptions},
		{"id taken", nil, process.StartOptions{Command: "true", ID: taken}, process.ErrExists},
		{"canceled context", canceled, process.StartOptions{Command: "true"}, context.Canceled},
		{"no such program", nil, process.StartOptions{Args: []string{"/nonexistent/program"}, ID: "ghost"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			info, err := m.Start(ctx, tt.opts)
			if err == nil {
				t.Fatalf("Start = %+v, want an error", info)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Start error = %v, want %v", err, tt.want)
			}
			if tt.opts.ID != "" && !strings.Contains(err.Error(), tt.opts.ID) {
				t.Errorf("Start error %q does not name the id %q", err, tt.opts.ID)
			}
		})
	}
	if n := len(m.List()); n != 1 {
		t.Errorf("List has %d processes after failed Starts, want the 1 started", n)
	}
	// A failed start leaves no log behind and frees its id.
	if info := start(t, m, process.StartOptions{Command: "exit 0", ID: "ghost"}); info.ID != "ghost" {
		t.Errorf("restart with a freed id: ID = %q", info.ID)
	}
}

func TestUnknownAndExited(t *testing.T) {
	m := newManager(t, nil)
	done := startSh(t, m, "exit 0").ID
	wait(t, m, done)

	ops := map[string]func(id string) error{
		"Read":       func(id string) error { _, err := m.Read(id, 0); return err },
		"Write":      func(id string) error { return m.Write(id, []byte("x")) },
		"CloseInput": func(id string) error { return m.CloseInput(id) },
		"Stop":       func(id string) error { return m.Stop(id, process.ByAgent) },
		"Wait":       func(id string) error { _, err := m.Wait(context.Background(), id); return err },
	}
	tests := []struct {
		op, id string
		want   error
	}{
		{"Read", "nope", process.ErrNotFound},
		{"Write", "nope", process.ErrNotFound},
		{"CloseInput", "nope", process.ErrNotFound},
		{"Stop", "nope", process.ErrNotFound},
		{"Wait", "nope", process.ErrNotFound},
		{"Write", done, process.ErrNotRunning},
		{"CloseInput", done, process.ErrNotRunning},
		{"Stop", done, process.ErrNotRunning},
		{"Read", done, nil},
		{"Wait", done, nil},
	}
	for _, tt := range tests {
		t.Run(tt.op+" "+tt.id, func(t *testing.T) {
			err := ops[tt.op](tt.id)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("%s(%s) = %v, want %v", tt.op, tt.id, err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), strconv.Quote(tt.id)) {
				t.Errorf("error %q does not name the id", err)
			}
		})
	}
	if _, ok := m.Get("nope"); ok {
		t.Error("Get(nope) found a process")
	}
	if info := get(t, m, done); info.StopRequestedBy != "" {
		t.Errorf("Stop of an exited process recorded a requester %q", info.StopRequestedBy)
	}
}

func TestWaitContext(t *testing.T) {
	m := newManager(t, &process.Options{Grace: time.Second})
	id := startSh(t, m, "exec sleep 100").ID
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	info, err := m.Wait(ctx, id)
	if !errors.Is(err, context.Canceled) || !info.Running || info.ID != id {
		t.Errorf("Wait with a canceled context = %+v, %v; want the running snapshot and context.Canceled", info, err)
	}
}

func TestStop(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		grace      time.Duration
		by         string
		wantSignal string
		wantBy     string
	}{
		// A grace far longer than the test: SIGKILL here would mean SIGTERM was not sent.
		{"hangs, honours SIGTERM", "echo ready; exec sleep 100", time.Hour, process.ByAgent, "SIGTERM", process.ByAgent},
		{"ignores SIGTERM", "trap '' TERM; echo ready; while :; do sleep 1; done", 200 * time.Millisecond, process.ByUser, "SIGKILL", process.ByUser},
		{"nobody named", "echo ready; exec sleep 100", time.Hour, "", "SIGTERM", process.ByHarness},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, &process.Options{Grace: tt.grace})
			info := startSh(t, m, tt.script)
			if pgid, err := syscall.Getpgid(info.PID); err != nil || pgid != info.PID {
				t.Errorf("process group = %d, %v; want its own group %d", pgid, err, info.PID)
			}
			readUntil(t, m, info.ID, "ready")
			if err := m.Stop(info.ID, tt.by); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			got := get(t, m, info.ID)
			if got.Running || got.ExitCode != nil || got.Signal != tt.wantSignal {
				t.Errorf("after Stop: Running %v ExitCode %s Signal %q, want exited by %s with no exit code",
					got.Running, deref(got.ExitCode), got.Signal, tt.wantSignal)
			}
			if got.StopRequestedBy != tt.wantBy || got.StoppedByAgent != (tt.wantBy == process.ByAgent) {
				t.Errorf("after Stop: StopRequestedBy %q StoppedByAgent %v, want %q", got.StopRequestedBy, got.StoppedByAgent, tt.wantBy)
			}
			if err := m.Stop(info.ID, process.ByUser); !errors.Is(err, process.ErrNotRunning) {
				t.Errorf("second Stop = %v, want ErrNotRunning", err)
			}
			if again := get(t, m, info.ID); again.StopRequestedBy != tt.wantBy {
				t.Errorf("second Stop changed the requester to %q", again.StopRequestedBy)
			}
		})
	}
}

func TestStopKillsProcessGroup(t *testing.T) {
	tests := []struct {
		name   string
		script string
		ready  []string
	}{
		{"child honours SIGTERM", "sleep 100 & echo child=$!; wait", []string{"child="}},
		{"child ignores SIGTERM", "(trap '' TERM; echo ready; exec sleep 100) & echo child=$!; wait", []string{"child=", "ready"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, &process.Options{Grace: 300 * time.Millisecond})
			info := startSh(t, m, tt.script)
			out := readUntil(t, m, info.ID, tt.ready...)
			_, after, _ := strings.Cut(out, "child=")
			line, _, _ := strings.Cut(after, "\n")
			child, err := strconv.Atoi(line)
			if err != nil {
				t.Fatalf("no child pid in %q: %v", out, err)
			}
			if gone(child) {
				t.Fatalf("child %d is not running before Stop", child)
			}
			if pgid, err := syscall.Getpgid(child); err != nil || pgid != info.PID {
				t.Fatalf("child's process group = %d, %v; want the leader's %d", pgid, err, info.PID)
			}
			if err := m.Stop(info.ID, process.ByAgent); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			poll(t, fmt.Sprintf("child %d to be gone", child), func() bool { return gone(child) })
			if got := get(t, m, info.ID); got.Signal != "SIGTERM" || !got.StoppedByAgent {
				t.Errorf("leader: Signal %q StoppedByAgent %v, want SIGTERM by the agent", got.Signal, got.StoppedByAgent)
			}
		})
	}
}

func TestReadSilentProcess(t *testing.T) {
	clk := &clock{t: epoch}
	m := newManager(t, &process.Options{Now: clk.Now, Grace: time.Second})
	info := startSh(t, m, "exec sleep 100") // clock call 1: StartedAt
	r, err := m.Read(info.ID, 0)            // clock call 2: LastReadAt
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(r.Data) != 0 || r.Offset != 0 || r.LogSize != 0 || !r.Running || r.ExitCode != nil || r.EOF {
		t.Errorf("Read = %+v, want nothing from a running process", r)
	}
	got := get(t, m, info.ID)
	if want := epoch.Add(2 * time.Second); got.LastReadAt == nil || !got.LastReadAt.Equal(want) {
		t.Errorf("LastReadAt = %v, want %v: an empty read still counts as a look", got.LastReadAt, want)
	}
	if got.ReadOffset != 0 || !got.StartedAt.Equal(epoch.Add(time.Second)) {
		t.Errorf("ReadOffset %d StartedAt %v, want 0 and %v", got.ReadOffset, got.StartedAt, epoch.Add(time.Second))
	}
}

func TestReadFloodIncrementally(t *testing.T) {
	const n, limit = 700000, 64 << 10
	var want bytes.Buffer
	for i := 1; i <= n; i++ {
		want.WriteString(strconv.Itoa(i))
		want.WriteByte('\n')
	}
	m := newManager(t, nil)
	id := startSh(t, m, fmt.Sprintf("seq 1 %d", n)).ID

	var got bytes.Buffer
	var offset int64
	reads := 0
	poll(t, "the whole flood", func() bool {
		r, err := m.Read(id, limit)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		reads++
		if len(r.Data) > limit {
			t.Fatalf("Read returned %d bytes, over the limit %d", len(r.Data), limit)
		}
		if r.Offset != offset+int64(len(r.Data)) {
			t.Fatalf("Read %d: Offset %d, want previous %d + %d", reads, r.Offset, offset, len(r.Data))
		}
		offset = r.Offset
		got.Write(r.Data)
		return r.EOF
	})
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("read %d bytes, want the %d bytes seq printed (first difference at %d)",
			got.Len(), want.Len(), firstDiff(got.Bytes(), want.Bytes()))
	}
	if min := want.Len() / limit; reads < min {
		t.Errorf("%d reads, want at least %d chunks", reads, min)
	}
	info := get(t, m, id)
	if info.ReadOffset != int64(want.Len()) || info.LogSize != int64(want.Len()) || offset != int64(want.Len()) {
		t.Errorf("ReadOffset %d LogSize %d last Offset %d, want all %d", info.ReadOffset, info.LogSize, offset, want.Len())
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name   string
		script string
		writes []string
		close  bool
		want   string
	}{
		{"read one line", `read line; echo "got:$line"`, []string{"hello\n"}, false, "got:hello\n"},
		{"cat until end of input", "cat", []string{"a\n", "b", "c\n"}, true, "a\nbc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, nil)
			id := startSh(t, m, tt.script).ID
			for _, w := range tt.writes {
				if err := m.Write(id, []byte(w)); err != nil {
					t.Fatalf("Write(%q): %v", w, err)
				}
			}
			if tt.close {
				if err := m.CloseInput(id); err != nil {
					t.Fatalf("CloseInput: %v", err)
				}
			}
			if info := wait(t, m, id); deref(info.ExitCode) != "0" {
				t.Errorf("exit code %s, want 0", deref(info.ExitCode))
			}
			if r, err := m.Read(id, 0); err != nil || string(r.Data) != tt.want {
				t.Errorf("output %q, %v; want %q", r.Data, err, tt.want)
			}
		})
	}
}

func TestWriteAfterCloseInput(t *testing.T) {
	m := newManager(t, &process.Options{Grace: time.Second})
	id := startSh(t, m, "exec sleep 100").ID
	for range 2 {
		if err := m.CloseInput(id); err != nil {
			t.Fatalf("CloseInput: %v", err)
		}
	}
	if err := m.Write(id, []byte("late\n")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after CloseInput = %v, want os.ErrClosed", err)
	}
}

func TestBlockedWriteReturnsWhenProcessExits(t *testing.T) {
	m := newManager(t, &process.Options{Grace: time.Second})
	id := startSh(t, m, "exec sleep 100").ID // never reads its input
	result := make(chan error, 1)
	go func() { result <- m.Write(id, make([]byte, 4<<20)) }() // far more than a pipe buffers
	if err := m.Stop(id, process.ByHarness); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case err := <-result:
		if err == nil {
			t.Error("Write of 4 MiB to a process that never read it succeeded")
		}
	case <-time.After(patience):
		t.Fatal("Write still blocked after the process exited")
	}
}

func TestConcurrentUse(t *testing.T) {
	m := newManager(t, &process.Options{Grace: 5 * time.Second})
	const workers, each = 8, 5
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		stopped = map[string]bool{}
		stop    = make(chan struct{})
	)
	for range 2 { // readers of the whole table while it changes
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, info := range m.List() {
					if _, err := m.Read(info.ID, 1); err != nil {
						t.Errorf("Read(%s): %v", info.ID, err)
					}
				}
			}
		})
	}
	var starters sync.WaitGroup
	for w := range workers {
		starters.Go(func() {
			for i := range each {
				script := fmt.Sprintf("echo w%d-%d", w, i)
				hang := i%2 == 1
				if hang {
					script += "; exec sleep 100"
				}
				info, err := m.Start(context.Background(), process.StartOptions{Command: script})
				if err != nil {
					t.Errorf("Start: %v", err)
					return
				}
				_ = m.List()
				if _, err := m.Read(info.ID, 0); err != nil {
					t.Errorf("Read(%s): %v", info.ID, err)
				}
				if hang {
					if err := m.Stop(info.ID, process.ByAgent); err != nil {
						t.Errorf("Stop(%s): %v", info.ID, err)
					}
					mu.Lock()
					stopped[info.ID] = true
					mu.Unlock()
				}
			}
		})
	}
	starters.Wait()
	close(stop)
	wg.Wait()

	list := m.List()
	if len(list) != workers*each {
		t.Fatalf("List has %d processes, want %d", len(list), workers*each)
	}
	seen := map[string]bool{}
	for i, info := range list {
		if seen[info.ID] {
			t.Errorf("id %s listed twice", info.ID)
		}
		seen[info.ID] = true
		if i > 0 && info.StartedAt.Before(list[i-1].StartedAt) {
			t.Errorf("List not in start order at %d: %v before %v", i, list[i-1].StartedAt, info.StartedAt)
		}
		final := wait(t, m, info.ID)
		if stopped[info.ID] {
			if final.Signal != "SIGTERM" || !final.StoppedByAgent {
				t.Errorf("%s stopped: Signal %q StoppedByAgent %v", info.ID, final.Signal, final.StoppedByAgent)
			}
		} else if deref(final.ExitCode) != "0" || final.StopRequestedBy != "" {
			t.Errorf("%s: exit %s requester %q, want 0 and none", info.ID, deref(final.ExitCode), final.StopRequestedBy)
		}
	}
}

func TestClose(t *testing.T) {
	baseline := runtime.NumGoroutine()
	m := process.New(&process.Options{Grace: 5 * time.Second})
	t.Cleanup(func() { _ = m.Close() }) // in case the test stops early; a second Close is harmless
	exited := startSh(t, m, "echo done")
	wait(t, m, exited.ID)
	var running []string
	for range 3 {
		running = append(running, startSh(t, m, "exec sleep 100").ID)
	}

	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, id := range running {
		info := get(t, m, id)
		if info.Running || info.Signal != "SIGTERM" || info.StopRequestedBy != process.ByHarness || info.StoppedByAgent {
			t.Errorf("%s after Close: Running %v Signal %q requester %q", id, info.Running, info.Signal, info.StopRequestedBy)
		}
	}
	if info := get(t, m, exited.ID); info.StopRequestedBy != "" || info.LogSize != int64(len("done\n")) {
		t.Errorf("exited process after Close: requester %q LogSize %d", info.StopRequestedBy, info.LogSize)
	}
	if _, err := os.Stat(filepath.Dir(exited.LogPath)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary log dir after Close: %v, want it removed", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	calls := map[string]func() error{
		"Start": func() error {
			_, err := m.Start(context.Background(), process.StartOptions{Command: "true"})
			return err
		},
		"Read":       func() error { _, err := m.Read(exited.ID, 0); return err },
		"Write":      func() error { return m.Write(running[0], []byte("x")) },
		"CloseInput": func() error { return m.CloseInput(running[0]) },
		"Stop":       func() error { return m.Stop(running[0], process.ByUser) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, process.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
	if info, err := m.Wait(context.Background(), running[0]); err != nil || info.Running {
		t.Errorf("Wait after Close = %+v, %v; want the final snapshot", info, err)
	}
	if n := len(m.List()); n != 4 {
		t.Errorf("List after Close has %d processes, want 4", n)
	}

	// Close waited for every reaper: no goroutine of the Manager's is left.
	for end := time.Now().Add(patience); runtime.NumGoroutine() > baseline; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			var dump strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&dump, 1)
			t.Fatalf("%d goroutines after Close, want at most %d as before New:\n%s",
				runtime.NumGoroutine(), baseline, dump.String())
		}
	}
}

func TestCloseKeepsAGivenDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	m := process.New(&process.Options{Dir: dir})
	t.Cleanup(func() { _ = m.Close() })
	info := startSh(t, m, "echo kept")
	wait(t, m, info.ID)
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if info.LogPath != filepath.Join(dir, info.ID+".log") {
		t.Errorf("LogPath = %q, want it in %q", info.LogPath, dir)
	}
	if log, err := os.ReadFile(info.LogPath); err != nil || string(log) != "kept\n" {
		t.Errorf("log after Close = %q, %v; want it kept", log, err)
	}
}
