#!/usr/bin/env bash
# The LLM programs against a real llama.cpp llama-server with a tiny
# random-weight model (../shared/llm beside the repository; skipped with a
# line when it is absent). The model writes nonsense, so content checks
# fail and records end in the errors file: this tests the protocol, as a
# user would meet it — grammars of every reply schema, errors, slots,
# token counts, the API key — not the quality of the replies.
#
# Starts the server on a free port with --parallel 4 and an API key, then:
#   - the Go tests of pkg/llm against it (every reply schema accepted and
#     its reply valid; --concurrency auto; the over-context 400; json_object);
#   - ngseed, ngrefine, ngv2r (JSON and text mode) and nglabel on a few
#     records with small retry bounds: exit 0 or 1, every input in the
#     output or the errors file, no hang (--deadline, and a timeout over it);
#   - ngseed --types episode: no spec refused for a made-up norm_id;
#   - ngpact with a base model (--api completions): the items as plain
#     text to /v1/completions, whose logprobs (llama-server's chat-shaped
#     ones) pass the probe; every result says base;
#   - ngsim on two Korean episode specs: the simulator's and the judge's
#     replies, decoded under each episode's schemas (its constraint ids as
#     enums), never name an id that is not the episode's;
#   - a prompt over the context: a clear error naming the context size;
#   - --concurrency auto: 4 slots found;
#   - a wrong API key: exit 1 after the first records, one line saying so;
#   - neither key in any file the programs wrote.
# The server is killed on exit. Needs Go, jq and bash.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
llm=../shared/llm
if [ ! -x "$llm/start.sh" ]; then
  echo "realserver: skipped: no $llm/start.sh (llama-server and a tiny model for protocol tests)"
  exit 0
fi

tmp=$(mktemp -d)
out=$tmp/out # everything the programs write, searched for the keys at the end
mkdir -p "$out" "$tmp/bin"
pidfile=$tmp/server.pid
cleanup() {
  if [ -s "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
  if [ -n "${KEEP:-}" ]; then echo "realserver: files kept in $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
fail() { echo "realserver: FAIL: $*" >&2; exit 1; }

key="sk-ngkit-realserver-$RANDOM$RANDOM-5f0c2b9e71d4"
wrong="sk-ngkit-wrong-$RANDOM$RANDOM-a81d3c6f0e92"
slots=4

# A free port: probe random ones; start.sh refuses a port in use, so a
# port taken in between is just tried again.
url=
for _ in 1 2 3 4 5; do
  port=$(( 20000 + RANDOM % 20000 ))
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
  if url=$(PIDFILE=$pidfile LOGFILE=$tmp/server.log "$llm/start.sh" "$port" --parallel "$slots" -c 16384 --api-key "$key"); then
    break
  fi
  url=
done
[ -n "$url" ] || fail "llama-server did not start (log: $(tail -n 5 "$tmp/server.log" 2>/dev/null))"
echo "realserver: llama-server at $url, $slots slots"

echo "-- go test pkg/llm against it"
NGKIT_REALSERVER_URL=$url NGKIT_REALSERVER_KEY=$key NGKIT_REALSERVER_SLOTS=$slots \
  go test -count=1 -run '^TestRealServer' ./pkg/llm/...

go build -o "$tmp/bin/ngkit" ./cmd/ngkit
"$tmp/bin/ngkit" links "$tmp/bin" >/dev/null
export PATH="$tmp/bin:$PATH" NG_BASE_URL=$url NG_MODEL=babel-tiny NG_API_KEY=$key
unset OPENAI_API_KEY OPENAI_BASE_URL
common=(--no-cache --concurrency "$slots" --max-retries 1 --max-reasks 1 --max-tokens 400 --timeout 3m --deadline 5m --backoff 100ms)

# Inputs: records of the release sample (culture, category, norm, scenario,
# situation, turns): seeds for ngrefine and ngv2r, dialogues for nglabel,
# one norm for ngseed.
ngcat --from normgenesis testdata/normgenesis/american_adherence.json testdata/normgenesis/korean_violation.json \
  | jq -c 'select(.category == "apology")' > "$tmp/release.jsonl"
jq -c -s '[.[] | select(.culture == "american")][0:1][], [.[] | select(.culture == "korean")][0:1][]' "$tmp/release.jsonl" > "$tmp/two.jsonl"
jq -c -n 'input | {id, culture, category, norm, norm_id}' "$tmp/two.jsonl" > "$tmp/norm.jsonl"
cp testdata/cli/ngpact/input/items.jsonl "$tmp/items.jsonl" # PACT items: the CLI cases' two

name=realserver schema_error='Failed to parse input'
. scripts/realserver-run.sh

echo "-- the programs"
run ngseed "$tmp/norm.jsonl" ngseed --per-norm 2 --max-topups 0 --types adherence,violation
run ngrefine "$tmp/two.jsonl" ngrefine --max-rounds 1
run ngv2r "$tmp/two.jsonl" ngv2r
run ngv2r-text "$tmp/two.jsonl" ngv2r --text-mode
run nglabel "$tmp/two.jsonl" nglabel --tasks norm,intent

# ngsim: the grammar of each episode's schemas allows only its constraint
# ids, so no reply is refused for an id (before, the model made them up
# and the episodes failed); language re-asks are expected.
cat > "$tmp/episodes.jsonl" <<'SPECS'
{"id":"ko1","culture":"korean","lang":"ko","episode":{"subgroup":"a junior employee at a Seoul company","domain":"work","goal":"Plan a team dinner with the manager.","constraints":[{"id":"c1","text":"The manager must be offered the first pour and the seat farthest from the door.","reveal":"implicit"},{"id":"c2","text":"The user cannot drink alcohol for health reasons but must not refuse rudely.","reveal":"explicit"},{"id":"c3","text":"The user would lose face if the restaurant looked cheap to the manager.","reveal":"never"}],"opening":"안녕하세요, 팀장님과 함께하는 회식 장소를 정하는 것 좀 도와주실 수 있나요?"}}
{"id":"ko2","culture":"korean","lang":"ko","episode":{"subgroup":"a university student in Busan","domain":"gifts_and_etiquette","goal":"Choose a gift for a professor.","constraints":[{"id":"g1","text":"The gift must be modest so the professor is not burdened.","reveal":"implicit"},{"id":"g2","text":"Give and receive the gift with both hands.","reveal":"explicit"}],"opening":"안녕하세요, 교수님께 드릴 선물을 고르는 걸 도와주세요."}}
SPECS
run ngsim "$tmp/episodes.jsonl" ngsim --max-turns 2
if grep -E -q 'not a constraint (id|of the episode)|never to be revealed|does not match schema sim_' "$out/ngsim-errors.jsonl"; then
  fail "ngsim: a reply named a wrong constraint id under the episode's schema: $(jq -r .error "$out/ngsim-errors.jsonl" | head -n 3)"
fi
bad=$(jq -r --slurpfile specs "$tmp/episodes.jsonl" '. as $r | ($specs[] | select(.id == $r.parent_id) | [.episode.constraints[].id]) as $ids
  | select(($r.sim.judge != null and ([$r.sim.judge.constraints[].id] != $ids)) or ((($r.sim.revealed // []) - $ids) | length > 0)) | .parent_id' "$out/ngsim.jsonl")
[ -z "$bad" ] || fail "ngsim: episodes whose revealed or judged ids are not their spec's: $bad"

# ngseed --types episode: norm_id is an enum of the norms offered to the
# slot, so no spec is refused for a made-up norm id (before, each was).
code=0
timeout 600 ngseed --types episode --culture korean --domains work --per-domain 2 "${common[@]}" \
  -o "$out/episode-seed.jsonl" --errors "$out/episode-seed-errors.jsonl" 2> "$out/episode-seed.stderr" || code=$?
[ "$code" = 0 ] || [ "$code" = 1 ] || fail "ngseed --types episode: exit $code: $(tail -n 3 "$out/episode-seed.stderr")"
if grep -q 'is not one of the norms listed' "$out/episode-seed-errors.jsonl"; then
  fail "ngseed --types episode: a made-up norm_id under the slot's schema: $(jq -r .error "$out/episode-seed-errors.jsonl" | head -n 1)"
fi
n=$(( $(wc -l < "$out/episode-seed.jsonl") + $(wc -l < "$out/episode-seed-errors.jsonl") ))
[ "$n" = 2 ] || fail "ngseed --types episode: $n specs written or failed, want 2"
echo "realserver: ngseed --types episode: exit $code$(expected_failures "$code"), $(wc -l < "$out/episode-seed.jsonl") written, $(wc -l < "$out/episode-seed-errors.jsonl") in the errors file"

echo "-- ngpact, a base model through /v1/completions"
run ngpact-base "$tmp/items.jsonl" ngpact --api completions --method logprobs
[ "$(jq -s '[.[].pact[] | select(.base == true and .method == "logprobs")] | length' "$out/ngpact-base.jsonl")" = 4 ] \
  || fail "ngpact-base: want 4 base results: $(head -c 600 "$out/ngpact-base.jsonl")"
if jq -r '.pact[]?.error // empty' "$out/ngpact-base.jsonl" | grep -E -q 'HTTP|connection|no logprobs'; then
  fail "ngpact-base: $(jq -r '.pact[]?.error // empty' "$out/ngpact-base.jsonl" | head -n 1)"
fi

echo "-- a prompt over the context"
jq -c -n 'input | .id += "-long" | .situation = ([range(3000)] | map("The guests wait for the host to begin.") | join(" "))' "$tmp/two.jsonl" > "$tmp/long.jsonl"
run long "$tmp/long.jsonl" ngv2r
grep -q "longer than the server's context of 4096 tokens" "$out/long-errors.jsonl" \
  || fail "over the context: $(jq -r .error "$out/long-errors.jsonl")"

echo "-- --concurrency auto"
timeout 600 ngv2r --no-cache --concurrency auto --max-retries 0 --max-reasks 0 --max-tokens 20 --deadline 5m \
  "$tmp/two.jsonl" -o "$out/auto.jsonl" --errors "$out/auto-errors.jsonl" 2> "$out/auto.stderr" || true
grep -q "has $slots slots" "$out/auto.stderr" || fail "--concurrency auto: $(cat "$out/auto.stderr")"

echo "-- a wrong API key"
jq -c -n 'input as $r | range(30) as $i | $r | .id += "-\($i)"' "$tmp/two.jsonl" > "$tmp/thirty.jsonl"
code=0
NG_API_KEY=$wrong timeout 600 ngv2r "${common[@]}" "$tmp/thirty.jsonl" -o "$out/wrongkey.jsonl" \
  --errors "$out/wrongkey-errors.jsonl" 2> "$out/wrongkey.stderr" || code=$?
[ "$code" = 1 ] || fail "wrong key: exit $code: $(cat "$out/wrongkey.stderr")"
last=$(tail -n 1 "$out/wrongkey.stderr")
case "$last" in
  *"stopped early"*"HTTP 401"*"Invalid API Key"*) ;;
  *) fail "wrong key: last line: $last" ;;
esac
n401=$(grep -c 'HTTP 401' "$out/wrongkey-errors.jsonl" || true)
[ "$n401" -lt 30 ] || fail "wrong key: all $n401 records were sent"
[ "$(grep -c . "$out/wrongkey.stderr")" -le 3 ] || fail "wrong key: stderr: $(cat "$out/wrongkey.stderr")"
echo "realserver: wrong key: exit 1 (expected: a wrong key stops the run early) after $n401 records: $last"

echo "-- the keys in no file written"
if grep -rlF -e "$key" -e "$wrong" "$out"; then fail "an API key was written to the files above"; fi
echo "realserver: ok"
