#!/bin/bash
# Hosts answers compared with glibc's own files module on the same file:
# glibc runs in a private mount namespace (unshare -rm, no privilege
# needed where user namespaces are allowed) where the test's file is bind
# mounted over /etc/hosts and "hosts: files" over /etc/nsswitch.conf, so
# it asks no server; we run on the same file through NSS_WRAPPER_HOSTS.
# Compared: getnameinfo with every combination of NI_NUMERICHOST,
# NI_NUMERICSERV, NI_NAMEREQD, NI_NOFQDN, NI_DGRAM and NULL, empty, short and
# long host and service buffers; gethostbyname(2)(_r), gethostbyaddr,
# gethostent and getaddrinfo's addresses on a file with repeated names,
# aliases and addresses, mixed case and IPv4-mapped lines, and on a
# generated one with thousands of aliases. Skipped (77) where unshare is
# refused.
set -euo pipefail
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-nss-glibc-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
PRE="${CWRAP_PRELOAD_PREFIX:-}libnss_wrapper.so"
BIN=$CWRAP_TEST_BIN
fail=0

for f in /etc/hosts /etc/nsswitch.conf; do
	if [ ! -f "$f" ]; then
		echo "SKIP: no $f to mount over"
		exit 77
	fi
done
echo "hosts: files" > nsswitch.conf
: > empty-hosts
echo "multi on" > host.conf
# glibc in a namespace where /etc/hosts is $1 and no nscd answers
glibc() { # HOSTS COMMAND...
	local hosts=$1
	shift
	case $hosts in /*) ;; *) hosts=$PWD/$hosts ;; esac
	unshare -rm sh -c '
		mount --bind "$1" /etc/hosts &&
		mount --bind nsswitch.conf /etc/nsswitch.conf || exit 99
		if [ -f /etc/host.conf ]; then mount --bind host.conf /etc/host.conf; fi
		for d in /var/run/nscd /run/nscd; do
			if [ -d "$d" ]; then mount -t tmpfs none "$d"; fi
		done
		shift
		exec "$@"' sh "$hosts" "$@"
}
if ! glibc /etc/hosts true 2> unshare.err; then
	cat unshare.err
	echo "SKIP: no private mount namespace here (unshare -rm)"
	exit 77
fi

compare() { # NAME HOSTS ARGS...: our dump against glibc's
	local name=$1 hosts=$2 rc=0
	shift 2
	glibc "$hosts" "$BIN/nwrap_gai_dump" "$@" > "ref.$name"
	# Ours in a namespace of the same kind whose /etc/hosts is empty:
	# a name not in the test's file goes on to the system's resolver, as
	# it should, which there asks no DNS server (on a machine without one,
	# it would say EAI_AGAIN where glibc's files say EAI_NONAME) and knows
	# no name, so every answer found comes from nss_wrapper.
	glibc empty-hosts env LD_PRELOAD="$PRE" NSS_WRAPPER_HOSTS="$hosts" \
		NSS_WRAPPER_HOSTNAME= "$BIN/nwrap_gai_dump" "$@" > "ours.$name" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $name: exit $rc"
		fail=1
	elif ! diff "ref.$name" "ours.$name" > "diff.$name"; then
		echo "FAIL: $name: answers differ from glibc's (< glibc, > ours):"
		head -20 "diff.$name"
		fail=1
	else
		echo "ok: $name: $(wc -l < "ref.$name") answers equal to glibc's"
	fi
}

# the local domain NI_NOFQDN cuts is lo.dom, from "localhost"; glibc's
# strstr finds it inside ccc.lo.domx too
cat > hosts << 'EOT'
127.0.0.1 localhost.lo.dom localhost
10.0.0.1 a.lo.dom a A a
10.0.0.2 bb.x.lo.dom Multi
10.0.0.3 ccc.lo.domx multi
10.0.0.1 second.lo.dom MULTI a
fd00::1 six.lo.dom six multi
::ffff:10.0.0.7 mapped.lo.dom multi mapped
10.0.0.8 eight multi eight.lo.dom
10.0.0.8 EIGHT
fd00::9 nine.lo.dom
EOT
compare nibuf hosts nibuf 127.0.0.1 10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.7 \
	10.0.0.8 192.0.2.1 fd00::1 ::ffff:10.0.0.7 ::13 fd00::9 fe80::1%1
compare hostent hosts hostent multi MULTI a eight EIGHT six mapped nine \
	localhost nosuch.lo.dom -- 10.0.0.1 10.0.0.7 10.0.0.8 fd00::1 \
	::ffff:10.0.0.7 ::ffff:10.0.0.1 192.0.2.1

# thousands of aliases, a name on many lines, repeated addresses
awk 'BEGIN {
	for (l = 0; l < 40; l++) {
		line = (l % 5 == 4 ? "::ffff:10.1.0." l : "10.1.0." (l % 7)) \
			" " (l % 3 ? "big.example" : "Other" l ".example")
		for (a = 0; a < 700; a++)
			line = line " al" (a % 500) ".example"
		print line " big.example BIG.example"
	}
}' > many
compare many many hostent big.example al7.example Other3.example -- \
	10.1.0.3 10.1.0.4 ::ffff:10.1.0.4

[ "$fail" = 0 ] && echo "nss_glibc_files: all checks passed"
exit "$fail"
