#!/bin/sh
# Writes a fixture of synthetic records with every field set (labels,
# distributions, provenance) with ngkit's Parquet and Arrow writers and a
# Hugging Face folder of them, checks them with DuckDB and Apache Arrow JS
# (check.mjs), then compares every column, nulls included, as DuckDB,
# nodejs-polars, hyparquet and Apache Arrow JS read them, with the JSONL of
# the same records (compare.mjs). Run from anywhere; needs Go and Node.js
# 20+. Extra arguments go to check.mjs (e.g. -v).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/ngkit-interop.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
(cd "$root" && go run ./scripts/interop/mkfixture -dir "$dir" && go run ./cmd/ngcat "$dir/records.jsonl" --shard-mb 1 --hf "$dir/hf")
cd "$here"
if [ ! -d node_modules/@duckdb/node-api ] || [ ! -d node_modules/apache-arrow ] || [ ! -d node_modules/nodejs-polars-linux-x64-gnu ] || [ ! -d node_modules/hyparquet ]; then
	npm ci --no-audit --no-fund
fi
node check.mjs --parquet "$dir/records.parquet" --arrow "$dir/records.arrows" \
	--arrow-file "$dir/records.arrow" --expect "$dir/expect.json" "$@"
node compare.mjs --jsonl "$dir/records.jsonl" "$dir/records.parquet" "$dir/records.arrows" \
	"$dir/records.arrow" "$dir/hf/data/*.parquet"
