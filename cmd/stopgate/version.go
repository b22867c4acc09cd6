package main

import (
	"runtime/debug"
	"strings"

	"github.com/stopgate/stopgate"
)

// commit is the commit the binary was built from, set by `make dist` with
// -ldflags "-X main.commit=…"; empty otherwise, when the Go toolchain's own VCS stamp
// (vcs.revision) is used instead.
var commit string

// version names the release the binary is and, when known, the commit it was built from:
// "v0.1.0 (commit 5b48507c…)" or "v0.1.0 (commit 5b48507c…, modified)".
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionString(bi, stopgate.Version, commit)
}

// versionString is version with its inputs given: the build information, the VERSION file's
// release, and the commit set at link time. A binary installed with `go install
// …@v0.1.0` names the module version the toolchain recorded; one built from a clone names
// the VERSION file's release and the VCS revision.
func versionString(bi *debug.BuildInfo, release, linkCommit string) string {
	v := "v" + strings.TrimPrefix(release, "v")
	if release == "" {
		v = "devel"
	}
	rev, modified := linkCommit, false
	if bi != nil {
		if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
			v = mv
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.modified":
				modified = linkCommit == "" && s.Value == "true"
			}
		}
	}
	if rev == "" {
		return v
	}
	if modified {
		return v + " (commit " + rev + ", modified)"
	}
	return v + " (commit " + rev + ")"
}
