#!/usr/bin/env bash
# The tools a user would pick instead of ngkit, measured side by side with
# it in the same run, on the same work (see docs/speed.md, "The peers"):
#  llm      the LLM runtime: the same chat requests (nglabel's, recorded)
#           against the same fake server (internal/fakeng), at concurrency
#           64 and 256, (a) 0 ms latency, (b) 100 ms, (c) 100 ms and 20%
#           transport faults (429, 500, 503, timeouts, dropped connections,
#           cut bodies); ngkit's nglabel against curator, distilabel, Data
#           Designer and a plain AsyncOpenAI loop with a semaphore;
#  dedup    ngcat --dedup near against datatrove's MinHash pipeline with
#           the same shingle size and bands x rows, on the release and on
#           8x the release (copies with new ids and light edits);
#  parquet  our JSONL of the release -> zstd Parquet: ngcat against pyarrow
#           and DuckDB (Python), both given our schema.
# Usage: bash scripts/bench-peers.sh [all|llm|dedup|parquet]
# Rows go to $BENCH_OUT/peers-rows.md (bench.sh puts them in docs/bench.md);
# the run exits 1 when a ratio misses its goal by more than 10% (not with
# PEERS_QUICK=1: CI's small run, which checks only that ngkit loses and
# duplicates nothing and that every run ends), 0 with one line when a
# prerequisite (the release, python3 with venv, jq, PyPI) cannot be had.
# Each peer runs from a pinned virtualenv (scripts/python/peers*.txt); a
# peer that cannot be installed or run is a row that says why.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
release=${NG_RELEASE_DIR:-../shared/data/normgenesis}
only=${1:-all}
out=${BENCH_OUT:-bench-out}
quick=${PEERS_QUICK:-0}
if [ "$quick" = 1 ]; then calls=${PEERS_CALLS:-200}; concs=${PEERS_CONCURRENCY:-64}; tmo=180
else calls=${PEERS_CALLS:-2000}; concs=${PEERS_CONCURRENCY:-64 256}; tmo=900; fi
skip() { echo "bench-peers: skipped: $*"; exit 0; }
[ -d "$release" ] || skip "no NormGenesis release at $release"
command -v jq >/dev/null || skip "no jq"
python3 -c 'import venv' 2>/dev/null || skip "no python3 with venv"
mkdir -p "$out/peers"
w=$(cd "$out/peers" && pwd)
rows="$out/peers-rows.md"
: >"$rows"
fails=()
row() { printf '| %s | %s | %s | %s | %s |\n' "$@" >>"$rows"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "-"}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# goal NAME RATIO MAX: a ratio above MAX (the goal) by more than 10% fails
# a full run; the line says where each stands.
goal() {
  local verdict
  verdict=$(awk -v r="$2" -v m="$3" 'BEGIN {if (r == "-") print "no figure"; else if (r + 0 <= m) print "met"; else if (r + 0 <= m * 1.1) print "missed, within 10%"; else print "MISSED"}')
  echo "goal $1: $2 (goal <= $3): $verdict"
  if [ "$verdict" = MISSED ] || [ "$verdict" = "no figure" ]; then fails+=("$1"); fi
}
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
measure=(python3 scripts/peers/treemeasure.py --timeout "$tmo" --)

# Built as scripts/install.sh installs it, written by install(1), as
# bench.sh does: a binary the linker has just written is held by the page
# cache in 2 MiB folios, which the kernel maps whole, so it starts with
# 74 MiB resident instead of the installed copy's 38 (Linux 6.18, ext4).
go build -trimpath -ldflags='-s -w' -o "$w/ngkit.build" ./cmd/ngkit
install -m 755 "$w/ngkit.build" "$w/ngkit" && rm -f "$w/ngkit.build"
ng="$w/ngkit"
"$ng" ngcat --from normgenesis "$release"/*.json -o "$w/release.jsonl"

# venv NAME: the pinned virtualenv's python, or "" with the reason in
# $w/NAME.why (pip's last error line)
venv() {
  local d
  if d=$(bash scripts/pyvenv.sh "$1" 2>"$w/pip-$1.log"); then echo "$d/bin/python"; return; fi
  grep -E '^ERROR' "$w/pip-$1.log" | tail -1 >"$w/$1.why" || true
  [ -s "$w/$1.why" ] || tail -1 "$w/pip-$1.log" >"$w/$1.why"
  echo ""
}
py=$(venv peers)
if [ -z "$py" ]; then
  # CI sets NGKIT_REQUIRE_PYPI=1: there a missing PyPI is a failure, not a skip
  [ "${NGKIT_REQUIRE_PYPI:-0}" = 1 ] && { echo "bench-peers: the peers' virtualenv could not be made: $(cat "$w/peers.why")"; exit 1; }
  skip "the peers' virtualenv could not be made (no PyPI?): $(cat "$w/peers.why")"
fi

if [ "$only" = all ] || [ "$only" = llm ]; then
echo "== peers 1. the LLM runtime: $calls chat requests asking for JSON, concurrency $concs"
go build -o "$w/fakeng" ./internal/fakeng/cmd/fakeng
go build -o "$w/fakellm" ./pkg/llm/llmtest/cmd/fakellm
# fake LATENCY RATE: starts fakeng, sets $url and $fake
fake() {
  rm -f "$w/fake.url"
  "$w/fakeng" --url-file "$w/fake.url" --latency "$1" --fault-rate "$2" \
    --faults 429,500,503,slow,drop,malformed >/dev/null 2>"$w/fake.log" &
  fake=$!
  pids+=("$fake")
  local i
  for i in $(seq 600); do [ -s "$w/fake.url" ] && break; sleep 0.1; done
  [ -s "$w/fake.url" ] || { echo "bench-peers: the fake server did not start: $(cat "$w/fake.log")"; exit 1; }
  url=$(cat "$w/fake.url")
}
unfake() { kill "$fake" 2>/dev/null || true; wait "$fake" 2>/dev/null || true; }
# The job: nglabel's default tasks on release dialogues (adherence and
# violation: one reply schema for all, which curator and distilabel take
# once per run), one call each; its requests recorded once through
# fakellm's proxy, so that every peer sends the very same bodies.
jq -c 'select(((.turns // []) | length) > 0 and .dialogue_type != "v2r")' "$w/release.jsonl" >"$w/pool.jsonl"
"$ng" ngcat --sample "$calls" "$w/pool.jsonl" -o "$w/dialogues.jsonl"
fake 0 0
rm -f "$w/rec.jsonl" "$w/rec.url"
"$w/fakellm" --upstream "$url" --record "$w/rec.jsonl" --url-file "$w/rec.url" >/dev/null 2>"$w/rec.log" &
rec=$!
pids+=("$rec")
for i in $(seq 600); do [ -s "$w/rec.url" ] && break; sleep 0.1; done
NG_BASE_URL=$(cat "$w/rec.url") NG_MODEL=fake timeout 300 "$ng" nglabel --no-cache -q "$w/dialogues.jsonl" -o "$w/rec-out.jsonl"
kill "$rec"; wait "$rec" 2>/dev/null || true
unfake
"$py" scripts/peers/llm.py prepare "$w/rec.jsonl" "$w/requests.jsonl"
# The same policy everywhere: 3 s per request, 6 retries; ngkit's first
# backoff is the openai SDK's (0.5 s).
export TIMEOUT=3 RETRIES=6
declare -A pypeer=([openai]=peers [distilabel]=peers [curator]=peers-curator [datadesigner]=peers-datadesigner)
declare -A pyof
for p in openai distilabel curator datadesigner; do pyof[$p]=$(venv "${pypeer[$p]}"); done
for scen in "a:0ms:0" "b:100ms:0" "c:100ms:0.2"; do
  IFS=: read -r sc lat rate <<<"$scen"
  what="($sc) $lat latency$(awk -v r="$rate" 'BEGIN {if (r > 0) printf ", %d%% faults", r * 100}')"
  fake "$lat" "$rate"
  for c in $concs; do
    export BASE_URL=$url CONCURRENCY=$c
    rm -f "$w/ng-out.jsonl" "$w/ng-err.jsonl"
    set -- $(NG_BASE_URL=$url NG_MODEL=fake "${measure[@]}" "$ng" nglabel --no-cache -q --concurrency "$c" \
      --timeout 3s --max-retries 6 --backoff 500ms "$w/dialogues.jsonl" -o "$w/ng-out.jsonl" --errors "$w/ng-err.jsonl")
    ngw=$1 ngc=$2 ngr=$3 ngx=$4
    set -- $("$py" scripts/peers/llm.py score-ngkit "$w/dialogues.jsonl" "$w/ng-out.jsonl")
    ngdone=$1 nglost=$2 ngdup=$3
    ngrate=$(awk -v n="$ngdone" -v ms="$ngw" 'BEGIN {printf "%.0f", n * 1000 / ms}')
    ngcpu=$(awk -v c="$ngc" -v n="$calls" 'BEGIN {printf "%.2f", c / n}')
    echo "$what c=$c ngkit nglabel: ${ngw} ms, $ngrate calls/s, CPU $ngcpu ms/call, RSS $ngr MiB, done $ngdone lost $nglost dup $ngdup (exit $ngx; load $(load))"
    [ "$nglost" = 0 ] && [ "$ngdup" = 0 ] && [ "$ngx" = 0 ] || fails+=("ngkit nglabel $what c=$c: lost $nglost, duplicated $ngdup, exit $ngx")
    best_cpu="" best_rss=""
    for p in openai curator distilabel datadesigner; do
      sect="llm $what, concurrency $c"
      if [ -z "${pyof[$p]}" ]; then
        echo "$what c=$c $p: not installed: $(cat "$w/${pypeer[$p]}.why")"
        row "$sect" "$p: could not be installed ($(sed 's/|/\\|/g' "$w/${pypeer[$p]}.why"))" "$ngrate calls/s" "-" "-"
        continue
      fi
      rm -f "$w/$p-out.jsonl"
      set -- $("${measure[@]}" "${pyof[$p]}" scripts/peers/llm.py run "$p" "$w/requests.jsonl" "$w/$p-out.jsonl" 2>"$w/$p.log")
      pw=$1 pc=$2 pr=$3 px=$4
      if [ ! -s "$w/$p-out.jsonl" ]; then
        why=$(grep -E '^[A-Za-z_.]+(Error|Exception)|^llm.py' "$w/$p.log" | tail -1 | cut -c1-200 || true)
        [ "$px" = timeout ] && why="did not finish in $tmo s"
        echo "$what c=$c $p: no output (exit $px): $why"
        row "$sect" "$p: no output, exit $px: $(printf '%s' "$why" | sed 's/|/\\|/g')" "$ngrate calls/s" "-" "-"
        continue
      fi
      set -- $("$py" scripts/peers/llm.py score "$w/requests.jsonl" "$w/$p-out.jsonl")
      pdone=$1 plost=$2 pdup=$3 pwrong=$4
      prate=$(awk -v n="$pdone" -v ms="$pw" 'BEGIN {printf "%.0f", n * 1000 / ms}')
      pcpu=$(awk -v c="$pc" -v n="$calls" 'BEGIN {printf "%.2f", c / n}')
      echo "$what c=$c $p: ${pw} ms, $prate calls/s, CPU $pcpu ms/call, RSS $pr MiB, done $pdone lost $plost dup $pdup wrong $pwrong (exit $px)"
      row "$sect" "$p: completed calls/s (goal: ngkit >= peer)" "$ngrate" "$prate" "$(ratio "$ngrate" "$prate")"
      row "$sect" "$p: client CPU ms per call" "$ngcpu" "$pcpu" "$(ratio "$ngcpu" "$pcpu")"
      row "$sect" "$p: peak RSS MiB of the client's processes" "$ngr" "$pr" "$(ratio "$ngr" "$pr")"
      if [ "$rate" != 0 ]; then
        row "$sect" "$p: replies lost / duplicated / wrong, exit" "$nglost / $ngdup / - , $ngx" "$plost / $pdup / $pwrong, $px" "-"
      fi
      [ "$quick" = 1 ] && continue
      goal "throughput, peer over ngkit: $p $what c=$c" "$(ratio "$prate" "$ngrate")" 1.0
      awk -v a="$pcpu" -v b="${best_cpu:-1e18}" 'BEGIN {exit !(a < b)}' && best_cpu=$pcpu
      awk -v a="$pr" -v b="${best_rss:-1e18}" 'BEGIN {exit !(a < b)}' && best_rss=$pr
    done
    if [ "$quick" != 1 ] && [ -n "$best_cpu" ]; then
      goal "CPU per call, ngkit over the best peer: $what c=$c" "$(ratio "$ngcpu" "$best_cpu")" 0.25
      goal "peak RSS, ngkit over the best peer: $what c=$c" "$(ratio "$ngr" "$best_rss")" 0.5
    fi
  done
  unfake
done
echo "(load average $(load))"
fi

if [ "$only" = all ] || [ "$only" = dedup ]; then
echo "== peers 2. near-duplicates: ngcat --dedup near against datatrove's MinHash dedup"
# The same parameters: ngkit's 128 places at its default threshold 0.6 make
# 42 bands of 3 rows (pkg/dedup.NewIndex); datatrove is given 42 buckets of
# 3 hashes and 5-grams (its shingles are words of its English tokenizer,
# ngkit's 5 characters, 3 for Han, kana and Hangul: the nearest it has).
# Both get the dialogues with turns, datatrove their turn texts one per
# line, which is what ngkit compares. 8x: copies with new ids, each copy
# with a light edit (the first word of one turn dropped).
go build -o "$w/dedupeval" ./scripts/dedupeval
jq -c 'select((.turns // []) | length > 0)' "$w/release.jsonl" >"$w/dd-1.jsonl"
for n in $([ "$quick" = 1 ] && echo 1 || echo 1 8); do
  f="$w/dd-$n.jsonl"
  if [ "$n" != 1 ]; then
    { cat "$w/dd-1.jsonl"
      for k in $(seq 2 "$n"); do
        jq -c --argjson k "$k" '.id = "c\($k)-" + .id | (.turns | length) as $t | .turns[$k % $t].text |= sub("^\\S+\\s*"; "")' "$w/dd-1.jsonl"
      done; } >"$f"
  fi
  jq -c '{id, text: ([.turns[].text] | join("\n"))}' "$f" >"$w/dd-$n.texts.jsonl"
  rm -f "$w/dd-$n.err.jsonl"
  set -- $("${measure[@]}" "$ng" ngcat -q --dedup near "$f" -o "$w/dd-$n.kept.jsonl" --errors "$w/dd-$n.err.jsonl")
  ngw=$1 ngc=$2 ngr=$3
  touch "$w/dd-$n.err.jsonl"
  "$py" scripts/peers/dedup.py ngkit "$w/dd-$n.err.jsonl" "$w/dd-$n.ngkit.tsv"
  rm -rf "$w/dtwork"
  set -- $("${measure[@]}" "$py" scripts/peers/dedup.py datatrove "$w/dd-$n.texts.jsonl" "$w/dtwork" 42 3 5 "$w/dd-$n.datatrove.tsv" 2>"$w/datatrove.log")
  dw=$1 dc=$2 dr=$3 dx=$4
  docs=$(wc -l <"$f")
  echo "${n}x ($docs dialogues): ngcat --dedup near: wall $ngw ms, CPU $ngc ms, RSS $ngr MiB, dropped $(wc -l <"$w/dd-$n.err.jsonl")"
  if [ "$dx" != 0 ] || [ ! -f "$w/dd-$n.datatrove.tsv" ]; then
    why=$(grep -E '^[A-Za-z_.]+(Error|Exception)' "$w/datatrove.log" | tail -1 | cut -c1-200 || true)
    echo "${n}x datatrove: failed (exit $dx): $why"
    row "near-duplicates ${n}x" "datatrove failed, exit $dx: $(printf '%s' "$why" | sed 's/|/\\|/g')" "$ngc" "-" "-"
    fails+=("datatrove ${n}x did not run")
    continue
  fi
  echo "${n}x datatrove minhash (42 x 3, 5-grams): wall $dw ms, CPU $dc ms, RSS $dr MiB, removed $(cat "$w/dtwork/removed/"* | wc -l) (load $(load))"
  sec="near-duplicates ${n}x ($docs dialogues)"
  row "$sec" "ngcat --dedup near vs datatrove MinHash (42 bands x 3 rows): CPU ms (goal <= 0.3x; load $(load | cut -d' ' -f1))" "$ngc" "$dc" "$(ratio "$ngc" "$dc")"
  row "$sec" "the same: wall ms" "$ngw" "$dw" "$(ratio "$ngw" "$dw")"
  row "$sec" "the same: peak RSS MiB (all processes)" "$ngr" "$dr" "$(ratio "$ngr" "$dr")"
  row "$sec" "the same: records dropped" "$(wc -l <"$w/dd-$n.err.jsonl")" "$(cat "$w/dtwork/removed/"* | wc -l)" "-"
  ev=$("$w/dedupeval" -texts "$w/dd-$n.texts.jsonl" -sample "${PEERS_DEDUP_SAMPLE:-1500}" ngkit="$w/dd-$n.ngkit.tsv" datatrove="$w/dd-$n.datatrove.tsv")
  echo "$ev"
  set -- $(echo "$ev" | awk '$1 == "ngkit" {print $3, $5, $7, $9}') $(echo "$ev" | awk '$1 == "datatrove" {print $3, $5, $7}')
  row "$sec" "pairs put in one cluster at exact Jaccard >= 0.6 (precision; ngkit's shingles; $3 and $7 pairs judged)" "$1" "$5" "$(ratio "$1" "$5")"
  row "$sec" "pairs at exact Jaccard >= 0.6 put in one cluster (recall of $4 pooled pairs: both tools' and a random sample's)" "$2" "$6" "$(ratio "$2" "$6")"
  [ "$quick" = 1 ] && continue
  goal "near-duplicates ${n}x CPU, ngkit over datatrove" "$(ratio "$ngc" "$dc")" 0.3
  goal "near-duplicates ${n}x precision, datatrove over ngkit" "$(ratio "$5" "$1")" 1.0
  goal "near-duplicates ${n}x recall, datatrove over ngkit" "$(ratio "$6" "$2")" 1.0
done
rm -rf "$w/dtwork"
fi

if [ "$only" = all ] || [ "$only" = parquet ]; then
runs=${PEERS_RUNS:-$([ "$quick" = 1 ] && echo 1 || echo 5)}
echo "== peers 3. our JSONL of the release -> zstd Parquet: ngcat, pyarrow, DuckDB ($runs runs each, interleaved, median)"
# The same records and columns: both peers get our schema (read from
# ngcat's file) with the keys it keeps in its extra column as columns of
# their own, and write zstd at their default level; each file is read back
# with pyarrow and compared with ngcat's value by value.
"$ng" ngcat "$w/release.jsonl" -o "$w/pq-ng.parquet"
"$py" scripts/peers/parquet.py extra "$w/pq-ng.parquet" "$w/release.jsonl" "$w/pq-extra.json"
cp "$w/pq-ng.parquet" "$w/pq-schema.parquet"
: >"$w/pq-ngkit.m"; : >"$w/pq-pyarrow.m"; : >"$w/pq-duckdb.m"
for i in $(seq "$runs"); do
  for t in ngkit pyarrow duckdb; do
    if [ "$t" = ngkit ]; then cmd=("$ng" ngcat "$w/release.jsonl" -o "$w/pq-ng.parquet")
    else cmd=("$py" scripts/peers/parquet.py "$t" "$w/pq-schema.parquet" "$w/release.jsonl" "$w/pq-$t.parquet" "$w/pq-extra.json"); fi
    "${measure[@]}" "${cmd[@]}" >>"$w/pq-$t.m" 2>>"$w/pq-$t.log"
  done
done
med() { awk -v c="$2" '$4 == 0 {print $c}' "$w/pq-$1.m" | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "-")}'; }
size() { stat -c %s "$w/pq-$1.parquet" 2>/dev/null || echo -; }
for t in pyarrow duckdb; do
  same=$("$py" scripts/peers/parquet.py same "$w/pq-ng.parquet" "$w/pq-$t.parquet" 2>&1 | tail -1)
  echo "$t: CPU $(med "$t" 2) ms, wall $(med "$t" 1) ms, RSS $(med "$t" 3) MiB, $(size "$t") bytes; values against ngcat's: $same"
  [ "$same" = same ] || fails+=("parquet: $t's file differs from ngcat's: $same")
done
echo "ngcat: CPU $(med ngkit 2) ms, wall $(med ngkit 1) ms, RSS $(med ngkit 3) MiB, $(size ng) bytes (load $(load))"
best() { # COL: the better peer's median
  awk -v a="$(med pyarrow "$1")" -v b="$(med duckdb "$1")" 'BEGIN {if (a == "-") print b; else if (b == "-" || a + 0 < b + 0) print a; else print b}'
}
sec="jsonl -> parquet, peers"
for t in pyarrow duckdb; do
  row "$sec" "$t: CPU ms (load $(load | cut -d' ' -f1))" "$(med ngkit 2)" "$(med "$t" 2)" "$(ratio "$(med ngkit 2)" "$(med "$t" 2)")"
  row "$sec" "$t: wall ms" "$(med ngkit 1)" "$(med "$t" 1)" "$(ratio "$(med ngkit 1)" "$(med "$t" 1)")"
  row "$sec" "$t: peak RSS MiB" "$(med ngkit 3)" "$(med "$t" 3)" "$(ratio "$(med ngkit 3)" "$(med "$t" 3)")"
  row "$sec" "$t: file bytes" "$(size ng)" "$(size "$t")" "$(ratio "$(size ng)" "$(size "$t")")"
done
if [ "$quick" != 1 ]; then
  smaller=$(awk -v a="$(size pyarrow)" -v b="$(size duckdb)" 'BEGIN {print (a + 0 < b + 0) ? a : b}')
  goal "parquet size, ngcat over the smaller peer's" "$(ratio "$(size ng)" "$smaller")" 1.0
  goal "parquet CPU, ngcat over the better peer" "$(ratio "$(med ngkit 2)" "$(best 2)")" 1.0
  goal "parquet peak RSS, ngcat over the better peer" "$(ratio "$(med ngkit 3)" "$(best 3)")" 0.5
fi
fi

echo "wrote $rows"
if [ ${#fails[@]} -gt 0 ]; then
  printf 'FAIL: %s\n' "${fails[@]}"
  exit 1
fi
