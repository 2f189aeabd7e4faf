#!/usr/bin/env bash
# The Label Studio review loop in the published editor: ngcat --to
# labelstudio writes tasks and the labeling config for labelled dialogues
# (testdata/review/labelled.jsonl: release dialogues with made-up model
# labels), the editor (@heartexlabs/label-studio in headless Chromium,
# scripts/labelstudio/check.mjs) loads them, must place every prediction
# on its turn, and serializes a reviewer's annotation (one region
# relabelled, one drawn beside a predicted one, a verdict, a comment); ngcat --from labelstudio reads the
# export back and ngstats' figures are checked against the records
# (verify.mjs). Needs Chromium (CHROMIUM, default /usr/bin/chromium) and
# npm ci in scripts/labelstudio (done here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  [ "${NGKIT_REQUIRE_CHROMIUM:-}" = 1 ] && { echo "labelstudio.sh: no Chromium at $chromium (NGKIT_REQUIRE_CHROMIUM=1)"; exit 1; }
  echo "labelstudio.sh: skipped: no Chromium at $chromium (apt-get install chromium, or set CHROMIUM)"
  exit 0
fi
go build -o "$tmp/ngkit" ./cmd/ngkit
"$tmp/ngkit" ngcat testdata/review/labelled.jsonl --to labelstudio --review-tasks norm,intent \
  --review-config "$tmp/config.xml" -o "$tmp/tasks.json"
[ -d scripts/labelstudio/node_modules/@heartexlabs/label-studio ] && [ -d scripts/labelstudio/node_modules/playwright-core ] ||
  (cd scripts/labelstudio && npm ci --no-audit --no-fund)
node scripts/labelstudio/check.mjs --tasks "$tmp/tasks.json" --config "$tmp/config.xml" --export "$tmp/export.json" --expect "$tmp/expect.json"
"$tmp/ngkit" ngcat --from labelstudio "$tmp/export.json" -o "$tmp/reviewed.jsonl"
"$tmp/ngkit" ngstats "$tmp/reviewed.jsonl" --json > "$tmp/report.json"
node scripts/labelstudio/verify.mjs --reviewed "$tmp/reviewed.jsonl" --expect "$tmp/expect.json" --report "$tmp/report.json"
