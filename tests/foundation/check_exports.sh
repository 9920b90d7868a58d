#!/bin/sh
# check_exports.sh LIBRARY EXPORTS-FILE [FEATURES]
# The dynamic symbols LIBRARY defines must be exactly those listed in
# EXPORTS-FILE (one name a line, # comments allowed; a name followed by
# "@feature" only where FEATURES, the platform's features that
# cmake/CwrapPlatform.cmake found, separated by ';' or spaces, names
# it). Symbols the linker
# or a coverage build's runtime (libgcov: __gcov_*, mangle_path) adds do
# not count.
set -eu
lib=$1
list=$2
features=" $(printf '%s' "${3:-}" | tr ';' ' ') "
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" |
	awk '$2 ~ /^[TtWwDdBbVviG]$/ { print $3 }' |
	grep -v -E '^(_init|_fini|_edata|_end|__bss_start|__gcov_.*|mangle_path)$' |
	sed 's/@.*//' | sort -u > "$tmp/actual"
sed -e 's/#.*//' "$list" | while read -r name feature; do
	[ -n "$name" ] || continue
	case $feature in
	"") echo "$name" ;;
	@*) case $features in *" ${feature#@} "*) echo "$name" ;; esac ;;
	esac
done | sort -u > "$tmp/expected"

if ! diff -u "$tmp/expected" "$tmp/actual" > "$tmp/diff"; then
	echo "FAIL: $(basename "$lib") exports differ from $(basename "$list") (- missing, + extra):"
	cat "$tmp/diff"
	exit 1
fi
echo "ok: $(basename "$lib") exports exactly $(wc -l < "$tmp/expected") symbols"
