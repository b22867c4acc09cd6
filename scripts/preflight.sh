#!/usr/bin/env bash
# preflight.sh checks, before `make test` installs or runs anything, that everything the tests
# need is there or can be installed here, and otherwise says what is missing and stops: Go; the
# agent harness CLIs (npm, into .cache/harnesses); Debian's headless Chromium and its fonts and
# PostgreSQL's server (apt-get, which needs root). It installs nothing itself.
#
# Usage: scripts/preflight.sh
# Env:   STOPGATE_HARNESS_DIR  where the harness CLIs are (default: <repo>/.cache/harnesses)
#        NPM                   the npm command (default: npm)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${STOPGATE_HARNESS_DIR:-$root/.cache/harnesses}"
npm="${NPM:-npm}"
missing=()

command -v "${GO:-go}" >/dev/null || missing+=("Go 1.26 or newer (https://go.dev/dl/), on PATH")

# The harness CLIs: already installed, or node and npm to install them.
need_npm=0
for cli in claude gemini codex copilot opencode; do
	[[ -x "$prefix/node_modules/.bin/$cli" ]] || need_npm=1
done
if ((need_npm)); then
	command -v node >/dev/null || missing+=("node, to install the harness CLIs the end-to-end tests drive (apt-get install nodejs)")
	command -v "$npm" >/dev/null || missing+=("npm, to install the harness CLIs from the npm registry (apt-get install npm)")
fi

# What only apt-get installs: it needs root.
apt=()
if [[ ! -x /usr/bin/chromium ]] || ! fc-list 2>/dev/null | grep -qi liberation; then
	apt+=(chromium fonts-liberation)
fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
	apt+=(postgresql)
fi
if ((${#apt[@]} > 0)); then
	if [[ "$(id -u)" -ne 0 ]]; then
		missing+=("Debian packages ${apt[*]}: not installed, and installing them needs root (as root: apt-get update && apt-get install -y ${apt[*]})")
	elif ! command -v apt-get >/dev/null; then
		missing+=("packages ${apt[*]} (Debian's names): not installed, and there is no apt-get here to install them")
	fi
fi

if ((${#missing[@]} > 0)); then
	echo "make test cannot run here; it needs:" >&2
	for m in "${missing[@]}"; do
		echo "  - $m" >&2
	done
	exit 1
fi
