#!/usr/bin/env bash
# Turns a scripts/realmodels.sh run (REALMODELS_OUT=DIR) into the replay
# fixtures of testdata/realmodels: for each step named, its input, its
# recording (the proxy's JSONL, bodies as sent and received), its command
# line as run, and what the real run gave (the records written, but for
# their gen entries, which hold timings, and each failure's id and reason). TestRealModelReplay (cmd/internal/cli) runs
# each step again on the fake in --replay mode and wants the same.
# Usage: bash scripts/realmodels-fixtures.sh DIR STEP...   (needs jq)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: realmodels-fixtures.sh DIR STEP...}
shift
dst=testdata/realmodels
mkdir -p "$dst"
for name in "$@"; do
  line=$(awk -F'\t' -v n="$name" '$1 == n' "$dir/steps.tsv")
  [ -n "$line" ] || { echo "realmodels-fixtures: no step $name in $dir/steps.tsv" >&2; exit 2; }
  IFS=$'\t' read -r _ model stage culture in cmd common <<<"$line"
  input=null
  if [ "$in" != - ]; then
    cp "$in" "$dst/$name.in.jsonl"
    input="\"$name.in.jsonl\""
  fi
  cp "$dir/rec/$name.jsonl" "$dst/$name.rec.jsonl"
  # the command line as run: the program, the common flags, its own flags
  # (none has a space; the models file is the test's own)
  read -r -a args <<<"$cmd"
  read -r -a flags <<<"$common"
  argv=$(printf '%s\n' "${args[0]}" "${flags[@]}" "${args[@]:1}" | jq -R . | jq -c -s .)
  jq -c -n --argjson argv "$argv" --arg name "$name" --arg model "$model" --arg stage "$stage" --arg culture "$culture" \
    --argjson input "$input" --slurpfile out <(jq -c 'del(.gen)' "$dir/$name.jsonl") \
    --slurpfile errors <(jq -c '{id, error}' "$dir/$name-errors.jsonl") \
    '{name: $name, model: $model, stage: $stage, culture: $culture, input: $input,
      args: ($argv | map(if endswith("models.run.yaml") then "MODELS" else . end)),
      out: $out, errors: $errors}'
done
