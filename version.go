package stopgate

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var versionFile string

// Version is the release this source tree is, from the VERSION file at the module's root
// ("0.1.0", no leading v). The binary, the archives `make dist` builds and the harness plugins
// in plugins/ all carry it, so an update of one reaches the others.
var Version = strings.TrimSpace(versionFile)
