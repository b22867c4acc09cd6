// Package gate holds stopgate's completion gates: the checks that keep an agent from ending a
// run while work it started is still unresolved, and the per-run budget that bounds how often
// they may say so.
//
// An agent about to stop never sees a progress or exit notice that arrives after it stopped, so
// a run can claim "done" with a test run still in flight, a build that already failed unread, or
// a sub-agent whose result nobody collected. Two gates catch this:
//
//   - the sub-agent gate ([IsSubagentUnresolved], [SubagentGateMessage]):
//     a sub-agent still running, or finished or failed with a result nobody collected;
//   - the process gate ([IsUnresolved], [ProcessGateMessage]): a background
//     process started in this run that is still running with its output never read, or that
//     ended without a clean exit and was not read after it ended.
//
// [Check] runs both in the policy's order (sub-agents first, then processes), counts an
// injection ([Injections]) only for the gate that fired, and lets a gate whose budget is spent go silent: a
// wedged gate that never lets a run end is worse than a premature "done". When something is
// uncertain (a run start that is not known, a status the gate does not recognise) the gate does
// not block, because prodding an agent that correctly finished is the worse failure.
//
// The rules follow the process gate of KenKaiii/gg-framework (ggcoder), with its known defects
// fixed: a silent crash, a silent running process, a process the agent stopped itself, a long
// job that failed after minutes, and a stale log size are all handled; each field's absence
// means "unknown", never a value that happens to pass.
//
// The package is pure: no I/O, no globals that change, no clock (times are passed in).
package gate
