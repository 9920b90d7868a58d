#!/bin/bash
# A program that resolves through the resolver API (rwrap_search, linked
# with -lresolv) under resolv_wrapper: res_search with a search list, from
# the record file and from a DNS server on an emulated address, with the
# answers and h_errno a resolver gives, and at once when the server is
# gone (its port refuses); bad configuration reported in one
# line naming file:line; and all of it hermetic: under a seccomp filter
# (nwrap_noinet) that kills the process if anything, libc's resolver
# included, makes an AF_INET or AF_INET6 socket. The filter is shown to be
# real first: glibc's own res_query is killed by it.
set -euo pipefail
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-rwrap-programs-XXXXXX")
srv=
cleanup() {
	if [ -n "$srv" ]; then
		kill "$srv" 2> /dev/null
		wait "$srv" 2> /dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
P=${CWRAP_PRELOAD_PREFIX:-}
BIN=$CWRAP_TEST_BIN
fail=0

run() { # EXPECTED-EXIT EXPECTED-OUTPUT COMMAND...
	local want_rc=$1 want=$2 out rc=0
	shift 2
	echo "\$ $*"
	out=$("$@" 2> stderr.txt) || rc=$?
	echo "$out"
	cat stderr.txt
	if [ "$rc" -ne "$want_rc" ] || [ "$out" != "$want" ]; then
		echo "FAIL: expected exit $want_rc and:"
		echo "$want"
		fail=1
	fi
}

if ! "$BIN/nwrap_noinet" true 2> noinet.err; then
	cat noinet.err
	echo "SKIP: seccomp filters are not available here"
	exit 77
fi

cat > records << 'EOT'
A dc.cwrap.org 127.0.0.10
A dc.sub.cwrap.org 127.0.0.20
SRV _ldap._tcp.cwrap.org dc.cwrap.org 389
TXT cwrap.org v=spf1 mx
EOT
printf 'search sub.cwrap.org cwrap.org\n' > conf

# the filter is real: glibc's resolver makes a kernel socket (to the
# machine's nameserver, or 127.0.0.1 without one) and is killed
set +e
LD_PRELOAD=$P "$BIN/nwrap_noinet" "$BIN/rwrap_search" -q dc.cwrap.org A > /dev/null 2>&1
rc=$?
set -e
if [ "$rc" -lt 128 ]; then
	echo "FAIL: the filter did not stop glibc's own res_query (exit $rc)"
	exit 1
fi
echo "ok: glibc's own res_query under the filter is killed (exit $rc)"

G=("$BIN/nwrap_noinet")
# --- the record file ---------------------------------------------------
export LD_PRELOAD="${P}libresolv_wrapper.so" RESOLV_WRAPPER_HOSTS=records RESOLV_WRAPPER_CONF=conf
# "dc" has no dot: the search list, sub.cwrap.org first
run 0 "A 127.0.0.20" "${G[@]}" "$BIN/rwrap_search" dc A
run 0 "SRV 1 100 389 dc.cwrap.org" "${G[@]}" "$BIN/rwrap_search" _ldap._tcp SRV
run 0 "A 127.0.0.10" "${G[@]}" "$BIN/rwrap_search" -d cwrap.org dc A
run 0 "TXT v=spf1 mx" "${G[@]}" "$BIN/rwrap_search" cwrap.org. TXT
run 2 "h_errno=1" "${G[@]}" "$BIN/rwrap_search" -q nope.cwrap.org A
run 2 "h_errno=4" "${G[@]}" "$BIN/rwrap_search" -q dc.cwrap.org TXT
run 2 "h_errno=1" "${G[@]}" "$BIN/rwrap_search" nope A
# RESOLV_WRAPPER_DEBUGLEVEL: 2 shows each answer; a bad value is one line
RESOLV_WRAPPER_DEBUGLEVEL=2 run 0 "A 127.0.0.10" "${G[@]}" "$BIN/rwrap_search" -q dc.cwrap.org A
if ! grep -q '^RWRAP_DEBUG(rwrap_search\[[0-9]*\]) - rwrap_exchange: dc.cwrap.org type 1 from records' stderr.txt; then
	echo "FAIL: RESOLV_WRAPPER_DEBUGLEVEL=2 did not show the answer"
	fail=1
fi
RESOLV_WRAPPER_DEBUGLEVEL=x run 0 "A 127.0.0.10" "${G[@]}" "$BIN/rwrap_search" -q dc.cwrap.org A
if [ "$(grep -c "RESOLV_WRAPPER_DEBUGLEVEL='x'" stderr.txt)" != 1 ] || [ "$(wc -l < stderr.txt)" != 1 ]; then
	echo "FAIL: RESOLV_WRAPPER_DEBUGLEVEL=x: expected one line naming it"
	fail=1
fi
unset RESOLV_WRAPPER_HOSTS

# --- a DNS server on an emulated address -----------------------------
mkdir sw
export SOCKET_WRAPPER_DIR=$dir/sw SOCKET_WRAPPER_DEFAULT_IFACE=20
LD_PRELOAD="${P}libsocket_wrapper.so" "$BIN/rwrap_dns_srv" 127.0.0.53 records > srv.log 3> srv.ready &
srv=$!
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"
wait_until grep -q ready srv.ready 2> /dev/null || { echo "FAIL: the DNS server never said ready"; exit 1; }
printf 'nameserver 127.0.0.53\nsearch sub.cwrap.org cwrap.org\n' > conf
# 32-bit x86 glibc makes every socket, AF_UNIX ones included, through
# socketcall(2), whose family the filter cannot read: it would stop
# socket_wrapper's own sockets, so there the server part runs unfiltered
# (the record-file part above was filtered on every architecture).
if [ "$(od -An -j4 -N1 -tu1 "$BIN/rwrap_search" | tr -d ' ')" = 1 ]; then
	echo "note: 32-bit build: queries to the server run without the filter"
	G=()
fi
export LD_PRELOAD="${P}libsocket_wrapper.so:libresolv_wrapper.so"
run 0 "A 127.0.0.20" "${G[@]}" "$BIN/rwrap_search" dc A
run 0 "SRV 1 100 389 dc.cwrap.org" "${G[@]}" "$BIN/rwrap_search" _ldap._tcp SRV
run 2 "h_errno=1" "${G[@]}" "$BIN/rwrap_search" nope A
if ! grep -q '^udp dc.sub.cwrap.org 1$' srv.log; then
	echo "FAIL: the server did not see the search list's query:"
	cat srv.log
	fail=1
fi
# the other preload order
run 0 "A 127.0.0.20" env LD_PRELOAD="${P}libresolv_wrapper.so:libsocket_wrapper.so" \
	"${G[@]}" "$BIN/rwrap_search" dc A

# --- bad configuration: one line naming file:line, the rest works ------
printf 'nameserver not-an-address\nnameserver 127.0.0.53\noptions ndots:x\n' > conf
run 0 "A 127.0.0.10" "${G[@]}" "$BIN/rwrap_search" -q dc.cwrap.org A
if [ "$(grep -c "conf:1: nameserver 'not-an-address'" stderr.txt)" != 1 ] ||
	[ "$(grep -c "conf:3: bad option 'ndots:x'" stderr.txt)" != 1 ] ||
	[ "$(wc -l < stderr.txt)" != 2 ]; then
	echo "FAIL: expected one line for conf:1 and one for conf:3"
	fail=1
fi
# the server gone: its port refuses (the kernel's port unreachable, which
# socket_wrapper gives a connected UDP socket), so the query fails at once
# rather than after the 30 s its one try could wait
kill "$srv"
wait "$srv" 2> /dev/null || true
srv=
printf 'nameserver 127.0.0.53\noptions timeout:30 attempts:1\n' > conf
run 2 "h_errno=2" timeout 20 "${G[@]}" "$BIN/rwrap_search" -q dc.cwrap.org A

# an unreadable file: one line, no nameserver, TRY_AGAIN, still no socket
export RESOLV_WRAPPER_CONF=$dir/nonexistent
run 2 "h_errno=2" "${G[@]}" "$BIN/rwrap_search" -q dc.cwrap.org A
if [ "$(grep -c 'RESOLV_WRAPPER_CONF=.*nonexistent: cannot read it' stderr.txt)" != 1 ]; then
	echo "FAIL: expected one line naming the unreadable file"
	fail=1
fi
unset LD_PRELOAD

[ "$fail" = 0 ] && echo "rwrap_programs: all checks passed"
exit "$fail"
