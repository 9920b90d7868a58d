#!/bin/bash
# OpenSSH's sshd with UsePAM yes, as an ordinary user, under socket_wrapper,
# nss_wrapper, uid_wrapper and pam_wrapper (resolv_wrapper loaded too: all
# five): a client logs in with keyboard-interactive authentication whose
# prompt pam_matrix sends through sshd's PAM conversation and whose answer
# comes from the client's SSH_ASKPASS; the account and session stacks run
# (pam_matrix's HOMEDIR and CRED reach the session's environment); a wrong
# answer is refused. sshd reads its PAM service file ("sshd") from
# PAM_WRAPPER_SERVICE_DIR and nothing else: strace -f of the server sees
# no /etc/pam.d, and under nwrap_noinet's seccomp filter any AF_INET,
# AF_INET6 or AF_NETLINK socket (libaudit's NETLINK_AUDIT among them)
# would kill the process.
#
# Twice: sshd as the invoking user with UID_WRAPPER=1, under strace; and,
# where priv_wrapper is built, as libssh's tests run it: a fake root
# (UID_WRAPPER_ROOT=1) with privilege separation, whose pre-authentication
# child's chroot priv_wrapper disables.
set -euo pipefail
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"

if [ ! -x /usr/sbin/sshd ] || ! command -v ssh > /dev/null || ! command -v ssh-keygen > /dev/null; then
	echo "SKIP: OpenSSH (openssh-server, openssh-client) is not installed"
	exit 77
fi
if [ -z "${CWRAP_PAM_WRAPPER_LIB:-}" ]; then
	echo "SKIP: pam_wrapper is not built here"
	exit 77
fi
if [ "${CWRAP_COVERAGE:-OFF}" = ON ]; then
	echo "SKIP: coverage build (sshd's sandbox refuses gcov's writes)"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-sshd-pam-XXXXXX")
chmod 755 "$tmp"
server=
cleanup() {
	if [ -f "$tmp/sshd.pid" ]; then
		kill "$(cat "$tmp/sshd.pid")" 2> /dev/null || true
	fi
	if [ -n "$server" ]; then
		kill "$server" 2> /dev/null || true
		wait "$server" 2> /dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

me=$(id -un)
uid=$(id -u)
gid=$(id -g)
mkdir -p "$tmp/swrap" "$tmp/home" "$tmp/services"
cat > "$tmp/passwd" << EOT
$me:x:$uid:$gid:cwrap test user:$tmp/home:/bin/sh
sshd:x:$(id -u sshd 2> /dev/null || echo 102):65534::/run/sshd:/usr/sbin/nologin
EOT
cat > "$tmp/group" << EOT
$(id -gn):x:$gid:
nogroup:x:65534:
EOT
echo '127.0.0.10 server.cwrap.test' > "$tmp/hosts"
echo 'A server.cwrap.test 127.0.0.10' > "$tmp/records"

# pam_matrix's users, and sshd's PAM service
printf '%s:s3cret:sshd\n' "$me" > "$tmp/passdb"
mods=$CWRAP_PAM_MODULE_DIR
cat > "$tmp/services/sshd" << EOT
auth     required $mods/pam_matrix.so passdb=$tmp/passdb
account  required $mods/pam_matrix.so passdb=$tmp/passdb
password required $mods/pam_matrix.so passdb=$tmp/passdb
session  required $mods/pam_matrix.so passdb=$tmp/passdb
EOT
printf 'auth required pam_deny.so\naccount required pam_deny.so\npassword required pam_deny.so\nsession required pam_deny.so\n' > "$tmp/services/other"

ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
cat > "$tmp/sshd_config" << EOT
Port 22
AddressFamily any
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
UsePAM yes
KbdInteractiveAuthentication yes
PasswordAuthentication no
PubkeyAuthentication no
AuthenticationMethods keyboard-interactive
StrictModes no
PermitRootLogin yes
LogLevel DEBUG1
EOT

# The client's answer: SSH_ASKPASS, which also notes the prompt it got.
cat > "$tmp/askpass" << EOT
#!/bin/sh
printf '%s\n' "\$1" >> "$tmp/prompts"
cat "$tmp/answer"
EOT
chmod 755 "$tmp/askpass"

export LD_LIBRARY_PATH=$CWRAP_LIBRARY_PATH
export SOCKET_WRAPPER_DIR=$tmp/swrap
export NSS_WRAPPER_PASSWD=$tmp/passwd NSS_WRAPPER_GROUP=$tmp/group NSS_WRAPPER_HOSTS=$tmp/hosts
export RESOLV_WRAPPER_HOSTS=$tmp/records
wrappers="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so libnss_wrapper.so libuid_wrapper.so libresolv_wrapper.so libpam_wrapper.so"
guard=("$CWRAP_TEST_BIN/nwrap_noinet")
if ! "${guard[@]}" true 2> /dev/null; then
	echo "(no seccomp filter here: running without the socket guard)"
	guard=()
fi
tracer=()
if command -v strace > /dev/null && strace -f -qq -o /dev/null true 2> /dev/null; then
	tracer=(strace -f -qq -e trace=open,openat,stat,newfstatat,statx,access,faccessat2,socket -o "$tmp/sshd.strace")
else
	echo "(no strace here: the server's file accesses are not checked)"
fi

ssh_opts=(-F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile="$tmp/known_hosts"
	-o PreferredAuthentications=keyboard-interactive -o NumberOfPasswordPrompts=1
	-o LogLevel=ERROR)
login() { # ANSWER COMMAND: ssh's output; its exit status
	echo "$1" > "$tmp/answer"
	LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so libnss_wrapper.so" \
		SOCKET_WRAPPER_DEFAULT_IFACE=21 SSH_ASKPASS="$tmp/askpass" SSH_ASKPASS_REQUIRE=force \
		"${guard[@]}" ssh "${ssh_opts[@]}" "$me@server.cwrap.test" "$2" < /dev/null
}
fail() { cat "$tmp/sshd.log"; echo "FAIL: $*"; exit 1; }

# start_server PRELOAD [VAR=value...] [-- TRACER...]: sshd in the
# foreground (-D), in the background of this script (strace follows it
# until it ends), listening on 127.0.0.10:22.
start_server() {
	local pre=$1 envs=() trace=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -gt 0 ] && { shift; trace=("$@"); }
	rm -rf "$tmp/swrap" "$tmp/sshd.log" "$tmp/prompts"
	mkdir "$tmp/swrap"
	echo "\$ LD_PRELOAD='$pre' ${envs[*]} PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR=services SOCKET_WRAPPER_DEFAULT_IFACE=10 nwrap_noinet /usr/sbin/sshd -D -f sshd_config -E sshd.log &"
	env LD_PRELOAD="$CWRAP_PRELOAD_PREFIX$pre" "${envs[@]}" PAM_WRAPPER=1 \
		PAM_WRAPPER_SERVICE_DIR="$tmp/services" SOCKET_WRAPPER_DEFAULT_IFACE=10 \
		"${trace[@]}" "${guard[@]}" /usr/sbin/sshd -D -f "$tmp/sshd_config" -E "$tmp/sshd.log" &
	server=$!
	wait_until test -S "$tmp/swrap/T0A0016" -a -k "$tmp/swrap/T0A0016" && return 0
	fail "sshd is not listening on 127.0.0.10:22"
}

stop_server() {
	kill "$(cat "$tmp/sshd.pid")"
	rm -f "$tmp/sshd.pid"
	wait "$server" || true
	server=
}

# A login with pam_matrix's password, then one with a wrong one.
check_logins() {
	local out
	echo "\$ SSH_ASKPASS=askpass SSH_ASKPASS_REQUIRE=force ssh -o PreferredAuthentications=keyboard-interactive $me@server.cwrap.test 'echo ...'"
	out=$(login s3cret 'echo "$SSH_CONNECTION|$HOMEDIR|$CRED|$(id -un)"') || fail "ssh with the right answer failed"
	echo "$out"
	[[ $out =~ ^127\.0\.0\.21\ [0-9]+\ 127\.0\.0\.10\ 22\|/home/$me\|/tmp/$me\|$me$ ]] ||
		fail "unexpected output '$out' (want the connection, pam_matrix's HOMEDIR and CRED, the user)"
	# (ssh puts the user and host before the server's prompt)
	[ "$(cat "$tmp/prompts")" = "($me@server.cwrap.test) Password: " ] ||
		fail "the client was asked '$(cat "$tmp/prompts")', not pam_matrix's 'Password: '"
	grep -q "Accepted keyboard-interactive/pam for $me from 127.0.0.21" "$tmp/sshd.log" ||
		fail "sshd did not log a keyboard-interactive/pam login"

	rm -f "$tmp/prompts"
	echo "\$ (the same with a wrong answer)"
	if out=$(login wrong 'echo in' 2> "$tmp/ssh.err"); then
		fail "a wrong answer logged in: '$out'"
	fi
	cat "$tmp/ssh.err"
	grep -q "Permission denied" "$tmp/ssh.err" || fail "ssh did not say 'Permission denied'"
	grep -q "Failed keyboard-interactive/pam for $me from 127.0.0.21" "$tmp/sshd.log" ||
		fail "sshd did not log the failed keyboard-interactive/pam login"
	if grep -q "killed by signal\|Bad system call" "$tmp/sshd.log"; then
		fail "a process was stopped by the socket guard"
	fi
}

# 1. sshd as the ordinary user it is, uid_wrapper enabled; strace -f.
if [ ${#tracer[@]} -gt 0 ]; then
	start_server "$wrappers" UID_WRAPPER=1 -- "${tracer[@]}"
else
	start_server "$wrappers" UID_WRAPPER=1
fi
check_logins
stop_server
if [ ${#tracer[@]} -gt 0 ]; then
	bad=$(grep -E '"/etc/pam\.d|"/etc/pam\.conf|"/etc/security|NETLINK_AUDIT' "$tmp/sshd.strace" || true)
	[ -z "$bad" ] || fail "sshd reached the system's PAM configuration or the audit system: $bad"
	grep -q "\"$tmp/services/sshd\"" "$tmp/sshd.strace" || fail "strace did not see sshd read services/sshd"
	echo "ok: sshd read only $tmp/services/sshd (strace -f)"
fi
echo "ok: keyboard-interactive login through sshd's PAM (pam_matrix) as $me"

# 2. As libssh's tests run it: sshd as a fake root (UID_WRAPPER_ROOT=1)
# with privilege separation, its chroot disabled by priv_wrapper; PAM in
# the root monitor, the session as the user.
if [ -z "${CWRAP_PRIV_WRAPPER_LIB:-}" ] || [ ! -e "$CWRAP_PRIV_WRAPPER_LIB" ]; then
	echo "(priv_wrapper is not built: no fake-root sshd)"
	exit 0
fi
if [ "$uid" != 0 ] && { [ ! -d /run/sshd ] || [ "$(stat -c %u /run/sshd)" != 0 ]; }; then
	echo "SKIP (fake-root part): /run/sshd, sshd's privilege separation directory, is missing (tools/deps makes it)"
	exit 0
fi
if [ "$uid" != 0 ]; then
	echo "root:x:0:0:root:/root:/bin/sh" >> "$tmp/passwd"
	echo "root:x:0:" >> "$tmp/group"
fi
start_server "libpriv_wrapper.so $wrappers" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 \
	PRIV_WRAPPER=1 PRIV_WRAPPER_CHROOT_DISABLE=1
check_logins
stop_server
echo "ok: the same through a fake-root sshd with privilege separation (uid_wrapper, priv_wrapper)"
