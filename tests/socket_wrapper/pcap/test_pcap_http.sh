#!/bin/sh
# An HTTP exchange captured by both ends into one file: python3 -m
# http.server on 127.0.0.10:80 (and on [fd00::5357:5f0a]:80) serving a
# 20000-byte file, fetched by curl from 127.0.0.21. Each packet must be in
# the capture exactly once (a packet recorded by both processes would show
# up in tshark as a retransmission), and tshark must see one GET and one
# "200 OK" of the right length, no malformed packet, no expert error.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../swrap_it_lib.sh"
mkdir "$tmp/www"
/usr/bin/python3 -c 'import sys; sys.stdout.write("".join(chr(97 + i % 26) for i in range(20000)))' > "$tmp/www/data.txt"

# The client is curl; but curl started under the sanitizer runtime alone
# hangs on this system (before any network call, wrappers or not), so a
# sanitizer build that finds it so fetches with python3's urllib instead.
client=curl
if [ -n "${CWRAP_PRELOAD_PREFIX:-}" ] &&
	! LD_PRELOAD="$CWRAP_PRELOAD_PREFIX" timeout 10 curl -s -o /dev/null "file://$tmp/www/data.txt" 2> /dev/null; then
	client=python3
	echo "(curl hangs under the sanitizer runtime here: using python3 urllib)"
fi
fetch() { # URL OUTPUT SWRAP-DIR CAPTURE: under the wrapper, capturing
	set -- "$1" "$2" env LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$3" \
		SOCKET_WRAPPER_DEFAULT_IFACE=21 SOCKET_WRAPPER_PCAP_FILE="$4"
	url=$1 out=$2
	shift 2
	if [ "$client" = curl ]; then
		"$@" curl -s -g -o "$out" "$url"
	else
		"$@" /usr/bin/python3 -c 'import sys, urllib.request; open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1]).read())' "$url" "$out"
	fi
}

run() { # FAMILY-TAG ADDRESS URL-HOST SOCKET-FILE
	tag=$1 addr=$2 host=$3 sockfile=$4
	mkdir "$tmp/swrap-$tag"
	cap="$tmp/http-$tag.pcap"
	echo "\$ SOCKET_WRAPPER_PCAP_FILE=http-$tag.pcap python3 -m http.server 80 --bind $addr &"
	LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/swrap-$tag" SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		SOCKET_WRAPPER_PCAP_FILE="$cap" \
		/usr/bin/python3 -m http.server 80 --bind "$addr" --directory "$tmp/www" \
		> "$tmp/server-$tag.log" 2>&1 &
	server=$!
	track "$server"
	wait_listen "$tmp/swrap-$tag/$sockfile"
	echo "\$ SOCKET_WRAPPER_PCAP_FILE=http-$tag.pcap $client http://$host/data.txt"
	fetch "http://$host/data.txt" "$tmp/got-$tag" "$tmp/swrap-$tag" "$cap"
	cmp "$tmp/got-$tag" "$tmp/www/data.txt" || fail "curl got other bytes"
	# curl stops at Content-Length: the server may not have closed yet.
	wait_capture "$cap" 'tcp.flags.fin==1 && tcp.srcport==80' 1
	kill "$server"
	wait "$server" 2> /dev/null || true
	server=
	echo "\$ tshark -r http-$tag.pcap -q -z conv,tcp"
	tshark -n -r "$cap" -q -z conv,tcp 2> /dev/null | grep '<->'
	"$here/tshark_check.sh" "$cap" \
		'tcp.flags.syn==1 && tcp.flags.ack==0 && tcp.dstport==80' \
		'http.request.method=="GET" && http.request.uri=="/data.txt"' \
		'http.response.code==200 && http.content_length==20000' \
		'tcp.len==1500'
	# shellcheck disable=SC2046 # the four counts
	set -- $(tshark_count "$cap" 'tcp.flags.syn==1 && tcp.flags.ack==0' \
		'http.request' 'http.response' 'tcp.flags.fin==1')
	[ "${1:-}" = 1 ] || fail "'tcp.flags.syn==1 && tcp.flags.ack==0' matches ${1:-no} packets, not 1"
	[ "${2:-}" = 1 ] || fail "'http.request' matches ${2:-no} packets, not 1"
	[ "${3:-}" = 1 ] || fail "'http.response' matches ${3:-no} packets, not 1"
	[ "${4:-}" = 2 ] || fail "${4:-no} FINs, not 2 (one each way)"
	bytes=$(tshark -n -r "$cap" -Y 'tcp.srcport==80' -T fields -e tcp.len 2> /dev/null |
		awk '{ s += $1 } END { print s }')
	[ "$bytes" -gt 20000 ] || fail "the server sent $bytes bytes"
}

run 4 127.0.0.10 127.0.0.10 T0A0050
run 6 fd00::5357:5f0a '[fd00::5357:5f0a]' X0A0050
