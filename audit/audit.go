package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/stall"
	"github.com/stopgate/stopgate/store"
	"github.com/stopgate/stopgate/termination"
)

// ErrNoReaders is returned by Run when Options.Readers is empty: no format is known, so no
// file could be read.
var ErrNoReaders = errors.New("audit: no session readers given")

// Options configures Run. Readers must be set; otherwise the zero value audits with
// the default supervisor (no model classifier), on one worker per CPU, records nothing
// and reports no progress.
type Options struct {
	// Supervisor decides each stop; nil means stopgate.New(stopgate.Config{}).
	Supervisor *stopgate.Supervisor
	// Readers are the formats recognised, asked in order: each harness package's
	// (cmd/stopgate lists them all).
	Readers []Reader
	// Store, when set, receives every decision and termination reason (see Record).
	Store store.Store
	// HookLog, when set, is the event log the stop hook recorded to; the audit reads from it
	// the would-blocks a hook in shadow mode recorded for each audited session
	// (SessionReport.Shadow), which the session files cannot show. It may be Store.
	HookLog store.Store
	// Workers bounds how many files are read and decided at once; zero or less means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Progress, when set, is called after each file, from one goroutine at a time.
	Progress func(Progress)
}

// Progress is how far an audit has got.
type Progress struct {
	// Files is how many files were found; Done how many have been read (or skipped).
	Files, Done int
	// Bytes is the size of the files done.
	Bytes int64
	// Path is the file just done.
	Path string
}

// Report is the result of an audit. It marshals to JSON with snake_case keys, map keys sorted.
type Report struct {
	// Sessions are the sessions audited, in the order their files were found (the paths in
	// the order given, each directory walked in lexical order), a session's sub-agents after it.
	Sessions []SessionReport `json:"sessions"`
	// Total adds up the sessions.
	Total Total `json:"total"`
	// Files accounts for every file found.
	Files Files `json:"files"`
	// Failures are the files that could not be read; the audit went on without them.
	Failures []Failure `json:"failures"`
	// Recorded says what was written to the event log; nil when nothing was to be.
	Recorded *Recorded `json:"recorded,omitempty"`
	// HookLog says the hook's event log was read for shadow would-blocks (Options.HookLog);
	// without it a report cannot tell a shadow-mode session from one with no hook.
	HookLog bool `json:"hook_log,omitempty"`
}

// Counts are what a session, or the total, adds up to.
type Counts struct {
	// Turns counts turns; Stops the turns the agent ended itself (each one a stop a stop hook
	// would have been asked about); Interrupted the turns the user ended; NoStop the turns
	// that ended on no stop of the agent (a local command no model answered, a turn the file
	// ends in the middle of; see Turn.NoStop).
	Turns       int `json:"turns"`
	Stops       int `json:"stops"`
	Interrupted int `json:"interrupted"`
	NoStop      int `json:"no_stop"`
	// WouldBlock counts the stops stopgate would not have let happen: a continuation, or a
	// retry of the error the turn ended on. WouldBlockByCheck splits them by the check that
	// decided.
	WouldBlock        int                    `json:"would_block"`
	WouldBlockByCheck map[stopgate.Check]int `json:"would_block_by_check"`
	// Parked counts the stops stopgate let happen because the run waits on work that will wake
	// it (the pending_wake check).
	Parked int `json:"parked"`
	// Nudges counts the continuations a stop hook really gave; NudgeOutcomes what the agent
	// did after them.
	Nudges        int                  `json:"nudges"`
	NudgeOutcomes map[NudgeOutcome]int `json:"nudge_outcomes"`
	// Shadow counts the would-blocks a stop hook in shadow mode recorded in the event log
	// (Options.HookLog): stops the hook decided to hold back and let happen. They are not
	// Nudges (nothing was handed on), and not WouldBlock, which is the replay's decision.
	Shadow int `json:"shadow,omitempty"`
	// TurnEndings counts how turns ended, RunEndings how sessions did (their last turn's
	// ending), by termination category.
	TurnEndings map[termination.Category]int `json:"turn_endings"`
	RunEndings  map[termination.Category]int `json:"run_endings"`
}

// Total is the whole audit's Counts.
type Total struct {
	Sessions int    `json:"sessions"`
	Counts   Counts `json:"counts"`
}

// SessionReport is one session's audit.
type SessionReport struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Harness string `json:"harness"`
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	// Ending is how the run ended: its last turn's ending.
	Ending       termination.Category `json:"ending"`
	EndingDetail string               `json:"ending_detail,omitempty"`
	// MalformedLines counts lines of the file that could not be read and were skipped.
	MalformedLines int          `json:"malformed_lines"`
	Counts         Counts       `json:"counts"`
	Turns          []TurnReport `json:"turns"`
	Nudges         []Nudge      `json:"nudges"`
	// Shadow are the hook's shadow would-blocks of the session, read from the event log; nil
	// (left out) when the audit was given no log (Options.HookLog).
	Shadow []ShadowBlock `json:"shadow,omitempty"`
}

// TurnReport is one turn's audit: how it ended and what stopgate would have decided.
type TurnReport struct {
	Index   int       `json:"index"`
	Trigger string    `json:"trigger,omitempty"`
	End     time.Time `json:"end,omitzero"`
	// Ending is how the turn ended by the session file's account (see Turn.Ending).
	Ending       termination.Category `json:"ending"`
	EndingDetail string               `json:"ending_detail,omitempty"`
	// Final is the last sentence or question of the final message's prose (stall.FinalSentence:
	// not a closing list item, rule, table row or code block), cut at the front to 100 runes.
	Final string `json:"final,omitempty"`
	// Why is what the deciding check found; Sentence, for a stall, the sentence the nudge
	// quotes back.
	Why      string `json:"why,omitempty"`
	Sentence string `json:"sentence,omitempty"`
	// NoStop says why the turn ended on no stop of the agent (see Turn.NoStop); empty for a
	// stop.
	NoStop string `json:"no_stop,omitempty"`
	// Decision is the supervisor's; nil for a turn the user interrupted, or one that ended on
	// no stop, where no stop hook is asked.
	Decision *stopgate.Decision `json:"decision,omitempty"`
}

// Files accounts for the files an audit found.
type Files struct {
	// Found counts the files under the paths.
	Found int `json:"found"`
	// Audited counts the files read into sessions.
	Audited int `json:"audited"`
	// WithParent counts sub-agent transcripts read with their session's file rather than on
	// their own.
	WithParent int `json:"with_parent"`
	// Skipped counts the files not audited, by why: "unknown format" or a reader's reason.
	Skipped map[string]int `json:"skipped"`
	// SkippedFiles names each file not audited and why, in the order the files were found.
	SkippedFiles []Skip `json:"skipped_files"`
	// Failed counts the files, and the paths named, that could not be read (see
	// Report.Failures).
	Failed int `json:"failed"`
}

// Skip is one file an audit did not read, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Failure is a file that could not be read.
type Failure struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Recorded says what Run wrote to the event log.
type Recorded struct {
	// Events counts the events appended.
	Events int `json:"events"`
	// Turns counts the turns whose events were appended; Already those whose events the log
	// already held from an earlier audit.
	Turns   int `json:"turns"`
	Already int `json:"already"`
}

// skipUnknown is the Files.Skipped reason of a file no Reader knows.
const skipUnknown = "unknown format"

// Run audits the session files at paths (files, or directories walked recursively): it reads
// each file with the first Reader that knows it, decides every stop with the supervisor, and
// adds up the report. A file no reader knows is skipped and counted; one that cannot be read
// is reported in Report.Failures and the others go on.
//
// Under a directory, a Claude Code sub-agent transcript (<session>/subagents/agent-*.jsonl)
// whose session file (<session>.jsonl) is there too is read with its session, not on its own.
//
// With Options.Store set, Run then records every turn: its decision's events
// (store.DecisionEvents), or for a turn the user interrupted the termination event of its
// ending, at the turn's time, under IDs from EventID. A session is appended in one call; when
// the log already holds some of its turns (an earlier audit), it is appended turn by turn and
// the turns already there are counted in Recorded.Already. It returns an error
// only when ctx ends (with the report of the files done so far) or recording fails.
func Run(ctx context.Context, paths []string, opts *Options) (*Report, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Supervisor == nil {
		o.Supervisor = stopgate.New(stopgate.Config{})
	}
	if len(o.Readers) == 0 {
		return nil, ErrNoReaders
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	a := &auditor{o}
	files, withParent, failures := walk(paths)
	results := make([]fileResult, len(files))
	err := a.each(ctx, files, results)

	rep := &Report{Sessions: []SessionReport{}, Failures: append([]Failure{}, failures...)}
	rep.Files.Found = len(files) + withParent
	rep.Files.WithParent = withParent
	rep.Files.Skipped = map[string]int{}
	rep.Files.SkippedFiles = []Skip{}
	rep.Files.Failed = len(failures)
	consumed := map[string]bool{}
	for i, r := range results {
		for _, s := range r.sessions {
			if p := absPath(s.report.Path); p != absPath(files[i].path) {
				consumed[p] = true
			}
		}
	}
	var kept []*sessionResult
	for i, r := range results {
		switch {
		case !r.done:
		case consumed[absPath(files[i].path)]:
			rep.Files.WithParent++
		case r.err != nil:
			rep.Failures = append(rep.Failures, Failure{Path: files[i].path, Error: r.err.Error()})
			rep.Files.Failed++
		case r.skip != "":
			rep.Files.Skipped[r.skip]++
			rep.Files.SkippedFiles = append(rep.Files.SkippedFiles, Skip{Path: files[i].path, Reason: r.skip})
		default:
			rep.Files.Audited++
			kept = append(kept, r.sessions...)
		}
	}
	var shadowErr error
	if o.HookLog != nil && err == nil {
		shadowErr = shadowBlocks(ctx, o.HookLog, kept)
		rep.HookLog = shadowErr == nil
	}
	rep.Total.Counts = newCounts()
	for _, s := range kept {
		rep.Sessions = append(rep.Sessions, s.report)
		rep.Total.Counts.add(s.report.Counts)
	}
	rep.Total.Sessions = len(rep.Sessions)
	if err != nil {
		return rep, err
	}
	if shadowErr != nil {
		return rep, shadowErr
	}
	if o.Store != nil {
		rec, err := record(ctx, o.Store, kept)
		rep.Recorded = &rec
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// file is one file found by walk.
type file struct {
	path string
	size int64
}

// fileResult is what became of one file.
type fileResult struct {
	done     bool
	sessions []*sessionResult
	skip     string
	err      error
}

// sessionResult is one session's report and, when recording, its events turn by turn.
type sessionResult struct {
	report SessionReport
	events [][]store.Event
}

// auditor runs one audit with its options resolved: none of them nil or zero.
type auditor struct {
	o Options
}

// each reads and decides files on a.o.Workers goroutines, filling results, and reports
// progress in the order files finish.
func (a *auditor) each(ctx context.Context, files []file, results []fileResult) error {
	jobs := make(chan int)
	done := make(chan int)
	var wg sync.WaitGroup
	for range min(a.o.Workers, max(len(files), 1)) {
		wg.Go(func() {
			for i := range jobs {
				results[i] = a.audit(ctx, files[i].path)
				done <- i
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := range files {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(done)
	}()
	p := Progress{Files: len(files)}
	for i := range done {
		p.Done++
		p.Bytes += files[i].size
		p.Path = files[i].path
		if a.o.Progress != nil {
			a.o.Progress(p)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// audit reads one file and decides its sessions' stops. A Reader that panics on the file fails
// that file only.
func (a *auditor) audit(ctx context.Context, path string) (res fileResult) {
	res.done = true
	defer func() {
		if v := recover(); v != nil {
			res = fileResult{done: true, err: fmt.Errorf("audit: reading the file panicked: %v", v)}
		}
	}()
	head, err := readHead(path)
	if err != nil {
		res.err = err
		return res
	}
	var rd Reader
	for _, r := range a.o.Readers {
		if r.Detect(path, head) {
			rd = r
			break
		}
	}
	if rd == nil {
		res.skip = skipUnknown
		return res
	}
	sessions, err := rd.Read(path)
	switch {
	case errors.Is(err, ErrSkip):
		res.skip = err.Error()
		return res
	case err != nil:
		res.err = err
		return res
	}
	for _, s := range sessions {
		if s == nil {
			continue
		}
		res.sessions = append(res.sessions, a.decide(ctx, s))
	}
	return res
}

// decide makes the decisions of one session and its report, and, when recording, its events.
func (a *auditor) decide(ctx context.Context, s *Session) *sessionResult {
	sr := &sessionResult{report: SessionReport{
		Path: s.Path, Format: s.Format, Harness: s.Harness, Session: s.ID, Agent: s.Agent,
		MalformedLines: s.Malformed, Counts: newCounts(),
		Turns: make([]TurnReport, 0, len(s.Turns)), Nudges: s.Nudges,
	}}
	if sr.report.Nudges == nil {
		sr.report.Nudges = []Nudge{}
	}
	if a.o.Store != nil {
		sr.events = make([][]store.Event, len(s.Turns))
	}
	c := &sr.report.Counts
	for i, t := range s.Turns {
		tr := TurnReport{
			Index: i, Trigger: t.Trigger, End: t.Turn.Now,
			Ending: t.Ending.Category, EndingDetail: t.Ending.Detail,
		}
		if m := t.Turn.Message; m != nil {
			tr.Final = harness.Excerpt(stall.FinalSentence(m.Text), harness.ExcerptRunes, true)
		}
		c.Turns++
		c.TurnEndings[t.Ending.Category]++
		switch {
		case t.Interrupted:
			c.Interrupted++
		case t.NoStop != "":
			tr.NoStop = t.NoStop
			c.NoStop++
		default:
			d := a.o.Supervisor.Decide(ctx, t.Turn)
			tr.Decision = &d
			for _, e := range d.Trail {
				if e.Check == d.Check {
					tr.Why = e.Why
				}
			}
			if d.Check == stopgate.CheckStall && t.Turn.Message != nil {
				tr.Sentence = stall.DanglingSentence(t.Turn.Message.Text)
			}
			c.Stops++
			switch {
			case d.Verdict != stopgate.Stop:
				c.WouldBlock++
				c.WouldBlockByCheck[d.Check]++
			case d.Check == stopgate.CheckPendingWake:
				c.Parked++
			}
		}
		if sr.events != nil {
			sr.events[i] = turnEvents(s, i, tr.Decision)
		}
		sr.report.Turns = append(sr.report.Turns, tr)
	}
	for _, n := range s.Nudges {
		c.Nudges++
		c.NudgeOutcomes[n.Outcome]++
	}
	if n := len(s.Turns); n > 0 {
		last := s.Turns[n-1].Ending
		sr.report.Ending, sr.report.EndingDetail = last.Category, last.Detail
		c.RunEndings[last.Category]++
	}
	return sr
}

func newCounts() Counts {
	return Counts{
		WouldBlockByCheck: map[stopgate.Check]int{},
		NudgeOutcomes:     map[NudgeOutcome]int{},
		TurnEndings:       map[termination.Category]int{},
		RunEndings:        map[termination.Category]int{},
	}
}

// add adds o to c.
func (c *Counts) add(o Counts) {
	c.Turns += o.Turns
	c.Stops += o.Stops
	c.Interrupted += o.Interrupted
	c.NoStop += o.NoStop
	c.WouldBlock += o.WouldBlock
	c.Parked += o.Parked
	c.Nudges += o.Nudges
	c.Shadow += o.Shadow
	for k, v := range o.WouldBlockByCheck {
		c.WouldBlockByCheck[k] += v
	}
	for k, v := range o.NudgeOutcomes {
		c.NudgeOutcomes[k] += v
	}
	for k, v := range o.TurnEndings {
		c.TurnEndings[k] += v
	}
	for k, v := range o.RunEndings {
		c.RunEndings[k] += v
	}
}

// walk lists the files under paths, in order, each directory in lexical order, each file once
// however often it is named. It leaves out the Claude Code sub-agent transcripts whose session
// file is in the tree too (counting them), and reports paths that cannot be read as failures.
func walk(paths []string) (files []file, withParent int, failures []Failure) {
	seen := map[string]bool{}
	add := func(path string, size int64) {
		if p := absPath(path); !seen[p] {
			seen[p] = true
			files = append(files, file{path: path, size: size})
		}
	}
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			failures = append(failures, Failure{Path: root, Error: err.Error()})
			continue
		}
		if !fi.IsDir() {
			add(root, fi.Size())
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				failures = append(failures, Failure{Path: path, Error: err.Error()})
				if d != nil && d.IsDir() && path != root {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if !d.Type().IsRegular() {
				// A symbolic link to a file is read; to anything else, and other special
				// files, are not files to audit.
				if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
					return nil
				}
			}
			if hasParentSession(path) {
				withParent++
				return nil
			}
			info, err := os.Stat(path)
			if err != nil {
				failures = append(failures, Failure{Path: path, Error: err.Error()})
				return nil
			}
			add(path, info.Size())
			return nil
		})
		if err != nil {
			failures = append(failures, Failure{Path: root, Error: err.Error()})
		}
	}
	return files, withParent, failures
}

// hasParentSession reports whether path is a Claude Code sub-agent transcript,
// <dir>/<session>/subagents/agent-*.jsonl, whose session file <dir>/<session>.jsonl exists:
// reading the session reads it too.
func hasParentSession(path string) bool {
	name := filepath.Base(path)
	if !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
		return false
	}
	sub := filepath.Dir(path)
	if filepath.Base(sub) != "subagents" {
		return false
	}
	sessionDir := filepath.Dir(sub)
	fi, err := os.Stat(sessionDir + ".jsonl")
	return err == nil && fi.Mode().IsRegular()
}

// readHead returns the first HeadBytes of the file at path.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, HeadBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf[:n], nil
}

// absPath is path made absolute and clean, for telling two spellings of one file apart; path
// itself when that fails.
func absPath(path string) string {
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}
