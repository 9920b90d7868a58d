#!/bin/sh
# test_install_cwrap.sh CMAKE BUILD-DIR: the family's package as a user
# gets it. cmake --install into a temporary prefix; the launcher, cwrap.pc,
# find_package(cwrap) and cwrap(1) are there; the installed launcher uses
# the installed libraries, also after the tree is moved or installed with
# DESTDIR; a CMake project (tests/launcher/consumer) built against it with
# find_package(cwrap) runs its cwrap_add_test() tests with ctest -j2 and
# leaves no socket directory behind; cwrap_add_test() refuses a bad or
# missing library when the test is declared; the Meson and Automake
# consumers of README (the launcher from `pkg-config --variable=launcher
# cwrap`) build and pass their tests.
set -eu
cmake=$1
build=$2
src=$CWRAP_SOURCE_DIR/tests/launcher/consumer
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
rt=${CWRAP_PRELOAD_PREFIX:-}
rt=${rt% } # the sanitizer runtime, in a sanitizer build

fail() {
	echo "FAIL: $*"
	exit 1
}
# preload_of LAUNCHER: the LD_PRELOAD it gives a fake root.
preload_of() {
	"$1" --dir "$tmp/net" --root --print-env | sed -n "s/^export LD_PRELOAD='\(.*\)'\$/\1/p"
}

"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log"
libdir=$(cd "$prefix" && ls -d lib lib64 lib/* 2> /dev/null | while read -r d; do
	[ -e "$prefix/$d/libsocket_wrapper.so" ] && echo "$d"; done | head -n 1)
[ -n "$libdir" ] || fail "libsocket_wrapper.so not installed under $prefix"
libdir=$prefix/$libdir

[ -x "$prefix/bin/cwrap" ] || fail "bin/cwrap not installed"
[ -x "$prefix/bin/nss_wrapper.pl" ] || fail "bin/nss_wrapper.pl not installed"
[ -f "$prefix/share/man/man1/cwrap.1" ] || fail "cwrap.1 not installed"
for f in cwrap-config.cmake cwrap-config-version.cmake cwrap-add-test.cmake; do
	[ -f "$libdir/cmake/cwrap/$f" ] || fail "$libdir/cmake/cwrap/$f not installed"
done
launcher=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --variable=launcher cwrap)
[ "$launcher" = "$prefix/bin/cwrap" ] ||
	fail "pkg-config --variable=launcher cwrap = '$launcher', want $prefix/bin/cwrap"
version=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion cwrap)
[ "$version" = "$("$launcher" --version | sed 's/^cwrap //')" ] ||
	fail "cwrap.pc version $version, cwrap --version $("$launcher" --version)"
echo "ok: installed: bin/cwrap, cwrap(1), cwrap.pc (launcher=$launcher, version $version), cmake/cwrap"

want="${rt:+$rt:}$libdir/libsocket_wrapper.so:$libdir/libuid_wrapper.so"
[ "$(preload_of "$launcher")" = "$want" ] ||
	fail "the installed launcher preloads '$(preload_of "$launcher")', want '$want'"
cp -a "$prefix" "$tmp/moved"
moved=$tmp/moved${libdir#"$prefix"}
want="${rt:+$rt:}$moved/libsocket_wrapper.so:$moved/libuid_wrapper.so"
[ "$(preload_of "$tmp/moved/bin/cwrap")" = "$want" ] ||
	fail "the moved launcher preloads '$(preload_of "$tmp/moved/bin/cwrap")', want '$want'"
DESTDIR=$tmp/dest "$cmake" --install "$build" --prefix /opt/cwrap > "$tmp/destdir.log"
staged=$tmp/dest/opt/cwrap${libdir#"$prefix"}
want="${rt:+$rt:}$staged/libsocket_wrapper.so:$staged/libuid_wrapper.so"
[ "$(preload_of "$tmp/dest/opt/cwrap/bin/cwrap")" = "$want" ] ||
	fail "the DESTDIR launcher preloads '$(preload_of "$tmp/dest/opt/cwrap/bin/cwrap")', want '$want'"
echo "ok: the launcher uses the libraries of its own tree (installed, moved, DESTDIR)"

# The CMake consumer; its tests' private directories go to $tmp/tmpdir.
"$cmake" -S "$src" -B "$tmp/build" \
	${CWRAP_TOOLCHAIN_FILE:+-DCMAKE_TOOLCHAIN_FILE="$CWRAP_TOOLCHAIN_FILE"} \
	-DCMAKE_PREFIX_PATH="$prefix" > "$tmp/configure.log" 2>&1 ||
	{ cat "$tmp/configure.log"; fail "consumer configure"; }
grep -q "CWRAP_LAUNCHER=$prefix/bin/cwrap\$" "$tmp/configure.log" ||
	{ cat "$tmp/configure.log"; fail "CWRAP_LAUNCHER not the installed launcher"; }
"$cmake" --build "$tmp/build" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "consumer build"; }
mkdir "$tmp/tmpdir"
(cd "$tmp/build" && TMPDIR=$tmp/tmpdir ctest -j2 --output-on-failure) || fail "consumer tests"
[ -z "$(ls -A "$tmp/tmpdir")" ] || fail "socket directories left: $(ls -A "$tmp/tmpdir")"
(cd "$tmp/build" && ctest -N) | grep -q "Total Tests: [1-9]" || fail "the consumer declared no test"
echo "ok: find_package(cwrap) and cwrap_add_test(): the consumer's tests pass, nothing left"
"$tmp/moved/bin/cwrap" --passwd "$src/passwd" --group "$src/group" "$tmp/build/probe" \
	user:bob=1000 "loaded:${moved#"$tmp/"}/libnss_wrapper.so=1" > /dev/null ||
	fail "the moved launcher does not run the consumer's program with its nss_wrapper"

# declare CMAKE-CODE PATTERN DESCRIPTION: a project that finds cwrap and
# runs CMAKE-CODE fails to configure with a message matching PATTERN.
n=0
declare() {
	n=$((n + 1))
	mkdir "$tmp/p$n"
	printf 'cmake_minimum_required(VERSION 3.18)\nproject(p NONE)\n%s\n' "$1" > "$tmp/p$n/CMakeLists.txt"
	if "$cmake" -S "$tmp/p$n" -B "$tmp/p$n/b" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/p$n.log" 2>&1; then
		cat "$tmp/p$n.log"
		fail "$3: configured"
	fi
	tr '\n' ' ' < "$tmp/p$n.log" | tr -s ' ' | grep -q -- "$2" ||
		{ cat "$tmp/p$n.log"; fail "$3: no message matching '$2'"; }
	echo "ok: refused: $3"
}
# find_package() inside a function: its variables stay there, but
# cwrap_add_test() works anywhere.
n=$((n + 1))
mkdir "$tmp/p$n"
printf '%s\n' 'cmake_minimum_required(VERSION 3.18)' 'project(p NONE)' 'enable_testing()' \
	'function(find_it)' '  find_package(cwrap REQUIRED)' 'endfunction()' 'find_it()' \
	'cwrap_add_test(NAME t COMMAND prog "a b")' > "$tmp/p$n/CMakeLists.txt"
"$cmake" -S "$tmp/p$n" -B "$tmp/p$n/b" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/p$n.log" 2>&1 ||
	{ cat "$tmp/p$n.log"; fail "find_package(cwrap) in a function"; }
grep -q "add_test(t \"$prefix/bin/cwrap\" \"--with\" \"socket\" \"--\" \"prog\" \"a b\")" "$tmp/p$n/b/CTestTestfile.cmake" ||
	{ cat "$tmp/p$n/b/CTestTestfile.cmake"; fail "find_package(cwrap) in a function: the test is not run by the launcher"; }
echo "ok: cwrap_add_test() where find_package(cwrap) ran in a function"
declare 'find_package(cwrap REQUIRED)
cwrap_add_test(NAME t COMMAND true WRAPPERS socket bogus)' \
	"cwrap_add_test(t): WRAPPERS bogus: not one of socket nss uid resolv pam priv" "WRAPPERS bogus"
declare 'find_package(cwrap REQUIRED)
cwrap_add_test(NAME t)' "cwrap_add_test: NAME and COMMAND are required" "no COMMAND"
declare 'find_package(cwrap 99 REQUIRED)' "compatible with requested version \"99\"" "find_package(cwrap 99)"
for lib in pam priv; do
	if [ ! -e "$libdir/lib${lib}_wrapper.so" ]; then
		declare "find_package(cwrap REQUIRED)
if(cwrap_${lib}_FOUND)
  message(FATAL_ERROR \"cwrap_${lib}_FOUND\")
endif()
cwrap_add_test(NAME t COMMAND true WRAPPERS $lib)" \
			"cwrap_add_test(t): WRAPPERS $lib: lib${lib}_wrapper.so is not installed in $libdir" \
			"WRAPPERS $lib (lib${lib}_wrapper.so not installed; find_package found cwrap without it)"
		declare "find_package(cwrap REQUIRED COMPONENTS $lib)" "component $lib: lib${lib}_wrapper.so is not installed in $libdir" \
			"find_package(cwrap COMPONENTS $lib) without lib${lib}_wrapper.so"
	fi
done

# Meson and Automake, with the launcher from cwrap.pc. They build with
# the system's compiler: not in builds for another word size or C
# library, whose libraries the system's programs cannot load.
if [ -n "${CWRAP_FOREIGN_PROGRAMS:-}" ]; then
	echo "SKIPPED: the Meson and Automake consumers (this build's libraries are not the system compiler's)"
	exit 0
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
if command -v meson > /dev/null; then
	timeout 120 meson setup "$tmp/meson" "$src" > "$tmp/meson.log" 2>&1 ||
		{ cat "$tmp/meson.log"; fail "meson setup"; }
	TMPDIR=$tmp/tmpdir timeout 120 meson test -C "$tmp/meson" --print-errorlogs > "$tmp/meson-test.log" 2>&1 ||
		{ cat "$tmp/meson-test.log"; fail "meson test"; }
	grep -q "^Ok: *2 *\$" "$tmp/meson-test.log" || { cat "$tmp/meson-test.log"; fail "meson test: not 2 ok"; }
	echo "ok: Meson: find_program(dependency('cwrap').get_variable(pkgconfig: 'launcher')), 2 tests pass"
else
	echo "SKIPPED: meson is not installed (tools/deps installs it)"
fi
if command -v autoreconf > /dev/null && command -v automake > /dev/null; then
	cp -r "$src" "$tmp/automake"
	(cd "$tmp/automake" && timeout 120 autoreconf -fi && timeout 60 ./configure &&
		TMPDIR=$tmp/tmpdir timeout 60 make check) \
		> "$tmp/automake.log" 2>&1 || { cat "$tmp/automake.log"; fail "automake consumer"; }
	grep -q "^# PASS: *1\$" "$tmp/automake.log" || { cat "$tmp/automake.log"; fail "make check: not 1 pass"; }
	echo "ok: Automake: PKG_CHECK_VAR([CWRAP], [cwrap], [launcher]), LOG_COMPILER = \$(CWRAP): make check passes"
else
	echo "SKIPPED: autoconf/automake are not installed (tools/deps installs them)"
fi
[ -z "$(ls -A "$tmp/tmpdir")" ] || fail "socket directories left: $(ls -A "$tmp/tmpdir")"
