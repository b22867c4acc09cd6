// Package process runs and tracks the background processes an agent starts: a test run, a build,
// a dev server. It keeps the facts stopgate's process gate reasons about, each recorded when it
// happens rather than inferred later: when a process started, whether it is still running, how it
// ended, who asked for it to stop, how much of its output exists and how much of it was read.
//
// A [Manager] starts each process in its own process group, with standard output and standard
// error going to one log file and standard input from a pipe ([Manager.Write]). [Manager.Read]
// returns the output written since the last read and is the only thing that moves the read
// offset; it records the time of every read, including one that finds nothing new, so a process
// that has printed nothing can still be looked at. [Manager.Stop] sends SIGTERM to the group,
// waits a grace period, then sends SIGKILL to whatever in the group is still alive.
//
// How a process ended is recorded as two facts, never folded into one number: a process that
// exits with status 3 has ExitCode 3 and no Signal; one killed by SIGTERM has a nil ExitCode and
// Signal "SIGTERM". Who asked for a stop ([ByAgent], [ByUser], [ByHarness]) is recorded apart from
// the signal, so a process the agent stopped on purpose is not mistaken for one that failed.
//
// An [Info] is a snapshot: its LogSize is the log file's size when the snapshot was taken, so a
// gate reading it never sees a size older than the process's exit. Processes are never pruned; a
// Manager remembers every process it started until it is closed, and each holds one open file
// descriptor (its log) until then. A process that leaves children behind after exiting on its own
// (a daemon that forks and detaches) is not tracked beyond its own exit.
//
// The package needs a Unix system (it uses process groups and POSIX signals). On other platforms
// it compiles, but [Manager.Start] returns an error wrapping [errors.ErrUnsupported], so a
// Manager there never holds a process.
package process
