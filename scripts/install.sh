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
go build -trimpath -ldflags="-s -w -X github.com/ngkit/ngkit/cmd/internal/app.ldCommit=$rev" -o "$bin/ngkit" ./cmd/ngkit
"$bin/ngkit" links "$bin" >/dev/null
"$bin/ngkit" man "${PREFIX:-$HOME/.local}/share/man/man1"
echo "installed ngkit and its programs in $bin"
case ":$PATH:" in *":$bin:"*) ;; *) echo "add $bin to your PATH: export PATH=\"$bin:\$PATH\"";; esac
