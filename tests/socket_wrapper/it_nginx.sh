#!/bin/sh
# The real nginx under the wrapper with `listen 127.0.0.10:8080 reuseport`
# and three worker processes: nginx's master binds one socket per worker
# to the same address with SO_REUSEPORT, a SO_REUSEPORT group. Clients on
# interface 100 (each page is the pid of the worker that served it):
# every request is answered, every member serves, one worker SIGKILLed
# (the master starts another on the same socket) and the group still
# answers everything, nothing is bound on the real network, and nginx
# quits leaving no process and no socket file. Then the same without
# `reuseport` (one listener shared by the workers). Works as root (the
# workers keep root's identity) and as any other user. Skipped (77) when
# nginx is not installed.
set -u
. "$(dirname "$0")/swrap_it_lib.sh"
nginx=$(command -v nginx || ls /usr/sbin/nginx 2> /dev/null) ||
	{ echo "nginx not installed: skipped"; exit 77; }

dir=$tmp/sockets
mkdir "$dir" "$tmp/logs" "$tmp/temp"
master=

# config NAME LISTEN-OPTIONS: nginx's configuration, every path in $tmp.
config() {
	{
		if [ "$(id -u)" = 0 ]; then
			# Without it, root's workers would become nobody.
			echo "user $(id -un) $(id -gn);"
		fi
		cat <<-EOF
		daemon off;
		master_process on;
		worker_processes 3;
		pid $tmp/nginx.pid;
		error_log $tmp/logs/error-$1.log info;
		events { worker_connections 128; }
		http {
			access_log $tmp/logs/access-$1.log;
			client_body_temp_path $tmp/temp/body;
			proxy_temp_path $tmp/temp/proxy;
			fastcgi_temp_path $tmp/temp/fastcgi;
			uwsgi_temp_path $tmp/temp/uwsgi;
			scgi_temp_path $tmp/temp/scgi;
			server {
				listen 127.0.0.10:8080$2;
				location / { return 200 "pid=\$pid"; }
			}
		}
		EOF
	} > "$tmp/$1.conf"
}

# start NAME: nginx in the foreground (its master), as a user types it.
start() {
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 nginx -p $tmp -c $1.conf -e stderr &"
	LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		"$nginx" -p "$tmp" -c "$tmp/$1.conf" -e stderr > "$tmp/logs/stderr-$1.log" 2>&1 &
	master=$!
	track $master
	wait_listen "$dir/T0A1F90"
	wait_grep "start worker process" "$tmp/logs/error-$1.log" ||
		fail "nginx started no worker: $(cat "$tmp/logs/stderr-$1.log")"
	wait_until three_workers || fail "nginx's master started $(workers | wc -w) workers, not 3"
}

three_workers() {
	[ "$(workers | wc -w)" -ge 3 ]
}

# gone PID: the process has ended.
gone() {
	! kill -0 "$1" 2> /dev/null
}

# workers: the pids of the master's children.
workers() {
	cat /proc/$master/task/$master/children 2> /dev/null
}

# curl hangs under the ASan runtime (in setlocale, with no wrapper loaded
# at all; see it_http.sh): sanitizer builds fetch with python3's urllib.
# Every request is a new connection (Connection: close), one output line
# `pid=N code=200` each (the page is `pid=N`); one process makes them
# in turn.
fetch() { # COUNT
	if [ -z "$CWRAP_PRELOAD_PREFIX" ]; then
		LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 \
			timeout "$wait_limit" curl -sS --max-time "$wait_limit" -H 'Connection: close' \
			-w ' code=%{http_code}\n' "http://127.0.0.10:8080/[1-$1]"
	else
		LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 \
			timeout "$wait_limit" /usr/bin/python3 -c '
import sys, urllib.request
for i in range(int(sys.argv[1])):
    try:
        with urllib.request.urlopen("http://127.0.0.10:8080/%d" % i, timeout=int(sys.argv[2])) as r:
            print(r.read().decode().strip(), "code=%d" % r.status)
    except Exception as e:
        print("error:", e, file=sys.stderr)
' "$1" "$wait_limit"
	fi
}

# check WHAT FILE COUNT [MIN-WORKERS]: COUNT requests all answered 200,
# by at least MIN-WORKERS distinct workers; the workers' pids to $tmp/seen.
check() {
	ok=$(grep -c '^pid=[0-9][0-9]* code=200$' "$2")
	sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$2" | sort -u > "$tmp/seen"
	seen=$(wc -l < "$tmp/seen")
	echo "$1: $ok of $3 answered 200, by $seen workers ($(sort "$2" | uniq -c | sed -n 's/ *\([0-9]*\) pid=\([0-9]*\) .*/\2: \1/p' | tr '\n' ' '))"
	if [ "$ok" -ne "$3" ]; then
		echo "FAIL: $1: $ok of $3 requests answered 200"
		sed 's/^/    /' "$2"
		failed=1
	fi
	if [ "$seen" -lt "${4:-1}" ]; then
		echo "FAIL: $1: served by $seen workers, expected at least $4"
		failed=1
	fi
}

# stop: nginx -s quit (SIGQUIT to the master), then nothing may remain.
stop() {
	show "nginx -p $tmp -c $1.conf -s quit"
	old=$(workers)
	"$nginx" -p "$tmp" -c "$tmp/$1.conf" -e stderr -s quit > /dev/null 2>&1 ||
		kill -QUIT "$master"
	wait_until gone "$master" || true
	if kill -0 "$master" 2> /dev/null; then
		echo "FAIL: nginx's master $master still runs after quit"
		failed=1
		kill -KILL "$master" $old 2> /dev/null
	fi
	wait "$master" 2> /dev/null
	for p in $old; do
		if kill -0 "$p" 2> /dev/null; then
			echo "FAIL: worker $p still runs after quit"
			failed=1
			kill -KILL "$p" 2> /dev/null
		fi
	done
	if [ -e "$dir/T0A1F90" ] || ls "$dir"/.T0A1F90.[0-9]* > /dev/null 2>&1; then
		echo "FAIL: socket files remain after quit:" $(cd "$dir" && ls -A | grep T0A1F90)
		failed=1
	else
		echo "ok: nginx quit, no process and no socket file left"
	fi
	master=
}

# ---- SO_REUSEPORT: one socket per worker ---------------------------------
config reuseport " reuseport"
start reuseport
echo "master $master, workers: $(workers)"
ls -a "$dir" | tr '\n' ' '
echo

# Nothing on the real network: no TCP listener on 127.0.0.10:8080
# (0A00007F:1F90 in /proc/net/tcp), and every socket of the master is
# a unix socket (its inode is in /proc/net/unix).
if grep -q ' 0A00007F:1F90 ' /proc/net/tcp; then
	echo "FAIL: a real listener on 127.0.0.10:8080"
	failed=1
else
	echo "ok: no real listener on 127.0.0.10:8080"
fi
inet=0
for p in $master $(workers); do
	for l in $(ls -l /proc/$p/fd 2> /dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'); do
		awk -v i="$l" '$7 == i { f = 1 } END { exit !f }' /proc/net/unix ||
			{ echo "FAIL: process $p has socket $l, not a unix socket"; inet=1; }
	done
done
[ "$inet" = 0 ] && echo "ok: nginx's sockets are all unix sockets" || failed=1
members=$(grep -c " $dir/\.T0A1F90\.[0-9]*\$" /proc/net/unix)
echo "members besides $dir/T0A1F90: $members"
[ "$members" -eq 2 ] || { echo "FAIL: expected 2 further members"; failed=1; }

# One process, 60 connections in turn: each member gets 20.
if [ -z "$CWRAP_PRELOAD_PREFIX" ]; then
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 curl -H 'Connection: close' 'http://127.0.0.10:8080/[1-60]'"
else
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=100 python3 -c '<urlopen 60 times>'"
fi
fetch 60 > "$tmp/seq"
check "60 requests in turn" "$tmp/seq" 60 3
# 12 clients one after another, then 4 at once with 10 requests each.
: > "$tmp/single"
for i in $(seq 1 12); do
	fetch 1 >> "$tmp/single"
done
check "12 separate clients" "$tmp/single" 12
par=
for i in 1 2 3 4; do
	fetch 10 > "$tmp/par$i" &
	par="$par $!"
done
for p in $par; do
	wait "$p" || true
done
cat "$tmp/par1" "$tmp/par2" "$tmp/par3" "$tmp/par4" > "$tmp/par"
check "4 parallel clients, 10 requests each" "$tmp/par" 40 3

# A member killed mid-run: its worker dies with SIGKILL; the master holds
# that worker's socket and starts a new worker on it. Requests go on at
# once: those that reach the dead worker's socket wait for the new one.
victim=$(head -n 1 "$tmp/seen")
show "kill -KILL $victim"
kill -KILL "$victim"
fetch 30 > "$tmp/after"
check "30 requests after worker $victim was killed" "$tmp/after" 30 3
if grep -q "^$victim\$" "$tmp/seen"; then
	echo "FAIL: the killed worker $victim answered"
	failed=1
fi
wait_grep "worker process $victim exited on signal 9" "$tmp/logs/error-reuseport.log" || true
expect "the master saw worker $victim killed" "worker process $victim exited on signal 9" "$tmp/logs/error-reuseport.log"
echo "workers now: $(workers)"
stop reuseport

# ---- without reuseport: the workers share one listener -------------------
config shared ""
start shared
fetch 30 > "$tmp/shared"
check "30 requests, one shared listener" "$tmp/shared" 30 1
[ "$(grep -c " $dir/\.T0A1F90\." /proc/net/unix)" -eq 0 ] ||
	{ echo "FAIL: group members without reuseport"; failed=1; }
stop shared

# The one alert expected: the worker killed on purpose.
grep -h -E '\[(alert|emerg|crit)\]' "$tmp"/logs/error-*.log |
	grep -v "worker process $victim exited on signal 9" &&
	{ echo "FAIL: nginx logged the errors above"; failed=1; }
exit $failed
