// Package e2e holds stopgate's end-to-end tests: the real agent harness binaries (Claude Code,
// Codex CLI and Gemini CLI, pinned and installed from the npm registry by
// scripts/install-harnesses.sh), driven offline against scripted model servers on loopback
// (packages fakeanthropic, fakeopenai and fakegemini), with the real stopgate binary built from
// ./cmd/stopgate as their stop hook (stopgate hook claude-code, codex and gemini-cli).
//
// The tests build stopgate with the go command, look for each harness under
// .cache/harnesses/node_modules/.bin in the repository root (or at the path in
// STOPGATE_CLAUDE, STOPGATE_CODEX or STOPGATE_GEMINI), and fail, saying how to install it, when
// it is missing. Each scenario runs the harness non-interactively in a temporary home and
// project directory, with the model scripted per request, and asserts on what the model server
// received (the nudges the hook's decisions became) and on the harness's final result.
//
//	scripts/install-harnesses.sh
//	go test ./e2e/
//
// The package has no non-test code; this file carries its documentation.
package e2e
