#!/bin/bash
# Optional: a process wrapped by Debian's libsocket-wrapper and one wrapped
# by ours meet in one SOCKET_WRAPPER_DIR, both directions, TCP and UDP,
# IPv4 and IPv6; each side's getsockname/getpeername answer the other's
# emulated address; a broadcast of ours reaches upstream's socket bound to
# the broadcast address. Skipped (77) when the upstream library is not
# there.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"

upstream=
for f in /usr/lib/x86_64-linux-gnu/libsocket_wrapper.so.0 \
	/usr/lib/x86_64-linux-gnu/libsocket_wrapper.so; do
	if [ -e "$f" ] && [ "$(readlink -f "$f")" != "$(readlink -f "$CWRAP_SOCKET_WRAPPER_LIB")" ]; then
		upstream=$f
		break
	fi
done
if [ -z "$upstream" ]; then
	echo "upstream libsocket-wrapper not installed: skipped"
	exit 77
fi
echo "upstream: $(readlink -f "$upstream")"
ours="${CWRAP_PRELOAD_PREFIX}$CWRAP_SOCKET_WRAPPER_LIB"
theirs="${CWRAP_PRELOAD_PREFIX}$upstream"
bin=$CWRAP_TEST_BIN
dir=$tmp/sockets
mkdir "$dir"
n=0

# case SERVER-LIB CLIENT-LIB PROTO ADDRESS FILE CLIENT-ADDRESS-PATTERN
check() {
	local slib=$1 clib=$2 proto=$3 addr=$4 file=$5 cpat=$6
	n=$((n + 1))
	echo "--- $proto $addr: server $([ "$slib" = "$ours" ] && echo ours || echo upstream)," \
		"client $([ "$clib" = "$ours" ] && echo ours || echo upstream)"
	LD_PRELOAD=$slib SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		"$bin/swrap_echo_srv" "$proto" "$addr" 7 > "$tmp/ready$n" 2> "$tmp/srv$n" &
	local spid=$!
	track "$spid"
	wait_for "$dir/$file"
	# "ready" comes after listen() (the file exists from bind() on, and
	# upstream marks nothing on it), whichever library serves
	wait_grep '^ready$' "$tmp/ready$n" || fail "the server never said ready"
	LD_PRELOAD=$clib SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=20 \
		"$bin/swrap_client" "$proto" "$addr" 7 interop > "$tmp/cli$n" 2>&1
	# (the server says whom it served before it echoes)
	wait_grep '^accepted peer=\|^datagram from=' "$tmp/srv$n" || true
	kill "$spid"
	wait "$spid" 2> /dev/null
	rm -f "$dir/$file"
	cat "$tmp/cli$n" "$tmp/srv$n"
	local srvaddr=${addr//./\\.}
	[ "${addr#*:}" != "$addr" ] && srvaddr="\\[$addr\\]"
	expect "client's peer is the server" "^local=$cpat:[0-9]+ peer=$srvaddr:7$" "$tmp/cli$n"
	expect "echo came back" '^reply=interop$' "$tmp/cli$n"
	if [ "$proto" = tcp ]; then
		expect "server sees the client" "^accepted peer=$cpat:[0-9]+ local=$srvaddr:7$" "$tmp/srv$n"
	else
		expect "server sees the client" "^datagram from=$cpat:[0-9]+$" "$tmp/srv$n"
	fi
}

for pair in "$ours $theirs" "$theirs $ours"; do
	set -- $pair
	if [ -n "$CWRAP_PRELOAD_PREFIX" ]; then
		s="$1 $2"; c="$3 $4"
	else
		s=$1; c=$2
	fi
	check "$s" "$c" tcp 127.0.0.10 T0A0007 '127\.0\.0\.20'
	check "$s" "$c" udp 127.0.0.10 U0A0007 '127\.0\.0\.20'
	check "$s" "$c" tcp fd00::5357:5f0a X0A0007 '\[fd00::5357:5f14\]'
	check "$s" "$c" udp fd00::5357:5f0a Y0A0007 '\[fd00::5357:5f14\]'
done

# A broadcast of ours reaches upstream's socket bound to the broadcast
# address (upstream names it after its default interface: U0A0089), and
# its answer comes back. (Not the other way: upstream broadcasts to
# interfaces 1..64, and ours is interface FF; see socket_wrapper(1).)
if command -v python3 > /dev/null; then
	echo "--- udp broadcast 127.255.255.255:137: server upstream, client ours"
	s=$theirs c=$ours
	LD_PRELOAD=$s SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.255.255.255", 137))
print("name=%s:%d" % s.getsockname(), flush=True)
d, a = s.recvfrom(100)
print("datagram from=%s:%d" % a, flush=True)
s.sendto(d, a)' > "$tmp/bsrv" 2>&1 &
	track $!
	wait_for "$dir/U0A0089"
	LD_PRELOAD=$c SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=20 timeout "$wait_limit" python3 -c '
import socket, sys
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
c.settimeout(int(sys.argv[1]))
c.sendto(b"nbquery", ("127.255.255.255", 137))
d, a = c.recvfrom(100)
print("reply=%s from=%s:%d" % (d.decode(), a[0], a[1]), flush=True)' "$wait_limit" > "$tmp/bcli" 2>&1
	cat "$tmp/bsrv" "$tmp/bcli"
	expect "upstream's broadcast socket names the broadcast address" '^name=127\.255\.255\.255:137$' "$tmp/bsrv"
	expect "it got our broadcast from our address" '^datagram from=127\.0\.0\.20:[0-9]+$' "$tmp/bsrv"
	expect "its answer came back" '^reply=nbquery from=127\.0\.0\.10:137$' "$tmp/bcli"
fi
exit $failed
