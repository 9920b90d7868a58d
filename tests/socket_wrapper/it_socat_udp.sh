#!/bin/bash
# A UDP exchange with socat: a server on 127.0.0.10 port 53 answers each
# datagram in upper case; the client on interface 100 gets the answer and
# the server logs the client as 127.0.0.100. Then the same over IPv6.
# Then a port nobody has: socat's read and nc's UDP test (-v -u) hear
# "Connection refused" (the kernel's port unreachable, reported to a
# connected UDP socket) and exit 1, as they do on 127.0.0.1.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"

dir=$tmp/sockets
mkdir "$dir"

exchange() { # LISTEN-ADDRESS SOCKET-FILE CONNECT-ADDRESS CLIENT-PATTERN TAG
	# (the server, once its one datagram is in, gives tr 0.5 s to answer
	# and then kills it: -t gives it the wait limit, the exchange ends
	# as soon as tr has answered; under the ASan runtime on a loaded
	# machine the shell and tr took longer: 'tr: write error: Broken pipe')
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 socat -d -d -t $wait_limit $1 SYSTEM:'tr a-z A-Z'"
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		socat -d -d -t "$wait_limit" "$1" SYSTEM:'tr a-z A-Z' 2> "$tmp/server$5" &
	track $!
	wait_for "$dir/$2"
	show "echo hello udp | LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 socat - $3"
	# (socat's client waits 0.5 s for the answer once its input ends: the
	# input stays open until the answer is there, however slow the
	# machine, the wait limit at most)
	{
		echo "hello udp"
		wait_grep '^HELLO UDP$' "$tmp/client$5"
	} | LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir \
		SOCKET_WRAPPER_DEFAULT_IFACE=100 socat - "$3" > "$tmp/client$5"
	cat "$tmp/client$5"
	expect "answer received ($5)" '^HELLO UDP$' "$tmp/client$5"
	expect "server saw the client ($5)" "receiving packet from AF=[0-9]+ $4" "$tmp/server$5"
}

exchange UDP-RECVFROM:53,bind=127.0.0.10 U0A0035 UDP:127.0.0.10:53 \
	'127\.0\.0\.100:[0-9]+' 4
exchange UDP6-RECVFROM:53,bind=[fd00::5357:5f0a] Y0A0035 'UDP6:[fd00::5357:5f0a]:53' \
	'\[fd00:0000:0000:0000:0000:0000:5357:5f64\]:[0-9]+' 6

refused() { # TAG ADDR PORT [ENV...]: socat and nc to a port nobody has
	local tag=$1 addr=$2 port=$3
	shift 3
	# (the input stays open until the refusal is there, as above)
	{
		echo x
		wait_grep 'Connection refused' "$tmp/socat.$tag"
	} | env "$@" socat - "UDP:$addr:$port" 2> "$tmp/socat.$tag"
	echo "exit $?" >> "$tmp/socat.$tag"
	cat "$tmp/socat.$tag"
	expect "socat exits 1 ($tag)" '^exit 1$' "$tmp/socat.$tag"
	expect "socat's read is refused ($tag)" 'E read\(.*Connection refused' "$tmp/socat.$tag"
	env "$@" nc -v -u -w1 "$addr" "$port" < /dev/null > "$tmp/nc.$tag" 2>&1
	echo "exit $?" >> "$tmp/nc.$tag"
	expect "nc's UDP test exits 1 ($tag)" '^exit 1$' "$tmp/nc.$tag"
}
show "socat and nc -v -u to 127.0.0.10:5300, where nobody is"
refused ours 127.0.0.10 5300 LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$dir" \
	SOCKET_WRAPPER_DEFAULT_IFACE=100
# the kernel on a port that was free a moment ago
port=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
refused kernel 127.0.0.1 "$port" SOCKET_WRAPPER_DIR=
exit $failed
