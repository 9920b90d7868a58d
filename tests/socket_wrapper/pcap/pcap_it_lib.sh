# Shared by the capture integration scripts (sourced, POSIX sh): a
# temporary directory, the one background server ($server, stopped on
# exit), fail(), and the preload of the built socket_wrapper.
tmp=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH"
pre="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so"
