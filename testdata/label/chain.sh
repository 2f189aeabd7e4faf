#!/usr/bin/env bash
# Shell test of nglabel in a pipeline, on the fake labelling model:
#   release sample -> (ngv2r-like dialogues) -> nglabel -> ngstats
# and the labelled dialogues -> ngcat --to prosocial. Needs the ngkit
# programs on PATH (scripts/install.sh) and jq. Exit 0 when it all holds.
#   bash testdata/label/chain.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$HOME/.local/bin:$PATH"
tmp=$(mktemp -d)
bin="$tmp/fakelabeller"
go build -o "$bin" ./filters/label/labeltest/fakelabeller
"$bin" --url-file "$tmp/url" --fault-rate 0.1 >/dev/null &
fake=$!
trap 'kill $fake 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
export NG_BASE_URL=$(cat "$tmp/url") NG_MODEL=fake-labeller

ngcat --from normgenesis testdata/normgenesis/*.json \
  | nglabel --tasks all --samples 3 --no-cache --backoff 5ms --timeout 500ms --errors "$tmp/errors.jsonl" -q \
  | tee "$tmp/labelled.jsonl" \
  | ngstats --json -q > "$tmp/report.json"

records=$(jq '.records' "$tmp/report.json")
failed=$( [ -f "$tmp/errors.jsonl" ] && wc -l < "$tmp/errors.jsonl" || echo 0)
[ "$((records + failed))" -eq 135 ] || { echo "chain: $records records + $failed failed != 135"; exit 1; }
jq -e '.labels.dist | map(.task) | unique == ["emotion","intent","norm","safety","stage"]' "$tmp/report.json" >/dev/null
jq -e '.labels.agreement | length == 5 and all(.samples == 3)' "$tmp/report.json" >/dev/null
jq -e '.labels.intent_by_stage | length == 5' "$tmp/report.json" >/dev/null
jq -e '.labels.quality[0].n > 0' "$tmp/report.json" >/dev/null
rows=$(ngcat --to prosocial "$tmp/labelled.jsonl" | wc -l)
[ "$rows" -gt "$records" ] || { echo "chain: $rows ProsocialDialog rows"; exit 1; }
echo "chain ok: $records records labelled ($failed failed), $rows ProsocialDialog rows"
