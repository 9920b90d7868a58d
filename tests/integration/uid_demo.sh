#!/bin/sh
# The article's uid_wrapper demo, as typed there:
#     LD_PRELOAD=libuid_wrapper.so UID_WRAPPER=1 UID_WRAPPER_ROOT=1 id
# must print what the real root prints on this machine: root's ids and the
# group {0} (the article's own machine also listed 100(users)).
# With CWRAP_DEMO_PREFIX set (to "$CWRAP_TEST_BIN/cwrap_"), the project's
# own id (tests/demo_programs) runs under the wrapper instead of the
# system's; the real root's id below is the system's, not preloaded.
set -eu
id=${CWRAP_DEMO_PREFIX:-}id
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

expected="uid=0(root) gid=0(root) groups=0(root)"
echo "\$ LD_PRELOAD=libuid_wrapper.so UID_WRAPPER=1 UID_WRAPPER_ROOT=1 ${id##*/}"
out=$(LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libuid_wrapper.so" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 "$id")
echo "$out"

if [ "$(id -u)" = 0 ] && [ "$(id -G)" = 0 ]; then
	# Running as the real root with groups {0}: the fake root is identical.
	real=$(id)
	echo "(real root here prints: $real)"
	[ "$out" = "$real" ] || { echo "FAIL: differs from the real root's id"; exit 1; }
fi
if [ "$out" != "$expected" ]; then
	echo "FAIL: expected '$expected'"
	exit 1
fi
echo "ok: id sees root (the real user is $(id -un), uid $(id -u))"
