#!/bin/sh
# uid_wrapper with nss_wrapper: id shows the fake names of the fake ids,
# and initgroups() sets the groups the fake group file gives a user.
# Skipped (exit 77) while the nss_wrapper built here cannot serve a passwd
# file yet.
set -eu
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/passwd" <<'PW'
superuser:x:0:0:fake root:/root:/bin/sh
alice:x:1000:1000:Alice:/home/alice:/bin/sh
PW
cat > "$tmp/group" <<'GR'
rootgroup:x:0:
users:x:1000:
wheel:x:10:alice
staff:x:50:alice,bob
GR
export NSS_WRAPPER_PASSWD="$tmp/passwd" NSS_WRAPPER_GROUP="$tmp/group"
BOTH="${CWRAP_PRELOAD_PREFIX}libnss_wrapper.so libuid_wrapper.so"

if ! LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libnss_wrapper.so" getent passwd alice 2>/dev/null | grep -q '^alice:'; then
	echo "SKIP: the nss_wrapper of this build does not serve NSS_WRAPPER_PASSWD yet"
	exit 77
fi
fails=0
check() {
	if [ "$2" = "$3" ]; then echo "ok: $1: $3"; else echo "FAIL: $1: expected '$2', got '$3'"; fails=$((fails + 1)); fi
}

echo "\$ LD_PRELOAD='libnss_wrapper.so libuid_wrapper.so' UID_WRAPPER=1 UID_WRAPPER_ROOT=1 id"
out=$(LD_PRELOAD="$BOTH" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 id)
check "fake root, fake names" "uid=0(superuser) gid=0(rootgroup) groups=0(rootgroup)" "$out"

out=$(LD_PRELOAD="$BOTH" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 /usr/bin/python3 -c '
import os
os.initgroups("alice", 1000)
os.setgid(1000)
os.setuid(1000)
os.execvp("id", ["id"])
')
check "initgroups + setuid, then exec id" \
	"uid=1000(alice) gid=1000(users) groups=1000(users),10(wheel),50(staff)" "$out"

# uid_wrapper listed first works the same
out=$(LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libuid_wrapper.so libnss_wrapper.so" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 \
	/usr/bin/python3 -c 'import os; os.initgroups("alice", 1000); print(sorted(os.getgroups()))')
check "initgroups, uid_wrapper first" "[10, 50, 1000]" "$out"

# Samba's test_smbpasswd.sh ("Change user password"): a wrapped shell
# starts texpect, which forks and execs smbpasswd on a pty, as the user
# with UID_WRAPPER_INITIAL_RUID/EUID; script(1) stands for texpect, id for
# smbpasswd (which asks getuid() who is changing the password).
if command -v script > /dev/null; then
	out=$(LD_PRELOAD="$BOTH" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 sh -c '
user_id=$(id -u alice)
cmd="UID_WRAPPER_INITIAL_RUID=$user_id UID_WRAPPER_INITIAL_EUID=$user_id script -qec \"id -run; id -un\" /dev/null 2>&1"
out=$(eval $cmd)
echo "$out" | tr -d "\r"
id -un' < /dev/null)
	check "Samba's pattern: texpect-like fork + exec as alice, then root again" "alice
alice
superuser" "$out"
fi

[ "$fails" = 0 ] || exit 1
