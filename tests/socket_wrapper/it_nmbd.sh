#!/bin/bash
# Samba's NetBIOS name server under the wrapper, as Samba's own test
# environments run it: nmbd on interface 127.0.0.10/8 binds UDP
# 127.0.0.10:137 and the broadcast address 127.255.255.255:137 (the bind
# that used to fail: "nmbd failed to setup interfaces"), then answers
# nmblookup, a broadcast query and a unicast one, from interface 11; nmbd
# sees the query come from 127.0.0.11. For any user: nothing here needs
# privilege. Skipped (77) when nmbd or nmblookup is not installed (Debian
# packages samba, samba-common-bin).
set -u
. "$(dirname "$0")/swrap_it_lib.sh"
for p in nmbd nmblookup; do
	command -v $p > /dev/null || { echo "$p not installed: skipped"; exit 77; }
done

dir=$tmp/sockets
mkdir "$dir" "$tmp/lock" "$tmp/state" "$tmp/cache" "$tmp/pid" "$tmp/private" \
	"$tmp/ncalrpc" "$tmp/nmbd" "$tmp/log"
cat > "$tmp/smb.conf" << EOF
[global]
	netbios name = SWRAPNB
	workgroup = SWRAPGRP
	interfaces = 127.0.0.10/8
	bind interfaces only = yes
	disable netbios = no
	lock directory = $tmp/lock
	state directory = $tmp/state
	cache directory = $tmp/cache
	pid directory = $tmp/pid
	private dir = $tmp/private
	ncalrpc dir = $tmp/ncalrpc
	nmbd:socket dir = $tmp/nmbd
	log file = $tmp/log/log.%m
EOF

show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 nmbd -F --debug-stdout -d 3 --configfile=smb.conf &"
LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=10 \
	nmbd -F --debug-stdout -d 3 --configfile="$tmp/smb.conf" < /dev/null > "$tmp/nmbd.out" 2>&1 &
nmbd=$!
track $nmbd
wait_for "$dir/UFF0089"
wait_for "$dir/U0A0089"
echo "nmbd bound 127.255.255.255:137 (UFF0089) and 127.0.0.10:137 (U0A0089)"

# lookup TAG ARGS...: nmblookup from interface 11 until nmbd, which
# registers its names first, answers (60 s at most).
lookup() {
	tag=$1
	shift
	show "LD_PRELOAD=libsocket_wrapper.so SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=11 nmblookup $* SWRAPNB"
	for _ in $(seq 1 20); do
		kill -0 $nmbd 2> /dev/null || break
		LD_PRELOAD=$PRELOAD SOCKET_WRAPPER_DIR=$dir SOCKET_WRAPPER_DEFAULT_IFACE=11 \
			timeout 20 nmblookup --configfile="$tmp/smb.conf" "$@" SWRAPNB \
			> "$tmp/lookup$tag" 2>&1 && break
		sleep 1
	done
	cat "$tmp/lookup$tag"
	expect "nmblookup $* found nmbd's name" '^127\.0\.0\.10 SWRAPNB<00>$' "$tmp/lookup$tag"
}

lookup bcast -B 127.255.255.255
lookup unicast -U 127.0.0.10
kill -0 $nmbd 2> /dev/null || { sed 's/^/    /' "$tmp/nmbd.out"; fail "nmbd exited"; }
expect "nmbd saw the queries from 127.0.0.11" \
	'Name query from 127\.0\.0\.11 .*SWRAPNB<00>' "$tmp/nmbd.out"
if [ $failed != 0 ]; then
	tail -40 "$tmp/nmbd.out" | sed 's/^/    nmbd: /'
fi
exit $failed
