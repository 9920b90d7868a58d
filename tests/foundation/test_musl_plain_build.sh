#!/bin/sh
# test_musl_plain_build.sh CMAKE SOURCE-DIR MUSL-GCC
# `cmake -DCMAKE_C_COMPILER=musl-gcc` on a fresh tree builds every library
# with no further option (the tests are left out, with a warning naming
# the toolchain file: the system's cmocka is glibc's), with warnings as
# errors, and each library needs musl's libc.so, never glibc's libc.so.6.
set -eu
cmake=$1
src=$2
musl=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cmake" -S "$src" -B "$tmp/b" -DCMAKE_C_COMPILER="$musl" -DCWRAP_WERROR=ON \
	> "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
grep -q "No cmocka usable with" "$tmp/configure.log" || {
	echo "FAIL: no warning that the tests are left out"
	cat "$tmp/configure.log"
	exit 1
}
"$cmake" --build "$tmp/b" -j 2 > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
fail=0
for lib in socket_wrapper socket_wrapper_noop nss_wrapper uid_wrapper resolv_wrapper; do
	f=$(find "$tmp/b/src" -name "lib$lib.so" | head -1)
	if [ -z "$f" ]; then
		echo "FAIL: lib$lib.so not built"
		fail=1
		continue
	fi
	needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	echo "lib$lib.so needs: $needed"
	case " $needed " in
	*" libc.so "*) ;;
	*) echo "FAIL: lib$lib.so does not need musl's libc.so"; fail=1 ;;
	esac
	if readelf -d "$f" | grep -q "libc\.so\.6"; then
		echo "FAIL: lib$lib.so needs glibc's libc.so.6"
		fail=1
	fi
done
[ $fail = 0 ] && echo "ok: musl-gcc alone builds the libraries, against musl's libc"
exit $fail
