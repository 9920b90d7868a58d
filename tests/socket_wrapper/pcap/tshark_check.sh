#!/bin/sh
# tshark_check.sh FILE [tshark display filter that must match]...
# Judge a capture with tshark, checksum validation on: no malformed packet,
# no expert error, no TCP analysis flag (lost or out-of-order segments,
# retransmissions, window problems, unseen ACKs), and each filter given
# matches at least one packet. Prints what it checks.
#
# One tshark run answers all of it (its expert information, and its I/O
# statistics over the whole capture: one column of frames per filter):
# each run loads every dissector anew, which takes seconds on a loaded
# machine. No filter may hold a comma (the statistics' separator).
set -eu
f=$1
shift
TS="tshark -n -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE -r $f"
fail() { echo "FAIL: $*"; exit 1; }

bad='_ws.malformed || _ws.expert.severity==error || tcp.analysis.flags || ip.checksum.status==0 || tcp.checksum.status==0 || udp.checksum.status==0 || icmp.checksum_bad || icmpv6.checksum.status==0'
stat="io,stat,0,$bad"
for filter in "$@"; do
	case "$filter" in
	*,*) fail "a filter with a comma: '$filter'" ;;
	esac
	stat="$stat,$filter"
done
echo "\$ tshark -r $f -q -z expert -z io,stat,0,..."
out=$($TS -q -z expert -z "$stat" 2>/dev/null)
echo "$out"
case "$out" in
*Errors*) fail "tshark reports expert errors" ;;
esac
counts=$(echo "$out" | awk -F'|' '/<>/ { for (i = 3; i < NF; i += 2) print $i + 0 }')
n=$(echo "$counts" | sed -n 1p)
[ -n "$n" ] || fail "tshark gave no statistics for $f"
if [ "$n" -gt 0 ]; then
	$TS -Y "$bad" 2>/dev/null | head -20
	fail "packets match '$bad'"
fi
i=1
for filter in "$@"; do
	i=$((i + 1))
	n=$(echo "$counts" | sed -n "${i}p")
	echo "'$filter': ${n:-no} packets"
	[ "${n:-0}" -gt 0 ] || fail "no packet matches '$filter'"
done
echo "OK: $f"
