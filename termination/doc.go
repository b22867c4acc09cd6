// Package termination answers one question as a typed value: why did this run end?
//
// A run stops for many unrelated causes: a rate limit, a provider fault, a full context window,
// a content-policy refusal, a tool-error budget, the user pressing Esc. Each arrives as prose in
// a different shape. This package classifies them into one closed [Category] vocabulary, and
// builds a [Reason] that also says where the classification was made ([Site]), which feeder made
// it ([Source]), and what a retry would need ([Posture], [Remedy]).
//
// Two feeders converge here. The exception feeder, [Classify], reads a Go error: a reason already
// committed on the error first, then typed cases, then the HTTP status, then prose. The metadata
// feeder reads a provider's stop or finish token off a response. They are not interchangeable:
// a thrown error never carries a finish reason, and a finish reason never arrives as an error.
//
// Retryability is two facts, never one boolean. A context overflow is not worth sending again as
// it is, but is worth sending again once the context is reduced; [Posture] carries both facts and
// names the remedy. The posture is a property of the category, looked up in one table, so no
// site can invent its own.
//
// The package is pure: no I/O, no globals that change, no clock.
package termination
