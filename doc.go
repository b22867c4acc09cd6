// Package stopgate decides, at the moment an LLM agent is about to stop, whether it may, and
// when it may not, what to tell it. When the run does end, it says why, as one typed value.
//
// A harness describes the busy→idle edge as a [Turn]: the final message, the recent tool
// steps, todos, background processes, sub-agents, jobs and schedules, the error the run ended
// on, and the nudges already given. [Supervisor.Decide] runs stopgate's checks over it in one
// fixed order, cheapest and surest first, and returns a [Decision]: stop, continue with a
// message for the agent, or retry after a remedy, together with a trail of every check that
// ran and why it answered as it did.
//
// # The order
//
//  1. The run ended on an error: classify it; retry only where the posture allows and the
//     budget remains, else stop with the reason.
//  2. The stop metadata says truncated or refused: record it; a truncated answer may be asked
//     to continue.
//  3. A definite stall (a livelock) needs no classifier: continue with the livelock message.
//  4. Completion gates: unresolved sub-agents, then unresolved background processes.
//  5. Pending wake: a running job or a future one-shot schedule, with a host that wakes the
//     agent, means the run is parked, not stalled. This silences every prose-based check below.
//  6. Open todo items.
//  7. The final message trails off on a promise: the lexical classifier, then the model
//     classifier where one is configured.
//  8. Otherwise the run ends, completed.
//
// Every continuation costs budget, per check per run and in a row. Prodding an agent that
// correctly finished is the worse failure, so every uncertain branch ends in stop, and an
// absent field means unknown, never empty.
//
// The subpackages are usable on their own: termination (why a run ended), stall, gate,
// loopguard, toolcall, model, process, transcript.
package stopgate
