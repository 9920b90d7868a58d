#!/bin/sh
# tshark_check.sh FILE [tshark display filter that must match]...
# Judge a capture with tshark, checksum validation on: no malformed packet,
# no expert error, no TCP analysis flag (lost or out-of-order segments,
# retransmissions, window problems, unseen ACKs), and each filter given
# matches at least one packet. Prints what it checks.
set -eu
f=$1
shift
TS="tshark -n -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE -r $f"
fail() { echo "FAIL: $*"; exit 1; }

echo "\$ tshark -r $f -q -z expert"
expert=$($TS -q -z expert 2>/dev/null)
echo "$expert"
case "$expert" in
*Errors*) fail "tshark reports expert errors" ;;
esac
for filter in _ws.malformed _ws.expert.severity==error tcp.analysis.flags \
	'ip.checksum.status==0 || tcp.checksum.status==0 || udp.checksum.status==0 || icmp.checksum_bad || icmpv6.checksum.status==0'; do
	bad=$($TS -Y "$filter" 2>/dev/null)
	[ -z "$bad" ] || { echo "$bad" | head -20; fail "packets match '$filter'"; }
done
for filter in "$@"; do
	n=$($TS -Y "$filter" 2>/dev/null | wc -l)
	echo "'$filter': $n packets"
	[ "$n" -gt 0 ] || fail "no packet matches '$filter'"
done
echo "OK: $f"
