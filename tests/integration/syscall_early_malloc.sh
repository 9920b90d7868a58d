#!/bin/bash
# syscall() before the wrappers are set up: early_alloc.so, a malloc
# that (like jemalloc) makes system calls through syscall() from its own
# setup under its own lock, first allocates from its constructor, inside
# the dynamic loader. Preloaded with uid_wrapper and socket_wrapper in
# several orders (before, between and after them, so that its setup runs
# before or after their constructors), and with each alone (after the
# wrapper's constructor, its setup's first syscall() is the one that looks
# up the other library, which is not there: a dlsym() that fails would
# allocate): the program runs (no deadlock: a timeout), no wrapper
# re-enters malloc from that syscall() (early_alloc exits 99 then), and
# afterwards ids and sockets through syscall() stay emulated
# (syscall_probe). Skipped (77) in a sanitizer build, whose runtime's
# malloc comes first.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
probe=$CWRAP_TEST_BIN/syscall_probe
alloc=$CWRAP_TEST_BIN/early_alloc.so
uid=$CWRAP_UID_WRAPPER_LIB
sock=$CWRAP_SOCKET_WRAPPER_LIB
fails=0
runs=0

if [ -n "$CWRAP_PRELOAD_PREFIX" ]; then
	echo "a sanitizer runtime is preloaded first: its malloc, not early_alloc's, would run: skipped"
	exit 77
fi

# What the probe prints with both wrappers, with socket_wrapper alone (its
# ids would be the kernel's: left out) and with uid_wrapper alone (its
# sockets are the kernel's).
IDS="uid=0 setresuid=0 uid_after=1234"
SOCKETS="bound_files=1 closed_files=0 socket=ok bind=0 name=127.0.0.10:7 kernel_domain=unix"
BOTH="$IDS $SOCKETS"

for case in "$alloc:$uid:$sock|$BOTH" "$alloc:$sock:$uid|$BOTH" \
	"$uid:$alloc:$sock|$BOTH" "$uid:$sock:$alloc|$BOTH" \
	"$sock:$uid:$alloc|$BOTH" "$alloc:$sock|$SOCKETS" \
	"$alloc:$uid|$IDS socket=ok kernel_domain=inet"; do
	order=${case%%|*}
	expected=${case#*|}
	noids=
	case $order in *"$uid"*) ;; *) noids=1 ;; esac
	name=$(echo "$order" | sed "s|$alloc|early_alloc|; s|$uid|uid_wrapper|; s|$sock|socket_wrapper|; s|:| |g")
	runs=$((runs + 1))
	rm -rf "$tmp/sockets"
	mkdir "$tmp/sockets"
	rc=0
	timeout 20 env LD_PRELOAD="$order" SOCKET_WRAPPER_DIR="$tmp/sockets" \
		${noids:+SYSCALL_PROBE_NO_IDS=1} \
		SOCKET_WRAPPER_DEFAULT_IFACE=20 UID_WRAPPER=1 UID_WRAPPER_ROOT=1 \
		"$probe" > "$tmp/out" 2> "$tmp/err" || rc=$?
	missing=
	for line in "early_alloc=setup=6" $expected; do
		case $line in
		early_alloc=*) grep -q "^$line uid=" "$tmp/out" || missing="$missing $line" ;;
		*) grep -qxF "$line" "$tmp/out" || missing="$missing $line" ;;
		esac
	done
	if [ "$rc" = 124 ]; then
		echo "FAIL: $name: hung (killed after 20 s)"
	elif [ "$rc" != 0 ]; then
		echo "FAIL: $name: exit $rc: $(cat "$tmp/err")"
	elif [ -n "$missing" ]; then
		echo "FAIL: $name: missing:$missing"
		sed 's/^/    /' "$tmp/out" "$tmp/err"
	else
		echo "ok: $name: $(head -n 1 "$tmp/out")"
		continue
	fi
	fails=$((fails + 1))
done
echo "$((runs - fails)) passed, $fails failed"
[ "$fails" = 0 ]
