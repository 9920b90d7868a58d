#!/bin/sh
# Bad input and faults: a supervised program gets the kernel's answers.
# supbad_static (supbad.c) makes a fixed list of bad and edge socket calls
# (bad pointers, bad lengths, wrong families, unknown types, levels and
# options, calls on closed descriptors and on a pipe, ...) on IPv4 and
# IPv6 sockets, one line each. It runs twice, as the same user: unwrapped
# on the real loopback (127.0.0.1 and ::1), which gives the kernel's
# answers, and under cwrap --iface 10 (supervised, being static) on the
# emulated 127.0.0.10 and fd00::5357:5f0a. The lines are compared one by
# one: "ok - NAME" when the supervised program got what the kernel said,
# "not ok - NAME (native: ..., supervised: ...)" otherwise.
#
# The table below (known()) lists the lines that differ on purpose, with
# the supervised value they must have and why: "known, intended
# differences" (the emulation's design), and "not yet matching the
# kernel" (bugs of the supervisor or of socket_wrapper's core, kept there
# with the value they give now so that the suite stays green until they
# are fixed; a fix makes the line fail as "matches the kernel now": then
# remove the entry). A table line that no case matches fails too.
#
# Environment (tests/supervisor/CMakeLists.txt): CWRAP_LAUNCHER (cwrap),
# SUPBAD_STATIC (empty when this toolchain does not link -static).
# SUPBAD_TIMEOUT: seconds before supbad takes a call for hung (5).
#
# Exit: 0 all passed, 1 a check failed, 77 the host cannot supervise
# (cwrap says "cwrap: cannot supervise ..."), or no supbad_static.
set -u
. "$CWRAP_SOURCE_DIR/tests/supervisor/sup_lib.sh"
C=$CWRAP_LAUNCHER
BIN=${SUPBAD_STATIC:-}
# (each hung call costs this much; none should hang)
SUPBAD_TIMEOUT=${SUPBAD_TIMEOUT:-5}
export SUPBAD_TIMEOUT
# a whole run's limit
run_limit=240

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP


# The lines that differ on purpose: "PATTERN | SUPERVISED | WHY", under a
# heading ("## ..."). PATTERN is a shell pattern of case names (v?.NAME:
# both families); SUPERVISED the supervised line's value, exactly.
known() {
	cat <<-'EOF'
		## known, intended differences
		v?.socket.raw | rc=-1 errno=EPROTONOSUPPORT | raw sockets are refused by design: nothing reaches the real network (swrap_sock.c, refused()); natively a socket as root, EPERM otherwise
		v?.socket.dgram_icmp | rc=-1 errno=EPROTONOSUPPORT | ICMP datagram (ping) sockets are refused by design, as raw ones (refused()); natively EACCES or a socket (net.ipv4.ping_group_range)
		v?.socket.seqpacket | rc=-1 errno=EPROTONOSUPPORT | SOCK_SEQPACKET is SCTP where the kernel has it: refused by design (refused()); natively ESOCKTNOSUPPORT without SCTP
		v?.bind.privport | rc=0 errno=- | privileged ports for any user, by design (natively EACCES unless root)
		v?.connect.nonblock | rc=0 errno=- | an emulated connect() completes at once, nonblocking too (swrap_sock_connect_ep(): "which connect() may say at once"); the kernel says EINPROGRESS even on the loopback
		v?.connect.nonblock_again | rc=-1 errno=EISCONN | (the same: connected by the first call; natively the next connect() says 0, the one after EISCONN)

		## not yet matching the kernel
		v?.connect.unspec | rc=-1 errno=EAFNOSUPPORT | core: swrap_connect() takes AF_UNSPEC (a disconnect, 0 in the kernel) for UDP only
		v?.connect.unspec_len2 | rc=-1 errno=EINVAL | (the same)
		v?.connect.unspec_connected | rc=-1 errno=EAFNOSUPPORT | (the same: the kernel disconnects a connected TCP socket)
		v?.connect.listening | rc=-1 errno=EINVAL | core: swrap_sock_connect_ep() says EINVAL on a listener, the kernel EISCONN
		v?.getsockopt.type_null_val_len0 | rc=-1 errno=EFAULT | core: swrap_getsockopt() with a NULL value and length 0 says EFAULT, the kernel 0
		v?.getsockopt.tcp_12345 | rc=0 errno=- val=0 len=4 | core: unknown options of levels it remembers answer 0 (the kernel: ENOPROTOOPT)
		v?.getsockopt.ip_12345 | rc=0 errno=- val=0 len=4 | (the same)
		v?.getsockopt.ip_12345_udp | rc=0 errno=- val=0 len=4 | (the same)
		v4.getsockopt.tcp_nodelay_udp | rc=-1 errno=ENOPROTOOPT | core: the kernel says EOPNOTSUPP for a level of another protocol on IPv4
		v4.getsockopt.udp_cork_tcp | rc=-1 errno=ENOPROTOOPT | (the same)
		v4.getsockopt.v6only | rc=-1 errno=ENOPROTOOPT | (the same: IPPROTO_IPV6 on an IPv4 socket)
		v6.getsockopt.level12345 | rc=-1 errno=EOPNOTSUPP | core: the unix socket's EOPNOTSUPP; the kernel's IPv6 says ENOPROTOOPT
		v6.getsockopt.level12345_udp | rc=-1 errno=EOPNOTSUPP | (the same)
		v?.setsockopt.type | rc=0 errno=- | core: swrap_setsockopt() remembers options the kernel refuses (SO_TYPE is read-only: ENOPROTOOPT)
		v?.setsockopt.sol_socket_12345 | rc=0 errno=- | (the same: unknown options, ENOPROTOOPT)
		v?.setsockopt.tcp_12345 | rc=0 errno=- | (the same)
		v?.setsockopt.ip_12345 | rc=0 errno=- | (the same)
		v?.setsockopt.ip_12345_udp | rc=0 errno=- | (the same)
		v?.sendto.null_addr | rc=-1 errno=ENOTCONN | sendto() without an address is the data path (sup_filter.c): the unconnected unix socket says ENOTCONN, the kernel's UDP EDESTADDRREQ
		v?.sendto.len0 | rc=-1 errno=EDESTADDRREQ | core: a non-NULL address of length 0 is taken for none (dgram_sendmsg()); the kernel says EINVAL
		v?.sendto.port0 | rc=5 errno=- | core: a datagram to port 0 is sent (the kernel: EINVAL)
		v?.sendto.nonlocal_port0 | rc=-1 errno=ENETUNREACH | (the same: the kernel checks the port first)
		v?.sendto.toobig | rc=70000 errno=- | core: no UDP size limit (the kernel: EMSGSIZE above 65507 bytes on IPv4, 65527 on IPv6)
		v6.sendto.oob | rc=-1 errno=EOPNOTSUPP | core: MSG_OOB refused on IPv6 UDP, which the kernel accepts (only IPv4's refuses it)
		v?.sendto.tcp_unconnected | rc=-1 errno=ENOTCONN | core: the unix socket's ENOTCONN; the kernel's TCP says EPIPE (and raises SIGPIPE without MSG_NOSIGNAL)
		v?.sendto.tcp_peer_closed | rc=-1 errno=EPIPE | core: a peer closed with unread data resets a TCP connection (ECONNRESET, then EPIPE); the unix socket says EPIPE at once
		v?.recvfrom.oob | rc=-1 errno=EOPNOTSUPP | core: the unix socket refuses MSG_OOB, the kernel's UDP ignores it
		v?.recvfrom.oob_after | rc=5 errno=- | (the same)
		v?.recvfrom.tcp_unconnected | rc=-1 errno=EINVAL | core: the unix socket's EINVAL; the kernel's TCP says ENOTCONN
		v?.recvfrom.tcp_listening | rc=-1 errno=EINVAL | (the same)
		v?.udp_refused.send | rc=-1 errno=ENOTCONN | a UDP socket connected to nobody: the core leaves its unix socket unconnected (swrap_sock_dgram_connect()), and send() is the data path, in the kernel: ENOTCONN, where the kernel sends (then ECONNREFUSED from the ICMP error)
		v?.udp_refused.send2 | rc=-1 errno=ENOTCONN | (the same)
		v?.udp_refused.send3 | rc=-1 errno=ENOTCONN | (the same)
		v?.udp_refused.recvfrom_addr | rc=-1 errno=EAGAIN | (the same: no ECONNREFUSED pending)
		v?.udp_refused.send4 | rc=-1 errno=ENOTCONN | (the same)
		v?.udp_refused.so_error | rc=0 errno=- val=0 | (the same)
		v?.udp_late_peer.send | rc=-1 errno=ENOTCONN | (the same, and it lasts: the peer bound after the connect() never gets the socket's send()s)
		v?.udp_late_peer.received | rc=-1 errno=EAGAIN | (the same)
		v?.sendmsg.badcontrol | rc=-1 errno=EOPNOTSUPP | do_msg(): ancillary data not emulated yet (the kernel: EFAULT)
		v?.sendmsg.control_short | rc=-1 errno=EOPNOTSUPP | (the same: the kernel ignores a control buffer shorter than a cmsghdr)
		v?.recvmsg.control | rc=-1 errno=EOPNOTSUPP | (the same: the kernel receives, msg_controllen 0)
		v?.recvmsg.control_after | rc=5 errno=- | (the same)
		v?.sendmmsg.ok | rc=-1 errno=EOPNOTSUPP | do_mmsg(): sendmmsg()/recvmmsg() with addresses not emulated yet (without them: the kernel's data path)
		v?.sendmmsg.second_badname | rc=-1 errno=EOPNOTSUPP | (the same)
		v?.recvmmsg.ok | rc=-1 errno=EOPNOTSUPP | (the same)
	EOF
}

# --- can this host supervise?
supervise_or_skip
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
	echo "=== NOT RUN on this host: no supbad_static (this toolchain does not link -static)"
	exit 77
fi

# --- the two runs
# run NAME COMMAND...: COMMAND's lines in $tmp/NAME.out, its status said
# (1 when it is not 0).
run() {
	_name=$1
	shift
	timeout -k 10 "$run_limit" "$@" > "$tmp/$_name.out" 2> "$tmp/$_name.err"
	_rc=$?
	if [ $_rc = 0 ]; then
		ok "$_name run: $(sed -n '$=' "$tmp/$_name.out") lines"
		return 0
	fi
	[ $_rc = 124 ] && _rc="124 (killed after $run_limit s)"
	notok "$_name run: status $_rc"
	show "$tmp/$_name.err"
	return 1
}
# (supbad's working directory, and cwrap's socket directory, in ours:
# removed with it whatever happens)
TMPDIR=$tmp
export TMPDIR
# (unwrapped: no preloaded library in the way that would supervise it)
run native env -u LD_PRELOAD "$BIN" 127.0.0.1 ::1 || exit 1
run supervised "$C" --iface 10 -- "$BIN" 127.0.0.10 fd00::5357:5f0a || exit 1

# supbad's first line says whether it ran supervised
if [ "$(sed -n 1p "$tmp/native.out")" = "supervised: no" ]; then
	ok "the native run is not supervised"
else
	notok "the native run: $(sed -n 1p "$tmp/native.out"), not 'supervised: no'"
	exit 1
fi
if [ "$(sed -n 1p "$tmp/supervised.out")" = "supervised: yes" ]; then
	ok "the run under cwrap is supervised"
else
	notok "the run under cwrap: $(sed -n 1p "$tmp/supervised.out"), not 'supervised: yes'"
	show "$tmp/supervised.err"
	exit 1
fi

# An IPv6 loopback is not everywhere (containers): without one, natively,
# the IPv6 cases cannot say what the kernel does.
no6=
if ! grep -q '^v6\.bind\.ok: rc=0 errno=-$' "$tmp/native.out"; then
	no6=$(grep -m1 '^v6\.bind\.ok:' "$tmp/native.out")
	[ -n "$no6" ] || no6="v6.bind.ok: missing"
	skip "v6.*: no IPv6 loopback ::1 on this host (native $no6)"
fi

# --- the comparison (one awk pass: the table, then both runs' lines)
# Prints the ok/not ok lines; its status is 1 when one is not ok.
compare() {
	awk -v no6="$no6" '
	function trim(x) {
		sub(/^[ \t]+/, "", x)
		sub(/[ \t]+$/, "", x)
		return x
	}
	# a shell pattern (? and *) as an extended regular expression
	function glob(g, r) {
		r = g
		gsub(/[.+^$(){}\[\]|\\]/, "\\\\&", r)
		gsub(/\?/, ".", r)
		gsub(/\*/, ".*", r)
		return "^" r "$"
	}
	function say(okay, text) {
		print (okay ? "ok - " : "not ok - ") text
		if (!okay)
			bad = 1
	}
	FILENAME == ARGV[1] {
		if ($0 ~ /^## /) {
			kind = substr($0, 4)
			next
		}
		if (index($0, "|") == 0)
			next
		n = split($0, f, "|")
		t++
		pat[t] = trim(f[1])
		re[t] = glob(pat[t])
		want[t] = trim(f[2])
		why[t] = trim(f[3])
		tkind[t] = kind
		next
	}
	{
		i = index($0, ": ")
		if (i == 0 || FNR == 1)
			next # (the "supervised:" line)
		name = substr($0, 1, i - 1)
		val = substr($0, i + 2)
	}
	FILENAME == ARGV[2] {
		order[++nn] = name
		native[name] = val
		next
	}
	FILENAME == ARGV[3] {
		sup[name] = val
		if (!(name in native))
			extra[++ne] = name
	}
	END {
		for (k = 1; k <= nn; k++) {
			name = order[k]
			if (no6 != "" && name ~ /^v6\./)
				continue
			nv = native[name]
			sv = (name in sup) ? sup[name] : "(no such line)"
			e = 0
			for (j = 1; j <= t; j++)
				if (name ~ re[j]) {
					e = j
					break
				}
			if (e) {
				used[e] = 1
				if (sv == want[e] && tkind[e] ~ /^known/)
					say(1, name " # intended: " sv " (native: " nv "): " why[e])
				else if (sv == want[e])
					say(1, name " # TODO not yet matching the kernel: supervised: " sv ", native: " nv ": " why[e])
				else if (sv == nv)
					say(0, name " (native: " nv ", supervised: " sv "): matches the kernel now, not the table\47s \47" want[e] "\47 (" tkind[e] "): remove the table\47s entry")
				else
					say(0, name " (native: " nv ", supervised: " sv ", the table\47s: " want[e] ")")
			} else
				say(sv == nv, sv == nv ? name : name " (native: " nv ", supervised: " sv ")")
		}
		for (k = 1; k <= ne; k++)
			if (!(no6 != "" && extra[k] ~ /^v6\./))
				say(0, extra[k] ": only in the supervised run (" sup[extra[k]] ")")
		for (j = 1; j <= t; j++)
			if (!used[j] && !(no6 != "" && pat[j] ~ /^v6\./))
				say(0, "the table\47s entry \47" pat[j] "\47 matches no case")
		exit bad
	}' "$tmp/table" "$tmp/native.out" "$tmp/supervised.out"
}
known > "$tmp/table"
compare || failed=1

if [ $failed = 0 ]; then
	echo "all passed"
else
	echo "FAILED"
fi
exit $failed
