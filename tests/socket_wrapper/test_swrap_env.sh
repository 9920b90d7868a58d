#!/bin/bash
# Bad and unusual SOCKET_WRAPPER_* values: each gets one line on stderr
# naming the variable, and the stated behaviour (wrapper off, or the
# default used). Runs swrap_probe under the wrapper.
set -u
probe="$CWRAP_TEST_BIN/swrap_probe"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail=0

# run EXPECTED-STDOUT STDERR-PATTERN [VAR=value...]: run the probe with the
# variables; stdout must equal EXPECTED, stderr must be exactly one line
# matching PATTERN (or empty when PATTERN is "-").
run() {
	local want=$1 pat=$2
	shift 2
	local out err
	out=$(env "$@" LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH" \
		LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so" \
		"$probe" ${PROBE_ARGS:-} 2> "$tmp/err")
	err=$(cat "$tmp/err")
	echo "\$ $* swrap_probe ${PROBE_ARGS:-}"
	echo "$out"
	[ -n "$err" ] && echo "stderr: $err"
	# shellcheck disable=SC2053
	if [[ $out != $want ]]; then
		echo "FAIL: expected stdout '$want'"
		fail=1
	fi
	if [ "$pat" = - ]; then
		if [ -n "$err" ]; then
			echo "FAIL: expected no stderr"
			fail=1
		fi
	elif [ "$(wc -l < "$tmp/err")" != 1 ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL: expected one stderr line matching '$pat'"
		fail=1
	fi
}

mkdir "$tmp/d"
# Unset: inert, the real network (binding 127.0.0.10:7 needs privilege
# and an address; whatever happens, the wrapper says it is off).
out=$(env -u SOCKET_WRAPPER_DIR LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH" \
	LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}libsocket_wrapper.so" "$probe" 2>&1)
case $out in enabled=0*) echo "unset: $out" ;; *) echo "FAIL unset: $out"; fail=1 ;; esac

# Good.
run "enabled=1 bind=ok name=127.0.0.10:7" - SOCKET_WRAPPER_DIR="$tmp/d"
# Missing directory: off.
run "enabled=0 *" \
	"SWRAP_ERROR.*SOCKET_WRAPPER_DIR='$tmp/missing'.*No such file" \
	SOCKET_WRAPPER_DIR="$tmp/missing"
# Too long for sun_path: off, unless ALLOW_ORIG and the given spelling fits.
long="$tmp/d/$(printf 'x%.0s' $(seq 1 100))"
mkdir -p "$long"
ln -s "$long" "$tmp/short"
run "enabled=0 *" \
	"SWRAP_ERROR.*SOCKET_WRAPPER_DIR=.*too long" SOCKET_WRAPPER_DIR="$long"
run "enabled=0 *" \
	"SWRAP_ERROR.*SOCKET_WRAPPER_DIR=.*too long" SOCKET_WRAPPER_DIR="$tmp/short"
run "enabled=1 bind=ok name=127.0.0.10:7" - \
	SOCKET_WRAPPER_DIR="$tmp/short" SOCKET_WRAPPER_DIR_ALLOW_ORIG=1
# Not writable (root writes anywhere, so only as a user).
if [ "$(id -u)" != 0 ]; then
	mkdir "$tmp/ro"
	chmod 555 "$tmp/ro"
	run "enabled=0 *" \
		"SWRAP_ERROR.*SOCKET_WRAPPER_DIR='$tmp/ro'.*not a writable" \
		SOCKET_WRAPPER_DIR="$tmp/ro"
fi
# Bad numbers: one line naming the variable, default used.
PROBE_ARGS="0.0.0.0 7" run "enabled=1 bind=ok name=0.0.0.0:7" \
	"SWRAP_ERROR.*SOCKET_WRAPPER_DEFAULT_IFACE='300'" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DEFAULT_IFACE=300
PROBE_ARGS="0.0.0.0 7" run "enabled=1 bind=ok name=0.0.0.0:7" \
	"SWRAP_ERROR.*SOCKET_WRAPPER_DEFAULT_IFACE='abc'" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DEFAULT_IFACE=abc
[ -S "$tmp/d/T010007" ] || { echo "FAIL: default interface 1 not used (no T010007)"; ls "$tmp/d"; fail=1; }
PROBE_ARGS="0.0.0.0 8" run "enabled=1 bind=ok name=0.0.0.0:8" - \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DEFAULT_IFACE=7
[ -S "$tmp/d/T070008" ] || { echo "FAIL: wildcard not on interface 7 (no T070008)"; fail=1; }
run "enabled=1 bind=ok name=127.0.0.10:7" "SWRAP_ERROR.*SOCKET_WRAPPER_IPV4_NETWORK='1.2.3.0'" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_IPV4_NETWORK=1.2.3.0
run "enabled=1 bind=ok name=127.0.0.10:7" "SWRAP_ERROR.*SOCKET_WRAPPER_MTU='100'" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_MTU=100
run "enabled=1 bind=ok name=127.0.0.10:7" "SWRAP_ERROR.*SOCKET_WRAPPER_MAX_SOCKETS='0'" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_MAX_SOCKETS=0
run "enabled=1 bind=ok name=127.0.0.10:7" "SWRAP_ERROR.*SOCKET_WRAPPER_DEBUGLEVEL" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DEBUGLEVEL=loud
run "enabled=1 bind=ok name=127.0.0.10:7" - \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DISABLE_DEEPBIND=1
# The ends of the ranges: interface 1..254, MTU 512..32768, at most
# 256000 sockets; one past them is named and the default used.
PROBE_ARGS="0.0.0.0 9" run "enabled=1 bind=ok name=0.0.0.0:9" - \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DEFAULT_IFACE=254
[ -S "$tmp/d/TFE0009" ] || { echo "FAIL: wildcard not on interface 254 (no TFE0009)"; ls "$tmp/d"; fail=1; }
PROBE_ARGS="0.0.0.0 10" run "enabled=1 bind=ok name=0.0.0.0:10" \
	"SWRAP_ERROR.*SOCKET_WRAPPER_DEFAULT_IFACE='255'" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DEFAULT_IFACE=255
[ -S "$tmp/d/T01000A" ] || { echo "FAIL: interface 255 not refused (no T01000A)"; ls "$tmp/d"; fail=1; }
for mtu in 512 32768; do
	run "enabled=1 bind=ok name=127.0.0.10:7" - \
		SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_MTU=$mtu
done
for mtu in 511 32769; do
	run "enabled=1 bind=ok name=127.0.0.10:7" "SWRAP_ERROR.*SOCKET_WRAPPER_MTU='$mtu'" \
		SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_MTU=$mtu
done
run "enabled=1 bind=ok name=127.0.0.10:7" - \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_MAX_SOCKETS=256000
run "enabled=1 bind=ok name=127.0.0.10:7" \
	"SWRAP_ERROR.*SOCKET_WRAPPER_MAX_SOCKETS='256001'.*using 65535" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_MAX_SOCKETS=256001
# The default, 65535, where the descriptor limit can be raised past it.
if (ulimit -n 65600) 2> /dev/null; then
	(
		ulimit -n 65600
		PROBE_ARGS="-n 65540" run "opened=65535 error=ENFILE" \
			"SWRAP_WARN.*SOCKET_WRAPPER_MAX_SOCKETS=65535 reached" \
			SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_DEBUGLEVEL=1
		exit $fail
	) || fail=1
else
	echo "SKIP the default of 65535 sockets: the descriptor limit stays below it ($(ulimit -Hn))"
fi

# The other IPv4 network.
run "enabled=1 bind=EADDRNOTAVAIL" - \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_IPV4_NETWORK=10.53.57.0
PROBE_ARGS="10.53.57.10 7" run "enabled=1 bind=ok name=10.53.57.10:7" - \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_IPV4_NETWORK=10.53.57.0
# Limits: SOCKET_WRAPPER_MAX_SOCKETS caps emulated sockets (ENFILE, as
# upstream).
PROBE_ARGS="-n 10" run "opened=4 error=ENFILE" \
	"SWRAP_WARN.*SOCKET_WRAPPER_MAX_SOCKETS=4 reached" \
	SOCKET_WRAPPER_DIR="$tmp/d" SOCKET_WRAPPER_MAX_SOCKETS=4 SOCKET_WRAPPER_DEBUGLEVEL=1

exit $fail
