#!/bin/bash
# The article's socket_wrapper demo, exactly as typed: nc listens on
# 127.0.0.10 port 7 (interface 10), a second nc on interface 100 connects
# and says "Hello!"; the server must see the client as 127.0.0.100 and
# print the greeting. With CWRAP_DEMO_PREFIX set (to
# "$CWRAP_TEST_BIN/cwrap_"), the project's cwrap_nc (tests/demo_programs)
# runs instead of the system's nc.
set -u
. "$(dirname "$0")/../common/local_names.sh"
. "$(dirname "$0")/swrap_it_lib.sh"
nc=${CWRAP_DEMO_PREFIX:-}nc

dir=$tmp/sockets
mkdir "$dir"
show "LD_PRELOAD=libsocket_wrapper.so \\
  SOCKET_WRAPPER_DIR=$dir \\
  SOCKET_WRAPPER_DEFAULT_IFACE=10 ${nc##*/} -v -l 127.0.0.10 7"
LD_PRELOAD=$PRELOAD \
  SOCKET_WRAPPER_DIR=$dir \
  SOCKET_WRAPPER_DEFAULT_IFACE=10 "$nc" -v -l 127.0.0.10 7 > "$tmp/server" 2>&1 &
server=$!
track "$server"
wait_listen "$dir/T0A0007"

show "LD_PRELOAD=libsocket_wrapper.so \\
  SOCKET_WRAPPER_DIR=$dir \\
  SOCKET_WRAPPER_DEFAULT_IFACE=100 \\
  SOCKET_WRAPPER_PCAP_FILE=$tmp/sw.pcap ${nc##*/} -v 127.0.0.10 7"
echo "(typing: Hello!)"
mkfifo "$tmp/keyboard"
LD_PRELOAD=$PRELOAD \
  SOCKET_WRAPPER_DIR=$dir \
  SOCKET_WRAPPER_DEFAULT_IFACE=100 \
  SOCKET_WRAPPER_PCAP_FILE=$tmp/sw.pcap "$nc" -v 127.0.0.10 7 < "$tmp/keyboard" > "$tmp/client" 2>&1 &
client=$!
track "$client"
exec 3> "$tmp/keyboard"
echo 'Hello!' >&3
wait_grep 'Hello!' "$tmp/server"
# The user closes the client (Ctrl-D and Ctrl-C); the server sees the end.
exec 3>&-
kill "$client" 2> /dev/null
wait "$server"

echo "--- server console:"
cat "$tmp/server"
echo "--- client console:"
cat "$tmp/client"
echo "---"
expect "server listens on 127.0.0.10 7" '^Listening on 127\.0\.0\.10 7$' "$tmp/server"
expect "server sees the client as 127.0.0.100" \
	'^Connection received on 127\.0\.0\.100 [0-9]+$' "$tmp/server"
expect "server received Hello!" '^Hello!$' "$tmp/server"
expect "client connected" '^Connection to 127\.0\.0\.10 7 port \[tcp/echo\] succeeded!$' "$tmp/client"
if grep -q -i "reuseport\|error" "$tmp/server" "$tmp/client"; then
	echo "FAIL: unexpected error output"
	failed=1
fi
[ -S "$dir/T0A0007" ] && { echo "FAIL: the server's socket file was left behind"; failed=1; }
exit $failed
