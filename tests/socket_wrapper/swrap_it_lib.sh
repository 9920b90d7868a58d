# Shared by the socket_wrapper integration scripts (sourced): a temporary
# directory cleaned on exit, background jobs stopped by pid, and waiting
# for an emulated socket to appear.
set -u
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2> /dev/null
	done
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH"
PRELOAD="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so"
fail=0

# wait_for FILE: until the emulated socket file exists (5 s at most).
wait_for() {
	for _ in $(seq 1 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	echo "FAIL: $1 never appeared"
	exit 1
}

# wait_grep PATTERN FILE: until FILE has a line matching PATTERN.
wait_grep() {
	for _ in $(seq 1 100); do
		grep -q -- "$1" "$2" 2> /dev/null && return 0
		sleep 0.05
	done
	return 1
}

# expect DESCRIPTION PATTERN FILE: FILE matches the extended regex.
expect() {
	if grep -E -q -- "$2" "$3"; then
		echo "ok: $1"
	else
		echo "FAIL: $1: no line matching '$2' in:"
		sed 's/^/    /' "$3"
		fail=1
	fi
}

# show CMD...: print the command as typed.
show() {
	echo "\$ $*"
}
