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
#  4. install footprint (the size budget is checked in every mode);
#  5. the LLM runtime against the fake server;
#  6. CPU and peak RSS at 1x and 8x the release: ngstats, ngcat --dedup
#     near, JSONL -> Parquet, and a fake-server pipeline (ngseed | ngv2r);
#  7. the share of prompt tokens the providers' cache would serve, and each
#     program's --estimate against its run (fake server);
#  8. the peers a user would pick instead, on the same work in the same run
#     (scripts/bench-peers.sh): the LLM runtime against curator,
#     distilabel, Data Designer and a plain AsyncOpenAI loop; --dedup near
#     against datatrove; JSONL -> Parquet against pyarrow and DuckDB.
# A full run (no argument) writes its figures to docs/bench.md (generated
# whole: machine, load, date, each figure with its peer and the ratio) and
# README's speed table from it (scripts/speedtable); a
# partial run writes them to $BENCH_OUT/bench.md.
# Needs Node.js and scripts/interop/node_modules (npm ci there) for DuckDB.
# `bash scripts/bench.sh parquet` runs only 1 and 2 (the Parquet figures);
# `bash scripts/bench.sh ngstats` only 1c (ngstats' CPU budget) and 6 (CPU
# and peak RSS at 1x and 8x), a few minutes; `bash scripts/bench.sh cost`
# only 7 (prompt-cache share and --estimate against the run, on the fake);
# `bash scripts/bench.sh peers` only 8, into docs/bench-peers.md (about
# half an hour on the 2-core machine, most of it the Python peers; their
# goals fail the run); `bash scripts/bench.sh footprint` only the binary's
# size against its budget (the build, then a stat).
# Budgets: `budget NAME MS BUDGET` checks a median CPU time against its
# budget; the run fails at the end when one is exceeded by more than 20%
# (NGSTATS_CPU_BUDGET, in ms, overrides ngstats' 1500), when ngstats or
# ngcat --dedup near take more than 10x the CPU at 8x the release as at 1x,
# and when the stripped binary is over 200 MB (NGKIT_SIZE_BUDGET, bytes).
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
# Built as scripts/install.sh installs it (see there): written by install(1).
go build -trimpath -ldflags='-s -w' -o "$out/ngkit.build" ./cmd/ngkit
install -m 755 "$out/ngkit.build" "$out/ngkit" && rm -f "$out/ngkit.build"
ng="$out/ngkit"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# wall time of a command in ms
wall() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
# CPU time (user + sys) in ms of a command
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%d\n", ($1 + $2) * 1000}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# peak RSS in MiB of a command
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f\n", $1/1024}'; }
# "CPU-ms peak-RSS-MiB" of a command, in one run
cpurss() { /usr/bin/time -f '%U %S %M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%d %.1f\n", ($1 + $2) * 1000, $3/1024}'; }
# "wall-ms CPU-ms peak-RSS-MiB" of one run of a command
measure() {
  local t0 t1 r
  t0=$(date +%s%N); r=$(/usr/bin/time -f '%U %S %M' "$@" 2>&1 >/dev/null | tail -1); t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(echo "$r" | awk '{printf "%d %.1f", ($1 + $2) * 1000, $3/1024}')"
}
# paired A B: $runs runs of the commands in the arrays named A and B, in
# pairs whose order alternates, so that a machine that speeds up or slows
# down during the run weighs on both alike; "wall CPU RSS" lines in
# $out/A.m and $out/B.m. (Each figure used to be measured in loops of its
# own, minutes apart: the same binaries' ratio swung 0.85-1.15 between runs.)
paired() {
  local -n pa=$1 pb=$2
  local i
  : >"$out/$1.m"; : >"$out/$2.m"
  for i in $(seq "$runs"); do
    rm -f "$out/dd.parquet" "$out/dd-ours.parquet"
    if (( i % 2 )); then measure "${pa[@]}" >>"$out/$1.m"; measure "${pb[@]}" >>"$out/$2.m"
    else measure "${pb[@]}" >>"$out/$2.m"; measure "${pa[@]}" >>"$out/$1.m"; fi
  done
}
# med A COL: the median of column COL (1 wall, 2 CPU, 3 RSS) of A's runs
med() { awk -v c="$2" '{print $c}' "$out/$1.m" | median; }
# pairratio A B COL: the median over the pairs of A's figure over B's
pairratio() { paste -d' ' "$out/$1.m" "$out/$2.m" | awk -v c="$3" '{printf "%.4f\n", $c / $(c + 3)}' | median | awk '{printf "%.2f", $1}'; }
over=()
# Rows of the generated report: row SECTION WHAT OURS PEER RATIO.
rows="$out/rows.md"
: >"$rows"
row() { printf '| %s | %s | %s | %s | %s |\n' "$@" >>"$rows"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "-"}'; }
budget() { # NAME MEASURED-MS BUDGET-MS
  awk -v n="$1" -v m="$2" -v b="$3" 'BEGIN {printf "budget %s: CPU %d ms of %d ms (%.2fx; fails above 1.20x)\n", n, m, b, m/b}'
  if [ "$2" -gt $(( $3 * 12 / 10 )) ]; then over+=("$1"); fi
}
# report FILE: the generated markdown of this run.
report() {
  {
    echo "<!-- Generated by scripts/bench.sh; do not edit. -->"
    echo "# Benchmarks"
    echo
    echo "Generated by \`bash scripts/bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
    echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3)."
    echo "Load average at the end: $(load) (figures taken on a shared machine swing with its load; each row says the load it was taken at where it matters)."
    echo "CPU is user + sys of the whole process (median of $runs runs unless said); RSS is the peak resident set."
    echo
    echo "| section | figure | ngkit | peer | ratio |"
    echo "|---|---|---|---|---|"
    cat "$rows"
    if [ ${#over[@]} -gt 0 ]; then echo; echo "Failed (a CPU budget exceeded by more than 20%, the size budget, or a cost check): ${over[*]}"; fi
  } >"$1"
  echo "wrote $1"
}
finish() {
  case $only in
  all) report docs/bench.md && go run ./scripts/speedtable -bench docs/bench.md -readme README.md ;;
  peers) report docs/bench-peers.md ;; # the peers' figures until the next full run
  *) report "$out/bench.md" ;;
  esac
  if [ ${#over[@]} -gt 0 ]; then echo "FAIL (a CPU budget exceeded by more than 20%, the size budget, or a cost check): ${over[*]}"; exit 1; fi
}

# The install footprint, in every mode (a stat): the stripped binary, built
# as scripts/install.sh builds it, against its budget, the goal of 200 MB in
# docs/speed.md (NGKIT_SIZE_BUDGET, in bytes, overrides it). The run fails
# when the binary is over it; lingua-go's embedded models are 128 MB of it.
size=$(stat -c %s "$ng")
size_budget=${NGKIT_SIZE_BUDGET:-200000000}
echo "footprint: ngkit is $size bytes stripped (budget $size_budget bytes; fails above it)"
row "install footprint" "the stripped ngkit binary, bytes (goal: under 200 MB)" "$size" "budget $size_budget" "$(ratio "$size" "$size_budget")"
if [ "$size" -gt "$size_budget" ]; then over+=("footprint (ngkit is $size bytes, over $size_budget)"); fi
[ "$only" = footprint ] && { finish; exit 0; }

if [ "$only" = all ] || [ "$only" = ngstats ]; then
echo "== 1c. ngstats' full report of the release: CPU budget ($runs runs, median)"
# Every turn's language, corpus-wide near-duplicates on; on the release
# JSONL and Parquet. The goal: 1.0 s wall, 1.5 s CPU, quiet machine.
"$ng" ngcat --from normgenesis "$release"/*.json -o "$out/release.jsonl"
"$ng" ngcat --from normgenesis "$release"/*.json -o "$out/release.parquet"
# The first run on a machine decodes lingua's models into the cache folder
# (pkg/lang, ~/.cache/ngkit/lang); later runs read them back. Measured
# with an empty folder each time, then (the budget) as the user's runs.
cold=$(for i in $(seq "$runs"); do rm -rf "$out/cold-cache"; XDG_CACHE_HOME="$out/cold-cache" cpu "$ng" ngstats "$out/release.jsonl"; done | median)
rm -rf "$out/cold-cache"
echo "ngstats release.jsonl, model cache empty: CPU $cold ms"
row "ngstats budget" "full report of release.jsonl, first run on a machine (language models decoded, not from the cache): CPU ms" "$cold" "budget ${NGSTATS_CPU_BUDGET:-1500}" "$(ratio "$cold" "${NGSTATS_CPU_BUDGET:-1500}")"
"$ng" ngstats "$out/release.jsonl" >/dev/null # fills the user's cache
for f in release.jsonl release.parquet; do
  c=$(for i in $(seq "$runs"); do cpu "$ng" ngstats "$out/$f"; done | median)
  w=$(for i in $(seq "$runs"); do wall "$ng" ngstats "$out/$f"; done | median)
  echo "ngstats $f: CPU $c ms, wall $w ms (load average $(load))"
  budget "ngstats $f" "$c" "${NGSTATS_CPU_BUDGET:-1500}"
  row "ngstats budget" "full report of $f: CPU ms (load $(load | cut -d' ' -f1))" "$c" "budget ${NGSTATS_CPU_BUDGET:-1500}" "$(ratio "$c" "${NGSTATS_CPU_BUDGET:-1500}")"
  row "ngstats budget" "full report of $f: wall ms" "$w" "goal 1000" "$(ratio "$w" 1000)"
done
fi

if [ "$only" = all ] || [ "$only" = ngstats ]; then
echo "== 6. CPU (ms) and peak RSS (MiB) at 1x and 8x the release (8x: copies with new ids)"
# The LLM runtime: ngseed | ngv2r on the fake server (another process, not
# counted), 1x = 10 Korean norms x 2 scenarios x 3 types; CPU is the
# pipeline's, RSS its largest process'.
go build -o "$out/fakeng" ./internal/fakeng/cmd/fakeng
rm -f "$out/fake.url"
"$out/fakeng" --url-file "$out/fake.url" >/dev/null 2>&1 &
fake_pid=$!
for _ in $(seq 600); do [ -s "$out/fake.url" ] && break; sleep 0.1; done
llm=(--no-cache --backoff 10ms --timeout 10s --deadline 10m -q)
declare -A scale
for n in 1 8; do
  for k in $(seq "$n"); do sed "s/^{\"id\":\"/{\"id\":\"c$k-/" "$out/release.jsonl"; done > "$out/scale.jsonl"
  scale[$n,stats]=$(cpurss "$ng" ngstats "$out/scale.jsonl")
  scale[$n,near]=$(cpurss "$ng" ngcat --dedup near "$out/scale.jsonl" -o "$out/scale-dd.jsonl")
  scale[$n,parquet]=$(cpurss "$ng" ngcat "$out/scale.jsonl" -o "$out/scale.parquet")
  scale[$n,llm]=$(NG_MODEL=fake NG_BASE_URL=$(cat "$out/fake.url") NG_API_KEY= cpurss bash -c "'$ng' ngseed --culture korean --limit $((10 * n)) --per-norm 2 --types adherence,violation,v2r ${llm[*]} | '$ng' ngv2r ${llm[*]} -o '$out/scale-llm.jsonl'")
  echo "${n}x ngstats:              ${scale[$n,stats]}"
  echo "${n}x ngcat --dedup near:   ${scale[$n,near]}"
  echo "${n}x jsonl -> parquet:     ${scale[$n,parquet]}"
  echo "${n}x ngseed | ngv2r (fake, $(wc -l <"$out/scale-llm.jsonl") dialogues): ${scale[$n,llm]}"
done
kill "$fake_pid" 2>/dev/null || true
wait "$fake_pid" 2>/dev/null || true
for k in stats:ngstats near:"ngcat --dedup near" parquet:"jsonl -> parquet" llm:"ngseed \| ngv2r (fake server)"; do
  set -- ${scale[1,${k%%:*}]} ${scale[8,${k%%:*}]}
  row "1x vs 8x" "${k#*:}: CPU ms, 8x against 1x" "$3" "$1" "$(ratio "$3" "$1")"
  row "1x vs 8x" "${k#*:}: peak RSS MiB, 8x against 1x" "$4" "$2" "$(ratio "$4" "$2")"
done
# The programs that keep what they learn of the corpus (ngstats' report,
# the near-duplicate index) must grow linearly: 8x the release within 10x
# the CPU of 1x (1x carries the fixed start, lingua's models among it).
# ngstats took 15.8x when its kept data sat under the soft memory limit
# and the GC ran without pause (pkg/memlimit).
for k in stats:ngstats near:"ngcat --dedup near"; do
  set -- ${scale[1,${k%%:*}]} ${scale[8,${k%%:*}]}
  awk -v a="$3" -v b="$1" -v n="${k#*:}" 'BEGIN {printf "growth %s: 8x CPU %.2fx of 1x (fails above 10x)\n", n, a/b}'
  if [ "$3" -gt $(( $1 * 10 )) ]; then over+=("${k#*:} 8x CPU above 10x of 1x"); fi
done
rm -f "$out/scale.jsonl" "$out/scale-dd.jsonl" "$out/scale.parquet" "$out/scale-llm.jsonl"
echo "(load average $(load))"
fi
[ "$only" = ngstats ] && { finish; exit 0; }

if [ "$only" = all ] || [ "$only" = cost ]; then
echo "== 7. cost: the providers' prompt cache and --estimate, on the fake server"
# TestPromptCacheChain runs ngseed (1,080 seeds) -> ngrefine -> ngv2r ->
# nglabel against the fake playing the providers' prompt cache (a prefix
# of 1,024+ tokens seen before, in 128-token steps); the goal:
# at least 50% of the prompt tokens cached in the stages whose fixed part
# reaches 1,024 tokens. TestEstimateWithin20Percent compares each
# program's --estimate with the run that follows (goal: within 20%).
# Both tests fail on a missed goal; their logs give the rows.
set +e
cl=$(go test -count=1 -run '^(TestPromptCacheChain|TestEstimateWithin20Percent)$' -v ./cmd/internal/cli/ 2>&1)
rc=$?
set -e
printf '%s\n' "$cl" | grep -E 'prompt tokens cached|estimate .* real' | sed 's/^ *//'
[ "$rc" = 0 ] || over+=("cost tests (go test exit $rc)")
nrows=$(wc -l <"$rows")
while read -r stage recs cached total; do
  row "prompt cache" "$stage: share of prompt tokens cached ($recs records in; goal >= 50% from ngrefine on)" "$(awk -v c="$cached" -v t="$total" 'BEGIN {printf "%.1f%%", 100*c/t}')" "goal 50%" "$(awk -v c="$cached" -v t="$total" 'BEGIN {printf "%.2f", c/t/0.5}')"
done < <(printf '%s\n' "$cl" | sed -nE 's/.*: (ng[a-z0-9]+): ([0-9]+) records, ([0-9]+) of ([0-9]+) prompt tokens cached.*/\1 \2 \3 \4/p')
while read -r culture prog ereq ein eout rreq rin rout; do
  row "estimate" "$culture $prog: --estimate against the run, tokens in (requests $ereq against $rreq; goal within 20%)" "$ein" "$rin" "$(ratio "$ein" "$rin")"
done < <(printf '%s\n' "$cl" | sed -nE 's/.*: ([a-z-]+) (ng[a-z0-9]+): estimate ([0-9]+) \/ ([0-9]+) \([0-9]+ cached\) \/ ([0-9]+); real ([0-9]+) requests, ([0-9]+) tokens in \([0-9]+ cached\), ([0-9]+) out/\1 \2 \3 \4 \5 \6 \7 \8/p')
# 4 stages and 2 cultures x 6 estimates: fewer rows means the tests' log
# lines changed and the rows above no longer read them.
[ $(( $(wc -l <"$rows") - nrows )) -ge 16 ] || over+=("cost rows (the tests' log lines were not read)")
fi
[ "$only" = cost ] && { finish; exit 0; }

if [ "$only" = all ] || [ "$only" = peers ]; then
echo "== 8. the peers, side by side (scripts/bench-peers.sh)"
BENCH_OUT="$out" bash scripts/bench-peers.sh || over+=("peers (a goal of scripts/bench-peers.sh missed by more than 10%, or a run that failed)")
cat "$out/peers-rows.md" >>"$rows"
fi
[ "$only" = peers ] && { finish; exit 0; }

echo "== 1. import of the release to Parquet ($runs runs, median wall ms)"
node_modules=scripts/interop/node_modules
node scripts/interop/flatten.mjs "$release"/*.json > "$out/flat.jsonl"
"$ng" ngcat --from normgenesis "$release"/*.json -o "$out/ng.parquet"
if [ -d "$node_modules/@duckdb" ]; then
  imp_ng=("$ng" ngcat --from normgenesis "$release"/*.json -o "$out/ng.parquet")
  imp_dd=(node scripts/interop/duckdb_convert.mjs "$out/flat.jsonl" "$out/dd.parquet")
  paired imp_ng imp_dd
  node_ms=$(for i in $(seq "$runs"); do wall node scripts/interop/duckdb_load.mjs; done | median)
  node scripts/interop/duckdb_convert.mjs "$out/flat.jsonl" "$out/dd.parquet"
  echo "ngcat --from normgenesis -> parquet: $(med imp_ng 1) ms, CPU $(med imp_ng 2) ms ($(stat -c %s "$out/ng.parquet") bytes)"
  echo "duckdb (node) flat jsonl -> zstd parquet: $(med imp_dd 1) ms whole process, of which node start + duckdb load $node_ms ms, CPU $(med imp_dd 2) ms ($(stat -c %s "$out/dd.parquet") bytes; load average $(load))"
  echo "ratio ngcat/duckdb, median of the $runs pairs: wall $(pairratio imp_ng imp_dd 1), CPU $(pairratio imp_ng imp_dd 2)"
  row "release import" "ngcat --from normgenesis -> parquet vs duckdb flat jsonl -> parquet: CPU ms (goal retired: the flat copy does far less; load $(load | cut -d' ' -f1))" "$(med imp_ng 2)" "$(med imp_dd 2)" "$(pairratio imp_ng imp_dd 2)"
  # The same work: our JSONL of the release (every field) -> zstd Parquet,
  # by ngcat and by DuckDB; CPU, wall, peak RSS and size (the goals:
  # CPU <= 0.8x, wall <= 0.8x, RSS <= 0.5x, size <= 1.0x).
  "$ng" ngcat --from normgenesis "$release"/*.json -o "$out/ours.jsonl"
  same_ng=("$ng" ngcat "$out/ours.jsonl" -o "$out/ng-ours.parquet")
  same_dd=(node scripts/interop/duckdb_convert.mjs "$out/ours.jsonl" "$out/dd-ours.parquet")
  paired same_ng same_dd
  node scripts/interop/duckdb_convert.mjs "$out/ours.jsonl" "$out/dd-ours.parquet" 2>/dev/null
  echo "the same records, our jsonl -> zstd parquet: ngcat CPU $(med same_ng 2) ms, wall $(med same_ng 1) ms, $(med same_ng 3) MiB; duckdb CPU $(med same_dd 2) ms, wall $(med same_dd 1) ms, $(med same_dd 3) MiB (load average $(load))"
  echo "ratio ngcat/duckdb, median of the $runs pairs: CPU $(pairratio same_ng same_dd 2), wall $(pairratio same_ng same_dd 1), RSS $(pairratio same_ng same_dd 3)"
  row "jsonl -> parquet" "our JSONL of the release -> zstd Parquet: CPU ms (goal <= 0.8x; load $(load | cut -d' ' -f1))" "$(med same_ng 2)" "$(med same_dd 2)" "$(pairratio same_ng same_dd 2)"
  row "jsonl -> parquet" "the same: wall ms (goal <= 0.8x, quiet machine)" "$(med same_ng 1)" "$(med same_dd 1)" "$(pairratio same_ng same_dd 1)"
  row "jsonl -> parquet" "the same: peak RSS MiB (goal <= 0.5x)" "$(med same_ng 3)" "$(med same_dd 3)" "$(pairratio same_ng same_dd 3)"
  awk -v a="$(stat -c %s "$out/ng.parquet")" -v b="$(stat -c %s "$out/dd-ours.parquet")" \
    'BEGIN {printf "parquet size, the same records: ngcat %d bytes, duckdb (our jsonl, zstd) %d bytes: ratio %.3f (goal <= 1)\n", a, b, a/b}'
  row "jsonl -> parquet" "the same: file bytes (goal <= 1.0x)" "$(stat -c %s "$out/ng.parquet")" "$(stat -c %s "$out/dd-ours.parquet")" "$(ratio "$(stat -c %s "$out/ng.parquet")" "$(stat -c %s "$out/dd-ours.parquet")")"
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
  row "ngstats" "full report of release.parquet vs duckdb counts only (flat jsonl): wall ms (load $(load | cut -d' ' -f1))" "$st_ms" "$dc_ms" "$(ratio "$st_ms" "$dc_ms")"
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
  # median of 3: one run's peak swings by a few MiB with the GC's timing
  r=$(for i in 1 2 3; do rss "$ng" ngcat "$out/xn.jsonl" -o "$out/xn.parquet"; done | median)
  [ "$n" = 1 ] && r1=$r
  echo "${n}x ($(stat -c %s "$out/xn.jsonl") bytes): $r MiB peak RSS (jsonl -> parquet)," \
    "$(rss "$ng" ngcat "$out/xn.parquet" -o "$out/xn.arrows") MiB (parquet -> arrow)"
  [ "$n" = 1 ] || row "jsonl -> parquet" "peak RSS MiB at ${n}x the release against 1x (goal: flat, within 10%)" "$r" "$r1" "$(ratio "$r" "$r1")"
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
tp=$(go test -run='^$' -bench='^BenchmarkThroughput$' -benchtime=5000x ./pkg/llm/ | grep -E '^Benchmark')
echo "cache on disk: $tp"
row "llm runtime" "BenchmarkThroughput, cache on disk (--concurrency 64, 100 ms latency; ideal 640 calls/s)" "$(echo "$tp" | cut -f3- | tr '\t' ' ')" "-" "-"
tp=$(NG_BENCH_CACHE=off go test -run='^$' -bench='^BenchmarkThroughput$' -benchtime=5000x ./pkg/llm/ | grep -E '^Benchmark')
echo "no cache:      $tp"
row "llm runtime" "BenchmarkThroughput, no cache" "$(echo "$tp" | cut -f3- | tr '\t' ' ')" "-" "-"
mr=$(go test -run='^$' -bench='^BenchmarkMillionRecords$' -benchtime=1x -timeout=30m ./pkg/llm/ | grep -E '^Benchmark')
echo "$mr"
row "llm runtime" "BenchmarkMillionRecords (peak heap and RSS stay flat)" "$(echo "$mr" | cut -f3- | tr '\t' ' ')" "-" "-"
finish
