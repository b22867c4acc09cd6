package wire

import (
	"context"
	"fmt"

	"github.com/stopgate/stopgate/stall"
)

// StallInput is a final assistant message: the input of `stopgate stall` and POST /v1/stall.
//
//	{"text": "...", "mode": "interactive|autonomous", "metadata": {"livelocked": false}}
type StallInput struct {
	// Text is the message's visible text.
	Text string `json:"text"`
	// Mode is interactive (the default) or autonomous.
	Mode stall.Mode `json:"mode"`
	// Metadata is the harness's metadata for the message; "livelocked": true marks a livelock.
	Metadata map[string]any `json:"metadata"`
}

// StallVerdict is whether a turn stalled: the output of `stopgate stall` and POST /v1/stall.
type StallVerdict struct {
	Stalled bool `json:"stalled"`
	// By is livelock, todo, lexical, model or none.
	By string `json:"by"`
	// Sentence is the dangling sentence when Stalled; empty otherwise.
	Sentence string `json:"sentence"`
	Why      string `json:"why"`
	// Todos are the open items of the message's own <todo> block; never nil.
	Todos []string `json:"todos"`
	// Nudge is the message to hand the agent when Stalled, the same text `stopgate decide`
	// continues with; absent otherwise.
	Nudge string `json:"nudge,omitempty"`
	// ClassifierReason is the termination reason of a model classifier that said nothing
	// usable; absent otherwise.
	ClassifierReason any `json:"classifier_reason,omitempty"`
}

// Stall says whether the message in describes stalled, consulting mc (nil for none) when the
// lexical classifier finds nothing. It fails when the mode is not one stopgate knows.
func Stall(ctx context.Context, in StallInput, mc *stall.ModelClassifier) (StallVerdict, error) {
	if err := checkMode(in.Mode); err != nil {
		return StallVerdict{}, err
	}
	r := stall.IsStalled(ctx, in.Text, stall.Options{Mode: in.Mode, Metadata: in.Metadata, Model: mc})
	out := StallVerdict{Stalled: r.Stalled, By: string(r.By), Sentence: r.Sentence, Why: r.Why, Todos: r.Todos, Nudge: r.Nudge}
	if out.Todos == nil {
		out.Todos = []string{}
	}
	if !r.Stalled {
		out.Sentence = ""
	}
	if r.Reason != nil {
		out.ClassifierReason = r.Reason
	}
	return out, nil
}

// checkMode reports a mode that is neither interactive nor autonomous (nor empty, the default).
func checkMode(m stall.Mode) error {
	switch m {
	case "", stall.Interactive, stall.Autonomous:
		return nil
	}
	return fmt.Errorf("field \"mode\": %q is not interactive or autonomous", m)
}
