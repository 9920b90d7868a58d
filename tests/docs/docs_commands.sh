#!/bin/bash
# docs_commands: every command that README.md and doc/ show, run as a
# user who installed the project would type it. The build is installed
# into a temporary prefix, whose bin/ comes first on PATH, whose libraries
# are on LD_LIBRARY_PATH (so LD_PRELOAD=libsocket_wrapper.so works as
# typed) and whose pkg-config files pkg-config finds; then
# doc_commands.py runs each file's commands in a fresh directory and
# compares what they print with what the document shows.
set -euo pipefail
# README.md is the front door: at most 300 lines (details go to the man
# pages and doc/HACKING.md), and it starts with the two commands that do
# everything on a fresh machine. Checked in every build.
for f in "$@"; do
	[ "$f" = README.md ] || continue
	n=$(wc -l < "$CWRAP_SOURCE_DIR/README.md")
	if [ "$n" -gt 300 ]; then
		echo "FAIL: README.md has $n lines, over its budget of 300: move details to the man pages or doc/HACKING.md"
		exit 1
	fi
	for cmd in 'tools/deps && tools/demo' 'tools/deps && tools/test'; do
		if ! head -n 20 "$CWRAP_SOURCE_DIR/README.md" | grep -qF "$cmd"; then
			echo "FAIL: README.md's first lines do not show '$cmd'"
			exit 1
		fi
	done
	echo "ok: README.md has $n lines (budget 300) and starts with the two commands"
done
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
