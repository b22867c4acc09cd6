package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/stopgate/stopgate/internal/wire"
	"github.com/stopgate/stopgate/model"
	"github.com/stopgate/stopgate/stall"
)

func stallCommand() *command {
	var modelSpec string
	return &command{
		name:    "stall",
		summary: "final messages in, stall verdicts out",
		usage:   "stall [--model SPEC] < messages.jsonl",
		help: `Read one final assistant message per line and write whether the turn stalled: ended on a
promised, untaken next action.

Input:
  {"text": "...", "mode": "interactive|autonomous", "metadata": {"livelocked": false}}

Output:
  {"stalled": true, "by": "todo|livelock|lexical|model|none", "sentence": "Let me check the tests.",
   "why": "short reason", "nudge": "the message to hand the agent, when stalled"}

The checks run in order: a livelock exit in the metadata, open items in the message's own
<todo> block, the built-in lexical classifier, then (with --model) the model classifier. In
autonomous mode a permission-ask ("Shall I proceed?") is a stall; in interactive mode (the
default) it is a legitimate end. Every failure of the model classifier is "not stalled"; its
reason is in "classifier_reason".

Model specs: openai:gpt-5-mini, anthropic:claude-haiku-4-5, groq:MODEL, openrouter:MODEL,
ollama:MODEL, gemini:MODEL, openai-compatible:URL#MODEL, claude-cli:haiku. Keys come from the
provider's usual environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&modelSpec, "model", "", "also ask this model `SPEC` when the lexical classifier finds nothing")
		},
		run: func(ctx context.Context, e env, _ *flag.FlagSet, args []string) int {
			if len(args) > 0 {
				return usageError(e, "stall", "takes no arguments; it reads JSON lines on stdin")
			}
			var mc *stall.ModelClassifier
			if modelSpec != "" {
				client, err := model.New(modelSpec, &model.Options{Getenv: e.getenv})
				if err != nil {
					fmt.Fprintf(e.stderr, "stopgate stall: --model: %v\n", err)
					return exitUsage
				}
				mc = &stall.ModelClassifier{Client: client}
			}
			bad, err := eachLine(e.stdin, e.stdout, func(in wire.StallInput) (any, error) {
				return wire.Stall(ctx, in, mc)
			})
			return finishLines(e, "stall", bad, err)
		},
	}
}
