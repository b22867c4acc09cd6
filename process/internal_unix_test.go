//go:build unix

package process

import (
	"syscall"
	"testing"
)

func TestSignalName(t *testing.T) {
	tests := []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGTERM, "SIGTERM"},
		{syscall.SIGKILL, "SIGKILL"},
		{syscall.SIGINT, "SIGINT"},
		{syscall.SIGSEGV, "SIGSEGV"},
		{syscall.Signal(40), "signal 40"},
	}
	for _, tt := range tests {
		if got := signalName(tt.sig); got != tt.want {
			t.Errorf("signalName(%d) = %q, want %q", tt.sig, got, tt.want)
		}
	}
}

func TestSignalGroupRefusesBadIDs(t *testing.T) {
	// kill(-1) would reach every process the user may signal, kill(0) the caller's own group.
	// Signal 0 only checks, so the test is harmless even if the guard were gone.
	for _, pgid := range []int{-1, 0, 1} {
		if err := signalGroup(pgid, 0); err == nil {
			t.Errorf("signalGroup(%d, 0) = nil, want a refusal", pgid)
		}
		if groupAlive(pgid) {
			t.Errorf("groupAlive(%d) = true, want false", pgid)
		}
	}
}
