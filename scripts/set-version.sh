#!/bin/sh
# set-version.sh VERSION: makes VERSION the release everywhere it is written down: the VERSION
# file, the plugin and extension manifests, the hook launcher the plugins ship, and the README's
# install lines. `go test .` (TestManifestsCarryVersion) checks that they agree.
set -eu
new=${1:?usage: scripts/set-version.sh VERSION (e.g. 0.2.0)}
new=${new#v}
cd "$(dirname "$0")/.."
old=$(cat VERSION)
printf '%s\n' "$new" > VERSION
for f in plugins/claude-code/.claude-plugin/plugin.json plugins/codex/.codex-plugin/plugin.json \
	plugins/copilot/plugin.json plugins/opencode/package.json gemini-extension.json \
	.claude-plugin/marketplace.json .github/plugin/marketplace.json; do
	sed -i.bak "s/\"version\": \"$old\"/\"version\": \"$new\"/g" "$f" && rm -f "$f.bak"
done
sed -i.bak "s/^version=$old\$/version=$new/" plugins/stopgate-hook && rm -f plugins/stopgate-hook.bak
for f in plugins/*/bin/stopgate-hook; do cp -p plugins/stopgate-hook "$f"; done
sed -i.bak "s/@v$old/@v$new/g; s/stopgate_${old}_/stopgate_${new}_/g; s/tag\/v$old/tag\/v$new/g" README.md && rm -f README.md.bak
echo "version $old -> $new"
