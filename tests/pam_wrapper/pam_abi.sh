#!/bin/bash
# libpamtest's ABI both ways: pam_abi built against our libpamtest
# (our header, linked with our libpamtest.so.0) and built against
# upstream's (the same source and header, linked with Debian's
# libpamtest0), each run against both libraries: the same checks pass in
# the four runs, and each run used the library it was given. The
# libraries are put in place under the names the programs ask for
# (libpamtest.so.0; Debian's file is libpamtest.so.SOVERSION) through
# LD_LIBRARY_PATH.
set -euo pipefail
if [ -z "${CWRAP_UPSTREAM_PAMTEST:-}" ] || [ ! -e "$CWRAP_UPSTREAM_PAMTEST" ] ||
	[ -z "${CWRAP_ABI_UPSTREAM:-}" ]; then
	echo "SKIP: upstream's libpamtest is not installed (Debian package libpamtest0, tools/deps installs it; found at configure time: '${CWRAP_UPSTREAM_PAMTEST:-}')"
	exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-pam-abi-XXXXXX")
trap 'rm -rf "$dir"' EXIT
up_soname=$(objdump -p "$CWRAP_UPSTREAM_PAMTEST" | awk '$1 == "SONAME" { print $2 }')
mkdir "$dir/upstream" "$dir/ours"
for name in libpamtest.so.0 "$up_soname"; do
	ln -sf "$CWRAP_UPSTREAM_PAMTEST" "$dir/upstream/$name"
	ln -sf "$CWRAP_OUR_PAMTEST" "$dir/ours/$name"
done
export PAM_ABI_MODULES=$CWRAP_PAM_MODULE_DIR PAM_WRAPPER=1
export LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}$CWRAP_PAM_WRAPPER_LIB"
fail=0
for prog in "$CWRAP_ABI_OURS" "$CWRAP_ABI_UPSTREAM"; do
	for lib in ours upstream; do
		work=$dir/run-$(basename "$prog")-$lib
		mkdir "$work"
		name="our libpamtest"
		[ "$lib" = upstream ] && name="upstream's libpamtest"
		echo "\$ $(basename "$prog") (NEEDED $(objdump -p "$prog" | awk '$1 == "NEEDED" && /pamtest/ { print $2 }')) against $name"
		out=$(LD_LIBRARY_PATH=$dir/$lib PAM_WRAPPER_SERVICE_DIR=$work/services \
			"$prog" "$work" 2> "$work/stderr") || true
		echo "$out"
		want=$CWRAP_OUR_PAMTEST
		[ "$lib" = upstream ] && want=$CWRAP_UPSTREAM_PAMTEST
		used=$(echo "$out" | sed -n 's/^libpamtest: //p')
		if [ "$(readlink -f "$used")" != "$(readlink -f "$want")" ]; then
			echo "FAIL: it ran with '$used', not $want"
			fail=1
		fi
		if [ "$(echo "$out" | tail -n 1)" != ok ]; then
			cat "$work/stderr"
			echo "FAIL: the checks did not pass"
			fail=1
		fi
	done
done
[ "$fail" = 0 ] && echo "ok: built against either libpamtest, run against either: the same checks pass"
exit "$fail"
