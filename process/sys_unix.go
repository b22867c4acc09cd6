//go:build unix

package process

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// supported reports whether Start can run processes on this platform.
const supported = true

// ownGroup makes cmd's process the leader of a new process group, so signals sent to the group
// reach everything it starts.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup sends SIGTERM to the process group pgid.
func terminateGroup(pgid int) error { return signalGroup(pgid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group pgid.
func killGroup(pgid int) error { return signalGroup(pgid, syscall.SIGKILL) }

// signalGroup sends sig to every process in the group pgid. A group that no longer exists is
// not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		// kill(-1) would signal every process the user may signal; never let a bad id get there.
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	if err := syscall.Kill(-pgid, sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("signal process group %d: %w", pgid, err)
	}
	return nil
}

// groupAlive reports whether the process group pgid still has members (zombies included).
func groupAlive(pgid int) bool {
	if pgid <= 1 {
		return false
	}
	err := syscall.Kill(-pgid, 0)
	return err == nil || err == syscall.EPERM
}

// exitFacts reads how a process ended: its exit status when it exited normally, or the name of
// the signal that ended it. A nil ps (the wait itself failed) gives neither.
func exitFacts(ps *os.ProcessState) (code int, exited bool, signal string) {
	if ps == nil {
		return 0, false, ""
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return 0, false, ""
	}
	switch {
	case ws.Exited():
		return ws.ExitStatus(), true, ""
	case ws.Signaled():
		return 0, false, signalName(ws.Signal())
	}
	return 0, false, ""
}

// signalNames holds the signals POSIX names on every Unix Go supports.
var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT:   "SIGABRT",
	syscall.SIGALRM:   "SIGALRM",
	syscall.SIGBUS:    "SIGBUS",
	syscall.SIGCHLD:   "SIGCHLD",
	syscall.SIGCONT:   "SIGCONT",
	syscall.SIGFPE:    "SIGFPE",
	syscall.SIGHUP:    "SIGHUP",
	syscall.SIGILL:    "SIGILL",
	syscall.SIGINT:    "SIGINT",
	syscall.SIGKILL:   "SIGKILL",
	syscall.SIGPIPE:   "SIGPIPE",
	syscall.SIGPROF:   "SIGPROF",
	syscall.SIGQUIT:   "SIGQUIT",
	syscall.SIGSEGV:   "SIGSEGV",
	syscall.SIGSTOP:   "SIGSTOP",
	syscall.SIGSYS:    "SIGSYS",
	syscall.SIGTERM:   "SIGTERM",
	syscall.SIGTRAP:   "SIGTRAP",
	syscall.SIGTSTP:   "SIGTSTP",
	syscall.SIGTTIN:   "SIGTTIN",
	syscall.SIGTTOU:   "SIGTTOU",
	syscall.SIGURG:    "SIGURG",
	syscall.SIGUSR1:   "SIGUSR1",
	syscall.SIGUSR2:   "SIGUSR2",
	syscall.SIGVTALRM: "SIGVTALRM",
	syscall.SIGWINCH:  "SIGWINCH",
	syscall.SIGXCPU:   "SIGXCPU",
	syscall.SIGXFSZ:   "SIGXFSZ",
}

// signalName returns the conventional name of sig, such as "SIGTERM", or "signal N" for one
// without a portable name (a real-time signal, say).
func signalName(sig syscall.Signal) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return "signal " + strconv.Itoa(int(sig))
}
