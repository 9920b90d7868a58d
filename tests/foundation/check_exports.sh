#!/bin/sh
# check_exports.sh LIBRARY EXPORTS-FILE
# The dynamic symbols LIBRARY defines must be exactly those listed in
# EXPORTS-FILE (one name a line, # comments allowed; a name followed by
# @ilp32 only in a 32-bit library). Symbols the linker
# or a coverage build's runtime (libgcov: __gcov_*, mangle_path) adds do
# not count.
set -eu
lib=$1
list=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" |
	awk '$2 ~ /^[TtWwDdBbVviG]$/ { print $3 }' |
	grep -v -E '^(_init|_fini|_edata|_end|__bss_start|__gcov_.*|mangle_path)$' |
	sed 's/@.*//' | sort -u > "$tmp/actual"
# "name @ilp32": only in a 32-bit library (ELF class 1).
if [ "$(od -An -j4 -N1 -tu1 "$lib" | tr -d ' ')" = 1 ]; then
	ilp32='s/@ilp32//'
else
	ilp32='/@ilp32/d'
fi
sed -e 's/#.*//' -e "$ilp32" -e 's/[[:space:]]//g' "$list" | grep -v '^$' | sort -u > "$tmp/expected"

if ! diff -u "$tmp/expected" "$tmp/actual" > "$tmp/diff"; then
	echo "FAIL: $(basename "$lib") exports differ from $(basename "$list") (- missing, + extra):"
	cat "$tmp/diff"
	exit 1
fi
echo "ok: $(basename "$lib") exports exactly $(wc -l < "$tmp/expected") symbols"
