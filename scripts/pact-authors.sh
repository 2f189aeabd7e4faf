#!/usr/bin/env bash
# The PACT paper's figures as ngstats prints them against the authors' own
# code: scripts/pact_authors/compare.py runs the authors' functions
# (verbatim copies of their scripts, MichiganNLP/pact_culture_personalization
# at 6836f6f, CC0) on testdata/pact/awkward.jsonl, a run with every case that
# tells the definitions apart (distributions, invalid answers, a family
# lacking a role, uneven persona variants, blank human answers, a country of
# no region, and a persona-prompted run with personas missing a field, a
# persona no respondent shares and uneven rows per persona), and compares
# every figure with `ngstats --json` to 1e-9.
# Needs python3 with venv and PyPI (scripts/python/pact.txt); skips with one
# line when the venv cannot be made.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The copies are the authors' files byte for byte.
(cd scripts/pact_authors && sha256sum --quiet -c SHA256SUMS) || { echo "pact-authors: scripts/pact_authors/*.py differ from the authors' files"; exit 1; }
if ! venv=$(timeout 300 bash scripts/pyvenv.sh pact 2>"$tmp/venv.log"); then
  echo "pact-authors: skipped, no Python venv (scripts/pyvenv.sh pact: $(tail -1 "$tmp/venv.log"))"
  exit 0
fi
timeout 300 go build -o "$tmp/ngkit" ./cmd/ngkit
data=testdata/pact/awkward.jsonl
timeout 60 "$tmp/ngkit" ngstats "$data" --json > "$tmp/ngstats.json"
PYTHONWARNINGS=ignore timeout 120 "$venv/bin/python" scripts/pact_authors/compare.py "$data" "$tmp/ngstats.json"
