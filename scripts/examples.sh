#!/usr/bin/env bash
# Runs every documented example, so that none can go stale: each ```sh
# block of README.md, DEVELOPING.md and every docs/*.md (```sh notest is
# shown, not run) -- docs/<program>.md are the
# programs' --help (TestDocsFresh keeps them equal), so their examples run
# too; a block that starts with #! is a script shown, not run -- in a
# fresh temporary folder holding the bundled testdata/, on the built-in demo
# model (NG_MODEL=demo, no endpoint, no key). Each ng program an example
# calls really runs (pipelines flow, stdin from the previous stage); an
# example fails when a program rejects its flags (unknown flag, bad value,
# missing argument) or crashes. Examples need files they make themselves or
# a user's own data (corpus.parquet, a Label Studio export) or a paid
# endpoint (--base-url, a key): those runs end in a one-line error about the
# file or endpoint, which is accepted -- their flags were parsed. The
# README's first command (Quick start) must succeed whole, twice in the
# same folder, leave its dataset folder and report, and git must ignore them.
#   bash scripts/examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
repo=$PWD
readme=${EXAMPLES_README:-README.md} # another file: to test this script
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PREFIX="$tmp" bash scripts/install.sh >/dev/null
bin="$tmp/bin"
progs=$("$bin/ngkit" --help | sed -n 's/^Programs: //p' | tr -d ',')
[ -n "$progs" ] || { echo "examples: no programs listed by ngkit --help" >&2; exit 1; }

# The examples: the sh blocks of README, DEVELOPING.md and docs/*.md (docs/<program>.md
# hold each program's --help, examples included).
mkdir "$tmp/ex"
docs=${EXAMPLES_DOCS:-docs}
for md in "$readme" DEVELOPING.md "$docs"/*.md; do
  [ -f "$md" ] || continue
  name=$(basename "$md" .md)
  [ "$md" = "$readme" ] && name=readme
  awk -v d="$tmp/ex" -v name="$name" '/^```sh$/{n++; f=sprintf("%s/%s-%03d.sh", d, name, n); on=1; first=1; next}
    /^```/{on=0} on && first && /^#!/{on=0} on{first=0; print > f}' "$md"
done

# ngprog NAME ARGS...: run one program of an example with the demo model
# only, check its stderr for a flag error or a crash.
cat >"$tmp/wrap.sh" <<'WRAP'
ngprog() {
  local p=$1 rc=0 e
  shift
  e=$(mktemp "$NGERR.XXXXXX") # one per program: a pipeline's stages run at once
  # The model's programs stop calling after 5 s (the rest go to their
  # errors, exit 1): an example with no --limit would run for minutes.
  case $p in ngseed | ngrefine | ngv2r | nglabel | ngpact | ngsim) set -- --deadline 5s "$@" ;; esac
  env -u OPENAI_API_KEY -u NG_API_KEY -u NG_BASE_URL -u OPENAI_BASE_URL -u NG_MODELS NG_MODEL=demo \
    timeout 120 "$NGBIN/$p" "$@" 2>"$e" || rc=$?
  cat "$e" >>"$NGERR"
  if grep -qE 'unknown flag|unknown shorthand flag|invalid argument|flag needs an argument|bad flag syntax|^panic:|^goroutine [0-9]+ ' "$e" || [ "$rc" = 124 ] || [ "$rc" -gt 128 ] && [ "$rc" != 130 ] && [ "$rc" != 141 ]; then
    echo "  $p $*: exit $rc: $(head -c 400 "$e")" >>"$NGBAD"
  fi
  rm -f "$e"
  return "$rc"
}
WRAP
for p in $progs ngkit; do echo "$p() { ngprog $p \"\$@\"; }" >>"$tmp/wrap.sh"; done

fails=0
n=0
for ex in "$tmp/ex"/*.sh; do
  [ -s "$ex" ] || continue
  n=$((n + 1))
  name=$(basename "$ex" .sh)
  work="$tmp/run-$name"
  mkdir -p "$work"
  cp -r "$repo/testdata" "$work/testdata"
  : >"$work/.bad"
  # Each example line in a fresh shell in its own folder: one failing
  # line (a missing user file) does not stop the next.
  (cd "$work" && NGBIN="$bin" NGERR="$work/.stderr" NGBAD="$work/.bad" HOME="$work/home" \
    bash -c "source '$tmp/wrap.sh'; set +e; c=american; $(sed 's/^/ /' "$ex")" </dev/null >/dev/null 2>>"$work/.stderr") || true
  if [ -s "$work/.bad" ]; then
    echo "examples FAIL: $name:"
    cat "$work/.bad"
    fails=$((fails + 1))
  fi
done

# The README's first command, whole: it must succeed.
first=$(awk '/^## Quick start/{f=1} f && /^```sh$/{getline; print; exit}' "$readme")
case "$first" in "bash scripts/install.sh && "*) ;; *) echo "examples FAIL: README's first command is not 'bash scripts/install.sh && ...': $first"; exit 1 ;; esac
mkdir "$tmp/first"
cp -r scripts testdata go.mod go.sum cmd internal pkg filters schemas "$tmp/first"/ 2>/dev/null || true
cp ./*.go "$tmp/first"/
runfirst() {
  (cd "$tmp/first" && env -u OPENAI_API_KEY -u NG_BASE_URL -u OPENAI_BASE_URL GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" HOME="$tmp/first/home" bash -c "$first" >"$tmp/first.log" 2>&1)
}
# Twice: a user runs it again (it stopped once on "demo-dataset/data: not empty").
for try in 1 2; do
  if ! runfirst || [ ! -s "$tmp/first/demo-dataset/README.md" ] || [ ! -s "$tmp/first/demo-report.html" ]; then
    echo "examples FAIL: README's first command (run $try):"; tail -20 "$tmp/first.log"
    fails=$((fails + 1))
    break
  fi
done
# What it writes in a clone is ignored by git (.gitignore).
for f in demo.parquet demo-dataset/README.md demo-report.html; do
  [ -e "$tmp/first/$f" ] || continue
  if ! git check-ignore -q --no-index "$f"; then
    echo "examples FAIL: README's first command writes $f, which .gitignore does not ignore"
    fails=$((fails + 1))
  fi
done
echo "examples: $n example files run, $fails failing"
[ "$fails" = 0 ]
