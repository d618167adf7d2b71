#!/bin/bash
# Installs the Debian 12 packages symonnx needs to build and test, if any is
# missing.  Run as root.  Usage: tools/install-deps.sh [build|test]
set -euo pipefail
build_pkgs="gcc meson ninja-build pkg-config libglib2.0-dev libjson-glib-dev
            libprotobuf-c-dev protobuf-c-compiler libopenblas-dev python3-onnx"
test_pkgs="python3-numpy python3-torch python3-torchvision libonnx-testdata graphviz locales"
pkgs="$build_pkgs"
[ "${1:-test}" = test ] && pkgs="$pkgs $test_pkgs"
# ONNX Runtime for the end-to-end cross-checks comes from npm: node and npm
# from Debian unless the machine already has them.
if [ "${1:-test}" = test ] && ! command -v npm >/dev/null; then
  pkgs="$pkgs nodejs npm"
fi
missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
# (The test of locale-independent text output compiles its de_DE.UTF-8 locale
# into the build folder with localedef, from the `locales` package's sources:
# nothing under /etc is changed.)
