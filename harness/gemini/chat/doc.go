// Package chat reads Gemini CLI chat session files (~/.gemini/tmp/<project>/chats/…, JSONL
// and the legacy JSON object) into a GeminiSession: its messages after every update and
// rewind, with the todos and background shells they imply in the shared model's Todo and
// Shell (harness/internal/session).
//
// The reader never fails on content: a malformed record is counted and described; only an
// I/O error is an error.
package chat
