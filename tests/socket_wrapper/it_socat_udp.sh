#!/bin/bash
# A UDP exchange with socat: a server on 127.0.0.10 port 53 answers each
# datagram in upper case; the client on interface 100 gets the answer and
# the server logs the client as 127.0.0.100. Then the same over IPv6.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"

dir=$tmp/sockets
mkdir "$dir"

exchange() { # LISTEN-ADDRESS SOCKET-FILE CONNECT-ADDRESS CLIENT-PATTERN TAG
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 socat -d -d $1 SYSTEM:'tr a-z A-Z'"
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		socat -d -d "$1" SYSTEM:'tr a-z A-Z' 2> "$tmp/server$5" &
	track $!
	wait_for "$dir/$2"
	show "echo hello udp | LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 socat - $3"
	echo "hello udp" | LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir \
		SOCKET_WRAPPER_DEFAULT_IFACE=100 socat - "$3" > "$tmp/client$5"
	cat "$tmp/client$5"
	expect "answer received ($5)" '^HELLO UDP$' "$tmp/client$5"
	expect "server saw the client ($5)" "receiving packet from AF=[0-9]+ $4" "$tmp/server$5"
}

exchange UDP-RECVFROM:53,bind=127.0.0.10 U0A0035 UDP:127.0.0.10:53 \
	'127\.0\.0\.100:[0-9]+' 4
exchange UDP6-RECVFROM:53,bind=[fd00::5357:5f0a] Y0A0035 'UDP6:[fd00::5357:5f0a]:53' \
	'\[fd00:0000:0000:0000:0000:0000:5357:5f64\]:[0-9]+' 6
exit $failed
