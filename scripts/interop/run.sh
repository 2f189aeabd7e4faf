#!/bin/sh
# Writes a fixture with ngkit's Parquet and Arrow writers and checks it with
# DuckDB and Apache Arrow JS (check.mjs). Run from anywhere; needs Go and
# Node.js 20+. Extra arguments go to check.mjs (e.g. -v).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/ngkit-interop.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
(cd "$root" && go run ./scripts/interop/mkfixture -dir "$dir")
cd "$here"
if [ ! -d node_modules/@duckdb/node-api ] || [ ! -d node_modules/apache-arrow ]; then
	npm ci --no-audit --no-fund
fi
node check.mjs --parquet "$dir/records.parquet" --arrow "$dir/records.arrows" \
	--arrow-file "$dir/records.arrow" --expect "$dir/expect.json" "$@"
