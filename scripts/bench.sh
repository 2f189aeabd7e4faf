#!/usr/bin/env bash
# Benchmarks on the NormGenesis release (default ../shared/data/normgenesis,
# or NG_RELEASE_DIR):
#  1. ngcat --from normgenesis of the release to Parquet vs DuckDB converting
#     the same records from flat JSONL to zstd Parquet (whole processes, same
#     machine, same run; median of RUNS);
# 1b. ngstats' full report on the release vs DuckDB answering the counts
#     part alone;
#  2. peak RSS of converting a corpus 10x the release (and 1x, 3x: flat?);
#  3. go test -bench of pkg/lang (turns/s), pkg/dialogue and pkg/recio;
#  4. install footprint.
# Needs Node.js and scripts/interop/node_modules (npm ci there) for DuckDB.
# `bash scripts/bench.sh parquet` runs only 1 and 2 (the Parquet figures);
# `bash scripts/bench.sh ngstats` only 1c (ngstats' CPU budget) and 6 (CPU
# and peak RSS at 1x and 8x), a few minutes.
# Budgets: `budget NAME MS BUDGET` checks a median CPU time against its
# budget; the run fails at the end when one is exceeded by more than 20%
# (NGSTATS_CPU_BUDGET, in ms, overrides ngstats' 1500).
# Wall times on a shared machine swing with its load, which is printed with
# them; CPU times (user + sys) swing less.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
release=${NG_RELEASE_DIR:-../shared/data/normgenesis}
runs=${RUNS:-7}
only=${1:-all}
out=${BENCH_OUT:-bench-out}
mkdir -p "$out"
go build -trimpath -ldflags='-s -w' -o "$out/ngkit" ./cmd/ngkit
ng="$out/ngkit"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# wall time of a command in ms
wall() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
# CPU time (user + sys) in ms of a command
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%d\n", ($1 + $2) * 1000}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# peak RSS in MiB of a command
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'; }
# "CPU-ms peak-RSS-MiB" of a command, in one run
cpurss() { /usr/bin/time -f '%U %S %M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%d %.1f\n", ($1 + $2) * 1000, $3/1024}'; }
over=()
budget() { # NAME MEASURED-MS BUDGET-MS
  awk -v n="$1" -v m="$2" -v b="$3" 'BEGIN {printf "budget %s: CPU %d ms of %d ms (%.2fx; fails above 1.20x)\n", n, m, b, m/b}'
  if [ "$2" -gt $(( $3 * 12 / 10 )) ]; then over+=("$1"); fi
}
finish() {
  if [ ${#over[@]} -gt 0 ]; then echo "FAIL: CPU budget exceeded by more than 20%: ${over[*]}"; exit 1; fi
}

if [ "$only" = all ] || [ "$only" = ngstats ]; then
echo "== 1c. ngstats' full report of the release: CPU budget ($runs runs, median)"
# Every turn's language, corpus-wide near-duplicates on; on the release
# JSONL and Parquet. The goal (issue 30): 1.0 s wall, 1.5 s CPU, quiet machine.
"$ng" ngcat --from normgenesis "$release"/*.json -o "$out/release.jsonl"
"$ng" ngcat --from normgenesis "$release"/*.json -o "$out/release.parquet"
for f in release.jsonl release.parquet; do
  c=$(for i in $(seq "$runs"); do cpu "$ng" ngstats "$out/$f"; done | median)
  w=$(for i in $(seq "$runs"); do wall "$ng" ngstats "$out/$f"; done | median)
  echo "ngstats $f: CPU $c ms, wall $w ms (load average $(load))"
  budget "ngstats $f" "$c" "${NGSTATS_CPU_BUDGET:-1500}"
done
fi

if [ "$only" = all ] || [ "$only" = ngstats ]; then
echo "== 6. CPU (ms) and peak RSS (MiB) at 1x and 8x the release (8x: copies with new ids)"
for n in 1 8; do
  for k in $(seq "$n"); do sed "s/^{\"id\":\"/{\"id\":\"c$k-/" "$out/release.jsonl"; done > "$out/scale.jsonl"
  echo "${n}x ngstats:              $(cpurss "$ng" ngstats "$out/scale.jsonl")"
  echo "${n}x ngcat --dedup near:   $(cpurss "$ng" ngcat --dedup near "$out/scale.jsonl" -o "$out/scale-dd.jsonl")"
  echo "${n}x jsonl -> parquet:     $(cpurss "$ng" ngcat "$out/scale.jsonl" -o "$out/scale.parquet")"
done
rm -f "$out/scale.jsonl" "$out/scale-dd.jsonl" "$out/scale.parquet"
echo "(load average $(load))"
fi
[ "$only" = ngstats ] && { finish; exit 0; }

echo "== 1. import of the release to Parquet ($runs runs, median wall ms)"
node_modules=scripts/interop/node_modules
node scripts/interop/flatten.mjs "$release"/*.json > "$out/flat.jsonl"
ng_ms=$(for i in $(seq "$runs"); do wall "$ng" ngcat --from normgenesis "$release"/*.json -o "$out/ng.parquet"; done | median)
ng_cpu=$(for i in $(seq "$runs"); do cpu "$ng" ngcat --from normgenesis "$release"/*.json -o "$out/ng.parquet"; done | median)
echo "ngcat --from normgenesis -> parquet: $ng_ms ms, CPU $ng_cpu ms ($(stat -c %s "$out/ng.parquet") bytes; load average $(load))"
if [ -d "$node_modules/@duckdb" ]; then
  dd_ms=$(for i in $(seq "$runs"); do rm -f "$out/dd.parquet"; wall node scripts/interop/duckdb_convert.mjs "$out/flat.jsonl" "$out/dd.parquet"; done | median)
  node_ms=$(for i in $(seq "$runs"); do wall node scripts/interop/duckdb_load.mjs; done | median)
  dd_cpu=$(for i in $(seq "$runs"); do rm -f "$out/dd.parquet"; cpu node scripts/interop/duckdb_convert.mjs "$out/flat.jsonl" "$out/dd.parquet"; done | median)
  node scripts/interop/duckdb_convert.mjs "$out/flat.jsonl" "$out/dd.parquet"
  echo "duckdb (node) flat jsonl -> zstd parquet: $dd_ms ms whole process, of which node start + duckdb load $node_ms ms, CPU $dd_cpu ms ($(stat -c %s "$out/dd.parquet") bytes; load average $(load))"
  awk -v a="$ng_ms" -v b="$dd_ms" -v n="$node_ms" 'BEGIN {printf "ratio ngcat/duckdb: %.2f (whole process); %.2f against duckdb without node start-up\n", a/b, a/(b-n)}'
  awk -v a="$ng_cpu" -v b="$dd_cpu" 'BEGIN {printf "ratio of CPU time ngcat/duckdb: %.2f\n", a/b}'
  # Size: the same records (our JSONL, every field) written by DuckDB with zstd.
  "$ng" ngcat --from normgenesis "$release"/*.json -o "$out/ours.jsonl"
  node scripts/interop/duckdb_convert.mjs "$out/ours.jsonl" "$out/dd-ours.parquet" 2>/dev/null
  awk -v a="$(stat -c %s "$out/ng.parquet")" -v b="$(stat -c %s "$out/dd-ours.parquet")" \
    'BEGIN {printf "parquet size, the same records: ngcat %d bytes, duckdb (our jsonl, zstd) %d bytes: ratio %.3f (goal <= 1)\n", a, b, a/b}'
  node scripts/interop/colsizes.mjs -n 8 "$out/ng.parquet" "$out/dd-ours.parquet"
else
  echo "(no DuckDB: run npm ci in scripts/interop)"
fi

if [ "$only" = all ]; then
echo "== 1b. ngstats full report on the release ($runs runs, median wall ms)"
"$ng" ngcat --from normgenesis "$release"/*.json -o "$out/release.parquet"
st_ms=$(for i in $(seq "$runs"); do wall "$ng" ngstats "$out/release.parquet"; done | median)
pipe_ms=$(for i in $(seq "$runs"); do wall bash -c "'$ng' ngcat --from normgenesis '$release'/*.json | '$ng' ngstats"; done | median)
echo "ngstats release.parquet (every turn's language checked): $st_ms ms, peak RSS $(rss "$ng" ngstats "$out/release.parquet") MiB"
echo "ngcat --from normgenesis release | ngstats: $pipe_ms ms"
if [ -d "$node_modules/@duckdb" ]; then
  dc_ms=$(for i in $(seq "$runs"); do wall node scripts/interop/duckdb_counts.mjs "$out/flat.jsonl"; done | median)
  echo "duckdb (node) counts only (culture, type, count, avg len GROUP BY ALL) on flat jsonl: $dc_ms ms whole process"
  awk -v a="$st_ms" -v b="$dc_ms" 'BEGIN {printf "ratio ngstats full report / duckdb counts only: %.2f\n", a/b}'
fi

fi

echo "== 2. peak RSS converting a corpus Nx the release (JSONL -> Parquet)"
"$ng" ngcat --from normgenesis "$release"/*.json -o "$out/x1.jsonl"
# The floor: one record, so nearly all of it is the binary's pages and the
# runtime, not data.
head -1 "$out/x1.jsonl" > "$out/one.jsonl"
echo "1 record: $(rss "$ng" ngcat "$out/one.jsonl" -o "$out/one.parquet") MiB peak RSS (the floor)"
for n in 1 3 10; do
  for i in $(seq "$n"); do cat "$out/x1.jsonl"; done > "$out/xn.jsonl"
  echo "${n}x ($(stat -c %s "$out/xn.jsonl") bytes): $(rss "$ng" ngcat "$out/xn.jsonl" -o "$out/xn.parquet") MiB peak RSS (jsonl -> parquet)," \
    "$(rss "$ng" ngcat "$out/xn.parquet" -o "$out/xn.arrows") MiB (parquet -> arrow)"
done
rm -f "$out/xn.jsonl" "$out/xn.parquet" "$out/xn.arrows"
echo "(load average $(load))"
[ "$only" = all ] || { finish; exit 0; }

echo "== 3. go benchmarks"
NG_RELEASE_DIR="$(cd "$release" && pwd)" go test -run='^$' -bench=. -benchmem -cpu 1,2 ./pkg/lang/ ./pkg/dialogue/ ./pkg/recio/ | grep -E '^(Benchmark|ok)'

echo "== 4. install footprint"
tmp=$(mktemp -d); PREFIX="$tmp" bash scripts/install.sh >/dev/null; du -shL "$tmp/bin/ngkit"; du -sh "$tmp/bin"; rm -rf "$tmp"

echo "== 5. LLM runtime (pkg/llm) against the fake server"
# Throughput: the test stage through the shared runner, fake server in
# another process with 100 ms latency, --concurrency 64 (ideal 640 calls/s);
# cpu-us/call is this process's CPU (runner, client, SDK, validation, cache,
# JSONL encoding, GC). With the reply cache in a temporary directory on
# disk, then without it. Memory: a million records through the client
# (in-memory endpoint, 1 ms latency): peak heap and RSS stay flat.
go test -run='^$' -bench='^BenchmarkThroughput$' -benchtime=5000x ./pkg/llm/ | grep -E '^Benchmark' | sed 's/^/cache on disk: /'
NG_BENCH_CACHE=off go test -run='^$' -bench='^BenchmarkThroughput$' -benchtime=5000x ./pkg/llm/ | grep -E '^Benchmark' | sed 's/^/no cache:      /'
go test -run='^$' -bench='^BenchmarkMillionRecords$' -benchtime=1x -timeout=30m ./pkg/llm/ | grep -E '^Benchmark'
finish
