#!/usr/bin/env bash
# Install ngkit: one multi-call binary (ngkit) plus a link per program
# (ngcat, ...), into $PREFIX/bin (default ~/.local/bin), and the man pages
# into $PREFIX/share/man/man1, where man finds them for a bin on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
bin="${PREFIX:-$HOME/.local}/bin"
mkdir -p "$bin"
# The commit for --version, when Go's own VCS stamp is off or cannot read the tree.
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || true)
# Built in a private directory, then installed: a running ngkit is replaced,
# not overwritten, and the installed file is written by install(1), not by
# the C linker (with cgo, a binary the linker wrote straight into place
# showed 30 MiB more peak RSS of its own file pages, on Linux 6.18).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -trimpath -ldflags="-s -w -X github.com/ngkit/ngkit/cmd/internal/app.ldCommit=$rev" -o "$tmp/ngkit" ./cmd/ngkit
install -m 755 "$tmp/ngkit" "$bin/ngkit"
"$bin/ngkit" links "$bin" >/dev/null
"$bin/ngkit" man "${PREFIX:-$HOME/.local}/share/man/man1"
echo "installed ngkit and its programs in $bin"
case ":$PATH:" in *":$bin:"*) ;; *) echo "add $bin to your PATH: export PATH=\"$bin:\$PATH\"";; esac
