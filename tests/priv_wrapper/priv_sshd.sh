#!/bin/bash
# OpenSSH's sshd started by an ordinary user as a fake root, the way
# libssh's test suite runs it: uid_wrapper (UID_WRAPPER_ROOT=1),
# priv_wrapper, socket_wrapper (127.0.0.10:22) and nss_wrapper. As root,
# sshd separates privileges: for each connection its pre-authentication
# child chroots to the privilege separation directory (/run/sshd, fixed
# when sshd was built), drops to the `sshd` user and, with the seccomp
# sandbox, lowers its limits (RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_NPROC)
# and sets no_new_privs and a seccomp filter. An ordinary user's chroot()
# fails with EPERM, and sshd stops there: priv_wrapper makes it return 0.
#
# Each run logs in with a public key and runs a command, then holds a
# second connection in pre-authentication and reads the state of its
# [net] child from /proc:
#   libssh's setting (PRIV_WRAPPER_CHROOT_DISABLE=1 only): the root is
#     unchanged, the sandbox is in force (Seccomp 2, NoNewPrivs 1, one
#     open file): an ordinary user may lower limits and set a filter, and
#     the wrappers make no system call in that child that the filter
#     refuses;
#   everything disabled (PRIV_WRAPPER_PRCTL_DISABLE=ALL,
#     PRIV_WRAPPER_SETRLIMIT_DISABLE=ALL): the same login, the child with
#     no filter, no no_new_privs and its limits as they were;
#   as an ordinary user without priv_wrapper: the login fails, sshd
#     logging chroot's EPERM (what the wrapper is for).
# In a coverage build the first run is left out: the sandbox kills the
# child when gcov writes its counters at exit.
set -euo pipefail
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"

if [ ! -x /usr/sbin/sshd ] || ! command -v ssh > /dev/null || ! command -v ssh-keygen > /dev/null; then
	echo "SKIP: OpenSSH (openssh-server, openssh-client) is not installed"
	exit 77
fi

privsep_dir=/run/sshd
uid=$(id -u)
if [ "$uid" = 0 ]; then
	mkdir -p -m 755 "$privsep_dir"
elif [ ! -d "$privsep_dir" ] || [ "$(stat -c %u "$privsep_dir")" != 0 ]; then
	# A fake root's sshd checks that the directory exists and belongs to
	# root before it starts; only root can make it.
	echo "SKIP: $privsep_dir (sshd's privilege separation directory) is missing;" \
		"as root: mkdir -m 755 $privsep_dir (tools/deps does)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-priv-sshd-XXXXXX")
chmod 755 "$tmp"
sshd_pid=
stop_sshd() {
	if [ -n "$sshd_pid" ]; then
		kill "$sshd_pid" 2> /dev/null || true
		wait "$sshd_pid" 2> /dev/null || true
		sshd_pid=
	fi
}
probe=
cleanup() {
	[ -z "$probe" ] || stop_probe
	stop_sshd
	rm -rf "$tmp"
}
trap cleanup EXIT

me=$(id -un)
gid=$(id -g)
sshd_uid=$(id -u sshd 2> /dev/null || echo 102)
mkdir -p "$tmp/home"
{
	[ "$uid" = 0 ] || echo "root:x:0:0:root:/root:/bin/sh"
	echo "$me:x:$uid:$gid:cwrap test user:$tmp/home:/bin/sh"
	echo "sshd:x:$sshd_uid:65534::$privsep_dir:/usr/sbin/nologin"
} > "$tmp/passwd"
{
	[ "$gid" = 0 ] || echo "root:x:0:"
	echo "$(id -gn):x:$gid:"
	echo "nogroup:x:65534:"
} > "$tmp/group"
echo "127.0.0.10 server.cwrap.test" > "$tmp/hosts"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/user_key"
cp "$tmp/user_key.pub" "$tmp/authorized_keys"
cat > "$tmp/sshd_config" << EOT
Port 22
ListenAddress 127.0.0.10
HostKey $tmp/host_key
AuthorizedKeysFile $tmp/authorized_keys
PidFile $tmp/sshd.pid
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel DEBUG3
EOT

export LD_LIBRARY_PATH=$CWRAP_LIBRARY_PATH
export NSS_WRAPPER_PASSWD=$tmp/passwd NSS_WRAPPER_GROUP=$tmp/group NSS_WRAPPER_HOSTS=$tmp/hosts
ssh_opts=(-F /dev/null -i "$tmp/user_key" -o StrictHostKeyChecking=no
	-o UserKnownHostsFile="$tmp/known_hosts" -o BatchMode=yes -o LogLevel=ERROR)

fail() {
	echo "--- sshd.log"
	cat "$tmp/sshd.log" 2> /dev/null || true
	echo "--- sshd's stderr"
	cat "$tmp/sshd.err" 2> /dev/null || true
	echo "FAIL: $*"
	exit 1
}

# sshd_listens: sshd listens on 127.0.0.10:22, or has exited.
sshd_listens() {
	[ -k "$tmp/swrap/T0A0016" ] || ! kill -0 "$sshd_pid" 2> /dev/null
}

# start_sshd WRAPPERS VAR=VALUE...: sshd in the foreground (-D, so that
# its stderr, where the wrappers write, stays ours), as a fake root.
start_sshd() {
	local wrappers=$1
	shift
	rm -rf "$tmp/swrap" "$tmp/sshd.log" "$tmp/sshd.err"
	mkdir "$tmp/swrap"
	echo "\$ LD_PRELOAD='$wrappers' UID_WRAPPER=1 UID_WRAPPER_ROOT=1 $* sshd -D -f sshd_config -E sshd.log &"
	env LD_PRELOAD="$CWRAP_PRELOAD_PREFIX$wrappers" SOCKET_WRAPPER_DIR="$tmp/swrap" \
		SOCKET_WRAPPER_DEFAULT_IFACE=10 UID_WRAPPER=1 UID_WRAPPER_ROOT=1 "$@" \
		/usr/sbin/sshd -D -f "$tmp/sshd_config" -E "$tmp/sshd.log" 2> "$tmp/sshd.err" &
	sshd_pid=$!
	wait_until sshd_listens || true
	[ -k "$tmp/swrap/T0A0016" ] && return 0
	kill -0 "$sshd_pid" 2> /dev/null || fail "sshd exited"
	fail "sshd is not listening on 127.0.0.10:22"
}

# login: the client runs a command as $me (socket_wrapper and
# nss_wrapper only: a client needs no fake root).
login() {
	SOCKET_WRAPPER_DIR="$tmp/swrap" SOCKET_WRAPPER_DEFAULT_IFACE=21 \
		LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so libnss_wrapper.so" \
		ssh "${ssh_opts[@]}" "$me@server.cwrap.test" 'echo "logged in as $(id -un)"' < /dev/null
}

# A connection held before authentication: connect, read sshd's version,
# send ours; sshd then forks the [net] child, which sets its title, drops
# its privileges, applies its sandbox, and only then starts the key
# exchange: once the probe has read its first byte, $tmp/kex exists and
# the child is in its final state. The probe's pid is $probe.
start_probe() {
	rm -f "$tmp/kex"
	SOCKET_WRAPPER_DIR="$tmp/swrap" SOCKET_WRAPPER_DEFAULT_IFACE=22 \
		LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so" \
		bash -c 'exec 3<> /dev/tcp/127.0.0.10/22 && read -r v <&3 &&
			printf "SSH-2.0-cwrap_probe\r\n" >&3 && read -r -N 1 k <&3 &&
			: > "$1" && exec sleep 3600' probe "$tmp/kex" &
	probe=$!
}

stop_probe() {
	kill "$probe" 2> /dev/null || true
	wait "$probe" 2> /dev/null || true
}

# The pid of this sshd's [net] child, once the probe has its first byte
# of the key exchange.
net_child() {
	local pid p q
	wait_until test -e "$tmp/kex" || return 1
	pid=$(pgrep -f 'sshd: \[net\]' | while read -r p; do
		q=$p
		while [ "$q" -gt 1 ]; do
			[ "$q" = "$sshd_pid" ] && { echo "$p"; break; }
			q=$(awk '/^PPid:/ { print $2 }' "/proc/$q/status" 2> /dev/null || echo 1)
		done
	done | head -n 1) || true
	[ -n "$pid" ] && echo "$pid"
}

status_field() { # PID FIELD
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

open_files() { # PID: soft and hard
	awk '/^Max open files/ { print $4, $5 }' "/proc/$1/limits"
}

# run NAME WANT_SECCOMP WANT_NNP WANT_OPEN_FILES WRAPPERS VAR=VALUE...
run() {
	local name=$1 want_seccomp=$2 want_nnp=$3 want_files=$4 wrappers=$5 out net
	shift 5
	echo "=== $name"
	start_sshd "$wrappers" "$@"
	out=$(login) || fail "$name: ssh failed"
	echo "$out"
	[ "$out" = "logged in as $me" ] || fail "$name: unexpected output '$out'"
	grep -q "Accepted publickey for $me from 127.0.0.21" "$tmp/sshd.log" ||
		fail "$name: sshd did not log the login"
	# the pre-authentication child took the privilege separation path:
	# chroot, then the sshd user
	grep -q "privsep user:group $sshd_uid:65534" "$tmp/sshd.log" ||
		fail "$name: the pre-authentication child did not drop to the sshd user"
	grep -q 'pwrap_chroot: chroot("/run/sshd") disabled' "$tmp/sshd.err" ||
		fail "$name: priv_wrapper did not answer chroot(\"$privsep_dir\")"

	start_probe
	net=$(net_child) || fail "$name: no [net] child for a connection before authentication"
	local root seccomp nnp files
	root=$(readlink "/proc/$net/root")
	seccomp=$(status_field "$net" Seccomp)
	nnp=$(status_field "$net" NoNewPrivs)
	files=$(open_files "$net")
	echo "[net] child $net: root $root, Seccomp $seccomp, NoNewPrivs $nnp, open files $files"
	stop_probe
	[ "$root" = / ] || fail "$name: the [net] child's root is $root"
	[ "$seccomp" = "$want_seccomp" ] || fail "$name: Seccomp $seccomp, want $want_seccomp"
	[ "$nnp" = "$want_nnp" ] || fail "$name: NoNewPrivs $nnp, want $want_nnp"
	[ "$files" = "$want_files" ] || fail "$name: open files $files, want $want_files"
	if grep -q "killed by signal\|Bad system call" "$tmp/sshd.log"; then
		fail "$name: a process was killed"
	fi
	stop_sshd
}

all="libpriv_wrapper.so libuid_wrapper.so libsocket_wrapper.so libnss_wrapper.so"
mine=$(ulimit -Sn; ulimit -Hn)
mine=$(echo $mine)

if [ "${CWRAP_COVERAGE:-OFF}" = ON ]; then
	# gcov writes its counters when a process exits, and sshd's seccomp
	# sandbox kills the pre-authentication child for that (SIGSYS): what
	# PRIV_WRAPPER_PRCTL_DISABLE is for. The other runs have no sandbox.
	echo "=== libssh's setting: skipped in a coverage build (sshd's sandbox refuses gcov's writes)"
else
	run "libssh's setting: chroot disabled" 2 1 "1 1" "$all" \
		PRIV_WRAPPER=1 PRIV_WRAPPER_CHROOT_DISABLE=1 PRIV_WRAPPER_DEBUGLEVEL=2
fi
run "everything disabled" 0 0 "$mine" "$all" \
	PRIV_WRAPPER=1 PRIV_WRAPPER_CHROOT_DISABLE=1 PRIV_WRAPPER_DEBUGLEVEL=2 \
	PRIV_WRAPPER_PRCTL_DISABLE=ALL PRIV_WRAPPER_SETRLIMIT_DISABLE=ALL

if [ "$uid" != 0 ]; then
	echo "=== without priv_wrapper, as an ordinary user"
	start_sshd "libuid_wrapper.so libsocket_wrapper.so libnss_wrapper.so"
	if out=$(login 2>&1); then
		fail "the login worked without priv_wrapper: '$out'"
	fi
	grep -q "chroot(\"$privsep_dir\"): Operation not permitted" "$tmp/sshd.log" ||
		fail "sshd did not log chroot's EPERM"
	grep "chroot(" "$tmp/sshd.log" | sed 's/^/sshd.log: /'
	stop_sshd
fi
echo "ok: sshd as a fake root with privilege separation under priv_wrapper"
