#!/bin/bash
# An OpenSSH server and client under socket_wrapper and nss_wrapper, the way
# libssh tests itself: sshd listens on 127.0.0.10:22 (a privileged port, as
# an ordinary user), the client connects from 127.0.0.21 and runs a command;
# the account comes from an nss_wrapper passwd file. sshd re-executes itself
# with the accepted socket, so this also checks that an emulated socket keeps
# its identity across exec. sshd gets no ListenAddress, so it asks
# getaddrinfo(NULL, "22", AI_PASSIVE) for its wildcard addresses, as
# installed, and both programs run under nwrap_noinet's seccomp filter: with
# NSS_WRAPPER_HOSTS set, no resolver step (glibc's netlink probe, its
# address sorting over real UDP sockets) may make an AF_INET, AF_INET6 or
# AF_NETLINK socket; socket_wrapper's sockets are AF_UNIX.
set -euo pipefail
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"

if [ ! -x /usr/sbin/sshd ] || ! command -v ssh > /dev/null || ! command -v ssh-keygen > /dev/null; then
	echo "SKIP: OpenSSH (openssh-server, openssh-client) is not installed"
	exit 77
fi

if [ "${CWRAP_COVERAGE:-OFF}" = ON ]; then
	# gcov writes its counters when a process exits, and sshd's seccomp
	# sandbox kills the pre-authentication child for that (SIGSYS).
	echo "SKIP: coverage build (sshd's sandbox refuses gcov's writes)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-sshd-XXXXXX")
chmod 755 "$tmp"
cleanup() {
	if [ -f "$tmp/sshd.pid" ]; then
		kill "$(cat "$tmp/sshd.pid")" 2> /dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

me=$(id -un)
uid=$(id -u)
gid=$(id -g)
mkdir -p "$tmp/swrap" "$tmp/home"
# nss_wrapper's world: this user (home in $tmp), and the privilege
# separation user sshd needs when it runs as root.
cat > "$tmp/passwd" << EOT
$me:x:$uid:$gid:cwrap test user:$tmp/home:/bin/sh
sshd:x:$(id -u sshd 2> /dev/null || echo 102):65534::/run/sshd:/usr/sbin/nologin
EOT
cat > "$tmp/group" << EOT
$(id -gn):x:$gid:
nogroup:x:65534:
EOT
cat > "$tmp/hosts" << EOT
127.0.0.10 server.cwrap.test
EOT

ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/user_key"
cp "$tmp/user_key.pub" "$tmp/authorized_keys"
if [ "$uid" = 0 ]; then
	mkdir -p /run/sshd   # privilege separation directory (root only)
fi

cat > "$tmp/sshd_config" << EOT
Port 22
AddressFamily any
HostKey $tmp/host_key
AuthorizedKeysFile $tmp/authorized_keys
PidFile $tmp/sshd.pid
UsePAM no
StrictModes no
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel VERBOSE
Subsystem sftp internal-sftp
EOT

export LD_LIBRARY_PATH=$CWRAP_LIBRARY_PATH
export SOCKET_WRAPPER_DIR=$tmp/swrap
export NSS_WRAPPER_PASSWD=$tmp/passwd NSS_WRAPPER_GROUP=$tmp/group NSS_WRAPPER_HOSTS=$tmp/hosts
wrappers="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so libnss_wrapper.so"
guard=("$CWRAP_TEST_BIN/nwrap_noinet")
if ! "${guard[@]}" true 2> /dev/null; then
	echo "(no seccomp filter here: running without the socket guard)"
	guard=()
fi

echo "\$ LD_PRELOAD='libsocket_wrapper.so libnss_wrapper.so' SOCKET_WRAPPER_DEFAULT_IFACE=10 nwrap_noinet /usr/sbin/sshd -f sshd_config -E sshd.log"
LD_PRELOAD=$wrappers SOCKET_WRAPPER_DEFAULT_IFACE=10 \
	"${guard[@]}" /usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log"

# (bound, then listening: listen() marks the file sticky)
wait_until test -S "$tmp/swrap/T0A0016" -a -k "$tmp/swrap/T0A0016" || true
[ -k "$tmp/swrap/T0A0016" ] || { cat "$tmp/sshd.log"; echo "FAIL: sshd is not listening on 127.0.0.10:22"; exit 1; }

ssh_opts=(-F /dev/null -i "$tmp/user_key" -o StrictHostKeyChecking=no
	-o UserKnownHostsFile="$tmp/known_hosts" -o BatchMode=yes -o LogLevel=ERROR)
echo "\$ LD_PRELOAD='libsocket_wrapper.so libnss_wrapper.so' SOCKET_WRAPPER_DEFAULT_IFACE=21 nwrap_noinet ssh $me@server.cwrap.test 'echo hello from \$SSH_CONNECTION'"
out=$(LD_PRELOAD=$wrappers SOCKET_WRAPPER_DEFAULT_IFACE=21 \
	"${guard[@]}" ssh "${ssh_opts[@]}" "$me@server.cwrap.test" 'echo hello from $SSH_CONNECTION' < /dev/null) ||
	{ cat "$tmp/sshd.log"; echo "FAIL: ssh failed"; exit 1; }
echo "$out"
# SSH_CONNECTION = client address, client port, server address, server port
if ! [[ $out =~ ^hello\ from\ 127\.0\.0\.21\ [0-9]+\ 127\.0\.0\.10\ 22$ ]]; then
	cat "$tmp/sshd.log"
	echo "FAIL: unexpected output '$out'"
	exit 1
fi
grep -q "Accepted publickey for $me from 127.0.0.21" "$tmp/sshd.log" ||
	{ cat "$tmp/sshd.log"; echo "FAIL: sshd did not log the client as 127.0.0.21"; exit 1; }
grep -q "Server listening on 0.0.0.0 port 22" "$tmp/sshd.log" ||
	{ cat "$tmp/sshd.log"; echo "FAIL: sshd did not listen on the wildcard address"; exit 1; }
if grep -q "killed by signal\|Bad system call" "$tmp/sshd.log"; then
	cat "$tmp/sshd.log"
	echo "FAIL: a process was stopped by the socket guard"
	exit 1
fi
echo "ok: ssh to sshd on 127.0.0.10:22 from 127.0.0.21 as $me"
