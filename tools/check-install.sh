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
# The .pc file names the real prefix; point a copy of it at the DESTDIR
# (pkg-config's --define-prefix guesses wrong on multiarch libdirs).
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir "$dest/pc"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" > "$dest/pc/symonnx.pc"
export PKG_CONFIG_PATH="$dest/pc"
libdir=$(pkg-config --variable=libdir symonnx)
includedir=$(pkg-config --variable=includedir symonnx)
cc -std=c11 -Wall -Werror examples/mymodule.c -o "$dest/mymodule" \
   $(pkg-config --cflags --libs symonnx)
LD_LIBRARY_PATH="$libdir" "$dest/mymodule" | diff -u examples/mymodule.graph -
# every public header, through the umbrella and one by one
for h in $(cd "$includedir/symonnx" && find . -name '*.h'); do
  printf '#include <symonnx/%s>\nint main (void) { return 0; }\n' "${h#./}" |
    cc -std=c11 -Wall -Werror -x c - -o /dev/null $(pkg-config --cflags --libs symonnx) \
       -I"$includedir"
done
# a custom symbolic and a plugin, as doc/symbolic.md says to build them
cc -std=c11 -Wall -Werror examples/custom-symbolic.c -o "$dest/custom-symbolic" \
   $(pkg-config --cflags --libs symonnx)
LD_LIBRARY_PATH="$libdir" "$dest/custom-symbolic" | grep -q "opset_import mylib = 2"
cc -shared -fPIC doc/examples/plugin/myops-plugin.c -o "$dest/libmyops.so" \
   $(pkg-config --cflags --libs symonnx)
echo "check-install: installed library, headers and symonnx.pc work"
