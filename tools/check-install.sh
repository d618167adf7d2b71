#!/bin/bash
# Installs the build into a scratch DESTDIR and uses it as another project
# would: compiles examples against the installed headers, library and
# pkg-config file (PKG_CONFIG_SYSROOT_DIR points pkg-config's paths into the
# DESTDIR, whatever the prefix and libdir layout), and runs the installed
# CLI with no LD_LIBRARY_PATH.  The default prefix, /usr/local, and the
# DESTDIR put the headers outside the compiler's default search path, so the
# documented `#include <symonnx/symonnx.h>` compiles only with the .pc's own
# flags.  Usage: tools/check-install.sh BUILDDIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --quiet
pc=$(find "$dest" -name symonnx.pc | head -n1)
[ -n "$pc" ] || { echo "check-install: no symonnx.pc installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
case "$prefix" in
  /usr) echo "check-install: configure $build with a prefix other than /usr (the default /usr/local will do)"; exit 1 ;;
esac
grep -q '^libdir=${prefix}/' "$pc" && grep -q '^includedir=${prefix}/' "$pc" ||
  { echo "check-install: symonnx.pc's paths are not relative to \${prefix}"; exit 1; }
mkdir "$dest/pc"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" > "$dest/pc/symonnx.pc"
export PKG_CONFIG_PATH="$dest/pc"
libdir=$(pkg-config --variable=libdir symonnx)
includedir=$(pkg-config --variable=includedir symonnx)
flags="$(pkg-config --cflags --libs symonnx)"
# the README's include line, with nothing but the .pc's flags
printf '#include <symonnx/symonnx.h>\nint main (void) { graph_free (graph_new ()); return 0; }\n' |
  cc -std=c11 -Wall -Werror -x c - -o "$dest/readme-include" $flags
LD_LIBRARY_PATH="$libdir" "$dest/readme-include"
cc -std=c11 -Wall -Werror examples/mymodule.c -o "$dest/mymodule" $flags
LD_LIBRARY_PATH="$libdir" "$dest/mymodule" | diff -u examples/mymodule.graph -
# every public header, through the umbrella and one by one
for h in $(cd "$includedir/symonnx" && find . -name '*.h'); do
  printf '#include <symonnx/%s>\nint main (void) { return 0; }\n' "${h#./}" |
    cc -std=c11 -Wall -Werror -x c - -o /dev/null $flags
done
# a custom symbolic and a plugin, as doc/symbolic.md says to build them
cc -std=c11 -Wall -Werror examples/custom-symbolic.c -o "$dest/custom-symbolic" $flags
LD_LIBRARY_PATH="$libdir" "$dest/custom-symbolic" | grep "opset_import mylib = 2" >/dev/null
cc -shared -fPIC doc/examples/plugin/myops-plugin.c -o "$dest/libmyops.so" $flags
# (no grep -q after a pipe: under pipefail, grep -q quitting at the first
# match can kill the writer with SIGPIPE and fail the check by chance)
# the installed CLI runs without LD_LIBRARY_PATH, on the installed library
cli=$dest$prefix/bin/symonnx
env -u LD_LIBRARY_PATH "$cli" --version | grep '^symonnx ' >/dev/null
ldd "$cli" | grep "libsymonnx.so.* => $dest" >/dev/null ||
  { echo "check-install: $cli does not find the installed libsymonnx:"; ldd "$cli"; exit 1; }
# the CUDA plugin, when built: installed beside the library, where the installed CLI finds
# it (it then fails for want of a GPU or driver, not of the plugin)
plugin=$(find "$dest" -name libsymonnx-cuda.so | head -n1)
if [ -n "$plugin" ]; then
  [ "$plugin" = "$libdir/symonnx/libsymonnx-cuda.so" ] ||
    { echo "check-install: the CUDA plugin is installed as $plugin, not in $libdir/symonnx/"; exit 1; }
  relu=/usr/share/libonnx-testdata/data/node/test_relu
  if [ -d "$relu" ]; then
    out=$(env -u LD_LIBRARY_PATH -u SYMONNX_CUDA_PLUGIN "$cli" run "$relu/model.onnx" \
            -i "x=$relu/test_data_set_0/input_0.pb" --device cuda 2>&1) || true
    case "$out" in
      *"not installed"*|*"cannot load"*|*"built without"*)
        echo "check-install: the installed CLI does not load the installed CUDA plugin: $out"; exit 1 ;;
    esac
  fi
fi
# the Python package and torch2trace.py (for Debian's python3; the files
# name the real prefix, so the DESTDIR's library is given by environment)
pydir=$(find "$dest" -type d -path '*dist-packages/symonnx' | head -n1)
[ -n "$pydir" ] || { echo "check-install: the symonnx Python package was not installed"; exit 1; }
[ -x "$dest$prefix/share/symonnx/torch2trace.py" ] ||
  { echo "check-install: torch2trace.py was not installed"; exit 1; }
export PYTHONPATH=$(dirname "$pydir") SYMONNX_LIBRARY=$(ls "$libdir"/libsymonnx.so.* | head -n1) SYMONNX_CLI=$cli
/usr/bin/python3 -m symonnx --version | grep '^symonnx ' >/dev/null
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  (cd "$dest" && /usr/bin/python3 - <<'PY'
import io, torch, symonnx
m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
x = torch.randn(2, 4)
symonnx.export(m, (x,), "linear.onnx")
out = io.StringIO()
assert symonnx.verify(m, (x,), "linear.onnx", file=out), out.getvalue()
PY
  )
  "$dest$prefix/share/symonnx/torch2trace.py" --help | grep -- '--module' >/dev/null
fi
echo "check-install: installed library, headers, symonnx.pc, CLI and Python package work"
