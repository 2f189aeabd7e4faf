#!/usr/bin/env bash
# End-to-end shell test of the whole pipeline, on one fake model for every
# stage (internal/fakeng: real NormGenesis release text, served by the fake
# OpenAI-compatible server of pkg/llm/llmtest):
#
#   ngseed | ngrefine | ngv2r | nglabel | ngstats --fail-on any=0
#
# 1. for each culture, 1 norm x 2 scenarios x 3 types: every exit status 0,
#    no failed record, no defect, 6 dialogues (2 per type), V2R turns staged,
#    every turn labelled;
# 2. streaming: norms fed to `ngseed -` through a FIFO; dialogues come out
#    of `ngseed - | ngrefine | ngv2r` before the input is closed;
# 3. the same pipeline on 3 norms (one per culture) with 10% of the
#    requests faulty: every record of every stage is in its output or its
#    errors file, and ngstats still finds no defect;
# 4. nglabel on the release sample (ngcat --from normgenesis), 3 samples,
#    every task, 10% faults: no record lost, every label task, agreement
#    and quality in the report; then ngcat --to prosocial;
# 5. model roles from one models file (no default endpoint): the writer,
#    ngrefine's and nglabel's judge and a three-model labelling panel on
#    their own fake endpoints; a dead labeller; --require-all-labellers;
#    unknown alias, unknown role and unset key variable (exit 2);
# 6. --batch: the pipeline of run 1 (korean) on the fake Batch API with no
#    manual step gives the dialogues and labels of the online pipeline on
#    the same (fresh) fake server; run again, it
#    submits nothing (every reply is in the state directories);
# then the calls per finished dialogue of runs 1 and 3.
#
# Needs Go and jq. Builds and installs the programs into a temporary PREFIX.
#   bash scripts/e2e.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
command -v jq >/dev/null || { echo "e2e: needs jq (apt-get install jq)" >&2; exit 2; }

step() { printf '\n== e2e: %s\n' "$*"; }
fail() { echo "e2e FAIL: $*" >&2; exit 1; }
ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)

tmp=$(mktemp -d)
fakes=()
cleanup() {
  exec 3>&- # the streaming test's FIFO: its pipeline ends at EOF
  for p in "${fakes[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${fakes[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

step "install into a temporary PREFIX"
PREFIX="$tmp" bash scripts/install.sh >/dev/null
go build -o "$tmp/bin/fakeng" ./internal/fakeng/cmd/fakeng
export PATH="$tmp/bin:$PATH"
export NG_MODEL=fake NG_CULTURES_DIR="$tmp/cultures" # no user culture profile overrides the built-in ones
unset NG_API_KEY OPENAI_API_KEY OPENAI_BASE_URL

# fake NAME [FLAGS]: start a fake server (any free port) and point
# NG_BASE_URL at it; the trap stops it.
fake() {
  local url="$tmp/$1.url"
  shift
  fakeng --url-file "$url" "$@" >/dev/null 2>>"$tmp/fake.log" &
  fakes+=("$!")
  for _ in $(seq 600); do [ -s "$url" ] && break; sleep 0.1; done
  [ -s "$url" ] || fail "the fake server did not start: $(cat "$tmp/fake.log")"
  export NG_BASE_URL=$(cat "$url")
}

# The LLM programs' flags: no cache (every call reaches the fake), quick
# retries, a request timeout well under the fake's slow replies (10 s) but
# generous for a loaded machine, and a deadline so that nothing hangs.
llm=(--no-cache --backoff 10ms --retry-after-cap 200ms --timeout 3s --deadline 3m -q)

# pipe DIR NGSEED_ARGS...: the whole pipeline; each stage's output, errors
# and usage in DIR, the exit statuses in DIR/status.
pipe() {
  local d=$1
  shift
  mkdir -p "$d"
  set +e
  ngseed "$@" --per-norm 2 --types adherence,violation,v2r "${llm[@]}" --errors "$d/e.seed.jsonl" --usage-json "$d/u.seed.json" \
    | tee "$d/seeds.jsonl" \
    | ngrefine "${llm[@]}" --errors "$d/e.refine.jsonl" --usage-json "$d/u.refine.json" \
    | tee "$d/refined.jsonl" \
    | ngv2r "${llm[@]}" --errors "$d/e.v2r.jsonl" --usage-json "$d/u.v2r.json" \
    | tee "$d/dialogues.jsonl" \
    | nglabel --tasks all "${llm[@]}" --errors "$d/e.label.jsonl" --usage-json "$d/u.label.json" \
    | tee "$d/labelled.jsonl" \
    | ngstats --fail-on any=0 --json -q >"$d/report.json"
  echo "${PIPESTATUS[*]}" >"$d/status"
  set -e
  for f in seed refine v2r label; do touch "$d/e.$f.jsonl"; done
}

lines() { wc -l <"$1" | tr -d ' '; }

# check_report DIR WHAT N: ngstats read N records and found no defect.
check_report() {
  local r=$1/report.json
  jq -e --argjson n "$3" '.records == $n and .records_with_defects == 0 and (.defects | length) == 0' "$r" >/dev/null \
    || fail "$2: ngstats: $(jq -c '{records, records_with_defects, defects: [.defects[] | {name, count}]}' "$r")"
}

# check_dialogues FILE WHAT: V2R turns carry stages in order, violation
# dialogues mark a violation, adherence dialogues have no stage; with
# labels (nglabel's output), every turn is labelled and V2R turns get a
# stage label, and every dialogue has quality scores.
check_dialogues() {
  jq -e -s '
    def rank: {"context": 0, "violation": 1, "recognition": 2, "repair": 3, "resolution": 4}[.];
    all(.[];
      (.turns | length) >= 5 and
      if .dialogue_type == "v2r" then
        all(.turns[]; .stage | rank != null) and ([.turns[].stage | rank] | . == sort) and
        ([.turns[].stage] | unique | contains(["violation", "recognition", "repair", "resolution"]))
      elif .dialogue_type == "violation" then any(.turns[]; .stage == "violation")
      else all(.turns[]; .stage == null) end)' "$1" >/dev/null || fail "$2: dialogues without the stages of their type"
}
check_labels() {
  jq -e -s '
    all(.[];
      all(.turns[]; .labels | .norm and .intent and .emotion and .safety) and
      (.dialogue_type != "v2r" or all(.turns[]; .labels.stage)) and
      (.quality | .norm and .naturalness and .coherence))' "$1" >/dev/null || fail "$2: labels missing"
}

# Requests per finished dialogue, by type and stage, from the records'
# provenance (gen: one entry per call, retries and re-asks counted in it).
# A norm's scenarios call is listed in each of its adherence seeds: it is
# shared among them. Derived (violation, V2R) seeds list only their own
# call, not their parent's scenarios and situation calls.
calls_by_type() {
  jq -rs '
    (map(select(.dialogue_type == "adherence")) | group_by(.norm_id) | map({key: .[0].norm_id, value: length}) | from_entries) as $adh
    | def r2: . * 100 | round / 100;
    group_by(.dialogue_type)[]
    | length as $n
    | [.[] | .norm_id as $norm | .gen[]
        | {stage, req: ((1 + (.retries // 0)) / (if .call == "scenarios" then $adh[$norm] else 1 end))}] as $g
    | [.[0].dialogue_type, $n,
       (["ngseed", "ngrefine", "ngv2r", "nglabel"][] as $s | [$g[] | select(.stage == $s) | .req] | add // 0 | . / $n | r2),
       ([$g[].req] | add / $n | r2)]
    | @tsv' "$@" | sort
}
print_calls() { # TITLE DIR...
  local title=$1
  shift
  local labelled=() usage=() d
  for d in "$@"; do labelled+=("$d/labelled.jsonl"); usage+=("$d"/u.*.json); done
  echo "$title"
  printf '  %-10s %4s %7s %7s %7s %7s %7s\n' type n ngseed ngrefine ngv2r nglabel total
  calls_by_type "${labelled[@]}" | while IFS=$'\t' read -r typ n a b c e tot; do
    printf '  %-10s %4s %7s %7s %7s %7s %7s\n' "$typ" "$n" "$a" "$b" "$c" "$e" "$tot"
  done
  # All requests sent, failed calls too, from --usage-json.
  jq -rs --argjson n "$(cat "${labelled[@]}" | wc -l)" '
    (group_by(.stage) | map({key: .[0].stage, value: (map(.total.requests) | add)}) | from_entries) as $r
    | "  all requests (--usage-json): ngseed \($r.ngseed), ngrefine \($r.ngrefine), ngv2r \($r.ngv2r), nglabel \($r.nglabel); "
      + "\($r | add) for \($n) dialogues, \(($r | add) / ([$n, 1] | max) * 100 | round / 100) per dialogue; "
      + "faults: \(map(.total.faults // {} | to_entries[]) | group_by(.key) | map("\(.[0].key) \(map(.value) | add)") | join(", ") | if . == "" then "none" else . end)"' "${usage[@]}"
}

step "ngseed | ngrefine | ngv2r | nglabel | ngstats, per culture (no faults)"
fake clean
for c in american chinese korean; do
  d="$tmp/$c"
  pipe "$d" --culture "$c" --limit 1
  [ "$(cat "$d/status")" = "0 0 0 0 0 0 0 0 0" ] \
    || fail "$c: exit statuses $(cat "$d/status") (ngseed tee ngrefine tee ngv2r tee nglabel tee ngstats)"
  for e in "$d"/e.*.jsonl; do [ ! -s "$e" ] || fail "$c: $(lines "$e") records failed: $(head -c 600 "$e")"; done
  check_report "$d" "$c" 6
  jq -e --arg c "$c" '[.counts.by_culture[].key] == [$c] and
      ([.counts.by_type[] | {(.key): .records}] | add) == {"adherence": 2, "violation": 2, "v2r": 2}' \
    "$d/report.json" >/dev/null || fail "$c: counts $(jq -c .counts.by_culture_type "$d/report.json")"
  for f in seeds refined dialogues labelled; do [ "$(lines "$d/$f.jsonl")" = 6 ] || fail "$c: $(lines "$d/$f.jsonl") $f, want 6"; done
  check_dialogues "$d/dialogues.jsonl" "$c"
  check_labels "$d/labelled.jsonl" "$c"
  jq -e '.labels.dist | map(.task) | unique == ["emotion", "intent", "norm", "safety", "stage"]' "$d/report.json" >/dev/null \
    || fail "$c: label tasks in the report $(jq -c '.labels.dist | map(.task) | unique' "$d/report.json")"
  echo "$c: 6 dialogues (2 adherence, 2 violation, 2 v2r), labelled, no defect"
done

step "streaming: dialogues leave ngseed - | ngrefine | ngv2r before the input ends"
d="$tmp/stream"
mkdir -p "$d"
jq -c 'select(.culture == "chinese")' pkg/normbank/data/norms.jsonl | sed -n '2,3p' >"$d/norms.jsonl"
mkfifo "$d/norms.fifo"
(
  set +e
  ngseed - --per-norm 2 --types adherence,violation,v2r "${llm[@]}" <"$d/norms.fifo" \
    | ngrefine "${llm[@]}" | ngv2r "${llm[@]}" >"$d/out.jsonl"
  echo "${PIPESTATUS[*]}" >"$d/status" 2>/dev/null # (gone if the test failed)
) &
stream=$!
exec 3>"$d/norms.fifo"
sed -n 1p "$d/norms.jsonl" >&3
start=$(ms)
for _ in $(seq 200); do [ -s "$d/out.jsonl" ] && break; sleep 0.1; done # 20 s at most
[ -s "$d/out.jsonl" ] || fail "no dialogue 20 s after the first norm, with the input still open"
first=$(($(ms) - start))
echo "first dialogue after $((first / 1000)).$(printf %03d $((first % 1000))) s, input still open"
sed -n 2p "$d/norms.jsonl" >&3
exec 3>&-
wait "$stream"
[ "$(cat "$d/status")" = "0 0 0" ] || fail "streaming: exit statuses $(cat "$d/status")"
[ "$(lines "$d/out.jsonl")" = 12 ] || fail "streaming: $(lines "$d/out.jsonl") dialogues, want 12"
echo "streaming: 12 dialogues from 2 norms"

step "one norm per culture, 10% of the requests faulty: no record lost"
fake faults --fault-rate 0.1
d="$tmp/faults"
mkdir -p "$d"
jq -cs 'group_by(.culture) | map(.[0]) | .[]' pkg/normbank/data/norms.jsonl >"$d/norms.jsonl"
pipe "$d" "$d/norms.jsonl"
read -r -a st <"$d/status"
i=0
for f in seed refine v2r label; do
  s=${st[$((2 * i))]}
  [ "$s" = 0 ] || { [ "$s" = 1 ] && [ -s "$d/e.$f.jsonl" ]; } || fail "faults: $f exit status $s with $(lines "$d/e.$f.jsonl") errors"
  i=$((i + 1))
done
[ "${st[1]}${st[3]}${st[5]}${st[7]}" = 0000 ] || fail "faults: exit statuses ${st[*]}"
[ "${st[8]}" = 0 ] || fail "faults: ngstats exit status ${st[8]}"
# Every input record of a stage is in its output (by id or parent_id) or
# in its errors file; ngseed writes a norm's 6 seeds together or none.
accounted() { # IN OUT ERRORS WHAT
  local missing
  missing=$(comm -23 <(jq -r .id "$1" | sort -u) <({ jq -r '.id, (.parent_id // empty)' "$2"; jq -r .id "$3"; } | sort -u))
  [ -z "$missing" ] || fail "faults: $4: records neither in the output nor in the errors file: $missing"
  [ "$(($(lines "$2") + $(lines "$3")))" = "$(lines "$1")" ] \
    || fail "faults: $4: $(lines "$1") in, $(lines "$2") out + $(lines "$3") failed"
}
[ "$(lines "$d/seeds.jsonl")" = $((6 * (3 - $(lines "$d/e.seed.jsonl")))) ] \
  || fail "faults: ngseed: $(lines "$d/seeds.jsonl") seeds and $(lines "$d/e.seed.jsonl") failed norms of 3"
accounted "$d/seeds.jsonl" "$d/refined.jsonl" "$d/e.refine.jsonl" ngrefine
accounted "$d/refined.jsonl" "$d/dialogues.jsonl" "$d/e.v2r.jsonl" ngv2r
accounted "$d/dialogues.jsonl" "$d/labelled.jsonl" "$d/e.label.jsonl" nglabel
check_report "$d" faults "$(lines "$d/labelled.jsonl")"
check_dialogues "$d/dialogues.jsonl" faults
check_labels "$d/labelled.jsonl" faults
echo "faults: $(lines "$d/labelled.jsonl") of 18 dialogues labelled;" \
  "failed: $(lines "$d/e.seed.jsonl") norms, $(lines "$d/e.refine.jsonl") refinements, $(lines "$d/e.v2r.jsonl") dialogues, $(lines "$d/e.label.jsonl") labellings"

step "nglabel on the release sample: 3 samples, every task, 10% faults; -> ngcat --to prosocial"
d="$tmp/release"
mkdir -p "$d"
set +e
ngcat --from normgenesis testdata/normgenesis/*.json \
  | nglabel --tasks all --samples 3 "${llm[@]}" --errors "$d/e.label.jsonl" \
  | tee "$d/labelled.jsonl" \
  | ngstats --json -q >"$d/report.json"
echo "${PIPESTATUS[*]}" >"$d/status"
set -e
touch "$d/e.label.jsonl"
read -r -a st <"$d/status"
{ [ "${st[1]}" = 0 ] || { [ "${st[1]}" = 1 ] && [ -s "$d/e.label.jsonl" ]; }; } && [ "${st[0]}${st[2]}${st[3]}" = 000 ] \
  || fail "release: exit statuses ${st[*]} (ngcat nglabel tee ngstats)"
records=$(jq .records "$d/report.json")
failed=$(lines "$d/e.label.jsonl")
[ "$((records + failed))" = 135 ] || fail "release: $records records + $failed failed != 135"
jq -e '.labels.dist | map(.task) | unique == ["emotion", "intent", "norm", "safety", "stage"]' "$d/report.json" >/dev/null \
  || fail "release: label tasks $(jq -c '.labels.dist | map(.task) | unique' "$d/report.json")"
jq -e '.labels.agreement | length == 5 and all(.samples == 3)' "$d/report.json" >/dev/null || fail "release: agreement $(jq -c .labels.agreement "$d/report.json")"
jq -e '.labels.intent_by_stage | length == 5' "$d/report.json" >/dev/null || fail "release: intent by stage"
jq -e '.labels.quality[0].n > 0' "$d/report.json" >/dev/null || fail "release: no quality scores"
rows=$(ngcat --to prosocial "$d/labelled.jsonl" | wc -l)
[ "$rows" -gt "$records" ] || fail "release: $rows ProsocialDialog rows for $records dialogues"
echo "release: $records records labelled ($failed failed), $rows ProsocialDialog rows"

step "model roles: writer, judge and a three-model labelling panel on six fake endpoints, from one models file"
d="$tmp/roles"
mkdir -p "$d"
for e in writer judge la; do fake "$e"; done
fake lb --label-variant 1
fake lc --label-variant 2
unset NG_BASE_URL # every role from the models file: no default endpoint
cat >"$d/models.yaml" <<YAML
endpoints:
  writer: {base_url: "$(cat "$tmp/writer.url")", model: fake-writer, concurrency: 8}
  judge: {base_url: "$(cat "$tmp/judge.url")", model: fake-judge, concurrency: 4, temperature: 0}
  la: {base_url: "$(cat "$tmp/la.url")", model: fake-a}
  lb: {base_url: "$(cat "$tmp/lb.url")", model: fake-b}
  lc: {base_url: "$(cat "$tmp/lc.url")", model: fake-c}
  dead: {base_url: "http://127.0.0.1:9/v1", model: fake-dead}
  keyed: {base_url: "$(cat "$tmp/la.url")", model: fake-keyed, api_key_env: NGKIT_E2E_UNSET_KEY}
roles:
  writer: writer
  rewriter: writer
  judge: judge
  nglabel.labeller: [la, lb, lc]
YAML
NG_MODELS="$d/models.yaml" pipe "$d" --culture korean --limit 1
[ "$(cat "$d/status")" = "0 0 0 0 0 0 0 0 0" ] || fail "roles: exit statuses $(cat "$d/status")"
for e in "$d"/e.*.jsonl; do [ ! -s "$e" ] || fail "roles: $(lines "$e") records failed: $(head -c 600 "$e")"; done
check_report "$d" roles 6
check_labels "$d/labelled.jsonl" roles
# Every call went to its role's endpoint (the fake judge accepts every seed: no rewrite).
jq -e -s 'all(.[]; all(.gen[];
    if .stage == "ngrefine" then (.call | startswith("judge")) as $j | (.role == (if $j then "judge" else "rewriter" end)) and .endpoint == (if $j then "judge" else "writer" end)
    elif .stage == "nglabel" then (.call == "quality" and .role == "judge" and .endpoint == "judge")
      or (.call == "labels" and .role == "labeller" and (.endpoint | IN("la", "lb", "lc")))
    else .role == "writer" and .endpoint == "writer" end))' "$d/labelled.jsonl" >/dev/null \
  || fail "roles: a call on the wrong endpoint: $(jq -c '[.gen[] | {stage, call, role, endpoint}]' "$d/labelled.jsonl" | head -3)"
jq -e -s 'all(.[]; .labels_meta.panel == ["la", "lb", "lc"] and .labels_meta.fleiss_kappa != null and (.labels_meta.cohen_kappa | length) == 3
    and all(.turns[]; (.labels.by_model | map(.labeller)) == ["la", "lb", "lc"]))' "$d/labelled.jsonl" >/dev/null \
  || fail "roles: panel labels $(jq -c .labels_meta "$d/labelled.jsonl" | head -2)"
jq -e '(.endpoints | map(.alias)) == ["la", "lb", "lc", "judge"] and .by_role.judge.calls == 6 and .by_role.labeller.calls == 18' "$d/u.label.json" >/dev/null \
  || fail "roles: nglabel usage $(jq -c '{e: [.endpoints[] | {alias, calls: .total.calls}], by_role}' "$d/u.label.json")"
jq -e '.panel.records == 6 and (.panel.agreement | map(.task)) == ["norm", "intent", "emotion", "stage", "safety"]
    and (.panel.agreement[] | select(.task == "intent") | .fleiss_kappa < 1 and .krippendorff_alpha < 1)
    and (.calls | map(.role) | unique) == ["judge", "labeller", "writer"]' "$d/report.json" >/dev/null \
  || fail "roles: ngstats panel $(jq -c '{panel: .panel.agreement, calls: [.calls[] | {stage, role, endpoint, calls}]}' "$d/report.json")"
echo "roles: 6 dialogues; ngrefine's judge and nglabel's quality on 'judge', the panel la/lb/lc (intent: Fleiss $(jq '.panel.agreement[] | select(.task == "intent") | .fleiss_kappa * 1000 | round / 1000' "$d/report.json"), Krippendorff $(jq '.panel.agreement[] | select(.task == "intent") | .krippendorff_alpha * 1000 | round / 1000' "$d/report.json"))"

# One labeller of the panel fails every call (nothing listens at its port).
set +e
NG_MODELS="$d/models.yaml" nglabel "$d/dialogues.jsonl" --labellers la,dead,lb --tasks norm,intent "${llm[@]}" --max-retries 1 \
  --errors "$d/e.dead.jsonl" >"$d/dead.jsonl"
st=$?
set -e
[ "$st" = 0 ] && [ ! -s "$d/e.dead.jsonl" ] || fail "roles: a dead labeller: exit $st, $(lines "$d/e.dead.jsonl") failed"
jq -e -s 'length == 6 and all(.[]; (.labels_meta.failed_labellers | map(.labeller)) == ["dead"] and (.labels_meta.cohen_kappa | map([.a, .b])) == [["la", "lb"]]
    and all(.turns[]; (.labels.by_model | map(.labeller)) == ["la", "lb"]))' "$d/dead.jsonl" >/dev/null \
  || fail "roles: a dead labeller: $(jq -c .labels_meta "$d/dead.jsonl" | head -2)"
set +e
NG_MODELS="$d/models.yaml" nglabel "$d/dialogues.jsonl" --labellers la,dead,lb --tasks norm "${llm[@]}" --max-retries 1 \
  --require-all-labellers --errors "$d/e.all.jsonl" >/dev/null 2>"$d/all.err"
st=$?
set -e
[ "$st" = 1 ] && [ "$(jq -r .error "$d/e.all.jsonl" | grep -c '^labeller dead gave no labels')" = 6 ] \
  || fail "roles: --require-all-labellers: exit $st, errors $(head -c 300 "$d/e.all.jsonl")"
echo "  --require-all-labellers: exit 1 (expected: the dead labeller fails every record): $(tail -n 1 "$d/all.err")"
# Bad roles: exit 2, one line, before any call.
for bad in "nglabel --labellers la,zz" "nglabel --role writer=la" "ngrefine --judge keyed"; do
  set +e
  NG_MODELS="$d/models.yaml" $bad "$d/dialogues.jsonl" "${llm[@]}" >/dev/null 2>"$d/bad.err"
  st=$?
  set -e
  [ "$st" = 2 ] && [ "$(lines "$d/bad.err")" = 1 ] || fail "roles: $bad: exit $st: $(cat "$d/bad.err")"
  echo "  $bad: exit 2 (expected: a bad role stops before any call): $(cat "$d/bad.err")"
done
echo "roles: a dead labeller is named and the others kept; --require-all-labellers fails the 6 records; bad roles stop before any call"

step "PACT: ngseed --types pact --vary age | ngpact --questions choice,norm | ngstats, 10% faults"
fake pact --fault-rate 0.1
d="$tmp/pact"
mkdir -p "$d"
set +e
ngseed --types pact --categories thanks --per-norm 1 --vary age=18-29,50+ "${llm[@]}" --errors "$d/e.seed.jsonl" 2>"$d/seed.err" \
  | tee "$d/items.jsonl" \
  | ngpact --questions choice,norm "${llm[@]}" --errors "$d/e.pact.jsonl" 2>"$d/pact.err" \
  | tee "$d/results.jsonl" \
  | ngstats --json -q >"$d/report.json"
echo "${PIPESTATUS[*]}" >"$d/status"
set -e
touch "$d/e.seed.jsonl" "$d/e.pact.jsonl"
read -r -a st <"$d/status"
for i in 0 2; do [ "${st[$i]}" = 0 ] || [ "${st[$i]}" = 1 ] || fail "pact: exit statuses ${st[*]}: $(tail -n 2 "$d/seed.err" "$d/pact.err")"; done
[ "${st[1]}${st[3]}${st[4]}" = 000 ] || fail "pact: exit statuses ${st[*]} (ngseed tee ngpact tee ngstats)"
# 3 cultures x 10 thanks norms x 1 item x 2 ages; each norm's items or its error.
[ "$(($(lines "$d/items.jsonl") + 2 * $(lines "$d/e.seed.jsonl")))" = 60 ] || fail "pact: $(lines "$d/items.jsonl") items + $(lines "$d/e.seed.jsonl") failed norms"
[ "$(($(lines "$d/results.jsonl") + $(lines "$d/e.pact.jsonl")))" = "$(lines "$d/items.jsonl")" ] || fail "pact: items lost"
jq -e -s 'length > 0 and all(.[]; .variant_of != null and (.pact | length == 2 and all(.[]; .p_follow == 0.6 and .valid == 1 and .method == "logprobs")))' \
  "$d/results.jsonl" >/dev/null || fail "pact: results $(head -c 400 "$d/results.jsonl")"
echo "pact: $(lines "$d/results.jsonl") items evaluated (p_follow 0.6, the fake's); failed under faults: norms $(lines "$d/e.seed.jsonl"), items $(lines "$d/e.pact.jsonl") (expected: 10% of the requests are faulty; each is in its errors file)"

step "--batch: ngseed --batch | ngrefine --batch | ngv2r --batch | nglabel --batch on the fake Batch API"
fake batch
d="$tmp/batch"
mkdir -p "$d"
pipe "$d/online" --culture korean --limit 1 # the online run on this fresh server, to compare with
batchpipe() {
  local b=(--batch --batch-poll 50ms)
  set +e
  ngseed --culture korean --limit 1 --per-norm 2 --types adherence,violation,v2r "${llm[@]}" "${b[@]}" --batch-state "$d/s.seed" --usage-json "$d/u.seed.json" 2>>"$d/log" \
    | ngrefine "${llm[@]}" "${b[@]}" --batch-state "$d/s.refine" 2>>"$d/log" \
    | ngv2r "${llm[@]}" "${b[@]}" --batch-state "$d/s.v2r" 2>>"$d/log" \
    | nglabel --tasks all "${llm[@]}" "${b[@]}" --batch-state "$d/s.label" --usage-json "$d/u.label.json" 2>>"$d/log" >"$d/labelled.jsonl"
  echo "${PIPESTATUS[*]}" >"$d/status"
  set -e
}
batchpipe
[ "$(cat "$d/status")" = "0 0 0 0" ] || fail "batch: exit statuses $(cat "$d/status"): $(tail -5 "$d/log")"
check_labels "$d/labelled.jsonl" batch
same='[.[] | {id, dialogue_type, turns: [.turns[] | {speaker, text, labels}], quality}] | sort_by(.id)'
[ "$(jq -cs "$same" "$d/labelled.jsonl")" = "$(jq -cs "$same" "$d/online/labelled.jsonl")" ] \
  || fail "batch: the labelled dialogues differ from the online run's"
jq -e '.total.batched == .total.calls and .total.batched > 0' "$d/u.label.json" >/dev/null || fail "batch: nglabel's calls not batched: $(jq -c .total "$d/u.label.json")"
# Each batch's input file is in its state directory: a rerun that
# submitted anything would write more.
inputs() { find "$d"/s.* -name '*.in.jsonl' | wc -l | tr -d ' '; }
sent=$(inputs)
[ "$sent" -ge 4 ] || fail "batch: $sent batch input files in the state directories"
echo "batch: 6 dialogues labelled, the same as online; $sent batches over the four programs"
batchpipe
[ "$(cat "$d/status")" = "0 0 0 0" ] && [ "$(inputs)" = "$sent" ] \
  || fail "batch: the rerun: exit statuses $(cat "$d/status"), $(inputs) batch input files (was $sent)"
echo "batch: run again, nothing submitted (every reply from the state directories)"

step "calls per finished dialogue (HTTP requests, retries and re-asks included)"
print_calls "no faults (3 cultures):" "$tmp/american" "$tmp/chinese" "$tmp/korean"
print_calls "10% faults (3 cultures):" "$tmp/faults"
echo
echo "e2e ok in $((($(ms) - t0) / 1000)) s"
