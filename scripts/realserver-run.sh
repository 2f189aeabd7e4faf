# Sourced by scripts/realserver.sh and scripts/realserver-ollama.sh: the
# one run() both use. The sourcing script sets name (its prefix on every
# line), out (the output folder), common (the flags every program gets),
# schema_error (what the server's errors say when it cannot use a reply
# schema) and defines fail.

# run NAME INPUT PROGRAM ARGS...: exit 0 or 1 within the deadline, and
# every input id in the output or the errors file (as id or parent_id:
# an ngsim episode is named by its own id and its spec's).
run() {
  local case=$1 in=$2; shift 2
  local code=0
  timeout 900 "$@" "${common[@]}" "$in" -o "$out/$case.jsonl" --errors "$out/$case-errors.jsonl" \
    2> "$out/$case.stderr" || code=$?
  [ "$code" = 124 ] && fail "$case: still running after 15 min (hang?)"
  [ "$code" = 0 ] || [ "$code" = 1 ] || fail "$case: exit $code: $(tail -n 3 "$out/$case.stderr")"
  local missing
  missing=$(comm -23 <(jq -r .id "$in" | sort -u) \
    <(cat <(jq -r '.id, (.parent_id // empty)' "$out/$case.jsonl") <(jq -r '.id, (.record.parent_id // empty)' "$out/$case-errors.jsonl") | sort -u))
  [ -z "$missing" ] || fail "$case: input records in neither the output nor the errors file: $missing"
  if grep -q "$schema_error" "$out/$case-errors.jsonl"; then
    fail "$case: the server could not use a reply schema: $(grep -o "$schema_error"'[^"]*' "$out/$case-errors.jsonl" | head -n 1)"
  fi
  echo "$name: $case: exit $code$(expected_failures "$code"), $(wc -l < "$out/$case.jsonl") written, $(wc -l < "$out/$case-errors.jsonl") in the errors file"
}

# expected_failures CODE: what an exit 1 means here, so that a passing run
# prints no line that reads as a failure.
expected_failures() {
  [ "$1" = 1 ] && echo " (expected: the tiny random-weight model fails some records' checks; each is in the errors file)"
  return 0
}
