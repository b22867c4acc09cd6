package main

import (
	"github.com/stopgate/stopgate/audit"
	"github.com/stopgate/stopgate/harness"
	"github.com/stopgate/stopgate/harness/claudecode"
	"github.com/stopgate/stopgate/harness/codex"
	"github.com/stopgate/stopgate/harness/copilot"
	"github.com/stopgate/stopgate/harness/gemini"
	"github.com/stopgate/stopgate/harness/opencode"
	"github.com/stopgate/stopgate/harness/sweagent"
)

// harnesses is the registry: every harness stopgate knows, in the order audit asks their
// readers (trajectories first, by file name; the others by content, and no file is in two of
// them). style is how Claude Code's hook writes a continuation. Adding a harness is adding
// its package under harness/ and one line here.
func harnesses(style claudecode.Style) []harness.Harness {
	return []harness.Harness{
		sweagent.Harness(),
		claudecode.Harness(style),
		codex.Harness(),
		gemini.Harness(),
		copilot.Harness(),
		opencode.Harness(),
	}
}

// hookOf returns the live hook of the harness named name, with Claude Code's answers in
// style; nil when there is none.
func hookOf(name string, style claudecode.Style) harness.Hook {
	for _, h := range harnesses(style) {
		if h.Name == name {
			return h.Hook
		}
	}
	return nil
}

// auditReaders returns the session readers of every harness, in registry order.
func auditReaders() []audit.Reader {
	var out []audit.Reader
	for _, h := range harnesses(claudecode.StyleBlock) {
		out = append(out, h.Readers...)
	}
	return out
}
