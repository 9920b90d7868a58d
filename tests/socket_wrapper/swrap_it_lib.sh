# Shared by the socket_wrapper integration and capture scripts (sourced;
# POSIX sh, so bash scripts use it too): a temporary directory, background
# jobs stopped on exit, the preload of the built library, waiting for an
# emulated socket, and the two ways to fail: fail (stop now) and expect
# (record, go on; the script ends with `exit $failed`).
tmp=$(mktemp -d)
pids=
# track PID: a background job to stop on exit.
track() {
	pids="$pids $1"
}
cleanup() {
	for p in $pids; do
		kill "$p" 2> /dev/null || true
	done
	wait 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH"
PRELOAD="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so"
failed=0

# fail MESSAGE: the test fails here.
fail() {
	echo "FAIL: $*"
	exit 1
}

# How long a wait for something that should come gives it before the
# test fails (wait_limit, CWRAP_TEST_WAIT seconds, a minute by default),
# and wait_until CMD...
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"

# wait_for FILE: until the emulated socket file exists.
wait_for() {
	wait_until test -S "$1" || fail "$1 never appeared"
}

# wait_listen FILE: until the TCP listener of a server run under our
# library listens (its socket file exists from bind() on; listen() marks it
# sticky): a client that comes between the two is refused, as on a real
# network.
is_listening() {
	[ -S "$1" ] && [ -k "$1" ]
}
wait_listen() {
	wait_until is_listening "$1" || fail "$1 never listened"
}

# wait_grep PATTERN FILE: until FILE has a line matching PATTERN.
has_line() {
	grep -q -- "$1" "$2" 2> /dev/null
}
wait_grep() {
	wait_until has_line "$1" "$2"
}

# wait_capture FILE FILTER N: until tshark counts N packets of FILE that
# match FILTER (the wait limit at most, then the test goes on and its
# checks say what is missing). Before stopping a server: a process killed before it
# closed a connection never sent its FIN, on a real network either.
wait_capture() {
	for _ in $(seq 1 $((wait_limit * 10))); do
		[ "$(tshark -n -r "$1" -Y "$2" 2> /dev/null | wc -l)" -ge "$3" ] && return 0
		sleep 0.1
	done
	echo "(after $wait_limit s, fewer than $3 packets match '$2')"
}

# tshark_count FILE FILTER...: the number of packets of FILE that each
# FILTER matches, one a line, from one tshark run (its I/O statistics over
# the whole capture): each run loads every dissector anew, seconds on a
# loaded machine. No FILTER may hold a comma.
tshark_count() {
	_tc_file=$1
	shift
	_tc_stat=io,stat,0
	for _tc_f in "$@"; do
		_tc_stat="$_tc_stat,$_tc_f"
	done
	tshark -n -r "$_tc_file" -q -z "$_tc_stat" 2> /dev/null |
		awk -F'|' '/<>/ { for (i = 3; i < NF; i += 2) print $i + 0 }'
}

# bounded_wait PID SECONDS: wait for the background job PID and return its
# status; after SECONDS it is stopped (status 143). Used instead of
# `timeout SECONDS CMD`, which would run the system's timeout under the
# variables meant for CMD: a build whose libraries cannot be preloaded
# into the system's programs (musl, another word size) must run only its
# own programs under LD_PRELOAD. The watchdog ends by itself once the job
# is gone: a shell killed before it resets its traps would run this
# shell's EXIT trap (bash does).
bounded_wait() {
	(
		n=$(($2 * 10))
		while [ $n -gt 0 ] && kill -0 "$1"; do
			sleep 0.1
			n=$((n - 1))
		done
		[ $n -gt 0 ] || kill "$1"
	) > /dev/null 2>&1 &
	wait "$1"
}

# expect DESCRIPTION PATTERN FILE: FILE matches the extended regex.
expect() {
	if grep -E -q -- "$2" "$3"; then
		echo "ok: $1"
	else
		echo "FAIL: $1: no line matching '$2' in:"
		sed 's/^/    /' "$3"
		failed=1
	fi
}

# show CMD...: print the command as typed.
show() {
	echo "\$ $*"
}
