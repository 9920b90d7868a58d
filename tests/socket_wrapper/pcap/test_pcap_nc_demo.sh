#!/bin/sh
# The article's nc demo with the client capturing, as written:
#   server: SOCKET_WRAPPER_DEFAULT_IFACE=10 nc -v -l 127.0.0.10 7
#   client: SOCKET_WRAPPER_DEFAULT_IFACE=100 SOCKET_WRAPPER_PCAP_FILE=sw.pcap
#           nc -v 127.0.0.10 7   (typing "Hello!")
# then the capture is judged by tshark: one conversation 127.0.0.100:<port>
# <-> 127.0.0.10:7 with the handshake, "Hello!" and the client's FIN, no
# malformed packet, no expert error, no TCP analysis flag.
# With CWRAP_DEMO_PREFIX set (to "$CWRAP_TEST_BIN/cwrap_"), the project's
# cwrap_nc (tests/demo_programs) runs instead of the system's nc.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../common/local_names.sh"
. "$here/../swrap_it_lib.sh"
nc=${CWRAP_DEMO_PREFIX:-}nc
mkdir "$tmp/swrap"

echo "\$ LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$tmp/swrap SOCKET_WRAPPER_DEFAULT_IFACE=10 ${nc##*/} -v -l 127.0.0.10 7 &"
LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap" SOCKET_WRAPPER_DEFAULT_IFACE=10 \
	"$nc" -v -l 127.0.0.10 7 > "$tmp/server.out" 2> "$tmp/server.err" < /dev/null &
server=$!
track "$server"
wait_listen "$tmp/swrap/T0A0007"

echo "\$ echo 'Hello!' | LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$tmp/swrap SOCKET_WRAPPER_DEFAULT_IFACE=100 SOCKET_WRAPPER_PCAP_FILE=$tmp/sw.pcap ${nc##*/} -v -N 127.0.0.10 7"
echo 'Hello!' | LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap" SOCKET_WRAPPER_DEFAULT_IFACE=100 \
	SOCKET_WRAPPER_PCAP_FILE="$tmp/sw.pcap" "$nc" -v -N 127.0.0.10 7 &
client=$!
track "$client"
bounded_wait "$client" 20 || fail "the client did not end well within 20 s"
wait "$server" || true
server=
echo "server printed:"
cat "$tmp/server.err" "$tmp/server.out"
[ "$(cat "$tmp/server.out")" = "Hello!" ] || fail "the server did not print Hello!"
grep -q "Connection received on 127.0.0.100 " "$tmp/server.err" ||
	fail "the server did not see the client as 127.0.0.100"

echo "\$ tshark -r sw.pcap"
tshark -n -r "$tmp/sw.pcap" 2> /dev/null
echo "\$ tshark -r sw.pcap -q -z conv,tcp"
conv=$(tshark -n -r "$tmp/sw.pcap" -q -z conv,tcp 2> /dev/null)
echo "$conv"
[ "$(echo "$conv" | grep -c '<->')" = 1 ] || fail "not exactly one TCP conversation"
echo "$conv" | grep -Eq '^127\.0\.0\.100:[0-9]+ +<-> 127\.0\.0\.10:7 ' ||
	fail "the conversation is not 127.0.0.100 <-> 127.0.0.10:7"
# (both counts from one tshark run)
# shellcheck disable=SC2046 # the two counts
set -- $(tshark_count "$tmp/sw.pcap" '!(ip.addr==127.0.0.100 && ip.addr==127.0.0.10)' 'tcp.flags.syn==1')
[ "${1:-}" = 0 ] || fail "packets of other addresses"
[ "${2:-}" = 2 ] || fail "the handshake is not there exactly once"
"$here/tshark_check.sh" "$tmp/sw.pcap" \
	'ip.src==127.0.0.100 && ip.dst==127.0.0.10 && tcp.dstport==7 && tcp.flags.syn==1 && tcp.flags.ack==0' \
	'ip.src==127.0.0.10 && tcp.srcport==7 && tcp.flags.syn==1 && tcp.flags.ack==1' \
	'ip.src==127.0.0.100 && tcp.payload==48:65:6c:6c:6f:21:0a' \
	'ip.src==127.0.0.100 && tcp.flags.fin==1'

# A bad SOCKET_WRAPPER_MTU is named in one line; the capture goes on with
# the default.
echo "\$ echo hi | SOCKET_WRAPPER_MTU=100 SOCKET_WRAPPER_PCAP_FILE=mtu.pcap ${nc##*/} -u -w1 127.0.0.10 5000"
echo hi | LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap" SOCKET_WRAPPER_DEFAULT_IFACE=100 \
	SOCKET_WRAPPER_MTU=100 SOCKET_WRAPPER_PCAP_FILE="$tmp/mtu.pcap" \
	"$nc" -u -w1 127.0.0.10 5000 2> "$tmp/mtu.err" &
client=$!
track "$client"
bounded_wait "$client" 20 || true
cat "$tmp/mtu.err"
[ "$(wc -l < "$tmp/mtu.err")" = 1 ] && grep -q "SOCKET_WRAPPER_MTU='100'" "$tmp/mtu.err" ||
	fail "a bad SOCKET_WRAPPER_MTU is not named in exactly one line"
[ "$(tshark -n -r "$tmp/mtu.pcap" -Y '!icmp && udp.dstport==5000 && udp.length==11' 2> /dev/null | wc -l)" = 1 ] ||
	fail "the datagram is not in the capture"
echo OK
