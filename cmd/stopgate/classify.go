package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/stopgate/stopgate/termination"
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
   "type": "...", "code": "...", "message": "..."}

The body is read in the provider's own shape (OpenAI, Anthropic, Google, OpenRouter, Groq,
Ollama, vLLM, plain text); type, code and message, when given, override what the body says.

Output:
  {"category": "rate_limited", "source": "exception", "site": "classify.error", "detail": "429",
   "provider": "openai", "retryable_as_is": false, "retryable_after_remedy": true,
   "remedy": "back-off", "arms": []}

"arms" lists the context-overflow patterns the text matched, in list order.`,
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

// reasonLine is the output of both classify commands. Category is a pointer so that "the
// payload carried no token" is written as null rather than invented.
type reasonLine struct {
	Category             *termination.Category `json:"category"`
	Source               termination.Source    `json:"source"`
	Site                 termination.Site      `json:"site"`
	Detail               string                `json:"detail"`
	Provider             string                `json:"provider"`
	RetryableAsIs        bool                  `json:"retryable_as_is"`
	RetryableAfterRemedy bool                  `json:"retryable_after_remedy"`
	Remedy               termination.Remedy    `json:"remedy"`
	Arms                 []string              `json:"arms"`
}

func newReasonLine(r termination.Reason, arms []string) reasonLine {
	c := r.Category
	p := r.Posture()
	if arms == nil {
		arms = []string{}
	}
	return reasonLine{
		Category: &c, Source: r.Source, Site: r.Site, Detail: r.Detail, Provider: r.Provider,
		RetryableAsIs: p.RetryableAsIs, RetryableAfterRemedy: p.RetryableAfterRemedy, Remedy: p.Remedy,
		Arms: arms,
	}
}

// errorInput is one line of 'classify error'.
type errorInput struct {
	Provider string          `json:"provider"`
	Status   json.RawMessage `json:"status"`
	Body     json.RawMessage `json:"body"`
	Name     string          `json:"name"`
	Type     string          `json:"type"`
	Code     json.RawMessage `json:"code"`
	Message  string          `json:"message"`
}

func runClassifyError(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
	if len(args) > 0 {
		return usageError(e, "classify error", "takes no arguments; it reads JSON lines on stdin")
	}
	bad, err := eachLine(e.stdin, e.stdout, func(in errorInput) (any, error) {
		apiErr, err := in.apiError()
		if err != nil {
			return nil, err
		}
		r := termination.New(termination.SiteClassifyError, termination.SourceException, termination.Classify(apiErr))
		return newReasonLine(r, termination.ContextOverflowArms(apiErr)), nil
	})
	return finishLines(e, "classify error", bad, err)
}

// stopInput is one line of 'classify stop'.
type stopInput struct {
	Provider string `json:"provider"`
	Payload  any    `json:"payload"`
}

func runClassifyStop(_ context.Context, e env, _ *flag.FlagSet, args []string) int {
	if len(args) > 0 {
		return usageError(e, "classify stop", "takes no arguments; it reads JSON lines on stdin")
	}
	bad, err := eachLine(e.stdin, e.stdout, func(in stopInput) (any, error) {
		c, ok := termination.ClassifyStop(in.Provider, normalizeNumbers(in.Payload))
		if !ok {
			return reasonLine{Source: termination.SourceMetadata, Site: termination.SiteClassifyStop, Provider: in.Provider, Arms: []string{}}, nil
		}
		return newReasonLine(termination.New(termination.SiteClassifyStop, termination.SourceMetadata, c), nil), nil
	})
	return finishLines(e, "classify stop", bad, err)
}
