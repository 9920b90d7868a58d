#!/bin/bash
# Real programs with NSS_WRAPPER_MODULE_SO_PATH (the test module
# libnss_cwraptest.so, which also answers uid 0 as CWRAPDOM/root, the way
# winbind does in Samba's selftest) beside files that hold root: getent and
# id ask the files first and the module only for what they lack, by name,
# by id, in enumerations and group lists, and for hosts. When Debian's
# libnss-wrapper (upstream's library) is installed, every answer is also
# compared with its answer.
set -uo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
PRE="${CWRAP_PRELOAD_PREFIX:-}libnss_wrapper.so"
fail=0

cat > passwd <<'EOT'
bob:x:1000:1000:Bob:/home/bob:/bin/sh
root:x:0:0:File root:/root:/bin/sh
shared:x:9999:1000:From the files:/:/bin/sh
EOT
cat > group <<'EOT'
users:x:1000:bob,moduser
root:x:0:
staff:x:50:bob
EOT
cat > hosts <<'EOT'
127.0.0.99 shared.cwrap.org
127.0.0.78 fileside.cwrap.org
EOT
export NSS_WRAPPER_PASSWD=$dir/passwd NSS_WRAPPER_GROUP=$dir/group \
	NSS_WRAPPER_HOSTS=$dir/hosts NSS_WRAPPER_MODULE_SO_PATH=$CWRAPTEST_MODULE \
	NSS_WRAPPER_MODULE_FN_PREFIX=cwraptest

# every command, then its expected output
cases=(
	"getent passwd 0" "root:x:0:0:File root:/root:/bin/sh"
	"getent passwd root" "root:x:0:0:File root:/root:/bin/sh"
	"getent passwd CWRAPDOM/root" "CWRAPDOM/root:x:0:0:Module root:/:/bin/sh"
	"getent passwd shared" "shared:x:9999:1000:From the files:/:/bin/sh"
	"getent passwd 7002" "shared:x:7002:7001:From the module:/home/shared:/bin/sh"
	"getent passwd moduser" "moduser:x:7001:7001:Module User:/home/moduser:/bin/sh"
	"getent passwd" "bob:x:1000:1000:Bob:/home/bob:/bin/sh
root:x:0:0:File root:/root:/bin/sh
shared:x:9999:1000:From the files:/:/bin/sh
moduser:x:7001:7001:Module User:/home/moduser:/bin/sh
shared:x:7002:7001:From the module:/home/shared:/bin/sh
CWRAPDOM/root:x:0:0:Module root:/:/bin/sh"
	"getent group 0" "root:x:0:"
	"getent group root" "root:x:0:"
	"getent group modextra" "modextra:x:7003:moduser,bob"
	"getent group" "users:x:1000:bob,moduser
root:x:0:
staff:x:50:bob
modgroup:x:7001:moduser
modextra:x:7003:moduser,bob
CWRAPDOM/root:x:0:bob"
	"id bob" "uid=1000(bob) gid=1000(users) groups=1000(users),50(staff),7003(modextra),0(root)"
	"id moduser" "uid=7001(moduser) gid=7001(modgroup) groups=7001(modgroup),1000(users),7003(modextra)"
	"getent hosts shared.cwrap.org" "127.0.0.99      shared.cwrap.org"
	"getent hosts 127.0.0.78" "127.0.0.78      fileside.cwrap.org"
	"getent hosts 127.0.0.77" "127.0.0.77      mod.cwrap.org mod"
)

upstream=
for f in /usr/lib/x86_64-linux-gnu/libnss_wrapper.so.0 /usr/lib/x86_64-linux-gnu/libnss_wrapper.so; do
	if [ -e "$f" ] && [ "$(readlink -f "$f")" != "$(readlink -f "${PRE##* }")" ]; then
		upstream=$f
		break
	fi
done
[ -n "$upstream" ] || echo "(Debian's libnss-wrapper not installed: no comparison with upstream)"

# expect COMMAND WANT: COMMAND's output under our library; in $got
expect() {
	got=$(LD_PRELOAD="$PRE" $1 2>&1)
	if [ "$got" = "$2" ]; then
		echo "ok: $1"
	else
		printf 'FAIL: %s: expected\n%s\ngot:\n%s\n' "$1" "$2" "$got"
		fail=1
	fi
}

for ((i = 0; i < ${#cases[@]}; i += 2)); do
	cmd=${cases[i]}
	expect "$cmd" "${cases[i + 1]}"
	if [ -n "$upstream" ]; then
		theirs=$(LD_PRELOAD="${CWRAP_PRELOAD_PREFIX:-}$upstream" $cmd 2>&1)
		if [ "$got" = "$theirs" ]; then
			echo "ok: $cmd: as upstream's"
		else
			echo "FAIL: $cmd: upstream's says"
			echo "$theirs"
			fail=1
		fi
	fi
done
# getaddrinfo asks the module for a name the file lacks (upstream's
# getaddrinfo does not ask its module: nothing to compare)
expect "getent ahostsv4 mod" "127.0.0.77      DGRAM  mod.cwrap.org
127.0.0.77      STREAM mod.cwrap.org"
expect "getent ahostsv4 shared.cwrap.org" "127.0.0.99      DGRAM  shared.cwrap.org
127.0.0.99      STREAM shared.cwrap.org"
exit $fail
