// Package loopguard detects an agent run that has stopped making progress, from the recent
// steps of the run alone.
//
// A step is one assistant turn: the tool it called with its arguments and what came back, or
// the text it replied with. [Config.Check] reads the trailing steps and looks for five
// no-progress patterns and one budget:
//
//   - [RepeatedCall]: the same call (tool and arguments) returning the same result;
//   - [RepeatedError]: the same call failing;
//   - [Alternation]: two different calls taking turns (A B A B …) with unchanged results;
//   - [RepeatedMessage]: the agent sending the same reply again, with no tool call;
//   - [EmptyReplies]: replies with neither text nor a tool call;
//   - [ConsecutiveErrors]: the tool-error budget, failed calls in a row of any tool.
//
// Arguments are compared in canonical form ([CanonicalArgs]), so JSON that differs only in key
// order or white space is the same call. Results are part of the comparison, so polling a build
// whose output moves, or re-reading a file that changed in between, is progress and is left
// alone; a success after failures ends the failure streak.
//
// Each pattern has two thresholds. At the lower one the guard warns: [Warn] carries a message a
// harness shows the model once, naming the pattern, the call and the count, and sets no
// termination reason. At the higher one it halts: [Halt] carries a [termination.Reason]
// (tool_loop_guard for a loop, tool_error_budget for the error budget), and a loop halt marks
// the run livelocked through [Verdict.Metadata], the signal the stall package reads to nudge a
// livelocked thread at once.
//
// The thresholds default to values taken from the harnesses that have shipped the same checks
// (OpenHands' stuck detector, Gemini CLI's loop detection, Cline, Roo Code, the origin's
// tool-error budget); each [Config] field says which.
//
// The package is pure: no I/O, no globals that change, no clock.
package loopguard
