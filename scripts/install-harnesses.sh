#!/usr/bin/env bash
# install-harnesses.sh installs the agent harness CLIs that the end-to-end tests (e2e/) drive,
# pinned to exact versions, from the npm registry into .cache/harnesses under the repository
# root (gitignored). It is idempotent: a harness already installed at its pinned version is
# left alone, so a second run takes well under a second. It prints the directory that holds
# the installed commands (node_modules/.bin), which the e2e tests look in by default.
#
# Usage: scripts/install-harnesses.sh
# Env:   STOPGATE_HARNESS_DIR  install prefix (default: <repo>/.cache/harnesses)
#        NPM                   the npm command (default: npm)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${STOPGATE_HARNESS_DIR:-$root/.cache/harnesses}"
npm="${NPM:-npm}"

# install PACKAGE VERSION installs PACKAGE@VERSION under $prefix unless that exact version is
# already there.
install() {
	local pkg="$1" want="$2" have=""
	local manifest="$prefix/node_modules/$pkg/package.json"
	if [[ -f "$manifest" ]]; then
		have="$(node -p 'require(process.argv[1]).version' "$manifest" 2>/dev/null || true)"
	fi
	if [[ "$have" == "$want" ]]; then
		echo "install-harnesses: $pkg@$want already installed" >&2
		return
	fi
	echo "install-harnesses: installing $pkg@$want" >&2
	"$npm" install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error "$pkg@$want" >&2
}

command -v node >/dev/null || { echo "install-harnesses: node is required (apt-get install nodejs npm)" >&2; exit 1; }
command -v "$npm" >/dev/null || { echo "install-harnesses: npm is required (apt-get install npm)" >&2; exit 1; }
mkdir -p "$prefix"

# One line per harness, pinned: the e2e tests assert on the behaviour of these exact versions.
install @anthropic-ai/claude-code 2.1.332
install @google/gemini-cli 0.61.0
install @openai/codex 0.169.0
install @github/copilot 1.0.102
install opencode-ai 1.18.33

"$prefix/node_modules/.bin/claude" --version >&2
echo "$prefix/node_modules/.bin"
