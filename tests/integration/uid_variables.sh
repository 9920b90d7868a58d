#!/bin/sh
# Every uid_wrapper variable with bad values: exactly one line on stderr
# naming the variable (and the value), and the documented behaviour (the
# value is taken as unset). Good values print nothing.
#   UID_WRAPPER, UID_WRAPPER_ROOT, UID_WRAPPER_MYUID,
#   UID_WRAPPER_SPAWN_CURRENT, UID_WRAPPER_FAKE_CHOWN: only 1 means on;
#   UID_WRAPPER_DEBUGLEVEL: 0..3 or error, warn(ing), debug, trace in any
#     case; above 3 the same as 3 (everything);
#   UID_WRAPPER_INITIAL_[RES]UID/GID: 0..4294967294;
#   UID_WRAPPER_INITIAL_GROUPS_COUNT: 0..65536, and _GROUPS agreeing with it.
set -eu
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PRELOAD="${CWRAP_PRELOAD_PREFIX}libuid_wrapper.so"
PRINT="$CWRAP_TEST_BIN/uwrap_print_ids"
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
real_uid=$(id -u)

ok() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# run VAR=VALUE... COMMAND...: stdout in $out, stderr in $err
run() {
	env LD_PRELOAD="$PRELOAD" "$@" > "$tmp/out" 2> "$tmp/err" || true
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# expect_line NAME VARIABLE VALUE: stderr is one wrapper line naming both
expect_line() {
	n=$(printf '%s' "$err" | grep -c '' || true)
	if [ "$n" != 1 ]; then
		fail "$1: expected one line on stderr, got $n: '$err'"
		return
	fi
	case "$err" in
	UWRAP_ERROR\(*\[[0-9]*\]\)\ -\ *"$2='$3'"*) ok "$1: $err" ;;
	*) fail "$1: line does not name $2='$3': '$err'" ;;
	esac
}

expect_quiet() {
	if [ -n "$err" ]; then
		fail "$1: expected nothing on stderr, got '$err'"
	else
		ok "$1: quiet"
	fi
}

expect_out() { # NAME EXPECTED
	if [ "$out" = "$2" ]; then
		ok "$1: $out"
	else
		fail "$1: expected '$2', got '$out'"
	fi
}

ENABLED='import ctypes; print(ctypes.CDLL(None).uid_wrapper_enabled())'

# ---- UID_WRAPPER: only 1 enables ----
for v in abc 2 -1 yes 01; do
	run UID_WRAPPER="$v" UID_WRAPPER_ROOT=1 id -u
	expect_line "UID_WRAPPER=$v" UID_WRAPPER "$v"
	expect_out "UID_WRAPPER=$v: off, id -u is the real uid" "$real_uid"
done
for v in 0 ""; do
	run UID_WRAPPER="$v" UID_WRAPPER_ROOT=1 id -u
	expect_quiet "UID_WRAPPER='$v'"
	expect_out "UID_WRAPPER='$v': off" "$real_uid"
done
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 id -u
expect_quiet "UID_WRAPPER=1"
expect_out "UID_WRAPPER=1: on" 0

# ---- UID_WRAPPER_ROOT: only 1 means root ----
for v in abc 2 -1; do
	run UID_WRAPPER=1 UID_WRAPPER_ROOT="$v" $PY -c "import os; $ENABLED; print(os.getuid())"
	expect_line "UID_WRAPPER_ROOT=$v" UID_WRAPPER_ROOT "$v"
	expect_out "UID_WRAPPER_ROOT=$v: on, real ids" "1
$real_uid"
done
run UID_WRAPPER=1 UID_WRAPPER_ROOT=0 id -u
expect_quiet "UID_WRAPPER_ROOT=0"
expect_out "UID_WRAPPER_ROOT=0: real ids" "$real_uid"

# ---- UID_WRAPPER_MYUID: only 1; a bad value once per process ----
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_MYUID=abc $PY -c '
import os
print(os.geteuid())
os.environ["PATH"] = os.environ["PATH"]  # setenv(): read again
print(os.geteuid())'
expect_line "UID_WRAPPER_MYUID=abc" UID_WRAPPER_MYUID abc
expect_out "UID_WRAPPER_MYUID=abc: off, the fake euid" "0
0"
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_MYUID=1 id -u
expect_quiet "UID_WRAPPER_MYUID=1"
expect_out "UID_WRAPPER_MYUID=1: the real euid" "$real_uid"

# ---- UID_WRAPPER_SPAWN_CURRENT: only 1 ----
SPAWN='import os, sys
os.setuid(5000)
sys.stdout.flush()
os.system("id -u")
os.system("id -u")'
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_SPAWN_CURRENT=2 $PY -c "$SPAWN"
expect_line "UID_WRAPPER_SPAWN_CURRENT=2" UID_WRAPPER_SPAWN_CURRENT 2
expect_out "UID_WRAPPER_SPAWN_CURRENT=2: off, system() starts as root" "0
0"
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_SPAWN_CURRENT=1 $PY -c "$SPAWN"
expect_quiet "UID_WRAPPER_SPAWN_CURRENT=1"
expect_out "UID_WRAPPER_SPAWN_CURRENT=1: the current ids" "5000
5000"

# ---- UID_WRAPPER_FAKE_CHOWN: only 1; off, a chown goes to the kernel and
# leaves no owner attribute ----
CHOWN="import os
try:
    os.chown('$tmp/f', 1234, 5678)
    print(os.stat('$tmp/f').st_uid)
except PermissionError:
    print('EPERM')"
ATTRS="import os; print(os.listxattr('$tmp/f'))"
for v in abc 2 yes; do
	rm -f "$tmp/f"
	: > "$tmp/f"
	run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_FAKE_CHOWN="$v" $PY -c "$CHOWN"
	expect_line "UID_WRAPPER_FAKE_CHOWN=$v" UID_WRAPPER_FAKE_CHOWN "$v"
	if [ "$(env -u LD_PRELOAD $PY -c "$ATTRS")" = "[]" ]; then
		ok "UID_WRAPPER_FAKE_CHOWN=$v: off, no attribute"
	else
		fail "UID_WRAPPER_FAKE_CHOWN=$v: an owner attribute was written"
	fi
done
rm -f "$tmp/f"
: > "$tmp/f"
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_FAKE_CHOWN=1 $PY -c "$CHOWN"
expect_quiet "UID_WRAPPER_FAKE_CHOWN=1"
expect_out "UID_WRAPPER_FAKE_CHOWN=1: the fake owner" 1234
if [ "$(env -u LD_PRELOAD $PY -c "import os; print(os.getxattr('$tmp/f', 'user.uid_wrapper.owner').decode().split(':')[:2])")" = "['1234', '5678']" ]; then
	ok "UID_WRAPPER_FAKE_CHOWN=1: kept in the attribute"
else
	fail "UID_WRAPPER_FAKE_CHOWN=1: no owner attribute"
fi

# ---- UID_WRAPPER_DISABLE_DEEPBIND: accepted, not needed, quiet ----
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_DISABLE_DEEPBIND=1 id -u
expect_quiet "UID_WRAPPER_DISABLE_DEEPBIND=1"
expect_out "UID_WRAPPER_DISABLE_DEEPBIND=1: still root" 0

# ---- UID_WRAPPER_DEBUGLEVEL: 0..3 or a name; above 3 means everything ----
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_DEBUGLEVEL=4 id -u
case "$err" in
*UWRAP_ERROR*) fail "UID_WRAPPER_DEBUGLEVEL=4: an error line: '$err'" ;;
*UWRAP_DEBUG*) ok "UID_WRAPPER_DEBUGLEVEL=4: debug lines, no complaint" ;;
*) fail "UID_WRAPPER_DEBUGLEVEL=4: no debug line: '$err'" ;;
esac
expect_out "UID_WRAPPER_DEBUGLEVEL=4: still works" 0
# by name, in any case: debug shows debug lines, warn none
for v in debug DEBUG Trace; do
	run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_DEBUGLEVEL="$v" id -u
	case "$err" in
	*UWRAP_ERROR*) fail "UID_WRAPPER_DEBUGLEVEL=$v: an error line: '$err'" ;;
	*UWRAP_DEBUG*) ok "UID_WRAPPER_DEBUGLEVEL=$v: debug lines, no complaint" ;;
	*) fail "UID_WRAPPER_DEBUGLEVEL=$v: no debug line: '$err'" ;;
	esac
done
for v in warn Warning error; do
	run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_DEBUGLEVEL="$v" id -u
	expect_quiet "UID_WRAPPER_DEBUGLEVEL=$v"
done
for v in abc -1; do
	run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_DEBUGLEVEL="$v" id -u
	expect_line "UID_WRAPPER_DEBUGLEVEL=$v" UID_WRAPPER_DEBUGLEVEL "$v"
	expect_out "UID_WRAPPER_DEBUGLEVEL=$v: still works" 0
done

# ---- UID_WRAPPER_INITIAL_*ID: 0..4294967294; a bad one alone is ignored ----
for var in RUID EUID SUID RGID EGID SGID; do
	for v in abc -1 4294967295 99999999999 " 5"; do
		run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 "UID_WRAPPER_INITIAL_$var=$v" "$PRINT"
		expect_line "INITIAL_$var='$v'" "UID_WRAPPER_INITIAL_$var" "$v"
		expect_out "INITIAL_$var='$v': ignored" "uid=0,0,0 gid=0,0,0 groups=0 initial=0"
	done
done
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_RUID=7 UID_WRAPPER_INITIAL_EUID=x \
	UID_WRAPPER_INITIAL_SGID=4294967294 "$PRINT"
expect_line "INITIAL_EUID=x among good ones" UID_WRAPPER_INITIAL_EUID x
expect_out "the good ones are kept" "uid=7,0,0 gid=0,0,4294967294 groups=0 initial=0"

run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_RUID= UID_WRAPPER_INITIAL_GROUPS_COUNT= \
	UID_WRAPPER_INITIAL_GROUPS= "$PRINT"
expect_quiet "empty INITIAL values"
expect_out "empty INITIAL values: unset" "uid=0,0,0 gid=0,0,0 groups=0 initial=0"

# ---- UID_WRAPPER_INITIAL_GROUPS_COUNT and _GROUPS ----
for v in abc -1 65537; do
	run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_GROUPS_COUNT="$v" \
		UID_WRAPPER_INITIAL_GROUPS=5 "$PRINT"
	expect_line "GROUPS_COUNT=$v" UID_WRAPPER_INITIAL_GROUPS_COUNT "$v"
	expect_out "GROUPS_COUNT=$v: groups ignored" "uid=0,0,0 gid=0,0,0 groups=0 initial=0"
done
for case in "2:5" "1:5,6" "2:5,x" "2:5,,6" "0:5" "1:4294967295"; do
	count=${case%%:*}
	list=${case#*:}
	run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_GROUPS_COUNT="$count" \
		UID_WRAPPER_INITIAL_GROUPS="$list" "$PRINT"
	expect_line "GROUPS_COUNT=$count GROUPS=$list" UID_WRAPPER_INITIAL_GROUPS "$list"
	expect_out "GROUPS_COUNT=$count GROUPS=$list: ignored" "uid=0,0,0 gid=0,0,0 groups=0 initial=0"
done
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_GROUPS=5 "$PRINT"
expect_line "GROUPS without COUNT" UID_WRAPPER_INITIAL_GROUPS 5
expect_out "GROUPS without COUNT: ignored" "uid=0,0,0 gid=0,0,0 groups=0 initial=0"
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_GROUPS_COUNT=2 "$PRINT"
expect_line "COUNT=2 without GROUPS" UID_WRAPPER_INITIAL_GROUPS ""
expect_out "COUNT=2 without GROUPS: ignored" "uid=0,0,0 gid=0,0,0 groups=0 initial=0"
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_GROUPS_COUNT=2 \
	UID_WRAPPER_INITIAL_GROUPS=6,5 "$PRINT"
expect_quiet "GROUPS_COUNT=2 GROUPS=6,5"
expect_out "GROUPS_COUNT=2 GROUPS=6,5: used, sorted" "uid=0,0,0 gid=0,0,0 groups=5,6 initial=0"
run UID_WRAPPER=1 UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_GROUPS_COUNT=0 "$PRINT"
expect_quiet "GROUPS_COUNT=0"
expect_out "GROUPS_COUNT=0: no groups" "uid=0,0,0 gid=0,0,0 groups= initial=0"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
