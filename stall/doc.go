// Package stall decides whether an agent's final message is a stall: a turn that ended on a
// promised but untaken next action ("Let me look at how X renders." and nothing after it)
// rather than on finished work, an answer, or a question for the user.
//
// The checks run cheapest and surest first, and every one fails closed, because prodding an
// agent that correctly finished is the worse failure:
//
//  1. [DefiniteStallFor]: a livelock exit recorded in the message metadata is a stall that
//     needs no classifier.
//  2. [OpenTodos]: the message's own <todo> block still has an open item.
//  3. [ClassifyLexical]: the built-in classifier reads the final sentence for first-person
//     intent ("Now I'll run the tests."), a colon that introduces nothing, or, in
//     [Autonomous] mode, a permission-ask that nobody will answer.
//  4. [ModelClassifier]: an optional cheap model reads the tail of the message and only a
//     clear YES counts.
//
// [IsStalled] runs them in that order, and owns the nudge texts. The supervisor runs the same
// policy split around its completion gates: [DefiniteStallFor] first, [OpenTodos] and
// [TodoNudge] after the pending-wake gate, then [ClassifyProse] (steps 3 and 4), so that
// `stopgate stall` and `stopgate decide` answer every message alike. [PendingWakeReason] is the gate a caller applies
// before any of them: a thread parked on a running job or an armed one-shot schedule is not
// stalled, however its prose reads.
//
// The text helpers ([Sentences], [LastSentences], [DanglingSentence]) split what agents
// actually write: fenced code, inline code, file names and versions, URLs, abbreviations,
// decimals, ellipses, markdown lists and headings, emoji, and CJK punctuation.
//
// The package is pure: no I/O, no globals that change, no clock (time is passed in). The only
// outside call is the model classifier's, through the [llm.Client] its caller supplies.
package stall
