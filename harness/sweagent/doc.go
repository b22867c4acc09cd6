// Package sweagent reads the trajectories SWE-agent (.traj) and mini-swe-agent
// (.traj.json, chat-completion and tool-calling formats) write, for audit: one run per file,
// ended by its info.exit_status. These runners have no stop hook stopgate answers, so the
// package has a SessionReader and no Hook or Installer. Harness describes it to
// cmd/stopgate.
package sweagent

import (
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/termination"
)

// Harness describes the SWE-agent and mini-swe-agent trajectory formats to cmd/stopgate.
func Harness() harness.Harness {
	return harness.Harness{
		Name:    "trajectory",
		Summary: "SWE-agent and mini-swe-agent trajectories (audit only)",
		Site:    termination.SiteSupervisor,
		Readers: []harness.SessionReader{Reader{}},
	}
}
