#!/bin/bash
# Compiles a glibc locale into a folder of the build (no /etc/locale.gen, no
# root): the locale-independence test runs under LOCPATH=<that folder's
# parent>.  Usage: tools/make-locale.sh OUT_DIR [LOCALE [CHARMAP]]
# (OUT_DIR's name is the locale name setlocale will be given, e.g.
# build/tests/ir/de_DE.UTF-8).
set -euo pipefail
out=$1
locale=${2:-de_DE}
charmap=${3:-UTF-8}
rm -rf "$out"
mkdir -p "$out"
# localedef exits 1 when it only warned; the result is checked below.
localedef --no-archive -c -i "$locale" -f "$charmap" "$out" || true
[ -f "$out/LC_NUMERIC" ] || { echo "make-locale: localedef wrote no $out/LC_NUMERIC"; exit 1; }
