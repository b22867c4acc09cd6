package process

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Errors returned by a Manager, wrapped with the operation and the process id; test for them with
// [errors.Is].
var (
	// ErrNotFound reports an id the Manager never started.
	ErrNotFound = errors.New("process not found")
	// ErrNotRunning reports a Write, CloseInput or Stop on a process that has already exited.
	ErrNotRunning = errors.New("process not running")
	// ErrClosed reports a call that needs a live Manager (Start, Read, Write, CloseInput, Stop)
	// after Close.
	ErrClosed = errors.New("process manager closed")
	// ErrExists reports a Start whose StartOptions.ID is already taken in this Manager.
	ErrExists = errors.New("process id already in use")
	// ErrInvalidOptions reports StartOptions that cannot be started: neither Command nor Args,
	// both, or an ID that is not a safe file name.
	ErrInvalidOptions = errors.New("invalid start options")
)

// Who asked for a stop, as given to [Manager.Stop] and recorded in Info.StopRequestedBy.
const (
	// ByAgent is a stop the agent asked for (its task_stop tool). Info.StoppedByAgent is true.
	ByAgent = "agent"
	// ByUser is a stop a person asked for.
	ByUser = "user"
	// ByHarness is a stop the code driving the agent asked for; [Manager.Close] stops what is
	// still running as ByHarness, and an empty requester is recorded as ByHarness.
	ByHarness = "harness"
)

// DefaultGrace is the time [Manager.Stop] waits between SIGTERM and SIGKILL when Options.Grace
// is zero.
const DefaultGrace = 5 * time.Second

// Options configure a Manager. The zero value is ready to use.
type Options struct {
	// Dir is the directory the log files go in, one "<id>.log" per process. It is created if
	// missing and left in place by Close. Empty means a new temporary directory, created on the
	// first Start and removed, logs included, by Close. A Dir should belong to one Manager: a
	// Start truncates an existing log file of the same id.
	Dir string
	// Grace is how long Stop waits after SIGTERM before sending SIGKILL. Zero or negative means
	// DefaultGrace.
	Grace time.Duration
	// Now supplies the times recorded in Info (started, exited, last read). Nil means time.Now.
	// It must be safe for concurrent use. The grace period always runs on the real clock.
	Now func() time.Time
}

// StartOptions describe one process to start. Exactly one of Command and Args is set.
type StartOptions struct {
	// Command is a shell command line, run as /bin/sh -c Command.
	Command string
	// Args is a program and its arguments, run directly; Args[0] is looked up in PATH when it
	// has no slash.
	Args []string
	// Dir is the working directory; empty means the calling process's.
	Dir string
	// Env is the environment, as "KEY=value" entries; nil means the calling process's
	// environment, and an empty non-nil slice means an empty one.
	Env []string
	// ID names the process; empty means a new random id of 8 lowercase hex digits. A given ID
	// must be unique in the Manager and is used as a file name: ASCII letters, digits, '.', '_'
	// and '-', starting with a letter or digit, at most 64 bytes.
	ID string
}

// Info is a snapshot of one process: the facts a completion gate reads. Pointer fields are nil
// when the fact does not exist yet; the snapshot shares no memory with the Manager.
type Info struct {
	// ID is the process's id in its Manager.
	ID string
	// Command is what was run: StartOptions.Command, or Args quoted for a POSIX shell.
	Command string
	// PID is the operating-system process id, which is also its process group id.
	PID int
	// LogPath is the log file holding its standard output and standard error.
	LogPath string
	// StartedAt is when Start launched it.
	StartedAt time.Time
	// Running is true until the process has exited and been reaped.
	Running bool
	// ExitedAt is when its exit was recorded; nil while running.
	ExitedAt *time.Time
	// ExitCode is its exit status when it exited normally; nil while running and when a signal
	// ended it.
	ExitCode *int
	// Signal names the signal that ended it, such as "SIGTERM" or "SIGKILL" ("signal N" for a
	// signal without a portable name); empty while running and when it exited normally.
	Signal string
	// StopRequestedBy is who first asked for a stop while it was running (ByAgent, ByUser,
	// ByHarness, or what the caller passed); empty when nobody did.
	StopRequestedBy string
	// StoppedByAgent is StopRequestedBy == ByAgent: the agent chose to end it.
	StoppedByAgent bool
	// ReadOffset is how many bytes of the log Read has returned so far.
	ReadOffset int64
	// LogSize is the size of the log file when the snapshot was taken.
	LogSize int64
	// LastReadAt is when Read last looked at the log, whether or not it found new output; nil
	// when it never did. A Read that saw the process exited has LastReadAt not before ExitedAt,
	// so a gate can tell an output read after the exit from one read while it ran.
	LastReadAt *time.Time
}

// ReadResult is what one Read returned.
type ReadResult struct {
	// Data is the new output, at most the limit passed to Read; empty when there was none. It
	// is newly allocated and the caller's to keep.
	Data []byte
	// Offset is the read offset after this read: Data is the log's bytes
	// [Offset-len(Data), Offset), and every byte before it was returned by an earlier Read.
	Offset int64
	// LogSize is the size of the log this read saw.
	LogSize int64
	// Running is whether the process was running when the read looked.
	Running bool
	// ExitCode is its exit status, when it had exited normally by then.
	ExitCode *int
	// EOF is true when the process had exited and this read reached the end of its log: no
	// more output will come from the process itself.
	EOF bool
}

// A Manager starts background processes and keeps track of them. It is safe for concurrent use.
// Create one with New and release it with Close.
type Manager struct {
	grace   time.Duration
	now     func() time.Time
	baseDir string // Options.Dir

	mu        sync.Mutex
	dir       string // the log directory, once made
	ownDir    bool   // dir is a temporary directory Close removes
	closed    bool
	closeDone chan struct{}
	procs     map[string]*proc
	order     []*proc             // by StartedAt, then by registration
	pending   map[string]struct{} // ids reserved by Starts in progress

	starting sync.WaitGroup // Starts between reserving an id and registering the process
	reapers  sync.WaitGroup // one per started process
}

// proc is one started process. The fields above mu's line are set once by Start; the rest are
// guarded by Manager.mu.
type proc struct {
	id, command, logPath string
	pid                  int
	cmd                  *exec.Cmd
	log                  *os.File      // read side of the log, closed by Manager.Close
	stdin                *os.File      // write end of the stdin pipe, closed at exit
	done                 chan struct{} // closed once the exit is recorded
	readMu               sync.Mutex    // one Read at a time, so offsets never overlap

	startedAt    time.Time
	exited       bool
	exitedAt     time.Time
	exitCode     int
	hasExitCode  bool
	signal       string
	stopBy       string
	stopDeadline time.Time // real-clock end of the grace period, once a stop was requested
	readOffset   int64
	logSize      int64
	lastReadAt   time.Time
	wasRead      bool
}

// New returns a Manager configured by opts; nil opts means the zero Options.
func New(opts *Options) *Manager {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Manager{
		grace:   o.Grace,
		now:     o.Now,
		baseDir: o.Dir,
		procs:   make(map[string]*proc),
		pending: make(map[string]struct{}),
	}
}

// Start launches a process in its own process group and returns its first snapshot. Standard
// output and standard error both go to the process's log file; standard input is a pipe fed by
// Write. ctx bounds the start only: the process outlives it, and ends by itself or by Stop.
func (m *Manager) Start(ctx context.Context, opts StartOptions) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("process: start: %w", err)
	}
	argv, command, err := opts.argv()
	if err != nil {
		return Info{}, err
	}
	if !supported {
		return Info{}, fmt.Errorf("process: start: %w", errors.ErrUnsupported)
	}

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Info{}, fmt.Errorf("process: start: %w", ErrClosed)
	}
	if err := m.makeDirLocked(); err != nil {
		m.mu.Unlock()
		return Info{}, fmt.Errorf("process: start: %w", err)
	}
	id, err := m.reserveLocked(opts.ID)
	if err != nil {
		m.mu.Unlock()
		return Info{}, err
	}
	m.starting.Add(1)
	defer m.starting.Done()
	logPath := filepath.Join(m.dir, id+".log")
	m.mu.Unlock()

	p, err := spawn(argv, opts, logPath, m.now)

	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.pending, id)
	if err != nil {
		return Info{}, fmt.Errorf("process: start %q: %w", id, err)
	}
	p.id, p.command = id, command
	m.procs[id] = p
	// Keep m.order sorted by StartedAt: Starts running at once can register out of order.
	i := len(m.order)
	for i > 0 && m.order[i-1].startedAt.After(p.startedAt) {
		i--
	}
	m.order = slices.Insert(m.order, i, p)
	m.reapers.Add(1)
	go m.reap(p)
	return p.infoLocked(), nil
}

// argv returns the program and arguments to run, and the command as Info reports it.
func (o StartOptions) argv() (argv []string, command string, err error) {
	switch {
	case o.Command != "" && len(o.Args) > 0:
		return nil, "", fmt.Errorf("process: start: both Command and Args: %w", ErrInvalidOptions)
	case o.Command != "":
		return []string{"/bin/sh", "-c", o.Command}, o.Command, nil
	case len(o.Args) > 0 && o.Args[0] != "":
		return o.Args, quoteArgs(o.Args), nil
	}
	return nil, "", fmt.Errorf("process: start: no Command or Args: %w", ErrInvalidOptions)
}

// makeDirLocked makes the log directory on first use.
func (m *Manager) makeDirLocked() error {
	if m.dir != "" {
		return nil
	}
	if m.baseDir == "" {
		dir, err := os.MkdirTemp("", "stopgate-process-")
		if err != nil {
			return err
		}
		m.dir, m.ownDir = dir, true
		return nil
	}
	if err := os.MkdirAll(m.baseDir, 0o700); err != nil {
		return err
	}
	m.dir = m.baseDir
	return nil
}

// reserveLocked checks or makes an id and reserves it for a Start in progress.
func (m *Manager) reserveLocked(id string) (string, error) {
	taken := func(id string) bool {
		_, started := m.procs[id]
		_, starting := m.pending[id]
		return started || starting
	}
	if id == "" {
		for id == "" || taken(id) {
			id = newID()
		}
	} else if !validID(id) {
		return "", fmt.Errorf("process: start %q: bad id: %w", id, ErrInvalidOptions)
	} else if taken(id) {
		return "", fmt.Errorf("process: start %q: %w", id, ErrExists)
	}
	m.pending[id] = struct{}{}
	return id, nil
}

// newID returns 8 random lowercase hex digits.
func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// validID reports whether id is safe to use as a file name in the log directory.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// spawn opens the log and the stdin pipe and starts the process. The id and command are filled
// in by the caller.
func spawn(argv []string, opts StartOptions, logPath string, now func() time.Time) (*proc, error) {
	logW, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logW.Close() // the child has its own copy once started
	logR, err := os.Open(logPath)
	if err != nil {
		os.Remove(logPath)
		return nil, err
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		logR.Close()
		os.Remove(logPath)
		return nil, err
	}
	defer stdinR.Close() // likewise

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	cmd.Stdin = stdinR
	cmd.Stdout = logW
	cmd.Stderr = logW
	ownGroup(cmd)
	startedAt := now()
	if err := cmd.Start(); err != nil {
		logR.Close()
		stdinW.Close()
		os.Remove(logPath)
		return nil, err
	}
	return &proc{
		logPath:   logPath,
		pid:       cmd.Process.Pid,
		cmd:       cmd,
		log:       logR,
		stdin:     stdinW,
		done:      make(chan struct{}),
		startedAt: startedAt,
	}, nil
}

// reap waits for p to exit and records how it ended. When a stop was requested, it then makes
// sure nothing in p's process group outlives the grace period.
func (m *Manager) reap(p *proc) {
	defer m.reapers.Done()
	_ = p.cmd.Wait() // the outcome is read from ProcessState; a failed wait leaves both facts unset
	code, hasCode, sig := exitFacts(p.cmd.ProcessState)
	size, sizeErr := fileSize(p.log)

	m.mu.Lock()
	p.exited = true
	p.exitedAt = m.now()
	p.exitCode, p.hasExitCode, p.signal = code, hasCode, sig
	if sizeErr == nil {
		p.logSize = max(p.logSize, size)
	}
	stopping, deadline := p.stopBy != "", p.stopDeadline
	close(p.done)
	m.mu.Unlock()

	p.stdin.Close() // unblocks a Write stuck on a pipe nobody reads; a second Close is harmless
	if stopping {
		sweepGroup(p.pid, deadline)
	}
}

// sweepGroup waits until the process group pgid is empty or deadline passes, then kills what is
// left of it. Its leader has exited and been reaped by then, but while any member remains the
// group id cannot be reused, so the kill, sent right after a check found members, cannot reach
// an unrelated process.
func sweepGroup(pgid int, deadline time.Time) {
	for pause := 5 * time.Millisecond; groupAlive(pgid); pause = min(2*pause, 100*time.Millisecond) {
		wait := time.Until(deadline)
		if wait <= 0 {
			_ = killGroup(pgid) // best effort: nobody is left to report a failure to
			return
		}
		time.Sleep(min(pause, wait))
	}
}

// lookup returns the process id names, failing with ErrClosed after Close when live is set.
func (m *Manager) lookup(op, id string, live bool) (*proc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if live && m.closed {
		return nil, fmt.Errorf("process: %s %q: %w", op, id, ErrClosed)
	}
	p, ok := m.procs[id]
	if !ok {
		return nil, fmt.Errorf("process: %s %q: %w", op, id, ErrNotFound)
	}
	return p, nil
}

// Read returns the output the process has written since the last Read, at most limit bytes
// (limit <= 0 means all of it), and advances the read offset past it. It records the time of the
// read even when there was nothing new, so a process that has printed nothing can be
// acknowledged. Read is the only thing that moves ReadOffset and LastReadAt. It works on exited
// processes; concurrent Reads of one process return consecutive, non-overlapping parts of its log.
func (m *Manager) Read(id string, limit int) (ReadResult, error) {
	p, err := m.lookup("read", id, true)
	if err != nil {
		return ReadResult{}, err
	}
	p.readMu.Lock()
	defer p.readMu.Unlock()

	// Look at the state before the size: output written before an exit seen here is in the
	// file by the time it is measured, so EOF below cannot hide unread bytes.
	m.mu.Lock()
	running, offset, at := !p.exited, p.readOffset, m.now()
	exitCode := p.exitCodeLocked()
	m.mu.Unlock()

	size, err := fileSize(p.log)
	if err != nil {
		return ReadResult{}, fmt.Errorf("process: read %q: %w", id, err)
	}
	n := max(size-offset, 0)
	if limit > 0 && n > int64(limit) {
		n = int64(limit)
	}
	var data []byte
	if n > 0 {
		data = make([]byte, n)
		got, err := p.log.ReadAt(data, offset)
		if err != nil && !errors.Is(err, io.EOF) {
			return ReadResult{}, fmt.Errorf("process: read %q: %w", id, err)
		}
		data = data[:got]
	}
	offset += int64(len(data))

	m.mu.Lock()
	p.readOffset = offset
	p.logSize = max(p.logSize, size)
	p.lastReadAt, p.wasRead = at, true
	m.mu.Unlock()

	return ReadResult{
		Data:     data,
		Offset:   offset,
		LogSize:  size,
		Running:  running,
		ExitCode: exitCode,
		EOF:      !running && offset >= size,
	}, nil
}

// Write sends p to the process's standard input. It fails with ErrNotRunning once the process
// has exited, and with an error wrapping [os.ErrClosed] after CloseInput. A Write blocked on a
// process that does not read its input returns when the process exits.
func (m *Manager) Write(id string, p []byte) error {
	pr, err := m.lookup("write", id, true)
	if err != nil {
		return err
	}
	if m.exited(pr) {
		return fmt.Errorf("process: write %q: %w", id, ErrNotRunning)
	}
	if _, err := pr.stdin.Write(p); err != nil {
		return fmt.Errorf("process: write %q: %w", id, err)
	}
	return nil
}

// CloseInput closes the process's standard input, so a program reading it sees end of file.
// Closing it again is not an error.
func (m *Manager) CloseInput(id string) error {
	p, err := m.lookup("close input", id, true)
	if err != nil {
		return err
	}
	if m.exited(p) {
		return fmt.Errorf("process: close input %q: %w", id, ErrNotRunning)
	}
	if err := p.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("process: close input %q: %w", id, err)
	}
	return nil
}

// Stop ends a running process and records that by asked for it (ByAgent, ByUser, ByHarness; an
// empty by is recorded as ByHarness). It sends SIGTERM to the process group and waits for the
// process to exit; if it has not exited after the grace period, it sends SIGKILL to the group.
// Stop returns once the process has exited. Other members of the group that outlive it are sent
// SIGKILL when the grace period ends.
//
// Only the first request is recorded: a Stop while another is in progress waits for the same
// exit and returns nil. Stop fails with ErrNotRunning when the process has already exited.
func (m *Manager) Stop(id, by string) error {
	p, err := m.lookup("stop", id, true)
	if err != nil {
		return err
	}
	return m.stop(p, by)
}

// stop is Stop after the lookup; Close uses it too.
func (m *Manager) stop(p *proc, by string) error {
	if by == "" {
		by = ByHarness
	}
	m.mu.Lock()
	if p.exited {
		m.mu.Unlock()
		return fmt.Errorf("process: stop %q: %w", p.id, ErrNotRunning)
	}
	first := p.stopBy == ""
	if first {
		p.stopBy = by
		p.stopDeadline = time.Now().Add(m.grace)
	}
	m.mu.Unlock()
	if !first {
		<-p.done
		return nil
	}

	if err := terminateGroup(p.pid); err != nil {
		return fmt.Errorf("process: stop %q: %w", p.id, err)
	}
	timer := time.NewTimer(m.grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
	}
	// The leader is unreaped until its exit is recorded under mu, so the group id is still
	// its own here (the reaper's few instructions between reaping and recording aside).
	var err error
	m.mu.Lock()
	if !p.exited {
		err = killGroup(p.pid)
	}
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("process: stop %q: %w", p.id, err)
	}
	<-p.done
	return nil
}

// Wait waits for the process to exit and returns its final snapshot. When ctx ends first, it
// returns the current snapshot and ctx's error, wrapped. Wait also works after Close.
func (m *Manager) Wait(ctx context.Context, id string) (Info, error) {
	p, err := m.lookup("wait", id, false)
	if err != nil {
		return Info{}, err
	}
	select {
	case <-p.done:
	default:
		select {
		case <-p.done:
		case <-ctx.Done():
			return m.snapshot(p), fmt.Errorf("process: wait %q: %w", id, ctx.Err())
		}
	}
	return m.snapshot(p), nil
}

// Get returns a snapshot of the process id names, and whether the Manager knows it.
func (m *Manager) Get(id string) (Info, bool) {
	m.mu.Lock()
	p, ok := m.procs[id]
	m.mu.Unlock()
	if !ok {
		return Info{}, false
	}
	return m.snapshot(p), true
}

// List returns a snapshot of every process the Manager started, in start order: by StartedAt,
// and in the order Start registered them when two share a time.
func (m *Manager) List() []Info {
	m.mu.Lock()
	procs := slices.Clone(m.order)
	infos := make([]Info, len(procs))
	for i, p := range procs {
		infos[i] = p.infoLocked()
	}
	m.mu.Unlock()
	// The sizes are measured outside the lock: they are as fresh as the call, or fresher.
	for i, p := range procs {
		if size, err := fileSize(p.log); err == nil {
			infos[i].LogSize = max(infos[i].LogSize, size)
		}
	}
	return infos
}

// snapshot returns p's Info with the log size measured now.
func (m *Manager) snapshot(p *proc) Info {
	m.mu.Lock()
	info := p.infoLocked()
	m.mu.Unlock()
	if size, err := fileSize(p.log); err == nil {
		info.LogSize = max(info.LogSize, size)
	}
	return info
}

// Close stops every process still running (as ByHarness, all at once, each with the grace
// period), waits for every reaper to finish, and releases the logs' file descriptors. It removes
// the log directory when the Manager made a temporary one. Snapshots (Get, List, Wait) still work
// afterwards; the other methods fail with ErrClosed. Calls after the first wait for it to finish
// and return nil.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		done := m.closeDone
		m.mu.Unlock()
		<-done
		return nil
	}
	m.closed = true
	m.closeDone = make(chan struct{})
	defer close(m.closeDone)
	m.mu.Unlock()

	m.starting.Wait() // a Start that got past the closed check registers its process first
	m.mu.Lock()
	procs := slices.Clone(m.order)
	m.mu.Unlock()

	errs := make([]error, len(procs)+1)
	var stops sync.WaitGroup
	for i, p := range procs {
		stops.Go(func() {
			if err := m.stop(p, ByHarness); err != nil && !errors.Is(err, ErrNotRunning) {
				errs[i] = err
			}
		})
	}
	stops.Wait()
	m.reapers.Wait()

	for _, p := range procs {
		size, err := fileSize(p.log)
		m.mu.Lock()
		if err == nil {
			p.logSize = max(p.logSize, size)
		}
		m.mu.Unlock()
		p.log.Close()
	}
	if m.ownDir {
		if err := os.RemoveAll(m.dir); err != nil {
			errs[len(procs)] = fmt.Errorf("process: close: %w", err)
		}
	}
	return errors.Join(errs...)
}

// exited reports whether p's exit has been recorded.
func (m *Manager) exited(p *proc) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return p.exited
}

// exitCodeLocked returns a fresh copy of p's exit code, or nil.
func (p *proc) exitCodeLocked() *int {
	if !p.hasExitCode {
		return nil
	}
	code := p.exitCode
	return &code
}

// infoLocked returns p's snapshot with the log size last seen.
func (p *proc) infoLocked() Info {
	info := Info{
		ID:              p.id,
		Command:         p.command,
		PID:             p.pid,
		LogPath:         p.logPath,
		StartedAt:       p.startedAt,
		Running:         !p.exited,
		ExitCode:        p.exitCodeLocked(),
		Signal:          p.signal,
		StopRequestedBy: p.stopBy,
		StoppedByAgent:  p.stopBy == ByAgent,
		ReadOffset:      p.readOffset,
		LogSize:         p.logSize,
	}
	if p.exited {
		at := p.exitedAt
		info.ExitedAt = &at
	}
	if p.wasRead {
		at := p.lastReadAt
		info.LastReadAt = &at
	}
	return info
}

// fileSize returns the size of the open file f.
func fileSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// quoteArgs joins args into a command line a POSIX shell would split back into args.
func quoteArgs(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.IndexFunc(a, needsQuote) < 0 {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// needsQuote reports whether r is special to a POSIX shell, or not plain ASCII.
func needsQuote(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("@%+=:,./_-", r)
}
