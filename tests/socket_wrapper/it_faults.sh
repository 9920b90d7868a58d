#!/bin/bash
# SOCKET_WRAPPER_FAULTS with real programs: curl's --max-time against a
# blackholed HTTP server, ssh's refused port, dig through 50% loss to
# dnsmasq and refused by its closed UDP port, nc seeing a reset, a python3 client seeing short reads under
# `slice`, and a rule rewritten while a connection is open.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"

dir=$tmp/sockets
rules=$tmp/rules
mkdir "$dir"
: > "$rules"
export SOCKET_WRAPPER_FAULTS_SEED=7

run() { # IFACE CMD...: a program under the wrapper and the rules
	local iface=$1
	shift
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=$iface \
		SOCKET_WRAPPER_FAULTS=$rules "$@"
}
# spawn IFACE CMD... &: the same in the background, the job being the
# program itself (so that the exit trap stops it)
spawn() {
	local iface=$1
	shift
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=$iface \
		SOCKET_WRAPPER_FAULTS=$rules exec "$@"
}
now_ms() { date +%s%3N; }

# --- a client's timeout against a blackholed server ---------------------
mkdir "$tmp/www"
echo hello > "$tmp/www/hello.txt"
(cd "$tmp/www" && spawn 10 /usr/bin/python3 -m http.server 8080 --bind 127.0.0.10) > "$tmp/http.log" 2>&1 &
track $!
wait_listen "$dir/T0A1F90"
echo 'tcp 127.0.0.10:8080 blackhole' > "$rules"
show "echo 'tcp 127.0.0.10:8080 blackhole' > rules; curl --max-time 2 http://127.0.0.10:8080/hello.txt"
t0=$(now_ms)
if [ -z "$CWRAP_PRELOAD_PREFIX" ]; then
	run 100 timeout "$wait_limit" curl -sS --max-time 2 http://127.0.0.10:8080/hello.txt > "$tmp/curl.out" 2>&1
	echo "exit $?" >> "$tmp/curl.out"
else
	# (curl hangs under the ASan runtime by itself: python3 instead)
	run 100 timeout "$wait_limit" /usr/bin/python3 -c '
import socket, sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except Exception as e:
    r = getattr(e, "reason", e)
    print("exit 28" if isinstance(r, (socket.timeout, TimeoutError)) else "other", repr(e))
' http://127.0.0.10:8080/hello.txt > "$tmp/curl.out" 2>&1
fi
t1=$(now_ms)
cat "$tmp/curl.out"
expect "curl --max-time 2 times out (28)" '^exit 28' "$tmp/curl.out"
echo "took $((t1 - t0)) ms" > "$tmp/took"
# (at least the 2 s, less than the wait limit: what a slow start may add)
[ $((t1 - t0)) -ge 1500 ] && [ $((t1 - t0)) -lt $((wait_limit * 1000)) ] && echo "within bounds" >> "$tmp/took"
expect "after about 2 s" '^within bounds' "$tmp/took"
: > "$rules"
sleep 0.2
run 100 timeout "$wait_limit" /usr/bin/python3 -c '
import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=int(sys.argv[2])).read().decode(), end="")
' http://127.0.0.10:8080/hello.txt "$wait_limit" > "$tmp/healed.out" 2>&1
expect "healed: the page arrives" '^hello$' "$tmp/healed.out"

# --- ssh to a refused port fails at once ----------------------------------
if command -v ssh > /dev/null; then
	echo 'tcp 127.0.0.10:22 refuse' > "$rules"
	show "echo 'tcp 127.0.0.10:22 refuse' > rules; ssh -o ConnectTimeout=20 127.0.0.10"
	t0=$(now_ms)
	run 100 timeout 40 ssh -o ConnectTimeout=20 -o BatchMode=yes \
		-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
		-F /dev/null 127.0.0.10 true > "$tmp/ssh.out" 2>&1
	echo "exit $?" >> "$tmp/ssh.out"
	t1=$(now_ms)
	cat "$tmp/ssh.out"
	expect "ssh: connection refused" 'Connection refused' "$tmp/ssh.out"
	# (however slow ssh is to start on a loaded machine: well before
	# ConnectTimeout)
	[ $((t1 - t0)) -lt 15000 ] && echo "at once" > "$tmp/took" || echo "took $((t1 - t0)) ms" > "$tmp/took"
	expect "ssh fails at once (not after ConnectTimeout)" '^at once' "$tmp/took"
fi

# --- dig through 50% loss to dnsmasq ----------------------------------------
if command -v dig > /dev/null; then
	echo 'udp 127.0.0.10:53 to loss 50' > "$rules"
	if [ -z "$CWRAP_PRELOAD_PREFIX" ] && [ -x /usr/sbin/dnsmasq ]; then
		spawn 10 /usr/sbin/dnsmasq -k --no-resolv --no-hosts --port=53 \
			--listen-address=127.0.0.10 --bind-interfaces \
			--address=/example.test/127.0.0.99 --user="$(id -un)" \
			--pid-file= > "$tmp/dnsmasq.log" 2>&1 &
	else
		# (dnsmasq does not start under the sanitizer runtime, or is
		# not installed: our responder instead)
		spawn 10 "$CWRAP_TEST_BIN/swrap_dns_srv" 127.0.0.10 53 127.0.0.99 > "$tmp/dnsmasq.log" 2>&1 &
	fi
	track $!
	wait_for "$dir/U0A0035"
	show "echo 'udp 127.0.0.10:53 to loss 50' > rules; dig @127.0.0.10 example.test +tries=5 +time=1"
	ok=0
	for i in 1 2 3 4; do
		run 21 timeout 30 dig @127.0.0.10 example.test +short +tries=5 +time=1 > "$tmp/dig.out" 2>&1
		grep -q '^127\.0\.0\.99$' "$tmp/dig.out" && ok=$((ok + 1))
	done
	cat "$tmp/dig.out"
	echo "$ok of 4 lookups answered" > "$tmp/dig.count"
	expect "dig +tries=5 answers through 50% loss" '^4 of 4' "$tmp/dig.count"
	# the server runs, but its port is closed: dig hears the port
	# unreachable at once, as from a kernel (exit 9)
	echo 'udp 127.0.0.10:53 refuse' > "$rules"
	sleep 0.2
	show "echo 'udp 127.0.0.10:53 refuse' > rules; dig @127.0.0.10 example.test +tries=1 +time=20"
	run 21 timeout 15 dig @127.0.0.10 example.test +tries=1 +time=20 > "$tmp/dig.refused" 2>&1
	echo "exit $?" >> "$tmp/dig.refused"
	cat "$tmp/dig.refused"
	expect "dig: connection refused" 'communications error to 127\.0\.0\.10#53: connection refused' "$tmp/dig.refused"
	expect "dig exits 9 at once (not after +time=20)" '^exit 9$' "$tmp/dig.refused"
fi

# --- a TCP server for nc and python3 ----------------------------------------
cat > "$tmp/srv.py" << 'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.10", 7070))
s.listen(8)
while True:
    c, _ = s.accept()
    try:
        while True:
            d = c.recv(65536)
            if not d:
                break
            if d.startswith(b"big"):
                c.sendall(b"x" * 1000)
            else:
                c.sendall(d)
    except ConnectionResetError:
        print("server: connection reset by peer", flush=True)
    except OSError:
        pass
    c.close()
PY
spawn 10 /usr/bin/python3 -u "$tmp/srv.py" > "$tmp/srv.log" 2>&1 &
track $!
wait_listen "$dir/T0A1B9E"

# nc sees the reset: it stops while its input is still open (the input
# ends only once nc has, or after the wait limit), and the server sees
# ECONNRESET (nc, as with a kernel's RST, says nothing)
echo 'tcp 127.0.0.10:7070 reset after 5' > "$rules"
sleep 0.1
show "echo 'tcp 127.0.0.10:7070 reset after 5' > rules; (echo 0123456789; sleep 60; echo more) | nc 127.0.0.10 7070"
run 100 timeout "$wait_limit" nc 127.0.0.10 7070 > "$tmp/nc.out" 2>&1 \
	< <(printf '0123456789\n'; wait_until test -e "$tmp/nc.done"; printf 'more\n')
[ $? != 124 ] && echo "nc stopped at once" >> "$tmp/nc.out"
: > "$tmp/nc.done"
cat "$tmp/nc.out"
expect "nc stops on the reset" '^nc stopped at once' "$tmp/nc.out"
wait_grep 'reset by peer' "$tmp/srv.log"
expect "the server sees ECONNRESET" '^server: connection reset by peer' "$tmp/srv.log"

# python3 sees short reads under slice, and a rule changed mid-run
echo 'tcp 127.0.0.10:7070 from slice 100' > "$rules"
sleep 0.1
run 100 timeout "$wait_limit" /usr/bin/python3 - "$rules" > "$tmp/py.out" 2>&1 << 'PY'
import socket, sys, time
c = socket.create_connection(("127.0.0.10", 7070))
c.sendall(b"big")
time.sleep(0.2)
sizes = []
while sum(sizes) < 1000:
    sizes.append(len(c.recv(4096)))
print("reads", max(sizes), len(sizes))
open(sys.argv[1], "w").write("")          # heal
time.sleep(0.2)
c.sendall(b"big")
time.sleep(0.2)
print("healed read", len(c.recv(4096)))
open(sys.argv[1], "w").write("tcp 127.0.0.10:7070 reset\n")
time.sleep(0.2)
try:
    c.sendall(b"ping")
    print("no reset", c.recv(10))
except ConnectionResetError:
    print("reset mid-run")
PY
cat "$tmp/py.out"
expect "python3: reads of at most 100 bytes under slice 100" '^reads 100 10$' "$tmp/py.out"
expect "python3: a healed link reads the whole reply" '^healed read 1000$' "$tmp/py.out"
expect "python3: a reset rule written mid-run resets the open connection" '^reset mid-run$' "$tmp/py.out"
# A client under Debian's upstream library: our server applies the
# rules for it (both directions of a delay)
upstream=/usr/lib/x86_64-linux-gnu/libsocket_wrapper.so.0
[ -e "$upstream" ] || upstream=/usr/lib/x86_64-linux-gnu/libsocket_wrapper.so
if [ -e "$upstream" ] && [ -z "$CWRAP_PRELOAD_PREFIX" ] &&
	[ "$(readlink -f "$upstream")" != "$(readlink -f "$CWRAP_SOCKET_WRAPPER_LIB")" ]; then
	echo 'tcp 127.0.0.10:7070 delay 150' > "$rules"
	sleep 0.1
	show "echo 'tcp 127.0.0.10:7070 delay 150' > rules; a python3 client under the upstream library"
	LD_PRELOAD=$upstream SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=30 \
		timeout 20 /usr/bin/python3 - > "$tmp/up.out" 2>&1 << 'PY'
import socket, time
c = socket.create_connection(("127.0.0.10", 7070))
t = time.time()
c.sendall(b"ping")
d = c.recv(10)
print("upstream client", d.decode(), "after", "300ms or more" if time.time() - t >= 0.28 else "%.3f s" % (time.time() - t))
PY
	cat "$tmp/up.out"
	expect "an upstream client sees our side's delay both ways" '^upstream client ping after 300ms or more$' "$tmp/up.out"

	# A server under the upstream library, reset by our client: it sees
	# ECONNRESET when our end held data from it unread (our socket is
	# closed with it, as the kernel reports a reset of a unix socket),
	# else end of file (socket_wrapper(1) says so)
	cat > "$tmp/usrv.py" << 'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.10", 7072))
s.listen(8)
print("ready", flush=True)
for mode in ("unread", "quiet"):
    c, _ = s.accept()
    if mode == "unread":
        c.sendall(b"hello")
    got = b""
    try:
        while True:
            d = c.recv(100)
            if not d:
                print(mode, "server: end of file after", len(got), flush=True)
                break
            got += d
    except ConnectionResetError:
        print(mode, "server: connection reset after", len(got), flush=True)
    c.close()
PY
	echo 'tcp 127.0.0.10:7072 reset after 5' > "$rules"
	sleep 0.1
	(LD_PRELOAD=$upstream SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		exec timeout "$wait_limit" /usr/bin/python3 -u "$tmp/usrv.py") > "$tmp/usrv.log" 2>&1 &
	track $!
	wait_grep '^ready' "$tmp/usrv.log"
	show "echo 'tcp 127.0.0.10:7072 reset after 5' > rules; our client resets a server under the upstream library"
	run 30 timeout "$wait_limit" /usr/bin/python3 - "$wait_limit" > "$tmp/ucli.out" 2>&1 << 'PY'
import select, socket, sys, time
for mode in ("unread", "quiet"):
    c = socket.create_connection(("127.0.0.10", 7072))
    if mode == "unread":  # the server's hello arrives, left unread
        select.select([c], [], [], int(sys.argv[1]))
    else:
        time.sleep(0.2)
    try:
        c.sendall(b"0123456789")
        c.sendall(b"x")
        print(mode, "client: no reset")
    except ConnectionResetError:
        print(mode, "client: connection reset")
    time.sleep(0.2)
    c.close()
PY
	wait_grep '^quiet server' "$tmp/usrv.log"
	cat "$tmp/ucli.out" "$tmp/usrv.log"
	expect "our client sees its reset" '^unread client: connection reset$' "$tmp/ucli.out"
	expect "an upstream server whose data was unread sees ECONNRESET" '^unread server: connection reset after 5$' "$tmp/usrv.log"
	expect "an upstream server with nothing unread sees end of file" '^quiet server: end of file after 5$' "$tmp/usrv.log"
fi
exit $failed
