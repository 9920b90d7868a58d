#!/bin/bash
# BIND's dig (9.18, libuv) against a small DNS responder of ours on
# 127.0.0.10:53, both under the wrapper: dig connect()s its UDP socket and
# sends with syscall(SYS_sendmmsg) and no address, which must reach the
# responder, which must see dig at its emulated address. Then over IPv6.
# Skipped (77) when dig is not installed.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"
command -v dig > /dev/null || { echo "dig not installed: skipped"; exit 77; }

dir=$tmp/sockets
mkdir "$dir"

lookup() { # SERVER-ADDRESS SOCKET-FILE CLIENT-PATTERN TAG
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 swrap_dns_srv $1 53 127.0.0.99 &"
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		"$CWRAP_TEST_BIN/swrap_dns_srv" "$1" 53 127.0.0.99 > "$tmp/server$4" &
	track $!
	wait_for "$dir/$2"
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=21 dig @$1 example.test +short +tries=1 +time=5"
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=21 \
		dig "@$1" example.test +short +tries=1 +time=5 > "$tmp/dig$4" 2>&1
	cat "$tmp/dig$4"
	expect "dig got the answer ($4)" '^127\.0\.0\.99$' "$tmp/dig$4"
	expect "the responder saw dig's emulated address ($4)" "^query example\.test from $3\$" "$tmp/server$4"
}

lookup 127.0.0.10 U0A0035 '127\.0\.0\.21' 4
lookup fd00::5357:5f0a Y0A0035 'fd00::5357:5f15' 6
exit $failed
