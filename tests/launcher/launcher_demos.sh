#!/bin/sh
# The article's demos through the launcher, as README and cwrap(1) show
# them: nc listening on 127.0.0.10 port 7 and a client on interface 100
# (with a capture), getent passwd bob with --passwd/--group, hostname with
# --hostname, getent ahostsv6 with --hosts, id with --root. Each command
# is printed as typed, then its output, then checked. With
# CWRAP_DEMO_PREFIX set (to "$CWRAP_TEST_BIN/cwrap_"), the project's
# cwrap_nc, cwrap_getent, cwrap_hostname and cwrap_id run instead of the
# system's programs.
set -u
. "$CWRAP_SOURCE_DIR/tests/common/local_names.sh"
. "$CWRAP_SOURCE_DIR/tests/socket_wrapper/swrap_it_lib.sh"
cwrap=$CWRAP_LAUNCHER
nc=${CWRAP_DEMO_PREFIX:-}nc
getent=${CWRAP_DEMO_PREFIX:-}getent
hostname=${CWRAP_DEMO_PREFIX:-}hostname
id=${CWRAP_DEMO_PREFIX:-}id
cd "$tmp"
TMPDIR=$tmp/tmpdir # (the private socket directories, checked at the end)
export TMPDIR
mkdir "$TMPDIR"

# check DESCRIPTION EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: expected:"
		printf '%s\n' "$2" | sed 's/^/    /'
		failed=1
	fi
}

dir=$tmp/net
show "cwrap --dir $dir --iface 10 ${nc##*/} -v -l 127.0.0.10 7"
"$cwrap" --dir "$dir" --iface 10 "$nc" -v -l 127.0.0.10 7 > server 2>&1 &
server=$!
track "$server"
wait_listen "$dir/T0A0007"
show "cwrap --dir $dir --iface 100 --pcap sw.pcap ${nc##*/} -v 127.0.0.10 7"
echo "(typing: Hello!)"
mkfifo keyboard
"$cwrap" --dir "$dir" --iface 100 --pcap sw.pcap "$nc" -v 127.0.0.10 7 < keyboard > client 2>&1 &
client=$!
track "$client"
exec 3> keyboard
echo 'Hello!' >&3
wait_grep 'Hello!' server
exec 3>&-
kill "$client" 2> /dev/null
bounded_wait "$server" 10
echo "--- server console:"
cat server
echo "--- client console:"
cat client
echo "---"
expect "server listens on 127.0.0.10 7" '^Listening on 127\.0\.0\.10 7$' server
expect "server sees the client as 127.0.0.100" '^Connection received on 127\.0\.0\.100 [0-9]+$' server
expect "server received Hello!" '^Hello!$' server
expect "client connected" '^Connection to 127\.0\.0\.10 7 port \[tcp/echo\] succeeded!$' client
check "the capture is a pcap file" "d4c3b2a1" "$(od -A n -t x1 -N 4 sw.pcap | tr -d ' \n')"
[ -d "$dir" ] && echo "ok: --dir $dir is kept" || { echo "FAIL: $dir removed"; failed=1; }

echo
echo '$ echo "bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false" > passwd'
echo "bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false" > passwd
echo '$ echo "users:x:1000:" > group'
echo "users:x:1000:" > group
show "cwrap --passwd passwd --group group ${getent##*/} passwd bob"
out=$("$cwrap" --passwd passwd --group group "$getent" passwd bob)
echo "$out"
check "getent passwd bob" "bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false" "$out"

echo
show "cwrap --hostname test.example.org ${hostname##*/}"
out=$("$cwrap" --hostname test.example.org "$hostname")
echo "$out"
check hostname "test.example.org" "$out"

echo
echo '$ echo "fd00::5357:5faa test.cwrap.org" > hosts'
echo "fd00::5357:5faa test.cwrap.org" > hosts
echo '$ echo "127.0.0.170 test.cwrap.org" >> hosts'
echo "127.0.0.170 test.cwrap.org" >> hosts
show "cwrap --hosts hosts ${getent##*/} ahostsv6 test.cwrap.org"
out=$("$cwrap" --hosts hosts "$getent" ahostsv6 test.cwrap.org)
echo "$out"
check "getent ahostsv6" "fd00::5357:5faa DGRAM  test.cwrap.org
fd00::5357:5faa STREAM test.cwrap.org" "$out"

echo
show "cwrap --root ${id##*/}"
out=$("$cwrap" --root "$id")
echo "$out"
check "id as a fake root" "uid=0(root) gid=0(root) groups=0(root)" "$out"

[ -z "$(ls -A "$TMPDIR")" ] && echo "ok: the private socket directories are removed" ||
	{ echo "FAIL: left in TMPDIR: $(ls -A "$TMPDIR")"; failed=1; }
[ $failed = 0 ] && echo "ok: the article's demos work through cwrap"
exit $failed
