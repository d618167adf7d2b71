"""python3 -m symonnx COMMAND ...: the symonnx command-line tool (the one
`meson install` put next to this package's library, $SYMONNX_CLI, or
`symonnx` on PATH)."""
import os
import shutil
import sys

try:
    from . import _config
except ImportError:  # the source tree, not installed
    _config = None


def cli_path():
    env = os.environ.get("SYMONNX_CLI")
    if env:
        return env
    if _config is not None and os.path.exists(_config.CLI):
        return _config.CLI
    return shutil.which("symonnx")


def main():
    cli = cli_path()
    if cli is None:
        sys.exit("python3 -m symonnx: the symonnx program is not installed (set SYMONNX_CLI)")
    os.execv(cli, [cli] + sys.argv[1:])


if __name__ == "__main__":
    main()
