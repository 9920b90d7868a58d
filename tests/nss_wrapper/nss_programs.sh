#!/bin/bash
# Real programs under nss_wrapper: getent passwd|group|shadow|hosts|ahosts|
# ahostsv4|ahostsv6, id USER, python3 (pwd, grp, socket), and what a user
# sees on bad input: a missing file named once with its path, malformed
# lines named file:line with the reason (NSS_WRAPPER_DEBUGLEVEL=1), the good
# lines still served; a module that cannot be loaded is reported.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
PRE="${CWRAP_PRELOAD_PREFIX:-}libnss_wrapper.so"
fail=0

cat > passwd <<'EOT'
bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false
alice:x:1001:1000:Alice:/home/alice:/bin/sh
EOT
cat > group <<'EOT'
users:x:1000:
admins:x:3000:alice
staff:x:3001:alice,bob
EOT
cat > shadow <<'EOT'
bob:$6$salt$hash:19000:0:99999:7:::
alice:!:19001:0:99999:7:::
EOT
cat > hosts <<'EOT'
fd00::5357:5faa test.cwrap.org
127.0.0.170 test.cwrap.org
127.0.0.10 server.cwrap.org server
EOT
export NSS_WRAPPER_PASSWD=passwd NSS_WRAPPER_GROUP=group
export NSS_WRAPPER_SHADOW=shadow NSS_WRAPPER_HOSTS=hosts
export NSS_WRAPPER_HOSTNAME=client.cwrap.org

run() { # EXPECTED COMMAND...
	local want=$1 out
	shift
	echo "\$ $*"
	out=$(LD_PRELOAD="$PRE" "$@" 2>&1) || true
	printf '%s\n' "$out"
	if [ "$out" != "$want" ]; then
		echo "FAIL: expected:"; printf '%s\n' "$want"
		fail=1
	fi
}

run "$(cat passwd)" getent passwd
run "alice:x:1001:1000:Alice:/home/alice:/bin/sh" getent passwd 1001
run "$(cat group)" getent group
run "staff:x:3001:alice,bob" getent group staff
run "$(cat shadow)" getent shadow
run 'alice:!:19001:0:99999:7:::' getent shadow alice
# the enumeration lists the IPv4 lines, as glibc's files module
run "127.0.0.170     test.cwrap.org
127.0.0.10      server.cwrap.org server" getent hosts
run "127.0.0.10      server.cwrap.org server" getent hosts server
run "127.0.0.10      server.cwrap.org server" getent hosts 127.0.0.10
run "fd00::5357:5faa DGRAM  test.cwrap.org
fd00::5357:5faa STREAM test.cwrap.org
127.0.0.170     DGRAM  test.cwrap.org
127.0.0.170     STREAM test.cwrap.org" getent ahosts test.cwrap.org
run "127.0.0.170     DGRAM  test.cwrap.org
127.0.0.170     STREAM test.cwrap.org" getent ahostsv4 test.cwrap.org
run "fd00::5357:5faa DGRAM  test.cwrap.org
fd00::5357:5faa STREAM test.cwrap.org" getent ahostsv6 test.cwrap.org
run "::ffff:127.0.0.10 DGRAM  server.cwrap.org
::ffff:127.0.0.10 STREAM server.cwrap.org" getent ahostsv6 server
run "" getent hosts nosuch.cwrap.org
run "uid=1001(alice) gid=1000(users) groups=1000(users),3000(admins),3001(staff)" id alice
run "uid=1000(bob) gid=1000(users) groups=1000(users),3001(staff)" id bob
run "client.cwrap.org" hostname
run "/home/test/bob
1001
['users', 'admins', 'staff']
['alice', 'bob']
('127.0.0.10', 80)
('fd00::5357:5faa', 0, 0, 0)
server.cwrap.org
client.cwrap.org" /usr/bin/python3 -c '
import pwd, grp, socket
print(pwd.getpwnam("bob").pw_dir)
print(pwd.getpwuid(1001).pw_uid)
print([g.gr_name for g in grp.getgrall()])
print(grp.getgrgid(3001).gr_mem)
print(socket.getaddrinfo("server", 80, socket.AF_INET, socket.SOCK_STREAM)[0][4])
print(socket.getaddrinfo("test.cwrap.org", None, socket.AF_INET6, socket.SOCK_DGRAM)[0][4])
print(socket.gethostbyaddr("127.0.0.10")[0])
print(socket.gethostname())'

echo
echo "--- a container user: the current uid, in no real passwd file"
uid=$(id -u) gid=$(id -g)
printf 'ghost:x:%s:%s:Ghost:/nonexistent:/bin/sh\n' "$uid" "$gid" > cpasswd
printf 'ghosts:x:%s:\n' "$gid" > cgroup
run "ghost" env NSS_WRAPPER_PASSWD=cpasswd NSS_WRAPPER_GROUP=cgroup whoami
run "ghost ghosts" env NSS_WRAPPER_PASSWD=cpasswd NSS_WRAPPER_GROUP=cgroup sh -c 'echo $(id -un) $(id -gn)' 

echo
echo "--- bad input"
printf 'ok:x:1:1:::\nbad:x:uid:1:::\nshort:x:1\n\001\002\377junk\r\nlast:x:2:2:::' > passwd
run "ok:x:1:1:::
last:x:2:2:::" getent passwd
out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_DEBUGLEVEL=1 getent passwd 2>&1 >/dev/null)
printf '%s\n' "$out"
for want in "passwd:2: bad uid, line skipped" "passwd:3: missing field, line skipped" \
	"passwd:4: missing field, line skipped"; do
	grep -qF "$want" <<< "$out" || { echo "FAIL: no '$want'"; fail=1; }
done
printf '127.0.0.1 good\n999.1.1.1 bad\n' > hosts
out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_DEBUGLEVEL=1 getent hosts good 2>&1)
printf '%s\n' "$out"
grep -qF "hosts:2: bad address, line skipped" <<< "$out" || { echo "FAIL: bad address"; fail=1; }
grep -qF "127.0.0.1       good" <<< "$out" || { echo "FAIL: good host"; fail=1; }

out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_PASSWD="$dir/missing" getent passwd bob alice 0 2>&1) || true
printf '%s\n' "$out"
n=$(grep -c "NSS_WRAPPER_PASSWD=$dir/missing" <<< "$out" || true)
[ "$n" = 1 ] || { echo "FAIL: missing file reported $n times"; fail=1; }

if [ "$(id -u)" != 0 ]; then # root reads any file
	printf 'bob:x:1:1:::\n' > unreadable
	chmod 000 unreadable
	out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_PASSWD=unreadable getent passwd bob bob 2>&1) || true
	printf '%s\n' "$out"
	n=$(grep -c "NSS_WRAPPER_PASSWD=unreadable: cannot read the file: Permission denied" <<< "$out" || true)
	[ "$n" = 1 ] || { echo "FAIL: unreadable file reported $n times"; fail=1; }
fi

out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_MODULE_SO_PATH="$dir/nosuch.so" \
	NSS_WRAPPER_MODULE_FN_PREFIX=x getent group admins 2>&1) || true
printf '%s\n' "$out"
grep -qF "NSS_WRAPPER_MODULE_SO_PATH=$dir/nosuch.so" <<< "$out" || { echo "FAIL: module"; fail=1; }
grep -qF "admins:x:3000:alice" <<< "$out" || { echo "FAIL: files after module"; fail=1; }

echo
echo "--- a hosts file of 100,000 lines; NSS_WRAPPER_MAX_HOSTENTS is only a hint"
/usr/bin/python3 -c '
for i in range(100000):
    print("10.%d.%d.%d host%d.big.example" % (i >> 16, (i >> 8) & 255, i & 255, i))' > big
run "10.1.134.159    host99999.big.example" env NSS_WRAPPER_HOSTS=big NSS_WRAPPER_MAX_HOSTENTS=10 getent hosts host99999.big.example
run "10.0.0.0        DGRAM  host0.big.example
10.0.0.0        STREAM host0.big.example" env NSS_WRAPPER_HOSTS=big getent ahostsv4 HOST0.big.example

[ $fail = 0 ] && echo "ok: real programs see the files"
exit $fail
