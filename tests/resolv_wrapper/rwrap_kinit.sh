#!/bin/bash
# MIT Kerberos kinit with `dns_lookup_kdc = true` finds its KDC through
# _kerberos._udp SRV records, as in an Active Directory or FreeIPA domain:
# a real krb5kdc (a realm made by kdb5_util in a temporary directory, no
# root needed) runs under socket_wrapper on 127.0.0.88, and kinit, under
# socket_wrapper, nss_wrapper (the SRV target's address) and
# resolv_wrapper, gets a ticket from it, once with the SRV records from
# RESOLV_WRAPPER_HOSTS and once from a dnsmasq (--srv-host) running under
# socket_wrapper on 127.0.0.53, asked through RESOLV_WRAPPER_CONF. Both
# kinit runs are under the seccomp filter of nwrap_noinet: no real
# AF_INET/AF_INET6 socket is made, the resolver's included.
set -euo pipefail
for p in krb5kdc kdb5_util kadmin.local kinit klist dnsmasq; do
	if ! command -v "$p" > /dev/null && ! [ -x "/usr/sbin/$p" ]; then
		echo "SKIP: $p is not installed (tools/deps installs it)"
		exit 77
	fi
done
PATH=$PATH:/usr/sbin
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-rwrap-kinit-XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2> /dev/null || true
		wait "$p" 2> /dev/null || true
	done
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
P=${CWRAP_PRELOAD_PREFIX:-}
BIN=$CWRAP_TEST_BIN
fail=0
G=()
if "$BIN/nwrap_noinet" true 2> /dev/null; then
	G=("$BIN/nwrap_noinet")
else
	echo "note: no seccomp filter here; kinit runs without it"
fi

mkdir sw
export SOCKET_WRAPPER_DIR=$dir/sw
export KRB5_CONFIG=$dir/krb5.conf KRB5_KDC_PROFILE=$dir/kdc.conf
export KRB5CCNAME=FILE:$dir/ccache
cat > krb5.conf << 'EOT'
[libdefaults]
	default_realm = EXAMPLE.TEST
	dns_lookup_kdc = true
	dns_lookup_realm = false
	dns_canonicalize_hostname = false
	rdns = false
[realms]
	EXAMPLE.TEST = {
	}
EOT
cat > kdc.conf << EOT
[kdcdefaults]
	kdc_ports = 88
	kdc_tcp_ports = 88
[realms]
	EXAMPLE.TEST = {
		database_name = $dir/principal
		key_stash_file = $dir/stash
		acl_file = $dir/kadm5.acl
	}
[logging]
	kdc = FILE:$dir/kdc.log
EOT
kdb5_util -r EXAMPLE.TEST create -s -P masterpw -W > kdb.log 2>&1 || { cat kdb.log; exit 1; }
kadmin.local -r EXAMPLE.TEST -q "addprinc -pw userpw user" > kadmin.log 2>&1 ||
	{ cat kadmin.log; exit 1; }

. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"
wait_for() { # FILE: an emulated socket appears
	wait_until test -e "$1" && return 0
	echo "FAIL: $1 did not appear"
	exit 1
}

SOCKET_WRAPPER_DEFAULT_IFACE=88 LD_PRELOAD="${P}libsocket_wrapper.so" \
	krb5kdc -n -P "$dir/kdc.pid" > kdc.out 2>&1 &
pids+=($!)
wait_for sw/U580058
wait_for sw/T580058
echo "ok: krb5kdc runs on 127.0.0.88:88"

# the SRV target's address, from nss_wrapper's file alone
echo '127.0.0.88 kdc.example.test' > hosts

kinit_run() { # LABEL [VAR=VALUE...]
	local label=$1 out rc=0
	shift
	rm -f ccache
	out=$(echo userpw | env "$@" SOCKET_WRAPPER_DEFAULT_IFACE=20 \
		NSS_WRAPPER_HOSTS="$dir/hosts" NSS_WRAPPER_HOSTS_ONLY=1 \
		KRB5_TRACE=/dev/stdout \
		LD_PRELOAD="${P}libsocket_wrapper.so:libnss_wrapper.so:libresolv_wrapper.so" \
		"${G[@]}" kinit user@EXAMPLE.TEST 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q 'Sending DNS SRV query for _kerberos._udp.EXAMPLE.TEST' <<< "$out" ||
		! grep -q 'Received answer .* from dgram 127.0.0.88:88' <<< "$out"; then
		echo "$out"
		echo "FAIL: $label: kinit (exit $rc) did not reach the KDC through SRV"
		fail=1
		return
	fi
	if ! klist | grep -q 'krbtgt/EXAMPLE.TEST@EXAMPLE.TEST'; then
		klist || true
		echo "FAIL: $label: no ticket"
		fail=1
		return
	fi
	echo "ok: $label: kinit found the KDC by SRV and got a ticket"
}

# 1. SRV records from the record file
cat > records << 'EOT'
SRV _kerberos._udp.EXAMPLE.TEST kdc.example.test 88
SRV _kerberos._tcp.EXAMPLE.TEST kdc.example.test 88
A kdc.example.test 127.0.0.88
EOT
kinit_run "RESOLV_WRAPPER_HOSTS" RESOLV_WRAPPER_HOSTS="$dir/records"

# 2. the same from dnsmasq under socket_wrapper. In the sanitizer builds
# dnsmasq with the runtime and socket_wrapper preloaded hangs in its first
# textdomain() call (glibc's _nl_state_lock, before any socket call): that
# part runs in the normal build only.
if [ -n "$P" ]; then
	echo "note: dnsmasq part skipped in a sanitizer build (see the comment)"
else
	user=()
	[ "$(id -u)" = 0 ] && user=(--user=root)
	SOCKET_WRAPPER_DEFAULT_IFACE=53 LD_PRELOAD="${P}libsocket_wrapper.so" \
		dnsmasq --keep-in-foreground --conf-file=/dev/null --pid-file= \
		--no-resolv --no-hosts --port=53 --listen-address=127.0.0.53 \
		--bind-interfaces "${user[@]}" --local=/example.test/ \
		--srv-host=_kerberos._udp.example.test,kdc.example.test,88 \
		--host-record=kdc.example.test,127.0.0.88 \
		--log-queries --log-facility=- > dnsmasq.log 2>&1 &
	pids+=($!)
	wait_for sw/U350035
	echo "ok: dnsmasq runs on 127.0.0.53:53"
	echo "nameserver 127.0.0.53" > resolv.conf
	kinit_run "dnsmasq through RESOLV_WRAPPER_CONF" RESOLV_WRAPPER_CONF="$dir/resolv.conf"
	if ! grep -qi 'query\[SRV\] _kerberos._udp.example.test from 127.0.0.20' dnsmasq.log; then
		cat dnsmasq.log
		echo "FAIL: dnsmasq did not see kinit's SRV query"
		fail=1
	fi
	# and a program's res_search with a search list through dnsmasq
	out=$(RESOLV_WRAPPER_CONF=resolv.conf SOCKET_WRAPPER_DEFAULT_IFACE=20 LOCALDOMAIN=example.test \
		LD_PRELOAD="${P}libsocket_wrapper.so:libresolv_wrapper.so" \
		"${G[@]}" "$BIN/rwrap_search" kdc A 2>&1) || true
	if [ "$out" != "A 127.0.0.88" ]; then
		echo "$out"
		echo "FAIL: res_search(kdc) with search example.test through dnsmasq"
		fail=1
	else
		echo "ok: res_search(kdc) with the search list answered by dnsmasq"
	fi
fi
if ! grep -q 'AS_REQ.*127.0.0.20' kdc.log; then
	cat kdc.log
	echo "FAIL: the KDC did not log the AS-REQs from 127.0.0.20"
	fail=1
fi

[ "$fail" = 0 ] && echo "rwrap_kinit: all checks passed"
exit "$fail"
