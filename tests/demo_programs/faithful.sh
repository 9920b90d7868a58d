#!/bin/bash
# The project's demo programs (tests/demo_programs) against the system's,
# under the same wrappers and on the same input: getent, id and hostname
# print the same bytes and exit the same; nc says the same and carries the
# same bytes, in every pairing of server and client (system's and ours).
# So the demos run against ours where the system's cannot be wrapped
# (musl, another word size) show what the article's commands would show.
set -u
. "$CWRAP_SOURCE_DIR/tests/common/local_names.sh"
. "$CWRAP_SOURCE_DIR/tests/socket_wrapper/swrap_it_lib.sh"
cd "$tmp"
bin=$CWRAP_TEST_BIN
NSS="${CWRAP_PRELOAD_PREFIX}libnss_wrapper.so"
UWRAP="${CWRAP_PRELOAD_PREFIX}libuid_wrapper.so"

# compare DESCRIPTION FILE-OF-THE-SYSTEM'S FILE-OF-OURS
compare() {
	if cmp -s "$2" "$3"; then
		echo "same: $1 ($(wc -l < "$2") lines: $(head -n 3 "$2" | paste -s -d '|'))"
	else
		echo "FAIL: $1: the system's program, then ours:"
		diff "$2" "$3" | sed 's/^/    /'
		failed=1
	fi
}

# same PRELOAD VAR=VALUE... -- PROGRAM ARG...: the system's PROGRAM and
# cwrap_PROGRAM, with stdin from /dev/null: stdout, the exit status and
# stderr (our name read as theirs).
same() {
	local pre=$1 vars=() prog p
	shift
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	prog=$2
	shift 2
	for p in "$prog" "$bin/cwrap_$prog"; do
		env LD_PRELOAD="$pre" "${vars[@]}" "$p" "$@" < /dev/null > "$tmp/${p##*/}.out" 2> "$tmp/err"
		echo "exit $?" >> "$tmp/${p##*/}.out"
		cat "$tmp/err" >> "$tmp/${p##*/}.out"
	done
	sed -i "s/cwrap_$prog/$prog/g" "$tmp/cwrap_$prog.out"
	compare "$prog${*:+ $*}" "$tmp/$prog.out" "$tmp/cwrap_$prog.out"
}

cat > passwd << 'EOF'
bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false
root:x:65534:65532:Root user:/home/test/root:/bin/false
alice:x:1001:50::/home/alice:/bin/sh
+plus:x:5:6:nis:/:/bin/false
EOF
cat > group << 'EOF'
users:x:1000:
root:x:65532:
staff:x:50:bob,alice
+nis:x:7:a,b
EOF
cat > hosts << 'EOF'
fd00::5357:5faa test.cwrap.org
127.0.0.170 test.cwrap.org
127.0.0.10 server.cwrap.org server srv
fd00::5357:5f0a v6.cwrap.org v6
EOF
files=(NSS_WRAPPER_PASSWD=passwd NSS_WRAPPER_GROUP=group NSS_WRAPPER_HOSTS=hosts)

echo "== getent, under nss_wrapper"
for args in "passwd" "passwd bob" "passwd 1001" "passwd nobody bob 65534" \
	"group" "group staff" "group 1000 nogroup +nis" \
	"hosts" "hosts test.cwrap.org" "hosts server" "hosts v6.cwrap.org" \
	"hosts 127.0.0.10" "hosts fd00::5357:5f0a" "hosts nosuch.cwrap.org server" \
	"ahosts test.cwrap.org" "ahostsv4 test.cwrap.org" "ahostsv6 test.cwrap.org" \
	"ahostsv6 server" "ahosts v6 nosuch.cwrap.org" "ahostsv4 127.0.0.1" \
	"nosuchdb x"; do
	# shellcheck disable=SC2086 # the words of $args are the arguments
	same "$NSS" "${files[@]}" -- getent $args
done
same "" -- getent
echo "== getent, without wrappers"
same "" -- getent passwd root 0
same "" -- getent group root
same "" -- getent ahosts localhost

echo "== id"
same "$UWRAP" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 -- id
same "$UWRAP:$NSS" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 "${files[@]}" -- id
same "$UWRAP:$NSS" UID_WRAPPER=1 "${files[@]}" \
	UID_WRAPPER_INITIAL_RUID=1000 UID_WRAPPER_INITIAL_EUID=1001 UID_WRAPPER_INITIAL_SUID=0 \
	UID_WRAPPER_INITIAL_RGID=1000 UID_WRAPPER_INITIAL_EGID=65532 UID_WRAPPER_INITIAL_SGID=0 \
	UID_WRAPPER_INITIAL_GROUPS_COUNT=6 UID_WRAPPER_INITIAL_GROUPS=65532,50,50,1000,4242,65532 -- id
same "" -- id

echo "== hostname"
same "$NSS" NSS_WRAPPER_HOSTNAME=test.example.org -- hostname
same "" -- hostname

echo "== nc, under socket_wrapper"
SW=(SOCKET_WRAPPER_DIR="$tmp/sw" SOCKET_WRAPPER_DEFAULT_IFACE=100)
mkdir "$tmp/sw"
same "$PRELOAD" "${SW[@]}" -- nc -v 127.0.0.10 4999
same "$PRELOAD" "${SW[@]}" -- nc -v 127.0.0.10 99999
same "$PRELOAD" "${SW[@]}" -- nc -v -u -w1 127.0.0.10 53

# pair SERVER CLIENT ADDR PORT SOCKET-FILE SERVER-INPUT SERVER-OPTION: one
# conversation, the client sending "Hello!" then a FIN (-N); the server's
# stdin gives SERVER-INPUT. Writes what both printed to $tmp/pair.SERVER.CLIENT,
# the client's port as P.
pair() {
	local out=$tmp/pair.${1##*/}.${2##*/}
	rm -rf "$tmp/sw" && mkdir "$tmp/sw"
	printf '%b' "$6" | LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/sw" SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		"$1" -v $7 -l "$3" "$4" > "$tmp/s.out" 2> "$tmp/s.err" &
	server=$!
	track "$server"
	wait_listen "$tmp/sw/$5"
	echo 'Hello!' | LD_PRELOAD="$PRELOAD" SOCKET_WRAPPER_DIR="$tmp/sw" SOCKET_WRAPPER_DEFAULT_IFACE=100 \
		"$2" -v -N "$3" "$4" > "$tmp/c.out" 2> "$tmp/c.err" &
	client=$!
	track "$client"
	bounded_wait "$client" 20
	echo "client: exit $?" > "$out"
	bounded_wait "$server" 20
	echo "server: exit $?" >> "$out"
	for f in s.err s.out c.err c.out; do
		echo "-- $f"
		sed -E 's/^cwrap_nc:/nc:/; s/^(Connection received on [^ ]+) [0-9]+$/\1 P/' "$tmp/$f"
	done >> "$out"
}

for conv in "127.0.0.10 7 T0A0007" "fd00::5357:5f0a 7 X0A0007" "127.0.0.10 4999 T0A1387"; do
	read -r addr port file <<< "$conv"
	for talk in "article" "both"; do
		if [ $talk = article ]; then input="" nopt=""; else input='Hi there\n' nopt="-N"; fi
		for s in nc "$bin/cwrap_nc"; do
			for c in nc "$bin/cwrap_nc"; do
				pair "$s" "$c" "$addr" "$port" "$file" "$input" "$nopt"
			done
		done
		echo "(the system's nc with the system's nc, $addr $port, $talk:)"
		sed 's/^/    /' "$tmp/pair.nc.nc"
		for p in nc.cwrap_nc cwrap_nc.nc cwrap_nc.cwrap_nc; do
			compare "nc -l $addr $port ($talk): servers and clients ${p/./ and }" \
				"$tmp/pair.nc.nc" "$tmp/pair.$p"
		done
	done
done
exit $failed
