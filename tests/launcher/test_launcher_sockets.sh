#!/bin/sh
# cwrap --sockets as a user meets it: a running stack (sockets_stack.py
# under cwrap) of servers on several interfaces, IPv4 and IPv6, TCP and
# UDP, with clients connected to them, a SO_REUSEPORT group in two
# processes, a listener that never accepts and one that closes what it
# accepts, a name left by a killed process, a process whose /proc entry
# cannot be read; listed as text, --listening and --json (parsed by
# python3), sorted by address and port; an empty directory, a missing
# one, a file, a directory of other files; the options' errors; `cwrap
# ls` still runs ls.
set -u
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"
C=$CWRAP_LAUNCHER
S=$(cd "$(dirname "$0")" && pwd)/sockets_stack.py
# The system's python3 (a python3 of the user's may be a shell script,
# which a sanitizer build's runtime in LD_PRELOAD does not survive).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
tmp=$(mktemp -d)
chmod 755 "$tmp" # the unprivileged lister reads it, when run as root
net=$tmp/net
mkdir "$net"
pids=
cleanup() {
	for p in $pids; do
		kill -9 "$p" 2> /dev/null
	done
	wait 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
failed=0
ok() { echo "ok: $*"; }
bad() {
	echo "FAIL: $*"
	failed=1
}
# has DESCRIPTION REGEX FILE: a line of FILE matches.
has() {
	if grep -q -E -- "$2" "$3"; then
		ok "$1"
	else
		bad "$1: no line matches '$2' in:"
		sed 's/^/    /' "$3"
	fi
}
# start NAME IFACE ACTION...: a process of the stack, on interface IFACE,
# running until the test ends; its pid in $pid once it said ready.
start() {
	name=$1 iface=$2
	shift 2
	"$C" --dir "$net" --iface "$iface" "$PY" "$S" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
	pid=$!
	pids="$pids $pid"
	wait_until grep -q '^ready$' "$tmp/$name.out" && return 0
	echo "FAIL: $name never became ready:"
	cat "$tmp/$name.err"
	exit 1
}
# refused DESCRIPTION MESSAGE ARG...: cwrap ARG... exits 125 with exactly
# "cwrap: MESSAGE" on stderr and nothing on stdout.
refused() {
	desc=$1 msg=$2
	shift 2
	"$C" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc = 125 ] && [ "$(cat "$tmp/err")" = "cwrap: $msg" ] && [ ! -s "$tmp/out" ]; then
		ok "$desc: $msg"
	else
		bad "$desc: status $rc, want 125 and 'cwrap: $msg':"
		sed 's/^/    /' "$tmp/err" "$tmp/out"
	fi
}

echo "--- a stack"
start srv 10 listen 127.0.0.10 80 listen fd00::5357:5f0a 443 udp 127.0.0.10 53 \
	hold 127.0.0.10 25 drop 127.0.0.10 110 bind 127.0.0.10 113 \
	udp 127.255.255.255 137 quic U0A01BB
srv=$pid
comm=$(cat /proc/$srv/comm) # python3, or python3.N
start g1 11 group 127.0.0.11 8080
g1=$pid
start g2 11 group 127.0.0.11 8080
g2=$pid
start cli 20 connect 127.0.0.10 80 sendto 127.0.0.10 53 connect 127.0.0.10 25 \
	connect 127.0.0.10 110 connect 127.0.0.11 8080
cli=$pid
start cli6 21 connect fd00::5357:5f0a 443
cli6=$pid
start dead 12 listen 127.0.0.12 9 quic U0C0035
kill -9 $pid
start nodump 13 nodump listen 127.0.0.13 631
nodump=$pid
start gone 14 listen 127.0.0.14 21
gone=$pid
rm "$net/T0E0015" "$net/.T0E0015"

# (the server that drops its connections closes them on its own time)
listed_closed() {
	"$C" --sockets "$net" > "$tmp/list"
	grep -q '^tcp  *closed ' "$tmp/list"
}
wait_until listed_closed || true
sed 's/^/    /' "$tmp/list"
u() { echo "users:\\(\\(\"$comm\",pid=$1,fd=[0-9]+\\)\\)"; }
P='[0-9]+'
has "the header" '^Netid +State +Local Address:Port +Peer Address:Port +Name +Process$' "$tmp/list"
has "a TCP listener: its name, its process" "^tcp +listening +127\\.0\\.0\\.10:80 +\\* +T0A0050 +$(u $srv)\$" "$tmp/list"
has "its accepted connection, to the client on interface 20" \
	"^tcp +connected +127\\.0\\.0\\.10:80 +127\\.0\\.0\\.20:$P +T0A0050 +$(u $srv)\$" "$tmp/list"
has "the client's end" "^tcp +connected +127\\.0\\.0\\.20:$P +127\\.0\\.0\\.10:80 +- +$(u $cli)\$" "$tmp/list"
a=$(sed -n 's/^tcp  *connected  *127\.0\.0\.10:80  *127\.0\.0\.20:\([0-9]*\) .*/\1/p' "$tmp/list")
b=$(sed -n 's/^tcp  *connected  *127\.0\.0\.20:\([0-9]*\)  *127\.0\.0\.10:80 .*/\1/p' "$tmp/list")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "both ends name the client's port ($a)" ||
	bad "the server sees port '$a', the client has '$b'"
has "an IPv6 listener" "^tcp +listening +\\[fd00::5357:5f0a\\]:443 +\\* +X0A01BB +$(u $srv)\$" "$tmp/list"
has "an IPv6 connection" \
	"^tcp +connected +\\[fd00::5357:5f15\\]:$P +\\[fd00::5357:5f0a\\]:443 +- +$(u $cli6)\$" "$tmp/list"
has "a UDP server" "^udp +bound +127\\.0\\.0\\.10:53 +\\* +U0A0035 +$(u $srv)\$" "$tmp/list"
has "a connected UDP client" "^udp +connected +127\\.0\\.0\\.20:$P +127\\.0\\.0\\.10:53 +U14[0-9A-F]{4} +$(u $cli)\$" "$tmp/list"
has "a TCP socket bound, not listening" "^tcp +bound +127\\.0\\.0\\.10:113 +\\* +T0A0071 +$(u $srv)\$" "$tmp/list"
has "the broadcast address" "^udp +bound +127\\.255\\.255\\.255:137 +\\* +UFF0089 +$(u $srv)\$" "$tmp/list"
has "a SEQPACKET socket on a UDP name: quic" "^quic +listening +127\\.0\\.0\\.10:443 +\\* +U0A01BB +$(u $srv)\$" "$tmp/list"
has "a listener whose file was removed" "^tcp +listening +127\\.0\\.0\\.14:21 +\\* +- \\(removed\\) +$(u $gone)\$" "$tmp/list"
has "a listener that does not accept" "^tcp +listening +127\\.0\\.0\\.10:25 +\\* +T0A0019 +$(u $srv)\$" "$tmp/list"
has "its client waits in its queue" "^tcp +queued +127\\.0\\.0\\.20:$P +\\? +- +$(u $cli)\$" "$tmp/list"
has "a client whose server closed the connection" "^tcp +closed +127\\.0\\.0\\.20:$P +\\? +- +$(u $cli)\$" "$tmp/list"
has "a reuseport group: the plain name's member" \
	"^tcp +listening +127\\.0\\.0\\.11:8080 +\\* +T0B1F90 \\[reuseport\\] +$(u $g1)\$" "$tmp/list"
has "a reuseport group: the second member, in another process" \
	"^tcp +listening +127\\.0\\.0\\.11:8080 +\\* +\\.T0B1F90\\.1 \\[reuseport\\] +$(u $g2)\$" "$tmp/list"
has "a connection accepted by a member" \
	"^tcp +connected +127\\.0\\.0\\.11:8080 +127\\.0\\.0\\.20:$P +\\.?T0B1F90(\\.1)? \\[reuseport\\] +users" "$tmp/list"
has "a killed listener's name is stale" '^tcp +stale +127\.0\.0\.12:9 +\* +T0C0009 +-$' "$tmp/list"
has "a killed quic socket's name is stale, udp by its name" '^udp +stale +127\.0\.0\.12:53 +\* +U0C0035 +-$' "$tmp/list"
grep -q '\.T0C0009' "$tmp/list" && bad "the stale listener's marker is listed" ||
	ok "its marker (the same file) is not listed apart"
# Sorted by address and port (IPv4 before IPv6).
python3 - "$tmp/list" <<-'EOF' && ok "sorted by address and port" || bad "not sorted by address and port"
	import ipaddress, sys
	keys = []
	for line in open(sys.argv[1]).readlines()[1:]:
	    addr, port = line.split()[2].rsplit(":", 1)
	    ip = ipaddress.ip_address(addr.strip("[]"))
	    keys.append((ip.version, ip, int(port)))
	assert len(keys) > 20 and keys == sorted(keys), keys
EOF

echo "--- a process whose /proc entry cannot be read"
# Not dumpable: its /proc/PID/fd is root's. Root reads it all the same,
# so as root the listing runs as another account: cwraptest, or else
# nobody (which every Debian system has), with its own group.
lister=
if [ "$(id -u)" != 0 ]; then
	lister=
else
	lister=none
	for u in cwraptest nobody; do
		if id "$u" > /dev/null 2>&1 && command -v setpriv > /dev/null; then
			lister="setpriv --reuid=$u --regid=$(id -g "$u") --clear-groups"
			break
		fi
	done
fi
if [ "$lister" = none ]; then
	echo "skipped: root, and neither cwraptest nor nobody (or no setpriv) to list as"
else
	$lister "$C" --sockets "$net" > "$tmp/list2" 2> "$tmp/err"
	has "said, not guessed" '^tcp +listening +127\.0\.0\.13:631 +\* +T0D0277 +not readable$' "$tmp/list2"
	$lister "$C" --sockets --json "$net" > "$tmp/json2"
	python3 - "$tmp/json2" <<-'EOF' && ok "JSON: processes_readable false, no process" || bad "JSON of the unreadable one"
		import json, sys
		rows = json.load(open(sys.argv[1]))
		r = [r for r in rows if r["local"]["port"] == 631]
		assert len(r) == 1 and r[0]["processes"] == [] and r[0]["processes_readable"] is False, r
	EOF
	if [ -z "$lister" ]; then
		has "the caller's own processes are read" "^tcp +listening +127\\.0\\.0\\.10:80 +\\* +T0A0050 +$(u $srv)\$" "$tmp/list2"
	fi
fi

echo "--- --listening"
"$C" --sockets --listening "$net" > "$tmp/listen"
sed 's/^/    /' "$tmp/listen"
same_count=$(sed 1d "$tmp/listen" | grep -c -v -E '^[a-z]+ +listening ')
[ "$same_count" = 0 ] && ok "listeners only" || bad "--listening shows $same_count others"
[ "$(sed 1d "$tmp/listen" | wc -l)" = 9 ] && ok "all nine listeners" || bad "not nine listeners"

echo "--- --json"
"$C" --sockets --json "$net" > "$tmp/json"
python3 - "$tmp/json" "$srv" "$comm" "$g1" "$g2" <<-'EOF' && ok "--json parses and says the same" || bad "--json"
	import ipaddress, json, os, sys
	rows = json.load(open(sys.argv[1]))
	srv, comm, g1, g2 = int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
	assert isinstance(rows, list) and rows, rows
	keys = [(ipaddress.ip_address(r["local"]["address"]).version,
		 ipaddress.ip_address(r["local"]["address"]), r["local"]["port"]) for r in rows]
	assert keys == sorted(keys), keys
	l80 = [r for r in rows if r["local"] == {"address": "127.0.0.10", "port": 80}
	       and r["state"] == "listening"]
	assert len(l80) == 1, l80
	r = l80[0]
	assert r["netid"] == "tcp" and r["peer"] is None and r["names"] == ["T0A0050"], r
	assert r["reuseport"] is False and isinstance(r["inode"], int), r
	assert r["removed"] is False and r["uid"] == os.getuid(), r
	gone = [r for r in rows if r["local"]["port"] == 21]
	assert [(r["names"], r["removed"], r["uid"]) for r in gone] == [([], True, None)], gone
	assert [(p["pid"], p["command"]) for p in r["processes"]] == [(srv, comm)], r
	assert r["processes_readable"] is True, r
	grp = [r for r in rows if r["local"]["port"] == 8080 and r["state"] == "listening"]
	assert [(r["names"], r["reuseport"], r["processes"][0]["pid"]) for r in grp] == \
		[(["T0B1F90"], True, g1), ([".T0B1F90.1"], True, g2)], grp
	stale = [r for r in rows if r["state"] == "stale"]
	assert [(r["local"], r["names"], r["inode"], r["processes"]) for r in stale] == \
		[({"address": "127.0.0.12", "port": 9}, ["T0C0009"], None, []),
		 ({"address": "127.0.0.12", "port": 53}, ["U0C0035"], None, [])], stale
	conn = [r for r in rows if r["state"] == "connected" and r["local"]["port"] == 443]
	assert conn and conn[0]["peer"]["address"] == "fd00::5357:5f15", conn
	udp = [r for r in rows if r["netid"] == "udp" and r["state"] == "connected"]
	assert udp and udp[0]["peer"] == {"address": "127.0.0.10", "port": 53}, udp
EOF

echo "--- a directory that upstream's socket_wrapper fills"
upstream=
for f in /usr/lib/x86_64-linux-gnu/libsocket_wrapper.so.0 /usr/lib/x86_64-linux-gnu/libsocket_wrapper.so; do
	if [ -e "$f" ] && [ "$(readlink -f "$f")" != "$(readlink -f "$CWRAP_SOCKET_WRAPPER_LIB")" ]; then
		upstream=$f
		break
	fi
done
if [ -z "$upstream" ]; then
	echo "skipped: upstream's libsocket-wrapper (Debian) is not installed"
else
	up=$tmp/up
	mkdir "$up"
	for side in "10 listen 127.0.0.10 80 listen fd00::5357:5f0a 443" \
		"20 connect 127.0.0.10 80 connect fd00::5357:5f0a 443"; do
		# shellcheck disable=SC2086 # the words of $side
		set -- $side
		iface=$1
		shift
		LD_PRELOAD="$CWRAP_PRELOAD_PREFIX$upstream" SOCKET_WRAPPER_DIR=$up \
			SOCKET_WRAPPER_DEFAULT_IFACE=$iface "$PY" "$S" "$@" > "$tmp/up$iface" 2>&1 &
		pids="$pids $!"
		wait_until grep -q '^ready$' "$tmp/up$iface" || true
		eval "up$iface=\$!"
	done
	"$C" --sockets "$up" > "$tmp/list3"
	sed 's/^/    /' "$tmp/list3"
	has "upstream's listener" "^tcp +listening +127\\.0\\.0\\.10:80 +\\* +T0A0050 +$(u "$up10")\$" "$tmp/list3"
	has "upstream's client, bound to a file" \
		"^tcp +connected +127\\.0\\.0\\.20:$P +127\\.0\\.0\\.10:80 +T14[0-9A-F]{4} +$(u "$up20")\$" "$tmp/list3"
	has "upstream's IPv6 connection, server side" \
		"^tcp +connected +\\[fd00::5357:5f0a\\]:443 +\\[fd00::5357:5f14\\]:$P +X0A01BB +$(u "$up10")\$" "$tmp/list3"
fi

echo "--- the directory: default, --dir, the IPv4 network"
SOCKET_WRAPPER_DIR=$net "$C" --sockets --listening > "$tmp/out"
cmp -s "$tmp/out" "$tmp/listen" && ok "DIR defaults to \$SOCKET_WRAPPER_DIR" || bad "\$SOCKET_WRAPPER_DIR: $(cat "$tmp/out")"
"$C" --dir "$net" --sockets --listening > "$tmp/out"
cmp -s "$tmp/out" "$tmp/listen" && ok "--dir DIR --sockets" || bad "--dir: $(cat "$tmp/out")"
"$C" --sockets "$net" --listening > "$tmp/out"
cmp -s "$tmp/out" "$tmp/listen" && ok "options after DIR" || bad "options after DIR: $(cat "$tmp/out")"
SOCKET_WRAPPER_IPV4_NETWORK=10.53.57.0 "$C" --sockets --listening "$net" > "$tmp/out"
has "SOCKET_WRAPPER_IPV4_NETWORK=10.53.57.0: the addresses the programs see" \
	"^tcp +listening +10\\.53\\.57\\.10:80 +\\* +T0A0050 " "$tmp/out"
SOCKET_WRAPPER_IPV4_NETWORK=10.0.0.0
export SOCKET_WRAPPER_IPV4_NETWORK
refused "a network socket_wrapper does not know" \
	"SOCKET_WRAPPER_IPV4_NETWORK='10.0.0.0' is neither 127.0.0.0 nor 10.53.57.0" \
	--sockets "$net"
unset SOCKET_WRAPPER_IPV4_NETWORK
"$C" --dir "$net" ls "$net" > "$tmp/out"
has "cwrap ls still runs ls" '^T0A0050$' "$tmp/out"

echo "--- empty, missing, not a socket directory"
mkdir "$tmp/empty"
"$C" --sockets "$tmp/empty" > "$tmp/out"
rc=$?
[ $rc = 0 ] && [ "$(cat "$tmp/out")" = "Netid State Local Address:Port Peer Address:Port Name Process" ] &&
	ok "an empty directory: the header, status 0" || bad "empty: status $rc: $(cat "$tmp/out")"
[ "$("$C" --sockets --json "$tmp/empty")" = "[]" ] && ok "an empty directory: []" || bad "empty: --json"
refused "a missing directory" "--sockets $tmp/nope: No such file or directory" --sockets "$tmp/nope"
touch "$tmp/file"
refused "a file" "--sockets $tmp/file: not a directory" --sockets "$tmp/file"
mkdir "$tmp/other"
touch "$tmp/other/notes.txt" "$tmp/other/T0A00"
refused "a directory of other files" \
	"--sockets $tmp/other: not a socket directory (none of its 2 names is socket_wrapper's, such as T0A0007)" \
	--sockets "$tmp/other"
env -u SOCKET_WRAPPER_DIR "$C" --sockets > "$tmp/out" 2> "$tmp/err"
[ $? = 125 ] && [ "$(cat "$tmp/err")" = "cwrap: --sockets: no directory given, and SOCKET_WRAPPER_DIR is not set" ] &&
	ok "no directory at all" || bad "no directory: $(cat "$tmp/err")"

echo "--- options"
refused "--json alone" "--json needs --sockets" --json true
refused "--listening alone" "--listening needs --sockets" --listening true
refused "--sockets with an option that runs" \
	"--sockets and --passwd contradict each other (--sockets runs nothing)" \
	--sockets --passwd "$tmp/file" "$net"
refused "two directories" "--sockets takes one directory: '$tmp/empty' given after '$net'" \
	--sockets "$net" "$tmp/empty"
refused "a directory and --dir" "--sockets $net and --dir $tmp/empty: two directories" \
	--dir "$tmp/empty" --sockets "$net"

exit $failed
