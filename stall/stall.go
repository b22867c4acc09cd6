package stall

import (
	"context"
	"strconv"

	"github.com/stopgate/stopgate/termination"
)

// Detector names the check that decided a [Result].
type Detector string

// The detectors, in the order [IsStalled] consults them.
const (
	// ByLivelock: the message metadata records a livelock exit ([DefiniteStallFor]).
	ByLivelock Detector = "livelock"
	// ByTodo: the message's own <todo> block has open items ([OpenTodos]).
	ByTodo Detector = "todo"
	// ByLexical: the built-in classifier read a stall in the final sentence ([ClassifyLexical]).
	ByLexical Detector = "lexical"
	// ByModel: the configured model answered YES ([ModelClassifier]).
	ByModel Detector = "model"
	// ByNone: no check found a stall.
	ByNone Detector = "none"
)

// Options configures [IsStalled]. The zero value checks in [Interactive] mode with no
// metadata and no model.
type Options struct {
	// Mode says whether anyone will answer the agent; see [Mode].
	Mode Mode
	// Metadata is the final message's metadata, where [loopguard.MetadataLivelocked] is read.
	Metadata map[string]any
	// Model is the model classifier; nil leaves it off.
	Model *ModelClassifier
}

// Result is the combined stall verdict on a final message.
type Result struct {
	// Stalled reports that the agent should be nudged.
	Stalled bool
	// By names the check that found the stall, or ByNone.
	By Detector
	// Sentence is the dangling sentence ([DanglingSentence]), for the log and the nudge.
	Sentence string
	// Why says, in a few words, what decided.
	Why string
	// Todos are the open todo items, when By is ByTodo.
	Todos []string
	// Nudge is the message to hand the agent when Stalled; empty otherwise.
	Nudge string
	// Reason is set when the model classifier was consulted and had nothing usable to go on
	// (see [ModelVerdict.Reason]); nil otherwise.
	Reason *termination.Reason
}

// IsStalled decides whether an agent's final message is a stall, consulting the checks in
// order and stopping at the first that finds one:
//
//  1. a livelock exit in opts.Metadata ([DefiniteStallFor]), which needs no classifier;
//  2. open items in the message's own <todo> block ([OpenTodos]);
//  3. the lexical classifier ([ClassifyLexical]) in opts.Mode;
//  4. the model classifier, when opts.Model is set, and only for a message the lexical
//     classifier neither called a stall nor found positively ended (a question or request
//     handed to the user, a report of being blocked, parking on background work).
//
// Every branch fails closed: anything short of a positive finding, a model that is missing,
// slow, failing, refusing or unclear included, is "not stalled". The pending-wake gate
// ([PendingWakeReason]) is the caller's to apply first.
func IsStalled(ctx context.Context, text string, opts Options) Result {
	sentence := DanglingSentence(text)
	if nudge, ok := DefiniteStallFor(text, opts.Metadata); ok {
		return Result{Stalled: true, By: ByLivelock, Sentence: sentence, Why: "livelock exit", Nudge: nudge}
	}
	if todos := OpenTodos(text); len(todos) > 0 {
		why := strconv.Itoa(len(todos)) + " open todo items"
		if len(todos) == 1 {
			why = "1 open todo item"
		}
		return Result{Stalled: true, By: ByTodo, Sentence: sentence, Why: why, Todos: todos, Nudge: TodoNudge(todos)}
	}
	return ClassifyProse(ctx, text, opts.Mode, opts.Model)
}

// ClassifyProse is the prose half of [IsStalled], steps 3 and 4: the lexical classifier in
// mode, then the model classifier m (nil is off), consulted only for a message the lexical
// classifier neither called a stall nor found positively ended, and that has a final sentence
// to ask about. The Result's Nudge is the one [IsStalled] gives; a caller that runs the
// livelock and todo checks itself (the supervisor, between its completion gates) calls this
// for the rest, so the two answer every message alike.
func ClassifyProse(ctx context.Context, text string, mode Mode, m *ModelClassifier) Result {
	v := ClassifyLexical(text, mode)
	if v.Stalled {
		nudge := danglingNudge(v.Sentence, mode)
		if v.Why == whyPermission {
			nudge = permissionNudge(v.Sentence)
		}
		return Result{Stalled: true, By: ByLexical, Sentence: v.Sentence, Why: v.Why, Nudge: nudge}
	}
	res := Result{By: ByNone, Sentence: v.Sentence, Why: v.Why}
	if m == nil || v.Decisive || v.Sentence == "" {
		return res
	}
	mv := m.Classify(ctx, text)
	if mv.Stalled {
		return Result{Stalled: true, By: ByModel, Sentence: v.Sentence, Why: mv.Why, Nudge: danglingNudge(v.Sentence, mode)}
	}
	res.Why = v.Why + "; " + mv.Why
	res.Reason = mv.Reason
	return res
}
