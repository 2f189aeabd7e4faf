#!/usr/bin/env bash
# Creates (or reuses) the Python virtualenv NAME for the checks that need
# Python tools, installing the pinned requirements of
# scripts/python/NAME.txt, and prints the venv's folder.
# Usage: bash scripts/pyvenv.sh NAME      e.g.  py=$(bash scripts/pyvenv.sh interop)/bin/python
# Venvs live under $NGKIT_VENVS (default ~/.cache/ngkit/venv), one per NAME;
# a venv whose requirements file changed is made again. Pip's cache is
# pip's own (~/.cache/pip). Needs python3 >= 3.10 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: pyvenv.sh NAME}
req=scripts/python/$name.txt
[ -f "$req" ] || { echo "pyvenv.sh: no $req" >&2; exit 2; }
root=${NGKIT_VENVS:-$HOME/.cache/ngkit/venv}
dir=$root/$name
sum=$(sha256sum "$req" | cut -c1-64)
if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.req-sha256" 2>/dev/null)" = "$sum" ]; then
  echo "$dir"
  exit 0
fi
py=${PYTHON:-python3}
rm -rf "$dir"
mkdir -p "$root"
"$py" -m venv "$dir" >&2
"$dir/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
echo "$sum" > "$dir/.req-sha256"
echo "$dir"
