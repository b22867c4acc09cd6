// Package harness is the contract between stopgate's shared machinery and the agent harnesses
// it supervises. It holds types and interfaces, and the few generic helpers every harness's
// reader shares; no harness-specific code.
//
// One harness is one package under harness/ (harness/claudecode, harness/codex,
// harness/gemini, harness/sweagent, …). It implements the pieces below that apply to it and
// describes itself with a Harness value. Package hook (the live stop-hook driver: time budget,
// fail-open, per-session nudge budgets and state, writing and recording the answer) depends
// only on Hook; package audit (replaying session files through the supervisor) only on
// SessionReader and Session. Neither imports a harness package: cmd/stopgate holds the
// registry of Harness values and hands each piece to the driver that needs it. Adding a
// harness is adding a folder and one line in that registry.
//
// The dependency order, lowest first, is: stopgate (the decision), transcript (the shared
// session model), harness (this contract), harness/* (one per harness), hook and audit (the
// drivers), cmd/stopgate (the wiring). No package imports one later in that list.
package harness

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/stopgate/stopgate"
	"github.com/stopgate/stopgate/termination"
)

// Harness describes one agent harness to cmd/stopgate: its name and the pieces it has. A nil
// piece is one the harness does not have (a trajectory format has no live hook and no
// installer).
type Harness struct {
	// Name is the harness's name as `stopgate hook NAME`, `stopgate hook install NAME` and
	// stopgate.Turn.Harness spell it ("claude-code", "codex", "gemini-cli").
	Name string
	// Summary is one line for help text ("the Claude Code Stop and SubagentStop hook").
	Summary string
	// Site is where a stop of this harness is decided, for termination reasons
	// (termination.SiteHookClaudeCode); termination.SiteSupervisor for a harness stopgate
	// has no hook for.
	Site termination.Site
	// Hook is what runs at the harness's stop hook; nil when stopgate has none for it.
	Hook Hook
	// Installer adds the hook to the harness's configuration and removes it; nil when the
	// hook is not installed by stopgate.
	Installer Installer
	// Readers read the harness's session files for audit, asked in order.
	Readers []SessionReader
	// Doctor checks the harness's installation for `stopgate doctor`; nil checks nothing.
	Doctor Doctor
}

// Stop is one stop of an agent as a Hook hands it to the driver: the Turn to decide and what
// the driver needs to budget the nudges.
type Stop struct {
	// Event is the hook event the payload names ("Stop", "SubagentStop", "AfterAgent", …);
	// Answer gets it back.
	Event string
	// Notes are lines for stderr (fields read as absent, a session file that could not be
	// read), each written after "stopgate: ".
	Notes []string
	// Skip reports that there is nothing to decide (the event is not a stop): the driver
	// lets the agent stop, after writing Notes, which say why.
	Skip bool
	// Turn is the agent's turn as it stands at the stop.
	Turn stopgate.Turn
	// Active is the payload's stop_hook_active: the agent is going on because a stop hook
	// refused its last stop.
	Active bool
	// State names the per-session state file that carries the nudge budgets from one stop
	// to the next. An empty Session keeps no state.
	State StateKey
	// Chain counts a stop that follows one of this run's nudges as in a row whatever Active
	// says, for a harness whose stop_hook_active does not last through a continued run
	// (Gemini CLI).
	Chain bool
	// Extra is the harness's own, for its Answer (a payload field the answer echoes); the
	// driver does not read it.
	Extra any
	// Ended, when set, says the run has already ended and why (Claude Code's StopFailure,
	// fired instead of Stop when a turn ends on an API error): there is nothing to decide, so
	// the driver records Turn with a Stop verdict carrying this reason, keeps no state, and
	// writes no answer.
	Ended *termination.Reason
	// Checkpoint is what the harness's session reader derived, for the next stop of the
	// same State to go on from (Checkpoint), so it reads only what was appended since
	// (transcript.ReadTail, rollout.ReadTail, chat.ReadTail, copilot.ReadTail). The driver
	// keeps it in the state file; nil keeps none.
	Checkpoint []byte
}

// StateKey names one per-session state file: a session, and a sub-agent within it ("" for
// the main agent). A harness whose session ids could collide with another's prefixes them
// ("gemini-…").
type StateKey struct {
	Session, Agent string
}

// Hook is the live half of a harness: the two steps of a stop-hook invocation that differ
// from one harness to the next. The driver (package hook) does the rest.
type Hook interface {
	// Stop decodes the payload the harness wrote on the hook's stdin, reads the session
	// file it names, and builds the Turn at this stop, with now as the clock. An error (a
	// payload that is not JSON) lets the agent stop; a session file that cannot be read is
	// not an error but a Note, the Turn then built from the payload alone.
	Stop(ctx context.Context, payload io.Reader, now time.Time) (*Stop, error)
	// Answer encodes d, decided on s, as what to write on stdout: nil lets the agent stop.
	// note, when not empty, is written on stderr (a verdict the harness cannot carry out).
	Answer(d stopgate.Decision, s *Stop) (answer []byte, note string)
}

// Scope is where a hook is installed.
type Scope string

// The scopes. A harness supports the ones its configuration has.
const (
	// ScopeUser: the user's own configuration, for every project (~/.claude/settings.json).
	ScopeUser Scope = "user"
	// ScopeProject: the project's configuration, shared through its repository
	// (.claude/settings.json, .github/hooks/).
	ScopeProject Scope = "project"
	// ScopeLocal: the project's configuration on this machine only
	// (.claude/settings.local.json).
	ScopeLocal Scope = "local"
)

// ErrScope is returned (wrapped) by Installer.Path for a scope the harness does not have.
var ErrScope = errors.New("scope not supported by this harness")

// Installer adds the stop hook to a harness's configuration file and removes it, leaving
// everything else in the file (and other files) as it was.
type Installer interface {
	// Path returns the configuration file the hook goes in for scope, as the harness itself
	// finds it in env (its own home-directory variable, the user's home, the current
	// directory).
	Path(scope Scope, env Env) (string, error)
	// Command returns the hook command line that runs exe with args, quoted for the shell
	// the harness runs it with.
	Command(exe string, args ...string) string
	// IsHookCommand reports whether command runs this harness's stopgate hook, whatever the
	// binary's path and flags, so that Install replaces it and Uninstall removes it.
	IsHookCommand(command string) bool
	// Install adds command as the stop hook in the file at path, creating the file when it
	// does not exist and replacing an earlier stopgate hook; changed reports whether the file
	// was written. A file that cannot be read as the harness's configuration is an error and
	// is left alone.
	Install(path, command string) (changed bool, err error)
	// Uninstall removes the stopgate hooks from the file at path; a missing file, or one
	// without them, is no change.
	Uninstall(path string) (changed bool, err error)
}

// CheckStatus is the result of one doctor Check.
type CheckStatus string

// The check statuses.
const (
	CheckOK   CheckStatus = "ok"
	CheckWarn CheckStatus = "warn"
	CheckFail CheckStatus = "fail"
	// CheckSkip: the check does not apply (the harness is not installed here).
	CheckSkip CheckStatus = "skip"
)

// Check is one finding of `stopgate doctor` about a harness.
type Check struct {
	// Name says what was checked ("hook installed in ~/.claude/settings.json").
	Name string
	// Status is the result.
	Status CheckStatus
	// Detail says what was found; Fix, when not empty, what to do about it.
	Detail, Fix string
}

// Env is what an Installer or a Doctor may look at: the environment, not the process's
// globals, so both can be tested.
type Env struct {
	// Home and CWD are the user's home directory and the current directory.
	Home, CWD string
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Executable is the path of the running stopgate binary.
	Executable string
}

// Doctor checks one harness's installation: that the harness is there, that the hook is
// installed and would run, and what would stop it from firing. (Filled in by issue 15.)
type Doctor interface {
	Checks(ctx context.Context, env Env) []Check
}

// HeadBytes is how much of the start of a file the audit hands to SessionReader.Detect.
const HeadBytes = 64 << 10

// ErrSkip marks a file a SessionReader recognised but has nothing to audit in (a compaction
// summariser's transcript, say). The audit names the file as skipped, with the error's text as
// the reason, and does not report it as a failure. Readers wrap it:
// fmt.Errorf("%w: compaction", ErrSkip).
var ErrSkip = errors.New("nothing to audit")

// SessionReader reads one session-file format into Sessions for the audit. The audit asks
// each reader in turn whether it knows a file, and the first that does reads it.
type SessionReader interface {
	// Format names the format, as the audit report's "format" field spells it
	// ("claude-code").
	Format() string
	// Detect reports whether the file at path is in this format, from its name and head,
	// the first HeadBytes of the file (all of it when shorter). It does no I/O.
	Detect(path string, head []byte) bool
	// Read reads the file into its sessions: one, or more when the file brings others with
	// it (a Claude Code session and its sub-agents' transcripts). A session read from another
	// file than path carries that file's path in Session.Path, and the audit does not read
	// that file again on its own. An error wrapping ErrSkip skips the file; any other error
	// is a failure, reported, and the other files go on.
	Read(path string) ([]*Session, error)
}

// checkpointsKey is the context key of the checkpoint loader.
type checkpointsKey struct{}

// WithCheckpoints returns ctx carrying load, which returns the checkpoint the last stop of a
// state file kept (Stop.Checkpoint), or nil. The driver sets it when it keeps state files.
func WithCheckpoints(ctx context.Context, load func(StateKey) []byte) context.Context {
	return context.WithValue(ctx, checkpointsKey{}, load)
}

// Checkpoint returns the checkpoint kept for key by the last stop, or nil when ctx carries
// no loader (WithCheckpoints) or none was kept.
func Checkpoint(ctx context.Context, key StateKey) []byte {
	load, _ := ctx.Value(checkpointsKey{}).(func(StateKey) []byte)
	if load == nil || key.Session == "" {
		return nil
	}
	return load(key)
}
