package main

import (
	"context"
	"flag"

	"github.com/stopgate/stopgate/gate"
)

func gateCommand() *command {
	return &command{
		name:    "gate",
		summary: "background work in, completion-gate verdicts out",
		usage:   "gate < snapshots.jsonl",
		help: `Read one snapshot of a run's background work per line and write whether the run may end.

Input (every field optional; see the README for what absence means for each):
  {"now": "2026-08-23T10:05:00Z", "run_started_at": "2026-08-23T10:00:00Z",
   "processes": [{"id": "p1", "command": "go test ./...", "started_at": "...",
                  "status": "running|exited", "exited_at": null, "exit_code": null,
                  "signal": null, "stopped_by_agent": false, "read_offset": 0,
                  "log_size": 0, "last_read_at": null}],
   "subagents": [{"id": "a1", "status": "running|finished|failed", "started_at": "...",
                  "result_collected": false}],
   "injections": {"processes": 0, "subagents": 0}}

Output:
  {"blocked": true, "gate": "processes|subagents|none", "message": "...", "unresolved": ["p1"],
   "exhausted": [], "injections": {"processes": 1, "subagents": 0}}

Sub-agents are checked first, then processes. A gate that has spent its budget for the run
(processes 2, subagents 3) no longer blocks and is listed in "exhausted".`,
		run: runGate,
	}
}

func runGate(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
	if len(args) > 0 {
		return usageError(e, "gate", "takes no arguments; it reads JSON lines on stdin")
	}
	bad, err := eachLine(e.stdin, e.stdout, func(in gate.Input) (any, error) {
		return gate.Check(in), nil
	})
	return finishLines(e, "gate", bad, err)
}
