#!/bin/sh
# Programs that make their own system calls get socket_wrapper's network
# under cwrap, as a user expects: a statically linked C program
# (supnet_static) and Go programs (gonet_static, CGO_ENABLED=0; gonet_cgo)
# are supervised by cwrap, and talk to a preloaded dynamic program
# (supnet_dyn) and to each other in one socket directory, over TCP and
# UDP, IPv4 and IPv6, on privileged ports as any user, with port 0, the
# addresses on both sides as emulated (servers on interface 10, clients
# on interface 11), from a thread that does not lead its process too,
# and nothing on the real network.
#
# Environment (tests/supervisor/CMakeLists.txt): CWRAP_LAUNCHER (cwrap),
# SUPNET_DYN, SUPNET_STATIC, GONET_STATIC, GONET_CGO (empty when not
# built: the checks that need them are skipped, saying so).
#
# Exit: 0 all passed, 1 a check failed, 77 the host cannot supervise
# (cwrap says "cwrap: cannot supervise ..."), or nothing to supervise.
set -u
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"
. "$CWRAP_SOURCE_DIR/tests/supervisor/sup_lib.sh"
C=$CWRAP_LAUNCHER
DYN=$SUPNET_DYN
STATIC=${SUPNET_STATIC:-}
GONET_STATIC=${GONET_STATIC:-}
GONET_CGO=${GONET_CGO:-}
# The system's python3 (a python3 of the user's may be a shell script).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)

tmp=$(mktemp -d)
net=$tmp/net
mkdir "$net"
pids= # cwrap's of the servers still running

# A process is alive: it exists and is not a zombie (a child that has
# exited and is not yet waited for). Never wrong the other way: a wait
# for a live process would block.
alive() {
	_st=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || {
		kill -0 "$1" 2> /dev/null
		return
	}
	case $_st in
	Z* | X*) return 1 ;;
	esac
	return 0
}
# The process and its descendants (cwrap, the supervised program, ...).
tree() {
	echo "$1"
	for _c in $(ps -o pid= --ppid "$1" 2> /dev/null); do
		tree "$_c"
	done
}
cleanup() {
	all=
	for p in $pids; do
		all="$all $(tree "$p")"
	done
	if [ -n "$all" ]; then
		# shellcheck disable=SC2086 # a list of pids
		kill $all 2> /dev/null
		n=100
		for p in $all; do
			while alive "$p" && [ $n -gt 0 ]; do
				sleep 0.05
				n=$((n - 1))
			done
		done
		# shellcheck disable=SC2086
		kill -9 $all 2> /dev/null
	fi
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

hangs=0
# A hang costs a minute or two: after the third, the rest is not run.
hung() {
	hangs=$((hangs + 1))
	if [ "$hangs" -ge 3 ]; then
		notok "giving up after $hangs hangs"
		exit 1
	fi
}

# ADDR PORT as the programs print it: A:P, or [A]:P for IPv6.
fmt() {
	case $1 in
	*:*) echo "[$1]:$2" ;;
	*) echo "$1:$2" ;;
	esac
}
# ADDR as an extended regular expression that matches it in fmt's output.
re_addr() {
	case $1 in
	*:*) printf '\\[%s\\]' "$1" ;;
	*) printf '%s' "$1" | sed 's/\./\\./g' ;;
	esac
}
# The client's own address (interface 11) in ADDR's family.
client_addr() {
	case $1 in
	*:*) echo fd00::5357:5f0b ;;
	*) echo 127.0.0.11 ;;
	esac
}

dead() { ! alive "$1"; }
listening_or_gone() {
	grep -q '^listening ' "$tmp/$1.out" || ! alive "$2"
}
# serve NAME PROG ARG...: PROG under cwrap on interface 10 in the shared
# directory, in the background ($spid); returns once it printed its
# "listening" line, 1 if it exited or hung instead (said, with its
# output).
serve() {
	_name=$1
	shift
	# (emptied here: the background job's own redirection may come after
	# the first look for its line, which must not find the last server's)
	: > "$tmp/$_name.out"
	: > "$tmp/$_name.err"
	"$C" --dir "$net" --iface 10 -- "$@" > "$tmp/$_name.out" 2> "$tmp/$_name.err" &
	spid=$!
	pids="$pids $spid"
	if ! wait_until listening_or_gone "$_name" "$spid"; then
		notok "$_name ($*): no 'listening' line after ${wait_limit} s"
		show "$tmp/$_name.out" "$tmp/$_name.err"
		hung
		return 1
	fi
	if ! grep -q '^listening ' "$tmp/$_name.out"; then
		finish "$spid"
		[ "$src" = hung ] && src="none (killed)"
		notok "$_name ($*): exited with status $src before listening"
		show "$tmp/$_name.out" "$tmp/$_name.err"
		return 1
	fi
	return 0
}
# finish PID: the server PID has exited (killed after the wait limit);
# its status in $src ("hung" if it had to be killed).
finish() {
	if wait_until dead "$1"; then
		wait "$1"
		src=$?
	else
		kill "$1" 2> /dev/null
		sleep 1
		kill -9 "$1" 2> /dev/null
		wait "$1" 2> /dev/null
		src=hung
		hung
	fi
	_rest=
	for p in $pids; do
		[ "$p" = "$1" ] || _rest="$_rest $p"
	done
	pids=$_rest
}
# client NAME IFACE PROG ARG...: PROG under cwrap on interface IFACE in
# the shared directory, to its end (or the wait limit); status in $crc,
# said in $cwhy.
client() {
	_name=$1 _iface=$2
	shift 2
	timeout -k 10 "$wait_limit" "$C" --dir "$net" --iface "$_iface" -- "$@" \
		> "$tmp/$_name.out" 2> "$tmp/$_name.err"
	crc=$?
	cwhy="exited with status $crc"
	if [ "$crc" = 124 ] || [ "$crc" = 137 ]; then
		cwhy="hung: killed after ${wait_limit} s"
		hung
	fi
}
# same DESC EXPECTED FILE [FILE...]: FILE holds exactly EXPECTED (with a
# final newline); else not ok, with the files shown (FILE's stderr too).
same() {
	_desc=$1 _want=$2 _file=$3
	shift 3
	if printf '%s\n' "$_want" | cmp -s - "$_file"; then
		ok "$_desc"
	else
		notok "$_desc: expected"
		printf '%s\n' "$_want" | cut -c1-300 | sed 's/^/    | /'
		show "$_file" "${_file%.out}.err" "$@"
	fi
}
# Each program by its name, for the descriptions.
name() { basename "$1"; }

# tcp_case DESC SERVER CLIENT ADDR PORT [MSG]: SERVER's tcp-server on
# ADDR PORT (interface 10, ADDR's), CLIENT's tcp-client to it from
# interface 11; every line of both checked, the ports as well: the
# client's own port is the one the server sees. PORT 0: the server's
# port is the one it prints.
tcp_case() {
	desc=$1 srv=$2 cli=$3 addr=$4 port=$5
	msg=${6:-"hello from $(name "$cli") to $(name "$srv") over TCP"}
	echo "# $desc"
	serve srv "$srv" tcp-server "$addr" "$port" || return
	sp=$spid
	if [ "$port" = 0 ]; then
		port=$(sed -n 's/^listening .*:\([0-9][0-9]*\)$/\1/p' "$tmp/srv.out")
		if grep -q -E "^listening $(re_addr "$addr"):[1-9][0-9]*\$" "$tmp/srv.out"; then
			ok "$desc: the server listens on port 0 as $(fmt "$addr" "$port")"
		else
			notok "$desc: the server's 'listening' line is not $(fmt "$addr" N), N > 0"
			show "$tmp/srv.out" "$tmp/srv.err"
			port=1 # (the client then fails to connect, and the server is killed)
		fi
	else
		same "$desc: the server listens" "listening $(fmt "$addr" "$port")" "$tmp/srv.out"
	fi
	client cli 11 "$cli" tcp-client "$addr" "$port" "$msg"
	me=$(client_addr "$addr")
	cport=$(sed -n '1s/^local .*:\([1-9][0-9]*\)$/\1/p' "$tmp/cli.out")
	[ -n "$cport" ] || cport=N
	if [ "$crc" = 0 ]; then
		same "$desc: the client's lines (own address $(fmt "$me" "$cport"))" \
			"local $(fmt "$me" "$cport")
peer $(fmt "$addr" "$port")
echo $msg" "$tmp/cli.out"
	else
		notok "$desc: the client $cwhy"
		show "$tmp/cli.out" "$tmp/cli.err"
	fi
	if [ "$crc" != 0 ] && alive "$sp"; then
		kill "$sp" 2> /dev/null # (it waits for a connection that never came)
	fi
	finish "$sp"
	if [ "$src" = 0 ]; then
		same "$desc: the server's lines (its peer on the client's port $cport)" \
			"listening $(fmt "$addr" "$port")
peer $(fmt "$me" "$cport")
local $(fmt "$addr" "$port")" "$tmp/srv.out"
	else
		notok "$desc: the server exited with status $src"
		show "$tmp/srv.out" "$tmp/srv.err"
	fi
}

# udp_case DESC SERVER CLIENT ADDR PORT: SERVER's udp-server on ADDR PORT
# (interface 10), CLIENT's udp-client from interface 11: the server sees
# the datagram from the client's address, the client the reply from the
# server's.
udp_case() {
	desc=$1 srv=$2 cli=$3 addr=$4 port=$5
	msg="hello from $(name "$cli") to $(name "$srv") over UDP"
	echo "# $desc"
	serve srv "$srv" udp-server "$addr" "$port" || return
	sp=$spid
	same "$desc: the server listens" "listening $(fmt "$addr" "$port")" "$tmp/srv.out"
	client cli 11 "$cli" udp-client "$addr" "$port" "$msg"
	if [ "$crc" = 0 ]; then
		same "$desc: the client's reply, from the server's address" \
			"reply $msg from $(fmt "$addr" "$port")" "$tmp/cli.out"
	else
		notok "$desc: the client $cwhy"
		show "$tmp/cli.out" "$tmp/cli.err"
		alive "$sp" && kill "$sp" 2> /dev/null
	fi
	finish "$sp"
	me=$(client_addr "$addr")
	from=$(sed -n 2p "$tmp/srv.out")
	if [ "$src" = 0 ] && [ "$(sed -n '$=' "$tmp/srv.out")" = 2 ] &&
		printf '%s\n' "$from" | grep -q -E "^from $(re_addr "$me"):[1-9][0-9]*\$"; then
		ok "$desc: the server's datagram came from ${from#from }"
	else
		notok "$desc: the server (status $src) did not say 'from $(fmt "$me" N)', N > 0"
		show "$tmp/srv.out" "$tmp/srv.err"
	fi
}

# --- can this host supervise?
supervise_or_skip

have_static=
if [ -n "$STATIC" ] && [ -x "$STATIC" ]; then
	have_static=1
fi
gos=
for g in "$GONET_STATIC" "$GONET_CGO"; do
	if [ -n "$g" ] && [ -x "$g" ]; then
		gos="$gos $g"
	fi
done
if [ -z "$have_static" ] && [ -z "$gos" ]; then
	echo "=== NOT RUN on this host: no program to supervise (supnet_static does not link here, no go)"
	exit 77
fi

S=$STATIC
if [ -n "$have_static" ]; then
	echo "--- a. a static server on 127.0.0.10:80, a dynamic client"
	tcp_case "a. static server, dynamic client, 127.0.0.10:80" "$S" "$DYN" 127.0.0.10 80
	big=$(head -c 60000 /dev/zero | tr '\0' 'x')
	tcp_case "a. static server, dynamic client, 60000 bytes echoed" "$S" "$DYN" 127.0.0.10 80 "$big"

	echo "--- b. a dynamic server, a static client; static to static"
	tcp_case "b. dynamic server, static client, 127.0.0.10:80" "$DYN" "$S" 127.0.0.10 80
	tcp_case "b. static server, static client, 127.0.0.10:80" "$S" "$S" 127.0.0.10 80

	echo "--- c. the same over IPv6"
	tcp_case "c. static server, dynamic client, [fd00::5357:5f0a]:443" "$S" "$DYN" fd00::5357:5f0a 443
	tcp_case "c. dynamic server, static client, [fd00::5357:5f0a]:443" "$DYN" "$S" fd00::5357:5f0a 443

	echo "--- d. UDP both ways"
	udp_case "d. static UDP server, dynamic client, 127.0.0.10:53" "$S" "$DYN" 127.0.0.10 53
	udp_case "d. dynamic UDP server, static client, 127.0.0.10:53" "$DYN" "$S" 127.0.0.10 53

	echo "--- e. port 0"
	tcp_case "e. static server on port 0, dynamic client" "$S" "$DYN" 127.0.0.10 0

	echo "--- h. the calls of threads that do not lead their process"
	export SUPNET_THREAD=1
	tcp_case "h. static server and client, each in a second thread" "$S" "$S" 127.0.0.10 80
	udp_case "h. static UDP server and client, each in a second thread" "$S" "$S" fd00::5357:5f0a 53
	unset SUPNET_THREAD
else
	skip "a-e, g: no supnet_static (this toolchain does not link -static)"
fi

echo "--- f. Go"
if [ -z "$gos" ]; then
	skip "f: no Go program (go was not found when configuring)"
fi
for g in $gos; do
	n=$(name "$g")
	tcp_case "f. $n server, dynamic client, 127.0.0.10:80" "$g" "$DYN" 127.0.0.10 80
	tcp_case "f. dynamic server, $n client, 127.0.0.10:80" "$DYN" "$g" 127.0.0.10 80
	tcp_case "f. $n server, dynamic client, [fd00::5357:5f0a]:443" "$g" "$DYN" fd00::5357:5f0a 443
	udp_case "f. $n UDP server, dynamic client, 127.0.0.10:53" "$g" "$DYN" 127.0.0.10 53
	udp_case "f. dynamic UDP server, $n client, 127.0.0.10:53" "$DYN" "$g" 127.0.0.10 53
	tcp_case "f. $n server, $n client, 127.0.0.10:80" "$g" "$g" 127.0.0.10 80
	udp_case "f. $n UDP server, $n client, 127.0.0.10:53" "$g" "$g" 127.0.0.10 53
done
if [ -n "$have_static" ] && [ -n "$gos" ]; then
	# shellcheck disable=SC2086 # the programs' paths, without spaces
	set -- $gos
	tcp_case "f. static server, $(name "$1") client, 127.0.0.10:80" "$S" "$1" 127.0.0.10 80
fi

# A real (unwrapped) TCP connection to 127.0.0.10:8080: 0 it connected,
# 1 refused, 2 anything else (said).
real_connect() {
	if [ -n "$PY" ]; then
		env -u LD_PRELOAD "$PY" - <<-'EOF'
			import socket, sys
			s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
			s.settimeout(10)
			try:
			    s.connect(("127.0.0.10", 8080))
			except ConnectionRefusedError:
			    sys.exit(1)
			except OSError as e:
			    print("connect:", e)
			    sys.exit(2)
			sys.exit(0)
		EOF
	else
		env -u LD_PRELOAD nc -z -w 5 127.0.0.10 8080
	fi
}

echo "--- g. nothing real"
if [ -z "$have_static" ]; then
	:
elif [ -z "$PY" ] && ! command -v nc > /dev/null; then
	skip "g: neither python3 nor nc to make a real connection with"
elif real_connect; then
	skip "g: something real listens on 127.0.0.10:8080 on this host"
else
	if serve srv "$S" tcp-server 127.0.0.10 8080; then
		sp=$spid
		if [ -S "$net/T0A1F90" ]; then
			ok "g. the static server's socket is socket_wrapper's T0A1F90 in the directory"
		else
			notok "g. no socket T0A1F90 in the directory:"
			ls -la "$net" | sed 's/^/    | /'
		fi
		real_connect
		rc=$?
		if [ $rc = 1 ]; then
			ok "g. a real connection to 127.0.0.10:8080 is refused"
		else
			notok "g. a real connection to 127.0.0.10:8080: $([ $rc = 0 ] && echo connected || echo "status $rc")"
		fi
		client cli 11 "$DYN" tcp-client 127.0.0.10 8080 "still there"
		if [ "$crc" = 0 ] && [ "$(sed -n 3p "$tmp/cli.out")" = "echo still there" ]; then
			ok "g. meanwhile the emulated server answers"
		else
			notok "g. the emulated server did not answer (the client $cwhy)"
			show "$tmp/cli.out" "$tmp/cli.err"
			kill "$sp" 2> /dev/null
		fi
		finish "$sp"
	fi
fi

# --- j. many processes making and closing many sockets: the supervisor
# (cwrap itself) keeps a handful of descriptors, and the socket directory
# keeps no name of a closed socket once the program has ended.
echo "--- j. 20 processes making and closing 40000 sockets"
churned_or_gone() {
	grep -q '^churned ' "$tmp/churn.out" || ! alive "$1"
}
names() {
	find "$net" -maxdepth 1 -name '[TUXY]*' | wc -l
}
if [ -z "$have_static" ]; then
	skip "j: no supnet_static"
else
	mkfifo "$tmp/churn.in"
	"$C" --dir "$net" --iface 10 -- "$S" churn 127.0.0.10 500 20 \
		< "$tmp/churn.in" > "$tmp/churn.out" 2> "$tmp/churn.err" &
	cpid=$!
	pids="$pids $cpid"
	exec 7> "$tmp/churn.in"
	if wait_until churned_or_gone "$cpid" && grep -q '^churned 500 x 20$' "$tmp/churn.out"; then
		ok "j. 500 rounds in each of 20 processes (TCP listen/connect/accept, UDP to itself)"
		fds=$(ls "/proc/$cpid/fd" | wc -l)
		if [ "$fds" -le 16 ]; then
			ok "j. the supervisor holds $fds descriptors afterwards"
		else
			notok "j. the supervisor holds $fds descriptors afterwards:"
			ls -l "/proc/$cpid/fd" | sed 's/^/    | /'
		fi
	else
		notok "j. the churn failed"
		show "$tmp/churn.out" "$tmp/churn.err"
	fi
	exec 7>&-
	finish "$cpid"
	if [ "$src" = 0 ] && [ "$(names)" = 0 ]; then
		ok "j. it ended with 0, and no name is left in the directory"
	else
		notok "j. status $src, names left: $(names)"
		"$C" --sockets "$net" 2>&1 | sed 's/^/    | /'
	fi
fi

# --- i. without cwrap: a static program exec'd or spawned by a process
# that has socket_wrapper preloaded (a test script's shell, a server that
# starts helpers) is supervised too, in its own process.
# (run in a subshell, which it replaces: "(preloaded ...) &" gives $! the
# command's own pid)
preloaded() { # IFACE COMMAND...
	_if=$1
	shift
	exec env LD_PRELOAD="${CWRAP_PRELOAD_PREFIX:-}$CWRAP_SOCKET_WRAPPER_LIB" \
		SOCKET_WRAPPER_DIR="$net" SOCKET_WRAPPER_DEFAULT_IFACE="$_if" \
		SOCKET_WRAPPER_SUPERVISOR="$C" "$@"
}
echo "--- i. without cwrap: exec'd and spawned by a preloaded process"
if [ -z "$have_static" ]; then
	skip "i: no supnet_static"
else
	: > "$tmp/sh.out"
	(preloaded 10 sh -c 'echo "pid $$"; exec "$0" tcp-server 127.0.0.10 80' "$S") \
		> "$tmp/sh.out" 2> "$tmp/sh.err" &
	shpid=$!
	pids="$pids $shpid"
	if wait_until listening_or_gone sh "$shpid" &&
		grep -q '^listening 127.0.0.10:80$' "$tmp/sh.out"; then
		ok "i. a preloaded sh execs the static server: it listens on 127.0.0.10:80"
		if [ "$(sed -n 's/^pid //p' "$tmp/sh.out")" = "$shpid" ] &&
			[ "$(readlink "/proc/$shpid/exe")" = "$(readlink -f "$S")" ]; then
			ok "i. in the shell's own process ($shpid), no launcher in between"
		else
			notok "i. process $shpid is $(readlink "/proc/$shpid/exe"), not $S"
		fi
		(preloaded 11 sh -c '"$0" tcp-client 127.0.0.10 80 "from a preloaded sh"; echo "status $?"' "$S") \
			> "$tmp/shc.out" 2> "$tmp/shc.err"
		if grep -q '^echo from a preloaded sh$' "$tmp/shc.out" &&
			grep -q '^status 0$' "$tmp/shc.out"; then
			ok "i. a static client run by a preloaded sh: echoed, its status 0 seen by sh"
		else
			notok "i. a static client run by a preloaded sh"
			show "$tmp/shc.out" "$tmp/shc.err"
		fi
		finish "$shpid"
		if [ "$src" = 0 ] && grep -q '^peer 127.0.0.11:[1-9]' "$tmp/sh.out"; then
			ok "i. the server saw the client at 127.0.0.11 and exited with 0"
		else
			notok "i. the server (status $src)"
			show "$tmp/sh.out" "$tmp/sh.err"
		fi
	else
		notok "i. a preloaded sh execs the static server: no listening line"
		show "$tmp/sh.out" "$tmp/sh.err"
		kill "$shpid" 2> /dev/null
		finish "$shpid"
	fi
	# a refused connection: the program's message and exit status, and
	# a kill by its pid
	(preloaded 11 sh -c '"$0" tcp-client 127.0.0.10 9 x; echo "status $?"' "$S") \
		> "$tmp/shr.out" 2> "$tmp/shr.err"
	if grep -q '^status 1$' "$tmp/shr.out" &&
		grep -q 'connect: Connection refused' "$tmp/shr.err"; then
		ok "i. nobody on port 9: the static client says 'Connection refused', status 1"
	else
		notok "i. nobody on port 9"
		show "$tmp/shr.out" "$tmp/shr.err"
	fi
	(preloaded 10 sh -c 'exec "$0" tcp-server 127.0.0.10 8081' "$S") \
		> "$tmp/shk.out" 2> "$tmp/shk.err" &
	kpid=$!
	pids="$pids $kpid"
	if wait_until listening_or_gone shk "$kpid" && kill "$kpid"; then
		wait "$kpid"
		krc=$?
		_rest=
		for p in $pids; do
			[ "$p" = "$kpid" ] || _rest="$_rest $p"
		done
		pids=$_rest
		if [ "$krc" = 143 ]; then
			ok "i. kill of the supervised server's pid ends it (status 143)"
		else
			notok "i. kill of the supervised server's pid: status $krc"
		fi
	else
		notok "i. the server on 8081 did not start"
		show "$tmp/shk.out" "$tmp/shk.err"
	fi
	if [ -n "$PY" ]; then
		(preloaded 10 "$PY" - "$S" "$DYN") > "$tmp/spawn.out" 2>&1 <<-'EOF'
			import os, subprocess, sys, time
			static, dyn = sys.argv[1], sys.argv[2]
			pid = os.posix_spawn(static, ["supnet", "udp-server", "127.0.0.10", "53"], os.environ,
			                     file_actions=[(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)])
			for _ in range(600):
			    if os.path.exists(os.environ["SOCKET_WRAPPER_DIR"] + "/U0A0035"):
			        break
			    time.sleep(0.1)
			print("exe", os.readlink("/proc/%d/exe" % pid) == os.path.realpath(static))
			env = dict(os.environ, SOCKET_WRAPPER_DEFAULT_IFACE="11")
			r = subprocess.run([dyn, "udp-client", "127.0.0.10", "53", "spawned"],
			                   env=env, capture_output=True, text=True, timeout=60)
			print(r.stdout.strip())
			print("status", os.waitpid(pid, 0)[1])
		EOF
		if printf 'exe True\nreply spawned from 127.0.0.10:53\nstatus 0\n' | cmp -s - "$tmp/spawn.out"; then
			ok "i. posix_spawn() of the static UDP server by preloaded python3: its pid, its answer, its status"
		else
			notok "i. posix_spawn() of the static UDP server"
			show "$tmp/spawn.out"
		fi
	fi
fi

if [ $failed = 0 ]; then
	echo "all passed"
else
	echo "FAILED"
fi
exit $failed
