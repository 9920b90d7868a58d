#!/bin/sh
# test_fresh.sh SOURCE-DIR: tools/fresh's calls that cost nothing (the
# machine itself is minutes of mmdebstrap and apt: run by hand, see
# doc/HACKING.md).
#   - --help prints the usage header, exit 0;
#   - a bad argument: one line, exit 2, nothing made;
#   - not root: one line saying it cannot run on this host, exit 3,
#     nothing made (as root, run so as nobody).
set -u
fresh=$1/tools/fresh
fail=0
check() { # WHAT CONDITION...
	what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
export CWRAP_FRESH_CACHE="$tmp/cache" CWRAP_FRESH_DIR="$tmp/runs"

out=$("$fresh" --help)
rc=$?
check "--help: exit 0" [ $rc = 0 ]
check "--help: the usage header" [ "$(echo "$out" | head -n 1 | cut -c1-26)" = "tools/fresh [--quick] [OPT" ]
echo "$out" > "$tmp/help"
check "--help: the exit statuses" grep -q "^3 when this host cannot" "$tmp/help"

"$fresh" --no-such-option > "$tmp/out" 2> "$tmp/err"
rc=$?
check "a bad argument: exit 2" [ $rc = 2 ]
check "a bad argument: one line on stderr" [ "$(wc -l < "$tmp/err")" = 1 ]
check "a bad argument: nothing on stdout" [ ! -s "$tmp/out" ]

# (a copy that any user may run: the tree may be in root's home)
mkdir -p "$tmp/tools"
cp "$fresh" "$tmp/tools/fresh"
chmod -R a+rX "$tmp/tools"
if [ "$(id -u)" = 0 ]; then
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	as_user=
fi
$as_user "$tmp/tools/fresh" --quick > "$tmp/out" 2> "$tmp/err"
rc=$?
check "not root: exit 3" [ $rc = 3 ]
check "not root: one line" [ "$(wc -l < "$tmp/err")" = 1 ]
check "not root: nothing on stdout" [ ! -s "$tmp/out" ]
check "not root: it says why" grep -q '^tools/fresh: cannot run on this host: it must run as root' "$tmp/err"
check "not root: no cache made" [ ! -e "$tmp/cache" ]
check "not root: no run made" [ ! -e "$tmp/runs" ]
[ $fail = 0 ] || { echo "--- stderr:"; cat "$tmp/err"; }
exit $fail
