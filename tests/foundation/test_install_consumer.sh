#!/bin/sh
# test_install_consumer.sh CMAKE BUILD-DIR CONSUMER-SOURCE-DIR
# cmake --install into a temporary prefix, check every artifact, then build
# and test a consumer project against it with find_package and pkg-config.
set -eu
cmake=$1
build=$2
consumer=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log"

fail() { echo "FAIL: $*"; exit 1; }

libdir=$(cd "$prefix" && ls -d lib lib64 lib/* 2>/dev/null | while read -r d; do
	[ -e "$prefix/$d/libsocket_wrapper.so" ] && echo "$d"; done | head -n 1)
[ -n "$libdir" ] || fail "libsocket_wrapper.so not installed under $prefix"
libdir=$prefix/$libdir

for lib in socket_wrapper socket_wrapper_noop nss_wrapper uid_wrapper resolv_wrapper priv_wrapper; do
	[ -L "$libdir/lib$lib.so" ] || fail "lib$lib.so (unversioned link) missing"
	[ -e "$libdir/lib$lib.so.0" ] || fail "lib$lib.so.0 (SONAME) missing"
	soname=$(objdump -p "$libdir/lib$lib.so" | awk '$1 == "SONAME" { print $2 }')
	[ "$soname" = "lib$lib.so.0" ] || fail "lib$lib.so has SONAME '$soname'"
	pc=$libdir/pkgconfig/$lib.pc
	[ -f "$pc" ] || fail "$pc missing"
	got=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --libs "$lib" | sed "s/ *$//")
	if [ "$lib" = socket_wrapper_noop ]; then
		want="-L$libdir -l$lib"  # linked, not preloaded
	else
		want=$libdir/lib$lib.so
	fi
	[ "$got" = "$want" ] || fail "pkg-config --libs $lib = '$got', want '$want'"
	[ -f "$libdir/cmake/$lib/$lib-config.cmake" ] || fail "$lib-config.cmake missing"
	[ -f "$libdir/cmake/$lib/$lib-config-version.cmake" ] || fail "$lib-config-version.cmake missing"
done
[ -f "$prefix/include/socket_wrapper.h" ] || fail "socket_wrapper.h not installed"

# The versions reported (pkg-config, the library file's version after
# the SONAME; the CMake config by the consumer's find_package below) are
# at least what Samba's tree asks of system wrappers.
for req in socket_wrapper:1.5.2 nss_wrapper:1.1.16 uid_wrapper:1.3.1 \
	resolv_wrapper:1.1.8 pam_wrapper:1.1.8; do
	lib=${req%%:*}
	min=${req#*:}
	[ -e "$libdir/lib$lib.so" ] || [ "$lib" != pam_wrapper ] || continue
	PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --atleast-version="$min" "$lib" ||
		fail "pkg-config --atleast-version=$min $lib refused (version $(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion "$lib"))"
	file=$(readlink -f "$libdir/lib$lib.so.0")
	v=${file##*.so.}
	[ "$(printf '%s\n%s\n' "$min" "$v" | sort -V | head -n 1)" = "$min" ] ||
		fail "lib$lib.so.0 is $file, below $min"
done

# pam_wrapper, where it is built: the library, its modules (pkg-config's
# `modules`), libpamtest (linked: -lpamtest) with its header, and pypamtest
# where python3 finds it under the prefix.
if [ -e "$libdir/libpam_wrapper.so" ]; then
	for lib in pam_wrapper pamtest; do
		[ -L "$libdir/lib$lib.so" ] || fail "lib$lib.so (unversioned link) missing"
		soname=$(objdump -p "$libdir/lib$lib.so" | awk '$1 == "SONAME" { print $2 }')
		[ "$soname" = "lib$lib.so.0" ] || fail "lib$lib.so has SONAME '$soname'"
		[ -f "$libdir/cmake/$lib/$lib-config.cmake" ] || fail "$lib-config.cmake missing"
	done
	export PKG_CONFIG_PATH=$libdir/pkgconfig
	[ "$(pkg-config --libs pam_wrapper | sed 's/ *$//')" = "$libdir/libpam_wrapper.so" ] ||
		fail "pkg-config --libs pam_wrapper = '$(pkg-config --libs pam_wrapper)'"
	[ "$(pkg-config --variable=modules pam_wrapper)" = "$libdir/pam_wrapper" ] ||
		fail "pkg-config --variable=modules pam_wrapper = '$(pkg-config --variable=modules pam_wrapper)'"
	[ "$(pkg-config --libs libpamtest | sed 's/ *$//')" = "-L$libdir -lpamtest" ] ||
		fail "pkg-config --libs libpamtest = '$(pkg-config --libs libpamtest)'"
	unset PKG_CONFIG_PATH
	for m in pam_matrix pam_get_items pam_set_items pam_chatty; do
		[ -f "$libdir/pam_wrapper/$m.so" ] || fail "$libdir/pam_wrapper/$m.so not installed"
	done
	[ -f "$prefix/include/libpamtest.h" ] || fail "libpamtest.h not installed"
	for page in pam_wrapper.1 pam_matrix.8 pam_get_items.8 pam_set_items.8 pam_chatty.8; do
		if [ -f "$CWRAP_SOURCE_DIR/doc/$page" ]; then
			[ -f "$prefix/share/man/man${page##*.}/$page" ] || fail "man page $page not installed"
		fi
	done
	py=$(ls -d "$prefix"/lib/python3*/*-packages 2> /dev/null | head -n 1)
	if [ -n "$py" ]; then
		out=$(cd /tmp && PYTHONPATH=$py LD_PRELOAD=$CWRAP_PRELOAD_PREFIX "${CWRAP_PYTHON:-python3}" -c \
			'import pypamtest, sys; sys.stdout.write(pypamtest.__file__)') ||
			fail "pypamtest installed in $py is not imported by python3"
		case $out in "$py"/pypamtest.*) ;; *) fail "python3 imported pypamtest from $out" ;; esac
	fi
fi
for page in socket_wrapper nss_wrapper uid_wrapper resolv_wrapper priv_wrapper; do
	if [ -f "$CWRAP_SOURCE_DIR/doc/$page.1" ]; then
		[ -f "$prefix/share/man/man1/$page.1" ] || fail "man page $page.1 not installed"
	fi
done

# nss_wrapper.pl in bin/, changing the files the installed library reads
[ -x "$prefix/bin/nss_wrapper.pl" ] || fail "bin/nss_wrapper.pl not installed (executable)"
: > "$tmp/passwd"
: > "$tmp/group"
"$prefix/bin/nss_wrapper.pl" --path "$tmp/passwd" --type passwd --action add --name pl_user ||
	fail "the installed nss_wrapper.pl cannot add a user"
# (the system's getent loads this build's library only where it is of
# the same architecture and C library)
if [ -z "${CWRAP_FOREIGN_PROGRAMS:-}" ]; then
	got=$(LD_PRELOAD="${CWRAP_PRELOAD_PREFIX:-}$libdir/libnss_wrapper.so" \
		NSS_WRAPPER_PASSWD="$tmp/passwd" NSS_WRAPPER_GROUP="$tmp/group" \
		getent passwd pl_user | cut -d: -f1,3)
	[ "$got" = "pl_user:1000" ] || fail "getent passwd pl_user after nss_wrapper.pl: '$got'"
fi
grep -q '^pl_user:x:1000:' "$tmp/passwd" || fail "nss_wrapper.pl wrote: $(cat "$tmp/passwd")"

# The consumer is built for the same architecture as the libraries.
PKG_CONFIG_PATH=$libdir/pkgconfig "$cmake" -S "$consumer" -B "$tmp/build" \
	${CWRAP_TOOLCHAIN_FILE:+-DCMAKE_TOOLCHAIN_FILE="$CWRAP_TOOLCHAIN_FILE"} \
	-DCMAKE_PREFIX_PATH="$prefix" > "$tmp/configure.log" 2>&1 ||
	{ cat "$tmp/configure.log"; fail "consumer configure"; }
grep "SOCKET_WRAPPER_LIBRARY=$libdir/libsocket_wrapper.so" "$tmp/configure.log" > /dev/null ||
	{ cat "$tmp/configure.log"; fail "SOCKET_WRAPPER_LIBRARY not set to the installed library"; }
"$cmake" --build "$tmp/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "consumer build"; }

# A version the installed package cannot satisfy is refused.
cat > "$tmp/toonew.cmake" <<EOT
cmake_minimum_required(VERSION 3.18)
project(toonew NONE)
find_package(socket_wrapper 99.0 QUIET)
if(socket_wrapper_FOUND)
  message(FATAL_ERROR "version 99.0 accepted")
endif()
EOT
mkdir -p "$tmp/toonew"
cp "$tmp/toonew.cmake" "$tmp/toonew/CMakeLists.txt"
"$cmake" -S "$tmp/toonew" -B "$tmp/toonew/b" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/toonew.log" 2>&1 ||
	{ cat "$tmp/toonew.log"; fail "find_package(socket_wrapper 99.0) was not refused"; }

(cd "$tmp/build" && ctest --output-on-failure) || fail "consumer tests"
echo "ok: installed to $prefix and consumed with find_package and pkg-config"
