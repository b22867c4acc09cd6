package main

import (
	"context"
	"flag"

	"github.com/stopgate/stopgate/internal/wire"
)

func salvageCommand() *command {
	return &command{
		name:    "salvage",
		summary: "rejected tool-call error bodies in, salvaged answers out",
		usage:   "salvage < bodies.jsonl",
		help: `Read one rejected tool call's error response per line and write the model's complete answer
when it can be recovered, and which kind of tool-calling failure it was.

Input:
  {"status": 400, "body": "raw error body", "marker": "suggest_followups", "no_tools": false}

"body" is the raw body as a JSON string, or the body itself as a JSON value. "marker" is the
name of the end-of-turn marker tool (default suggest_followups): an answer is salvaged only when
the rejected call was to the marker, or there was none. A rejected call to a real tool is never
answered with its intro prose, and only prose addressed to the user is delivered: never a tool
call in any shape, never the model's reasoning. "no_tools": true says the request carried no
tools; a parse failure then salvages nothing.

Output:
  {"salvaged": true, "content": "...", "followups": ["..."],
   "failure": "tool_use_failed|tools_unsupported|schema_validation|json_validation|other",
   "why": "..."}`,
		run: runSalvage,
	}
}

func runSalvage(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
	if len(args) > 0 {
		return usageError(e, "salvage", "takes no arguments; it reads JSON lines on stdin")
	}
	bad, err := eachLine(e.stdin, e.stdout, func(in wire.SalvageInput) (any, error) {
		return wire.Salvage(in)
	})
	return finishLines(e, "salvage", bad, err)
}
