// Package toolcall recovers from the ways tool calling fails, so that a failed call does not
// throw away a good answer or end a run that could have gone on.
//
// Four failures are told apart by [ClassifyFailure], each with its own [Recovery]:
//
//   - [ToolUseFailed]: the provider rejected the model's call (Groq's tool_use_failed), often
//     with the model's complete answer kept in the error body. [Salvage] recovers that answer
//     when the rejected call was only the end-of-turn marker, or no call at all; otherwise the
//     caller fails over to another model.
//   - [ToolsUnsupported]: the model or server cannot take tools at all. The caller switches to
//     the JSON fallback transport: [FallbackPrompt] flattens the thread and describes the
//     tools' argument shapes ([CompactSchemas]); [ParseFallbackReply] reads the calls back out
//     of the plain-text reply.
//   - [SchemaValidation] and [JSONValidation]: the call was made but its arguments failed
//     validation. The caller feeds the error ([ErrorMessage]) back to the model.
//
// [LooksConfused] catches the quieter failure: a reply that talks about the tool contract
// (apologising for an "incomplete example call") instead of answering. It never throws, so a
// caller must ask.
//
// When one of these failures ends a run, [Failure.Reason] is the [termination.Reason] it ends
// with.
//
// The package is pure: no I/O, no globals that change, no clock. Every function is safe for
// concurrent use.
package toolcall
