#!/usr/bin/env bash
# Interop check: convert the bundled release sample with ngcat to Parquet,
# Arrow IPC stream and Arrow IPC file and a Hugging Face folder (ngcat --hf),
# then read them back with DuckDB, nodejs-polars, hyparquet and apache-arrow
# (Node.js) and compare every column of every record, nulls included, with
# what ngcat wrote as JSONL (compare.mjs; check.mjs checks types, counts and
# samples). Then the other way round: a file written by DuckDB (its own
# pages and encodings, columns in another order, maps as Parquet MAPs) must
# read back as the same JSONL.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ngkit" ./cmd/ngkit
ngcat() { "$tmp/ngkit" ngcat "$@"; }
ngcat --from normgenesis testdata/normgenesis/*.json -o "$tmp/sample.jsonl"
ngcat "$tmp/sample.jsonl" -o "$tmp/sample.parquet"
ngcat "$tmp/sample.jsonl" -o "$tmp/sample.arrows"
ngcat "$tmp/sample.jsonl" -o "$tmp/sample.arrow"
# A Hugging Face folder, in several shards per split.
ngcat "$tmp/sample.jsonl" --split train=0.8,test=0.2 --shard-mb 0.1 --hf "$tmp/hf"
# The same dataset from three processes at once (three machines), merged,
# with the card of the whole written by ngstats from the files.
pids=()
for k in 0 1 2; do
  ngcat "$tmp/sample.jsonl" --split train=0.8,test=0.2 --shard "$k/3" --hf "$tmp/part-$k" --license cc-by-sa-4.0 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done  # each one's exit status, under set -e
mkdir -p "$tmp/merged/data" && cp "$tmp"/part-*/data/*.parquet "$tmp/merged/data/"
[ "$(ls "$tmp/merged/data" | tr '\n' ' ')" = "test-00000-of-00003.parquet test-00001-of-00003.parquet test-00002-of-00003.parquet train-00000-of-00003.parquet train-00001-of-00003.parquet train-00002-of-00003.parquet " ] \
  || { echo "--shard K/3 --hf: files $(ls "$tmp/merged/data")"; exit 1; }
"$tmp/ngkit" ngstats "$tmp"/merged/data/*.parquet --card --license cc-by-sa-4.0 > "$tmp/merged/README.md"
# Round trip through every format must give back the same JSONL.
for f in parquet arrows arrow; do
  ngcat "$tmp/sample.$f" > "$tmp/back.$f.jsonl"
  cmp "$tmp/sample.jsonl" "$tmp/back.$f.jsonl" || { echo "round trip through $f changed the records"; exit 1; }
done
python3 - "$tmp/sample.jsonl" > "$tmp/expect.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
samples = []
for r in recs[::7]:
    for i, t in enumerate(r.get("turns", [])[:3]):
        samples.append({"id": r["id"], "turn_index": i, "speaker": t["speaker"], "text": t["text"]})
print(json.dumps({"rows": len(recs), "turns": sum(len(r.get("turns", [])) for r in recs), "samples": samples}))
PY
cd scripts/interop
{ [ -d node_modules/@duckdb/node-api ] && [ -d node_modules/apache-arrow ] && [ -d node_modules/nodejs-polars-linux-x64-gnu ] && [ -d node_modules/hyparquet-compressors ]; } || npm ci --no-audit --no-fund
node check.mjs --parquet "$tmp/sample.parquet" --arrow "$tmp/sample.arrows" --arrow-file "$tmp/sample.arrow" --hf "$tmp/hf" --expect "$tmp/expect.json"
node compare.mjs --jsonl "$tmp/sample.jsonl" "$tmp/sample.parquet" "$tmp/sample.arrows" "$tmp/sample.arrow" "$tmp/hf/data/*.parquet" "$tmp/merged/data/*.parquet"
node check.mjs --hf "$tmp/merged" --expect "$tmp/expect.json"
node duckdb_rewrite.mjs "$tmp/sample.parquet" "$tmp/duckdb.parquet"
cd ../..
ngcat "$tmp/duckdb.parquet" > "$tmp/back.duckdb.jsonl"
cmp "$tmp/sample.jsonl" "$tmp/back.duckdb.jsonl" || { echo "a DuckDB-written Parquet file (MAP columns, reversed columns) read back differently"; exit 1; }
# And synthetic records with every field set (maps, nested labels), enough
# rows for several Arrow batches.
sh scripts/interop/run.sh
