#!/bin/sh
# A forking server and its clients capturing into one file: socat listens
# on 127.0.0.10:7 and forks a child per connection (the parent closes its
# copy of each accepted socket at once, the child echoes through a pipe); three nc clients
# from 127.0.0.100 connect one after the other. Each connection must show
# one handshake, the data once each way, and each side's FIN after that
# side's data (the parent's close is not the end of the connection), with
# no malformed packet, expert error or TCP analysis flag.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../swrap_it_lib.sh"
mkdir "$tmp/swrap"
cap="$tmp/fork.pcap"

echo "\$ SOCKET_WRAPPER_PCAP_FILE=fork.pcap socat TCP-LISTEN:7,bind=127.0.0.10,fork,reuseaddr PIPE &"
LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap" SOCKET_WRAPPER_DEFAULT_IFACE=10 \
	SOCKET_WRAPPER_PCAP_FILE="$cap" \
	socat TCP-LISTEN:7,bind=127.0.0.10,fork,reuseaddr PIPE 2> "$tmp/socat.err" &
server=$!
track "$server"
wait_listen "$tmp/swrap/T0A0007"
for n in 1 2 3; do
	echo "\$ echo 'Hello $n!' | SOCKET_WRAPPER_PCAP_FILE=fork.pcap nc -N 127.0.0.10 7"
	got=$(echo "Hello $n!" | LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap" \
		SOCKET_WRAPPER_DEFAULT_IFACE=100 SOCKET_WRAPPER_PCAP_FILE="$cap" \
		timeout "$wait_limit" nc -N 127.0.0.10 7)
	echo "$got"
	[ "$got" = "Hello $n!" ] || fail "no echo"
done
# nc -N exits at the echo, maybe before the last child closed.
wait_capture "$cap" 'tcp.flags.fin==1 && tcp.srcport==7' 3
kill "$server"
wait "$server" 2> /dev/null || true
server=

echo "\$ tshark -r fork.pcap"
tshark -n -r "$cap" 2> /dev/null
"$here/tshark_check.sh" "$cap" 'tcp.flags.syn==1' 'tcp.srcport==7 && tcp.flags.fin==1'
tshark -n -r "$cap" -T fields -e tcp.stream -e tcp.srcport -e tcp.flags.syn \
	-e tcp.flags.ack -e tcp.flags.fin -e tcp.len 2> /dev/null > "$tmp/fields"
awk '
	$3 == 1 && $4 == 0 { syn[$1]++ }
	$6 > 0 { data[$1 "/" ($2 == 7)]++; if (fin[$1 "/" ($2 == 7)]) bad = bad " data-after-FIN:" $1 }
	$5 == 1 { fin[$1 "/" ($2 == 7)]++ }
	END {
		for (s = 0; s < 3; s++)
			if (syn[s] != 1 || fin[s "/0"] != 1 || fin[s "/1"] != 1 ||
			    data[s "/0"] != 1 || data[s "/1"] != 1)
				bad = bad " stream" s
		if (bad != "") { print "bad:" bad; exit 1 }
		print "3 connections: one SYN, one data segment and one FIN each way, FIN after data"
	}' "$tmp/fields" || fail "the capture is not three clean connections"
