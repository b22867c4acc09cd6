// Package e2e holds stopgate's end-to-end tests: the real agent harness binaries (Claude Code,
// pinned and installed from the npm registry by scripts/install-harnesses.sh), driven offline
// against a scripted model server on loopback (package fakeanthropic), with the real stopgate
// binary built from ./cmd/stopgate as their stop hook.
//
// The tests build stopgate with the go command, look for the harness at
// .cache/harnesses/node_modules/.bin/claude under the repository root (or at the path in
// STOPGATE_CLAUDE), and fail, saying how to install it, when it is missing. Each scenario runs
// `claude -p` in a temporary home and project directory, with the model scripted per request,
// and asserts on what the model server received (the nudges the hook's decisions became) and on
// Claude Code's final JSON result.
//
//	scripts/install-harnesses.sh
//	go test ./e2e/
//
// The package has no non-test code; this file carries its documentation.
package e2e
