package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/stopgate/stopgate/toolcall"
)

func salvageCommand() *command {
	return &command{
		name:    "salvage",
		summary: "rejected tool-call error bodies in, salvaged answers out",
		usage:   "salvage < bodies.jsonl",
		help: `Read one rejected tool call's error response per line and write the model's complete answer
when it can be recovered, and which kind of tool-calling failure it was.

Input:
  {"status": 400, "body": "raw error body", "marker": "suggest_followups"}

"body" is the raw body as a JSON string, or the body itself as a JSON value. "marker" is the
name of the end-of-turn marker tool (default suggest_followups): an answer is salvaged only when
the rejected call was to the marker, or there was none. A rejected call to a real tool is never
answered with its intro prose.

Output:
  {"salvaged": true, "content": "...", "followups": ["..."],
   "failure": "tool_use_failed|tools_unsupported|schema_validation|json_validation|other",
   "why": "..."}`,
		run: runSalvage,
	}
}

// salvageInput is one line of 'salvage'.
type salvageInput struct {
	Status json.RawMessage `json:"status"`
	Body   json.RawMessage `json:"body"`
	Marker string          `json:"marker"`
}

func runSalvage(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
	if len(args) > 0 {
		return usageError(e, "salvage", "takes no arguments; it reads JSON lines on stdin")
	}
	bad, err := eachLine(e.stdin, e.stdout, func(in salvageInput) (any, error) {
		status, err := parseStatus(in.Status)
		if err != nil {
			return nil, err
		}
		body, err := parseBody(in.Body)
		if err != nil {
			return nil, err
		}
		s := toolcall.Salvage(status, body, &toolcall.SalvageOptions{Marker: in.Marker})
		if s.Followups == nil {
			s.Followups = []string{}
		}
		return salvageLine{s}, nil
	})
	return finishLines(e, "salvage", bad, err)
}

// salvageLine always writes "followups", so readers need not test for its presence.
type salvageLine struct{ toolcall.Salvaged }

func (l salvageLine) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Salvaged  bool             `json:"salvaged"`
		Content   string           `json:"content"`
		Followups []string         `json:"followups"`
		Failure   toolcall.Failure `json:"failure"`
		Why       string           `json:"why"`
	}{l.OK, l.Content, l.Followups, l.Failure, l.Why})
}
