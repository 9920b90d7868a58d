# shellcheck shell=sh disable=SC2034,SC2154 # (failed is read, tmp and C set, by the caller)
# Sourced by the supervisor's test scripts (test_supervised.sh,
# test_supervised_errors.sh): the report helpers, and the probe that
# ends a script with 77 on a host that cannot supervise. The caller sets
# C (cwrap) and tmp (its temporary directory) before calling supervise_or_skip.

failed=0
ok() { echo "ok - $*"; }
notok() {
	echo "not ok - $*"
	failed=1
}
skip() { echo "skip - $*"; }
# show FILE...: files' contents, indented, long lines cut.
show() {
	for f in "$@"; do
		echo "    --- ${f##*/}:"
		cut -c1-300 "$f" | sed 's/^/    | /'
	done
}

# Can this host supervise? cwrap says "cwrap: cannot supervise ..." and
# exits 125 when not: said as NOT RUN, exit 77; any other failure fails.
supervise_or_skip() {
	"$C" --supervise -- true > "$tmp/probe.out" 2> "$tmp/probe.err"
	_rc=$?
	_line=$(grep -m1 '^cwrap: cannot supervise' "$tmp/probe.err")
	if [ $_rc = 125 ] && [ -n "$_line" ]; then
		echo "=== NOT RUN on this host: $_line"
		exit 77
	fi
	if [ $_rc = 0 ]; then
		ok "cwrap --supervise -- true"
	else
		notok "cwrap --supervise -- true: status $_rc"
		show "$tmp/probe.out" "$tmp/probe.err"
		exit 1
	fi
}
