#!/bin/bash
# Hermetic: with all five wrappers preloaded, in each of the 120 orders,
# pamtester's PAM transaction (authenticate, account, session) reads its
# service file, and the file it includes, from PAM_WRAPPER_SERVICE_DIR
# and nothing of the system's
# PAM configuration (/etc/pam.d, /etc/pam.conf, /etc/security), and
# libpam's audit records find no audit system (no NETLINK_AUDIT socket),
# as strace -f sees the processes. Shown to be a real check first: the
# same run with pam_wrapper inert opens /etc/pam.d.
set -euo pipefail
for p in pamtester strace; do
	if ! command -v $p > /dev/null; then
		echo "SKIP: $p is not installed (tools/deps installs it)"
		exit 77
	fi
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-pam-hermetic-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
if ! strace -f -qq -o /dev/null true 2> strace.err; then
	cat strace.err
	echo "SKIP: strace cannot trace here"
	exit 77
fi
mods=$CWRAP_PAM_MODULE_DIR
mkdir services swrap
# (with the includes Debian's libpam looks for in /etc/pam.d)
cat > services/cwrap-login << EOT
auth     required $mods/pam_matrix.so passdb=$dir/passdb
account  include  cwrap-common
session  substack cwrap-common
@include cwrap-common
EOT
cat > services/cwrap-common << EOT
account  required $mods/pam_matrix.so passdb=$dir/passdb
session  required $mods/pam_matrix.so passdb=$dir/passdb
EOT
printf 'auth required pam_deny.so\naccount required pam_deny.so\nsession required pam_deny.so\n' > services/other
printf 'alice:secret:cwrap-login\n' > passdb
printf 'alice:x:%s:%s:Alice:/home/alice:/bin/sh\n' "$(id -u)" "$(id -g)" > passwd
printf 'users:x:%s:\n' "$(id -g)" > group
echo '127.0.0.10 server.cwrap.test' > hosts
echo 'A server.cwrap.test 127.0.0.10' > records
export PAM_WRAPPER_SERVICE_DIR=$dir/services SOCKET_WRAPPER_DIR=$dir/swrap \
	NSS_WRAPPER_PASSWD=$dir/passwd NSS_WRAPPER_GROUP=$dir/group \
	NSS_WRAPPER_HOSTS=$dir/hosts RESOLV_WRAPPER_HOSTS=$dir/records
trace='trace=open,openat,openat2,creat,stat,lstat,newfstatat,statx,access,faccessat,faccessat2,readlink,readlinkat,socket'

# What strace saw in $1 that the system's PAM configuration or the audit
# system would be.
forbidden() {
	grep -E '"/etc/pam\.d|"/etc/pam\.conf|"/etc/security|"/usr/lib/pam\.d|NETLINK_AUDIT' "$1" || true
}

# The check is real: inert (PAM_WRAPPER unset), libpam reads /etc/pam.d.
printf 'secret\n' | strace -f -qq -e "$trace" -o inert.log \
	env LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}$CWRAP_PAM_WRAPPER_LIB" pamtester cwrap-login alice acct_mgmt \
	> /dev/null 2>&1 || true
if [ -z "$(forbidden inert.log)" ]; then
	echo "FAIL: strace did not see the inert run read /etc/pam.d:"
	head -50 inert.log
	exit 1
fi
echo "inert (control): $(forbidden inert.log | wc -l) accesses to the system's configuration or audit"

libs=("$CWRAP_SOCKET_WRAPPER_LIB" "$CWRAP_NSS_WRAPPER_LIB" "$CWRAP_UID_WRAPPER_LIB"
	"$CWRAP_RESOLV_WRAPPER_LIB" "$CWRAP_PAM_WRAPPER_LIB")
orders=0 fail=0
# every permutation of 0..4
perms() {
	python3 -c 'import itertools; [print(*p) for p in itertools.permutations(range(5))]' 2> /dev/null ||
		for a in 0 1 2 3 4; do for b in 0 1 2 3 4; do for c in 0 1 2 3 4; do
			for d in 0 1 2 3 4; do for e in 0 1 2 3 4; do
				[ "$(printf '%s\n' $a $b $c $d $e | sort -u | wc -l)" = 5 ] && echo $a $b $c $d $e
			done; done; done; done; done
}
while read -r -a p; do
	pre=$CWRAP_PRELOAD_PREFIX
	for i in "${p[@]}"; do pre="$pre${libs[$i]} "; done
	out=$(printf 'secret\n' | strace -f -qq -e "$trace" -o run.log \
		env LD_PRELOAD="$pre" PAM_WRAPPER=1 UID_WRAPPER=1 \
		pamtester cwrap-login alice authenticate acct_mgmt open_session close_session 2>&1) || {
		echo "FAIL: order ${p[*]}: pamtester failed:"
		echo "$out"
		fail=1
	}
	bad=$(forbidden run.log)
	if [ -n "$bad" ]; then
		echo "FAIL: order ${p[*]}: the system's PAM configuration or the audit system was reached:"
		echo "$bad"
		fail=1
	fi
	for f in cwrap-login cwrap-common; do
		if ! grep -q "\"$dir/services/$f\"" run.log; then
			echo "FAIL: order ${p[*]}: services/$f was not read (strace saw no open of it)"
			fail=1
		fi
	done
	orders=$((orders + 1))
done < <(perms)
[ "$orders" = 120 ] || { echo "FAIL: $orders orders, not 120"; fail=1; }
[ "$fail" = 0 ] && echo "ok: $orders orders of the five wrappers: only $dir/services read, no audit socket"
exit "$fail"
