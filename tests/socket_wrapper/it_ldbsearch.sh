#!/bin/bash
# Samba's ldb opens its modules with dlopen(RTLD_DEEPBIND): its ldap
# module found libc's socket() and connect() first and connected to the
# real 127.0.0.10:389 (ECONNREFUSED), unless LDB_MODULES_DISABLE_DEEPBIND=1
# was set. Under our wrapper, `ldbsearch -H ldap://127.0.0.10` from
# interface 11 reaches a server of ours on the emulated 127.0.0.10:389 (a
# stand-in that only records the connection: the search itself fails).
# Skipped (77) without ldbsearch (Debian package ldb-tools) or python3,
# and in sanitizer builds.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"
command -v ldbsearch > /dev/null || { echo "ldbsearch not installed: skipped"; exit 77; }
command -v python3 > /dev/null || { echo "python3 not installed: skipped"; exit 77; }
if [ -n "${CWRAP_PRELOAD_PREFIX:-}" ]; then
	# (ldbsearch would run under the sanitizer runtime, whose own dlopen()
	# comes first and refuses RTLD_DEEPBIND.)
	echo "sanitizer build: skipped"
	exit 77
fi

dir=$tmp/sockets
mkdir "$dir"
cat > "$tmp/server.py" << 'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.10", 389))
s.listen(8)
print("ready", flush=True)
while True:
    c, a = s.accept()
    data = c.recv(4096)
    print("connection from %s:%d, %d bytes" % (a[0], a[1], len(data)), flush=True)
    c.close()
PY
LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
	python3 "$tmp/server.py" > "$tmp/server" 2>&1 &
track $!
wait_listen "$dir/T0A0185"

show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=11 ldbsearch -H ldap://127.0.0.10 '(cn=x)'"
LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=11 \
	timeout "$wait_limit" ldbsearch -H ldap://127.0.0.10 '(cn=x)' > "$tmp/ldbsearch" 2>&1
cat "$tmp/ldbsearch"
wait_grep "connection from" "$tmp/server" || true
cat "$tmp/server"
expect "ldb's ldap module reached the emulated 127.0.0.10:389 from 127.0.0.11" \
	'^connection from 127\.0\.0\.11:[0-9]+, [1-9][0-9]* bytes$' "$tmp/server"
exit $failed
