#!/usr/bin/env bash
# install-browser.sh installs Debian's headless Chromium (and the fonts it renders text with)
# for the dashboard's browser test, when it is not already there. Idempotent.
set -euo pipefail
if [[ -x /usr/bin/chromium ]] && fc-list 2>/dev/null | grep -qi liberation; then
	echo "install-browser: chromium already installed" >&2
	exit 0
fi
if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null; then
	echo "install-browser: chromium and fonts-liberation are not installed, and installing them needs root and apt-get (as root: apt-get update && apt-get install -y chromium fonts-liberation)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >&2
/usr/bin/chromium --version >&2
