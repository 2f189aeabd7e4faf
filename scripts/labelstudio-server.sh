#!/usr/bin/env bash
# The review round trip through a real Label Studio server (label-studio,
# pinned in scripts/python/labelstudio.txt): the server runs on 127.0.0.1
# (a free port) with SQLite in a temporary data folder, its user and API
# token made from the environment (no browser), no version check, no
# telemetry; scripts/labelstudio/server.py creates a project with the config
# ngcat --review-config writes, imports ngcat's tasks with their
# predictions, checks each on its turn, submits annotations (a relabel, a
# new region, a skip, a draft, a cancelled one, one annotator twice),
# exports JSON, JSON_MIN and CSV, and checks what ngcat --from labelstudio
# and ngstats make of each; then the bad exports (an edited task, a deleted
# one). The server is stopped on exit. Skips when python3 with venv is
# missing or PyPI cannot be reached (NGKIT_REQUIRE_PYPI=1 fails instead).
# NGKIT_LS_FIXTURES=DIR also copies the exports there (how
# testdata/review/labelstudio_server_* were made).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
command -v python3 >/dev/null && python3 -c 'import venv' 2>/dev/null ||
  { echo "labelstudio-server.sh: skipped: no python3 with venv"; exit 0; }
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill -- -"$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
t0=$(date +%s)
if ! venv=$(timeout 1200 bash scripts/pyvenv.sh labelstudio 2>"$tmp/pip.err"); then
  [ "${NGKIT_REQUIRE_PYPI:-}" = 1 ] && { cat "$tmp/pip.err"; echo "labelstudio-server.sh: the labelstudio venv could not be made"; exit 1; }
  echo "labelstudio-server.sh: skipped: the labelstudio venv could not be made (PyPI?): $(tail -1 "$tmp/pip.err")"
  exit 0
fi
t1=$(date +%s)
go build -o "$tmp/ngkit" ./cmd/ngkit
"$tmp/ngkit" ngcat testdata/review/labelled.jsonl --to labelstudio --review-tasks norm,intent \
  --review-config "$tmp/config.xml" -o "$tmp/tasks.json"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export LABEL_STUDIO_BASE_DATA_DIR="$tmp/data" LABEL_STUDIO_USERNAME=reviewer@example.com \
  LABEL_STUDIO_PASSWORD="ngkit-$RANDOM-$RANDOM" LABEL_STUDIO_USER_TOKEN="ngkit$RANDOM$RANDOM$RANDOM" \
  LATEST_VERSION_CHECK=false COLLECT_ANALYTICS=false SENTRY_DSN= FRONTEND_SENTRY_DSN= \
  LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK=true DJANGO_DB=sqlite
mkdir -p "$LABEL_STUDIO_BASE_DATA_DIR"
t2=$(date +%s)
setsid "$venv/bin/label-studio" start --host 127.0.0.1 --port "$port" --no-browser --internal-host 127.0.0.1 \
  >"$tmp/server.log" 2>&1 &
pid=$!
# The first start migrates the database: about a minute on a quiet machine.
bound=${NGKIT_LS_START_TIMEOUT:-300}
up() { "$venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "$1" 2>/dev/null; }
until up "http://127.0.0.1:$port/api/version"; do
  if ! kill -0 "$pid" 2>/dev/null; then
    tail -20 "$tmp/server.log"; echo "labelstudio-server.sh: the server exited"; exit 1
  fi
  if [ $(( $(date +%s) - t2 )) -ge "$bound" ]; then
    tail -20 "$tmp/server.log"; echo "labelstudio-server.sh: the server did not answer within ${bound}s"; exit 1
  fi
  sleep 2
done
t3=$(date +%s)
echo "labelstudio-server.sh: venv ready in $((t1 - t0))s, server up in $((t3 - t2))s"
mkdir "$tmp/out"
timeout 600 "$venv/bin/python" scripts/labelstudio/server.py --url "http://127.0.0.1:$port" --ngkit "$tmp/ngkit" \
  --tasks "$tmp/tasks.json" --config "$tmp/config.xml" --out "$tmp/out"
if [ -n "${NGKIT_LS_FIXTURES:-}" ]; then
  for f in export.json export_min.json export.csv bad.json; do
    cp "$tmp/out/$f" "$NGKIT_LS_FIXTURES/labelstudio_server_${f}"
  done
fi
echo "labelstudio-server.sh: done in $(( $(date +%s) - t0 ))s"
