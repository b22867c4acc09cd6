//go:build !unix

package process

import (
	"errors"
	"os"
	"os/exec"
)

// supported reports whether Start can run processes on this platform.
const supported = false

// ownGroup does nothing: Start never runs a process here.
func ownGroup(*exec.Cmd) {}

// terminateGroup is unsupported here.
func terminateGroup(int) error { return errors.ErrUnsupported }

// killGroup is unsupported here.
func killGroup(int) error { return errors.ErrUnsupported }

// groupAlive reports false: there are no process groups to track here.
func groupAlive(int) bool { return false }

// exitFacts reads the exit status; signals are not reported here.
func exitFacts(ps *os.ProcessState) (code int, exited bool, signal string) {
	if ps == nil || ps.ExitCode() < 0 {
		return 0, false, ""
	}
	return ps.ExitCode(), true, ""
}
