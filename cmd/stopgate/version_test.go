package main

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stopgate/stopgate"
)

func TestVersionString(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name       string
		bi         *debug.BuildInfo
		release    string
		linkCommit string
		want       string
	}{
		{"no build info", nil, "0.1.0", "", "v0.1.0"},
		{"clone build", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc123", "false")}, "0.1.0", "", "v0.1.0 (commit abc123)"},
		{"modified clone", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc123", "true")}, "0.1.0", "", "v0.1.0 (commit abc123, modified)"},
		{"make dist", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc123", "true")}, "0.1.0", "def456", "v0.1.0 (commit def456)"},
		{"go install @version", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, "0.2.0", "", "v0.2.0"},
		{"go install pseudo-version", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20260101000000-abcdef123456"}}, "0.1.0", "", "v0.1.1-0.20260101000000-abcdef123456"},
		{"release with v", nil, "v0.3.0", "", "v0.3.0"},
		{"no release", nil, "", "", "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionString(tt.bi, tt.release, tt.linkCommit); got != tt.want {
				t.Errorf("versionString = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-v", "version"} {
		out, _, code := runCmd(t, "", arg)
		if code != 0 || !strings.HasPrefix(out, "stopgate v"+stopgate.Version) {
			t.Errorf("stopgate %s = %q (exit %d), want it to begin %q", arg, out, code, "stopgate v"+stopgate.Version)
		}
	}
}
