#!/usr/bin/env bash
# Argilla's own SDK on ngkit's review export (scripts/argilla/check.py):
# ngcat --to argilla writes records for three labelled release dialogues,
# the SDK (argilla, pinned in scripts/python/argilla.txt) builds the
# dataset settings and loads the records, adds reviewers' responses in
# every status and writes them the three ways it exports; ngcat --from
# argilla reads each back and the reviews and ngstats' figures are checked.
# No Argilla server (it needs Elasticsearch or OpenSearch): nothing is
# pushed. Skips when python3 with venv is missing or PyPI cannot be reached.
# NGKIT_ARGILLA_FIXTURES=DIR also copies the SDK's files there (how
# testdata/review/argilla_sdk_* were made).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH" HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_DATASETS_DISABLE_PROGRESS_BARS=1
command -v python3 >/dev/null && python3 -c 'import venv' 2>/dev/null ||
  { echo "argilla.sh: skipped: no python3 with venv"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! venv=$(timeout 900 bash scripts/pyvenv.sh argilla 2>"$tmp/pip.err"); then
  [ "${NGKIT_REQUIRE_PYPI:-}" = 1 ] && { cat "$tmp/pip.err"; echo "argilla.sh: the argilla venv could not be made"; exit 1; }
  echo "argilla.sh: skipped: the argilla venv could not be made (PyPI?): $(tail -1 "$tmp/pip.err")"
  exit 0
fi
go build -o "$tmp/ngkit" ./cmd/ngkit
"$tmp/ngkit" ngcat testdata/review/labelled.jsonl --to argilla --review-tasks norm,intent -o "$tmp/argilla.json"
mkdir "$tmp/out"
fixtures=()
[ -n "${NGKIT_ARGILLA_FIXTURES:-}" ] && fixtures=(--fixtures "$NGKIT_ARGILLA_FIXTURES")
timeout 300 "$venv/bin/python" scripts/argilla/check.py --ngkit "$tmp/ngkit" --export "$tmp/argilla.json" --out "$tmp/out" "${fixtures[@]}"
