#!/bin/bash
# The article's nss_wrapper demos, exactly as printed there: users and
# groups (getent passwd bob), the host name (hostname) and name resolution
# (getent ahostsv6). Prints each command and its output, then checks the
# output byte for byte. With CWRAP_DEMO_PREFIX set (to
# "$CWRAP_TEST_BIN/cwrap_"), the project's own getent and hostname
# (tests/demo_programs) run instead of the system's.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
PRE="${CWRAP_PRELOAD_PREFIX:-}libnss_wrapper.so"
fail=0
getent=${CWRAP_DEMO_PREFIX:-}getent
hostname=${CWRAP_DEMO_PREFIX:-}hostname

check() { # NAME EXPECTED ACTUAL
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: expected:"; printf '%s\n' "$2" | cat -A
		echo "got:"; printf '%s\n' "$3" | cat -A
		fail=1
	fi
}

echo '$ echo "bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false" > passwd'
echo "bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false" > passwd
echo '$ echo "root:x:65534:65532:Root user:/home/test/root:/bin/false" >> passwd'
echo "root:x:65534:65532:Root user:/home/test/root:/bin/false" >> passwd
echo '$ echo "users:x:1000:" > group'
echo "users:x:1000:" > group
echo '$ echo "root:x:65532:" >> group'
echo "root:x:65532:" >> group
echo '$ LD_PRELOAD=libnss_wrapper.so NSS_WRAPPER_PASSWD=passwd \'
echo "    NSS_WRAPPER_GROUP=group ${getent##*/} passwd bob"
out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_PASSWD=passwd \
	NSS_WRAPPER_GROUP=group "$getent" passwd bob)
echo "$out"
check "getent passwd bob" "bob:x:1000:1000:Bob Gecos:/home/test/bob:/bin/false" "$out"

echo
echo "\$ LD_PRELOAD=libnss_wrapper.so NSS_WRAPPER_HOSTNAME=test.example.org ${hostname##*/}"
out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_HOSTNAME=test.example.org "$hostname")
echo "$out"
check hostname "test.example.org" "$out"

echo
echo '$ echo "fd00::5357:5faa test.cwrap.org" > hosts'
echo "fd00::5357:5faa test.cwrap.org" > hosts
echo '$ echo "127.0.0.170 test.cwrap.org" >> hosts'
echo "127.0.0.170 test.cwrap.org" >> hosts
echo '$ LD_PRELOAD="libnss_wrapper.so" NSS_WRAPPER_HOSTS=hosts \'
echo "  ${getent##*/} ahostsv6 test.cwrap.org"
out=$(LD_PRELOAD="$PRE" NSS_WRAPPER_HOSTS=hosts \
	"$getent" ahostsv6 test.cwrap.org)
echo "$out"
check "getent ahostsv6" "fd00::5357:5faa DGRAM  test.cwrap.org
fd00::5357:5faa STREAM test.cwrap.org" "$out"

[ $fail = 0 ] && echo "ok: the article's nss_wrapper demos print exactly what it shows"
exit $fail
