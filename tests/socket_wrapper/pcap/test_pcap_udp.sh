#!/bin/sh
# UDP captured by both ends into one file, over IPv4 and IPv6: a python3
# echo server (unconnected, recvfrom/sendto) and a client that sends three
# datagrams and one to an address nobody has bound. Each datagram must be
# in the capture once, with the right length and payload, and the lost one
# answered by ICMP / ICMPv6 port unreachable; tshark must be content.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../swrap_it_lib.sh"

run() { # TAG FAMILY SERVER-ADDR NOBODY-ADDR SOCKET-FILE ICMP-FILTER
	tag=$1 fam=$2 srv=$3 nobody=$4 sockfile=$5 icmp=$6
	cap="$tmp/udp-$tag.pcap"
	mkdir "$tmp/swrap-$tag"
	echo "\$ SOCKET_WRAPPER_PCAP_FILE=udp-$tag.pcap python3 udp echo server on [$srv]:7 &"
	LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap-$tag" SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		SOCKET_WRAPPER_PCAP_FILE="$cap" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(getattr(socket, sys.argv[1]), socket.SOCK_DGRAM)
s.bind((sys.argv[2], 7))
for i in range(3):
    d, a = s.recvfrom(100)
    s.sendto(b"re:" + d, a)
' "$fam" "$srv" &
	server=$!
	track "$server"
	wait_until test -S "$tmp/swrap-$tag/$sockfile" || fail "the server did not start"
	echo "\$ SOCKET_WRAPPER_PCAP_FILE=udp-$tag.pcap python3 udp client"
	LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap-$tag" SOCKET_WRAPPER_DEFAULT_IFACE=100 \
		SOCKET_WRAPPER_PCAP_FILE="$cap" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(getattr(socket, sys.argv[1]), socket.SOCK_DGRAM)
for i in range(3):
    s.sendto(b"q%d" % i, (sys.argv[2], 7))
    d = s.recvfrom(100)[0]
    print(d.decode())
    assert d == b"re:q%d" % i
s.sendto(b"nobody?", (sys.argv[3], 7))
' "$fam" "$srv" "$nobody"
	wait "$server"
	server=
	echo "\$ tshark -r udp-$tag.pcap"
	tshark -n -r "$cap" 2> /dev/null
	"$here/tshark_check.sh" "$cap" "$icmp"
	# (the counts from one tshark run: the datagrams, then each payload)
	payloads="q0 re:q0 q1 re:q1 q2 re:q2"
	filters="!icmp && !icmpv6 && udp"
	for p in $payloads; do
		hex=$(printf '%s' "$p" | od -An -tx1 | tr -d ' \n' | sed 's/../&:/g; s/:$//')
		filters="$filters,!icmp && !icmpv6 && udp.payload==$hex"
	done
	IFS=,
	# shellcheck disable=SC2086 # one filter per comma-separated field
	tshark_count "$cap" $filters > "$tmp/counts"
	unset IFS
	n=$(sed -n 1p "$tmp/counts")
	[ "$n" = 7 ] || fail "${n:-no} datagrams, not 7"
	i=1
	for p in $payloads; do
		i=$((i + 1))
		n=$(sed -n "${i}p" "$tmp/counts")
		[ "$n" = 1 ] || fail "datagram '$p' is there ${n:-no} times"
	done
}

run 4 AF_INET 127.0.0.10 127.0.0.11 U0A0007 'icmp.type==3 && icmp.code==3'
run 6 AF_INET6 fd00::5357:5f0a fd00::5357:5f0b Y0A0007 'icmpv6.type==1 && icmpv6.code==4'
