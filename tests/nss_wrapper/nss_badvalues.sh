#!/bin/bash
# Every NSS_WRAPPER_* variable with a bad value, and NSS files that are not
# files: each is reported in exactly one line naming the variable (and the
# path or value), and the program goes on as documented in nss_wrapper(1):
# a device, a FIFO without a writer, a directory or a file over 256 MiB
# reads as an empty file, at once; a group listing a member 65,536 times
# counts it once; a module that cannot be loaded, or lacks the functions,
# is named with what is missing; a host name over HOST_NAME_MAX is handed
# out as glibc would hand out such a name.
set -euo pipefail
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-nss-bad-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
PRE="${CWRAP_PRELOAD_PREFIX:-}libnss_wrapper.so"
fail=0

printf 'bob:x:1000:1000:Bob:/home/bob:/bin/sh\n' > passwd
printf 'users:x:1000:\n' > group
printf '127.0.0.10 server.cwrap.org\n' > hosts

# check NAME WANT-LINE WANT-STDOUT COMMAND...: COMMAND (under the wrapper,
# at most 30 s, so a blocking open fails the test instead of hanging it)
# prints WANT-STDOUT and exactly one stderr line containing WANT-LINE
check() {
	local name=$1 line=$2 want=$3 out err n
	shift 3
	out=$(LD_PRELOAD=$PRE timeout 30 "$@" 2> err) || true
	err=$(cat err)
	n=$(grep -cF -- "$line" err || true)
	echo "--- $name"
	[ -n "$err" ] && printf '%s\n' "$err"
	if [ "$n" != 1 ]; then
		echo "FAIL: $name: want one line with '$line', got $n"
		fail=1
	fi
	if [ "$out" != "$want" ]; then
		echo "FAIL: $name: stdout '$out', want '$want'"
		fail=1
	fi
}

export NSS_WRAPPER_PASSWD=passwd NSS_WRAPPER_GROUP=group

check "NSS_WRAPPER_PASSWD=/dev/zero" \
	"NSS_WRAPPER_PASSWD=/dev/zero: a character device, not a regular file; read as an empty file" \
	"" env NSS_WRAPPER_PASSWD=/dev/zero getent passwd bob root
mkfifo fifo
check "NSS_WRAPPER_GROUP=FIFO without a writer" \
	"NSS_WRAPPER_GROUP=fifo: a FIFO, not a regular file; read as an empty file" \
	"" env NSS_WRAPPER_GROUP=fifo getent group users
check "NSS_WRAPPER_SHADOW=directory" \
	"NSS_WRAPPER_SHADOW=$dir: a directory, not a regular file; read as an empty file" \
	"" env NSS_WRAPPER_SHADOW="$dir" getent shadow bob
truncate -s 300M huge
check "NSS_WRAPPER_HOSTS=300 MiB file" \
	"NSS_WRAPPER_HOSTS=huge: 314572800 bytes, more than the 256 MiB accepted; read as an empty file" \
	"" env NSS_WRAPPER_HOSTS=huge NSS_WRAPPER_HOSTS_ONLY=1 getent ahosts server.cwrap.org
rm -f huge

# a group listing bob 65,536 times: once in his groups, one debug line
{
	printf 'users:x:1000:\nmany:x:2000:bob'
	for _ in $(seq 65535); do printf ',bob'; done
	printf '\nother:x:3000:alice,bob,alice\n'
} > dupgroup
check "group with 65,536 copies of a member" \
	"dupgroup: 65536 names listed more than once in one line (each counts once)" \
	"uid=1000(bob) gid=1000(users) groups=1000(users),2000(many),3000(other)" \
	env NSS_WRAPPER_GROUP=dupgroup NSS_WRAPPER_DEBUGLEVEL=2 id bob

check "NSS_WRAPPER_MODULE_SO_PATH not loadable" \
	"NSS_WRAPPER_MODULE_SO_PATH=$dir/nosuch.so: cannot load:" \
	"bob:x:1000:1000:Bob:/home/bob:/bin/sh" \
	env NSS_WRAPPER_MODULE_SO_PATH="$dir/nosuch.so" NSS_WRAPPER_MODULE_FN_PREFIX=x getent passwd bob
check "NSS_WRAPPER_MODULE_SO_PATH without the functions" \
	"NSS_WRAPPER_MODULE_SO_PATH=$CWRAPTEST_MODULE: has no _nss_nosuch_* function (NSS_WRAPPER_MODULE_FN_PREFIX=nosuch); no module used" \
	"bob:x:1000:1000:Bob:/home/bob:/bin/sh" \
	env NSS_WRAPPER_MODULE_SO_PATH="$CWRAPTEST_MODULE" NSS_WRAPPER_MODULE_FN_PREFIX=nosuch getent passwd bob
check "NSS_WRAPPER_MODULE_SO_PATH with some functions" \
	"NSS_WRAPPER_MODULE_SO_PATH=$CWRAPHALF_MODULE: no _nss_cwraphalf_ getpwuid_r, setpwent, getpwent_r, endpwent, getgrnam_r, getgrgid_r, setgrent, getgrent_r, endgrent, gethostbyname2_r, gethostbyaddr_r (those lookups go to the files)" \
	"half:x:4242:4242:Half:/:/bin/sh" \
	env NSS_WRAPPER_MODULE_SO_PATH="$CWRAPHALF_MODULE" NSS_WRAPPER_MODULE_FN_PREFIX=cwraphalf NSS_WRAPPER_DEBUGLEVEL=1 getent passwd half
check "NSS_WRAPPER_MODULE_FN_PREFIX without the path" \
	"NSS_WRAPPER_MODULE_SO_PATH and NSS_WRAPPER_MODULE_FN_PREFIX must both be set; no module loaded" \
	"bob:x:1000:1000:Bob:/home/bob:/bin/sh" \
	env NSS_WRAPPER_MODULE_FN_PREFIX=x getent passwd bob
check "NSS_WRAPPER_PASSWD without NSS_WRAPPER_GROUP" \
	"NSS_WRAPPER_PASSWD and NSS_WRAPPER_GROUP must both be set; users and groups come from the system" \
	"" env -u NSS_WRAPPER_GROUP getent passwd bob
check "NSS_WRAPPER_HOSTS_ONLY=yes" \
	"NSS_WRAPPER_HOSTS_ONLY='yes' is not 0 or 1, using 0" \
	"127.0.0.10      server.cwrap.org" \
	env NSS_WRAPPER_HOSTS=hosts NSS_WRAPPER_HOSTS_ONLY=yes getent hosts server.cwrap.org
check "NSS_WRAPPER_MAX_HOSTENTS=many" \
	"NSS_WRAPPER_MAX_HOSTENTS='many' is not a number" \
	"127.0.0.10      server.cwrap.org" \
	env NSS_WRAPPER_HOSTS=hosts NSS_WRAPPER_MAX_HOSTENTS=many getent hosts server.cwrap.org

check "NSS_WRAPPER_DEBUGLEVEL=abc" \
	"NSS_WRAPPER_DEBUGLEVEL='abc' is not a level 0..3 or error, warn, debug, trace; using 0" \
	"bob:x:1000:1000:Bob:/home/bob:/bin/sh" \
	env NSS_WRAPPER_DEBUGLEVEL=abc getent passwd bob

# NSS_WRAPPER_DISABLE_DEEPBIND: accepted, not needed, quiet
out=$(LD_PRELOAD=$PRE NSS_WRAPPER_DISABLE_DEEPBIND=1 getent passwd bob 2> err) || true
echo "--- NSS_WRAPPER_DISABLE_DEEPBIND=1"
if [ -s err ] || [ "$out" != "bob:x:1000:1000:Bob:/home/bob:/bin/sh" ]; then
	echo "FAIL: NSS_WRAPPER_DISABLE_DEEPBIND=1: stdout '$out', stderr '$(cat err)'"
	fail=1
fi

# a host name of 70 bytes: gethostname() with room for it returns it,
# uname() holds its first 64 (HOST_NAME_MAX), as glibc would for a kernel
# name that long
long=$(printf 'h%.0s' $(seq 60)).example
check "NSS_WRAPPER_HOSTNAME longer than HOST_NAME_MAX" \
	"NSS_WRAPPER_HOSTNAME is 68 bytes long, more than HOST_NAME_MAX (64)" \
	"$long ${long:0:64} ENAMETOOLONG" \
	env NSS_WRAPPER_HOSTNAME="$long" /usr/bin/python3 -c '
import ctypes, errno, os, socket
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(65)
rc = libc.gethostname(buf, 65)
print(socket.gethostname(), os.uname().nodename,
      errno.errorcode[ctypes.get_errno()] if rc == -1 else "fits")'

[ "$fail" = 0 ] && echo "nss_badvalues: all checks passed"
exit "$fail"
