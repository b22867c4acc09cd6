// Package claims checks what a final message says was verified against what the run's own
// tool results show.
//
// An agent that stops on "All tests pass." after a test run that failed, or on "86/86 pass"
// when the runner printed 80 passed and 6 failed, ends a run on a false report. The package
// reads the final message for verification claims (tests pass, the build succeeds, lint or
// type-check is clean, N passed, N/N) with [Find], reads the run's steps for the commands that
// produce that evidence (test, build, lint and type-check runners across ecosystems, with their
// exit status and the runner's own summary line) with [Runs], and compares the two with
// [Check].
//
// Check accuses only on evidence: a claim is contradicted when the last matching run after the
// last file edit failed (a non-zero exit, an error flag, or a failing summary), or when the
// numbers the claim gives disagree with that run's summary. A hedged claim ("passes except the
// flaky X", "the two failures are pre-existing", "I could not run the tests") is never
// contradicted, and a claim with no matching run is only "unverified", which blocks nothing
// unless [Config.RequireEvidence] asks for it. When unsure, the package says nothing: a false
// accusation of lying is worse than a missed one.
//
// The package is pure: no I/O, no clock, no globals beyond fixed tables.
package claims
