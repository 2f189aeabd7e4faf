#!/usr/bin/env bash
# The LLM programs against a real Ollama (v0.24.0, ../shared/ollama beside
# the repository, serving the tiny random-weight model of ../shared/llm as
# babel-tiny; skipped with a line when it is absent): realserver.sh's twin
# for the local server most users run. The model writes nonsense, so
# content checks fail and records end in the errors file: this tests the
# protocol as Ollama speaks it, not the replies.
#
# Starts Ollama on a free port with OLLAMA_CONTEXT_LENGTH=3000 (a context
# that is no common size: only /api/ps tells it) and 4 slots, then:
#   - the Go tests of pkg/llm against it (a prompt cut to the context is
#     an error naming it; --concurrency auto starts at 4);
#   - ngseed, ngrefine, ngv2r, nglabel, ngsim and ngpact (logprobs and
#     sample) on a few records: exit 0 or 1, every input in the output or
#     the errors file, no hang;
#   - ngpact with a base model (--api completions): Ollama's
#     /v1/completions sends no logprobs (v0.24), so --method logprobs is
#     one line saying so, exit 2; --method sample works, every result base;
#   - a prompt over the context: "the server cut the prompt to 3000 tokens";
#   - Ollama killed 2 s into an ngpact run (40 items, logprobs) and started again 5 s later on
#     the same port and state: one "refused; retrying" line, the run goes
#     on, every item accounted for and none failed for the refusals.
# The server is killed on exit. Needs Go, jq and bash.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
ol=../shared/ollama
if [ ! -x "$ol/start.sh" ] || [ ! -x "$ol/ollama" ]; then
  echo "realserver-ollama: skipped: no $ol/start.sh (a real Ollama for protocol tests)"
  exit 0
fi

tmp=$(mktemp -d)
out=$tmp/out
mkdir -p "$out" "$tmp/bin"
pidfile=$tmp/ollama.pid
cleanup() {
  if [ -s "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  if [ -n "${KEEP:-}" ]; then echo "realserver-ollama: files kept in $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
fail() { echo "realserver-ollama: FAIL: $*" >&2; exit 1; }

ctx=3000
url=
for _ in 1 2 3 4 5; do
  port=$(( 20000 + RANDOM % 20000 ))
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
  if url=$(TMPDIR=$tmp PIDFILE=$pidfile LOGFILE=$tmp/ollama.log OLLAMA_CONTEXT_LENGTH=$ctx OLLAMA_NUM_PARALLEL=4 "$ol/start.sh" "$port"); then
    break
  fi
  url=
done
[ -n "$url" ] || fail "ollama did not start (log: $(tail -n 5 "$tmp/ollama.log" 2>/dev/null))"
echo "realserver-ollama: Ollama $(curl -s "${url%/v1}/api/version" | jq -r .version) at $url, context $ctx"

echo "-- go test pkg/llm against it"
NGKIT_OLLAMA_URL=$url NGKIT_OLLAMA_CTX=$ctx go test -count=1 -run '^TestRealOllama' ./pkg/llm

go build -o "$tmp/bin/ngkit" ./cmd/ngkit
"$tmp/bin/ngkit" links "$tmp/bin" >/dev/null
export PATH="$tmp/bin:$PATH" NG_BASE_URL=$url NG_MODEL=babel-tiny
unset OPENAI_API_KEY OPENAI_BASE_URL NG_API_KEY
# Small bounds keep CI time short: the CPU build generates ~10 tokens/s
# under load, and nearly every reply fails the content checks.
common=(--no-cache --concurrency 4 --max-retries 0 --max-reasks 1 --max-tokens 80 --timeout 3m --deadline 5m --backoff 100ms)

ngcat --from normgenesis testdata/normgenesis/american_adherence.json testdata/normgenesis/korean_violation.json \
  | jq -c 'select(.category == "apology")' > "$tmp/release.jsonl"
jq -c -s '[.[] | select(.culture == "korean")][0:1][]' "$tmp/release.jsonl" > "$tmp/two.jsonl"
jq -c -n 'input | {id, culture, category, norm, norm_id}' "$tmp/two.jsonl" > "$tmp/norm.jsonl"
# PACT items: the CLI cases' two (copies of them for the restart case).
cp testdata/cli/ngpact/input/items.jsonl "$tmp/items.jsonl"

name=realserver-ollama schema_error='invalid JSON schema in format'
. scripts/realserver-run.sh

echo "-- the programs"
run ngseed "$tmp/norm.jsonl" ngseed --per-norm 2 --max-topups 0 --types adherence,violation
run ngrefine "$tmp/two.jsonl" ngrefine --max-rounds 1
run ngv2r "$tmp/two.jsonl" ngv2r
run nglabel "$tmp/two.jsonl" nglabel --tasks norm,intent
cat > "$tmp/episodes.jsonl" <<'SPECS'
{"id":"ko2","culture":"korean","lang":"ko","episode":{"subgroup":"a university student in Busan","domain":"gifts_and_etiquette","goal":"Choose a gift for a professor.","constraints":[{"id":"g1","text":"The gift must be modest so the professor is not burdened.","reveal":"implicit"},{"id":"g2","text":"Give and receive the gift with both hands.","reveal":"explicit"}],"opening":"안녕하세요, 교수님께 드릴 선물을 고르는 걸 도와주세요."}}
SPECS
run ngsim "$tmp/episodes.jsonl" ngsim --max-turns 1
run ngpact "$tmp/items.jsonl" ngpact --method logprobs
run ngpact-sample "$tmp/items.jsonl" ngpact --method sample --samples 2 --max-tokens 3
# A result is the model's answer or the record failed: never a server
# error written as an item's result.
if jq -r '.pact[]?.error // empty' "$out/ngpact.jsonl" "$out/ngpact-sample.jsonl" | grep -E -q 'HTTP|connection'; then
  fail "ngpact: a server error written as a result"
fi

echo "-- ngpact, a base model through /v1/completions"
code=0
timeout 600 ngpact --api completions --method logprobs "${common[@]}" "$tmp/items.jsonl" -o "$out/base-lp.jsonl" 2> "$out/base-lp.stderr" || code=$?
[ "$code" = 2 ] || fail "ngpact-base logprobs: exit $code, want 2: $(cat "$out/base-lp.stderr")"
[ "$(grep -c . "$out/base-lp.stderr")" = 1 ] && grep -q "returned no logprobs in its text completion.*Ollama's, as of v0.24, ignores logprobs there.*--method sample" "$out/base-lp.stderr" \
  || fail "ngpact-base logprobs: $(cat "$out/base-lp.stderr")"
echo "realserver-ollama: ngpact-base logprobs: exit 2 (expected: Ollama sends no logprobs there): $(cat "$out/base-lp.stderr")"
run ngpact-base-sample "$tmp/items.jsonl" ngpact --api completions --method sample --samples 2
[ "$(jq -s '[.[].pact[] | select(.base == true and .samples == 2)] | length' "$out/ngpact-base-sample.jsonl")" = 4 ] \
  || fail "ngpact-base-sample: want 4 base results: $(head -c 600 "$out/ngpact-base-sample.jsonl")"

echo "-- a prompt over the context"
jq -c -n 'input | .id += "-long" | .situation = ([range(700)] | map("The guests wait for the host to begin.") | join(" "))' "$tmp/two.jsonl" > "$tmp/long.jsonl"
run long "$tmp/long.jsonl" ngv2r
grep -q "the server cut the prompt to $ctx tokens (its context of $ctx)" "$out/long-errors.jsonl" \
  || fail "over the context: $(jq -r .error "$out/long-errors.jsonl")"

echo "-- Ollama killed and restarted mid-run"
jq -c -n '[inputs] as $it | range(20) as $i | $it[] | .id += "-\($i)"' "$tmp/items.jsonl" > "$tmp/forty.jsonl"
pid=$(cat "$pidfile")
# The same server again: its environment (state directory, port, context).
mapfile -t env < <(tr '\0' '\n' < "/proc/$pid/environ" | grep -E '^(HOME|OLLAMA_[A-Z_]+)=')
code=0
# --max-retries 2: the requests in flight when it dies are dropped (EOF),
# and their retry is refused, then waited for.
ngpact --method logprobs "${common[@]}" --max-retries 2 --wait-server 2m "$tmp/forty.jsonl" \
  -o "$out/restart.jsonl" --errors "$out/restart-errors.jsonl" 2> "$out/restart.stderr" &
run_pid=$!
sleep 2
kill "$pid"
sleep 5
env -i PATH="$PATH" "${env[@]}" "$ol/ollama" serve </dev/null >>"$tmp/ollama.log" 2>&1 &
echo $! > "$pidfile"
wait "$run_pid" || code=$?
[ "$code" = 0 ] || [ "$code" = 1 ] || fail "restart: exit $code: $(tail -n 3 "$out/restart.stderr")"
n=$(( $(wc -l < "$out/restart.jsonl") + $(wc -l < "$out/restart-errors.jsonl") ))
[ "$n" = 40 ] || fail "restart: $n of 40 items written or failed"
[ "$(grep -c 'refused; retrying for up to 2m0s' "$out/restart.stderr")" = 1 ] || fail "restart: not one waiting line: $(cat "$out/restart.stderr")"
if jq -r '.pact[]?.error // empty' "$out/restart.jsonl" | grep -E -q 'HTTP|connection|refused'; then
  fail "restart: a server failure written as an item's result"
fi
if grep -q -E 'refused|connection' "$out/restart-errors.jsonl"; then
  fail "restart: items failed on the restart: $(jq -r .error "$out/restart-errors.jsonl" | head -n 2)"
fi
echo "realserver-ollama: restart: exit $code$(expected_failures "$code"), $(wc -l < "$out/restart.jsonl") written, $(wc -l < "$out/restart-errors.jsonl") in the errors file; $(grep -c . "$out/restart.stderr") stderr lines"
echo "realserver-ollama: ok"
