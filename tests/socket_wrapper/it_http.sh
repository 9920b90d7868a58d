#!/bin/bash
# python3 -m http.server on privileged port 80 of 127.0.0.10 (and of
# fd00::5357:5f0a), fetched by curl from interface 100: the page arrives
# and the server logs the client's emulated address.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"

dir=$tmp/sockets
www=$tmp/www
mkdir "$dir" "$www"
echo "hello from the emulated network" > "$www/hello.txt"

serve() { # ADDRESS SOCKET-FILE LOG
	show "cd www && LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 python3 -m http.server 80 --bind $1"
	(cd "$www" && LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir \
		SOCKET_WRAPPER_DEFAULT_IFACE=10 PYTHONUNBUFFERED=1 \
		exec /usr/bin/python3 -m http.server 80 --bind "$1") > "$3" 2>&1 &
	track $!
	wait_listen "$dir/$2"
}

# curl itself hangs under the ASan runtime (in setlocale, with no wrapper
# loaded at all), so sanitizer builds fetch with python3's urllib.
if [ -z "$CWRAP_PRELOAD_PREFIX" ]; then
	client=(curl -sS)
else
	client=(/usr/bin/python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())')
fi

fetch() { # URL OUT
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 ${client[0]} ... '$1'"
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 \
		timeout "$wait_limit" "${client[@]}" "$1" > "$2" 2>&1
	cat "$2"
}

serve 127.0.0.10 T0A0050 "$tmp/log4"
fetch http://127.0.0.10/hello.txt "$tmp/out4"
serve fd00::5357:5f0a X0A0050 "$tmp/log6"
fetch 'http://[fd00::5357:5f0a]/hello.txt' "$tmp/out6"
wait_grep 'GET /hello.txt' "$tmp/log4"
wait_grep 'GET /hello.txt' "$tmp/log6"
echo "--- server logs:"
cat "$tmp/log4" "$tmp/log6"
echo "---"
expect "IPv4 page" '^hello from the emulated network$' "$tmp/out4"
expect "IPv6 page" '^hello from the emulated network$' "$tmp/out6"
expect "IPv4 server on 127.0.0.10:80" '^Serving HTTP on 127\.0\.0\.10 port 80 ' "$tmp/log4"
expect "IPv4 client seen as 127.0.0.100" '^127\.0\.0\.100 - - .*"GET /hello.txt HTTP/1.[01]" 200' "$tmp/log4"
expect "IPv6 client seen as fd00::5357:5f64" '^fd00::5357:5f64 - - .*"GET /hello.txt HTTP/1.[01]" 200' "$tmp/log6"
exit $failed
