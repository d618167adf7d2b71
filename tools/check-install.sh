#!/bin/bash
# Installs the build into a scratch DESTDIR and compiles an example against
# the installed headers, library and pkg-config file, as another C project
# would with dependency('symonnx').  Usage: tools/check-install.sh BUILDDIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --quiet
pc=$(find "$dest" -name symonnx.pc | head -n1)
[ -n "$pc" ] || { echo "check-install: no symonnx.pc installed"; exit 1; }
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --define-prefix --variable=libdir symonnx)
cc -std=c11 -Wall -Werror examples/mymodule.c -o "$dest/mymodule" \
   $(pkg-config --define-prefix --cflags --libs symonnx)
LD_LIBRARY_PATH="$libdir" "$dest/mymodule" | diff -u examples/mymodule.graph -
echo "check-install: installed library, headers and symonnx.pc work"
