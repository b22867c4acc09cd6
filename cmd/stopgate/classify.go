package main

import (
	"context"
	"flag"

	"github.com/stopgate/stopgate/internal/wire"
)

func classifyCommand() *command {
	return &command{
		name:    "classify",
		summary: "classify why a run ended",
		usage:   "classify error|stop < lines.jsonl",
		help: `Classify why a run ended into stopgate's termination taxonomy.

  classify error   error descriptions in, termination reasons out
  classify stop    provider response fragments in, stop-metadata reasons out`,
		subs: []*command{
			{
				name:    "error",
				summary: "error descriptions in, termination reasons out",
				usage:   "classify error < errors.jsonl",
				help: `Read one error description per line and write its termination reason.

Input, every field optional:
  {"provider": "openai", "status": 429, "body": "raw body or message", "name": "RateLimitError",
   "type": "...", "code": "...", "message": "...", "headers": {"retry-after": "7"}}

The body is read in the provider's own shape (OpenAI, Anthropic, Google, OpenRouter, Groq,
Ollama, vLLM, plain text); type, code and message, when given, override what the body says.

Output:
  {"category": "rate_limited", "source": "exception", "site": "classify.error", "detail": "429",
   "provider": "openai", "retryable_as_is": false, "retryable_after_remedy": true,
   "remedy": "back-off", "retry_after_ms": 7000}

"retry_after_ms" is the delay the provider asked for (the retry-after or retry-after-ms
header, a retryDelay or "try again in 7s" in the body); omitted when it named none.`,
				run: runClassifyError,
			},
			{
				name:    "stop",
				summary: "provider response fragments in, stop-metadata reasons out",
				usage:   "classify stop < fragments.jsonl",
				help: `Read one provider response fragment per line and write what its stop or finish
reason means.

Input:
  {"provider": "anthropic", "payload": {"stop_reason": "max_tokens"}}

The payload may be a whole response (OpenAI chat completions or Responses, Anthropic Messages
or one of its stream events, Gemini, Bedrock Converse, Mistral, Cohere, Ollama, Groq) or just
the metadata. Output has the same fields as 'classify error'; "category" is null when the
payload carries no stop token at all, and "completed" for an ordinary finish (stop, end_turn,
stop_sequence, tool-call finishes).`,
				run: runClassifyStop,
			},
		},
	}
}

// errorInput is one line of 'classify error'.
type errorInput = wire.ErrorInput

func runClassifyError(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
	if len(args) > 0 {
		return usageError(e, "classify error", "takes no arguments; it reads JSON lines on stdin")
	}
	bad, err := eachLine(e.stdin, e.stdout, func(in errorInput) (any, error) {
		return wire.ClassifyError(in)
	})
	return finishLines(e, "classify error", bad, err)
}

func runClassifyStop(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
	if len(args) > 0 {
		return usageError(e, "classify stop", "takes no arguments; it reads JSON lines on stdin")
	}
	bad, err := eachLine(e.stdin, e.stdout, func(in wire.StopInput) (any, error) {
		return wire.ClassifyStop(in), nil
	})
	return finishLines(e, "classify stop", bad, err)
}
