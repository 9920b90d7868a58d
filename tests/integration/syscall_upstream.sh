#!/bin/bash
# Ours and upstream's socket_wrapper and uid_wrapper in one process, in
# both preload orders: socket calls and set*id calls made through
# syscall() (syscall_probe) stay emulated, whichever library answers
# syscall() first.
#   - trixie's upstream (socket_wrapper 1.4.4, uid_wrapper 1.3.1) speaks
#     the cross-library protocol (<lib>_syscall_valid/_va): ours with
#     theirs, each way round; run by trixie's dynamic loader and libc
#     (they need glibc 2.38), from build-deps/trixie (tools/deps-upstream).
#     Their socket_wrapper answers only SYS_close through syscall(), so
#     with it the socket numbers are not checked, but SYS_close must reach
#     it from our uid_wrapper in front;
#   - bookworm's uid_wrapper 1.2.9 has syscall() without the protocol
#     (in front, it sends every other number to the kernel), its
#     socket_wrapper 1.3.5 no syscall() at all: ours with each, both
#     orders, checking what the hand-over down the chain can give.
# A release whose packages are missing is skipped, saying so; 77 when
# neither is there.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
probe=$CWRAP_TEST_BIN/syscall_probe
fails=0
runs=0

# expect NAME FILE LINE...: each LINE is in FILE.
expect() {
	local name=$1 file=$2 line
	shift 2
	for line in "$@"; do
		if ! grep -qxF -- "$line" "$file"; then
			echo "FAIL: $name: no line '$line' in:"
			sed 's/^/    /' "$file"
			fails=$((fails + 1))
			return
		fi
	done
	echo "ok: $name"
}

# What the probe sees when ids (ID) or also sockets (ALL) stay emulated.
ID="uid=0 setresuid=0 uid_after=1234 socket=ok"
ALL="$ID bound_files=1 closed_files=0 bind=0 name=127.0.0.10:7 kernel_domain=unix"

# run NAME LOADER-ARGS PRELOAD LINES: the probe under PRELOAD (a
# colon-separated list; LOADER-ARGS "-": the system's loader), both
# wrappers enabled (SOCKET_WRAPPER_DEBUGLEVEL=3: stderr in $tmp/err);
# LINES (space-separated) must all be in what it printed, and the
# kernel's uid must not have changed.
run() {
	local name=$1 pre=$3 out=$tmp/out
	local -a loader=() lines=($4)
	[ "$2" = - ] || loader=($2)
	rm -rf "$tmp/sockets"
	mkdir "$tmp/sockets"
	runs=$((runs + 1))
	# (timeout and env start unwrapped: trixie's libraries cannot be
	# preloaded into this system's programs)
	if ! timeout 20 env LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}$pre" \
		SOCKET_WRAPPER_DIR="$tmp/sockets" SOCKET_WRAPPER_DEFAULT_IFACE=20 \
		SOCKET_WRAPPER_DEBUGLEVEL=3 UID_WRAPPER=1 UID_WRAPPER_ROOT=1 \
		"${loader[@]}" "$probe" > "$out" 2> "$tmp/err"; then
		echo "FAIL: $name: the probe failed:"
		cat "$out" "$tmp/err"
		fails=$((fails + 1))
		return
	fi
	if grep -qx kernel_uid=1234 "$out"; then
		echo "FAIL: $name: the kernel's uid changed"
		fails=$((fails + 1))
		return
	fi
	expect "$name" "$out" "${lines[@]}"
}

# Upstream's socket_wrapper 1.4.4 answers SYS_close (of its sockets)
# through syscall(), no other socket number: with ours first, the
# number reaches it through the protocol, which its trace shows.
their_close() {
	if grep -q 'swrap_close: Remove wrapper for fd=' "$tmp/err"; then
		echo "ok: $1: syscall(SYS_close) reached their socket_wrapper"
	else
		echo "FAIL: $1: syscall(SYS_close) did not reach their socket_wrapper:"
		sed 's/^/    /' "$tmp/err"
		fails=$((fails + 1))
	fi
}

ours_socket=$CWRAP_SOCKET_WRAPPER_LIB
ours_uid=$CWRAP_UID_WRAPPER_LIB
released=0

trixie=$CWRAP_SOURCE_DIR/build-deps/trixie
tlib=$trixie/usr/lib/x86_64-linux-gnu
if [ -x "$trixie/usr/lib64/ld-linux-x86-64.so.2" ] &&
	[ -e "$tlib/libsocket_wrapper.so" ] && [ -e "$tlib/libuid_wrapper.so" ]; then
	released=$((released + 1))
	loader="$trixie/usr/lib64/ld-linux-x86-64.so.2 --library-path $tlib"
	for lib in socket uid; do
		if ! nm -D --defined-only "$tlib/lib${lib}_wrapper.so" | grep -q " ${lib}_wrapper_syscall_va$"; then
			echo "FAIL: trixie's lib${lib}_wrapper.so has no ${lib}_wrapper_syscall_va"
			fails=$((fails + 1))
		fi
	done
	run "trixie: ours, both (sanity)" "$loader" "$ours_uid:$ours_socket" "$ALL"
	run "trixie: their uid_wrapper, then our socket_wrapper" "$loader" "$tlib/libuid_wrapper.so:$ours_socket" "$ALL"
	run "trixie: our socket_wrapper, then their uid_wrapper" "$loader" "$ours_socket:$tlib/libuid_wrapper.so" "$ALL"
	run "trixie: their socket_wrapper, then our uid_wrapper" "$loader" "$tlib/libsocket_wrapper.so:$ours_uid" "$ID"
	run "trixie: our uid_wrapper, then their socket_wrapper" "$loader" "$ours_uid:$tlib/libsocket_wrapper.so" "$ID"
	their_close "trixie: our uid_wrapper, then their socket_wrapper"
else
	echo "skipped: trixie's libc6, libsocket-wrapper and libuid-wrapper are not in $trixie (tools/deps-upstream)"
fi

bookworm=$CWRAP_SOURCE_DIR/build-deps/bookworm/usr/lib/x86_64-linux-gnu
if [ -e "$bookworm/libsocket_wrapper.so" ] && [ -e "$bookworm/libuid_wrapper.so" ]; then
	released=$((released + 1))
	# (their uid_wrapper 1.2.9 first hands socket numbers to the kernel,
	# past ours: only the ids are checked there)
	run "bookworm: their uid_wrapper 1.2.9, then our socket_wrapper" - "$bookworm/libuid_wrapper.so:$ours_socket" "$ID bound_files=1"
	run "bookworm: our socket_wrapper, then their uid_wrapper 1.2.9" - "$ours_socket:$bookworm/libuid_wrapper.so" "$ALL"
	# (their socket_wrapper 1.3.5 has no syscall(): ids only)
	run "bookworm: their socket_wrapper 1.3.5, then our uid_wrapper" - "$bookworm/libsocket_wrapper.so:$ours_uid" "$ID"
	run "bookworm: our uid_wrapper, then their socket_wrapper 1.3.5" - "$ours_uid:$bookworm/libsocket_wrapper.so" "$ID"
else
	echo "skipped: bookworm's libsocket-wrapper and libuid-wrapper are not in $bookworm (tools/deps-upstream)"
fi

if [ "$released" = 0 ]; then
	echo "no upstream wrappers to mix with: skipped"
	exit 77
fi
echo "$((runs - fails)) passed, $fails failed"
[ "$fails" = 0 ]
