#!/bin/bash
# docs_commands: every command that README.md and doc/ show, run as a
# user who installed the project would type it. The build is installed
# into a temporary prefix, whose bin/ comes first on PATH, whose libraries
# are on LD_LIBRARY_PATH (so LD_PRELOAD=libsocket_wrapper.so works as
# typed) and whose pkg-config files pkg-config finds; then
# doc_commands.py runs each file's commands in a fresh directory and
# compares what they print with what the document shows.
set -euo pipefail
if [ -n "${CWRAP_PRELOAD_PREFIX:-}" ]; then
	echo "SKIP: a sanitizer build (the documents preload the libraries without its runtime)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-docs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$CWRAP_BINARY_DIR" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; exit 1; }
lib=$(dirname "$(find "$tmp/prefix" -name libsocket_wrapper.so | head -n 1)")
pypath=$(find "$tmp/prefix" -name 'pypamtest*.so' -printf '%h\n' 2> /dev/null | head -n 1)
export CWRAP_LIBRARY_PATH=$lib CWRAP_BIN_DIR=$tmp/prefix/bin
export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PYTHONPATH=${pypath}${PYTHONPATH:+:$PYTHONPATH}
cd "$CWRAP_SOURCE_DIR"
python3 "$CWRAP_SOURCE_DIR/tests/docs/doc_commands.py" "$@"
