#!/bin/sh
# A synthetic capture of every packet kind the writer makes, judged by
# tshark (tshark_check.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CWRAP_TEST_BIN/pcap_synth" "$tmp/synth.pcap"
"$here/tshark_check.sh" "$tmp/synth.pcap" \
	'ip.src==127.0.0.100 && tcp.dstport==7 && tcp.flags.syn==1' \
	'ipv6.src==fd00::5357:5f64 && tcp.dstport==7 && tcp.flags.syn==1' \
	'tcp.flags.fin==1' 'tcp.flags.reset==1' \
	'tcp.len==1500' 'udp.length==13' \
	'icmp.type==3 && icmp.code==3' 'icmpv6.type==1 && icmpv6.code==4'
