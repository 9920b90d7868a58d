#!/bin/sh
# test_host_caps.sh SOURCE-DIR NO_IA32: tools/host-caps, which tools/test
# asks what the host can run before each phase that a host may lack.
#   - i686: on a host whose kernel refuses 32-bit programs (made so by
#     no_ia32, a seccomp filter that kills any i386 system call) the probe
#     says so in one line naming the cause, exit 1; without the filter it
#     answers what a 32-bit program really does here.
#   - sanitizers: nothing, or the prefix "setarch ARCH -R", exit 0; or one
#     line and exit 1; the prefix it gives runs a sanitizer program.
#   - user: a user that does not exist is one line and exit 1; as root,
#     nobody and the test account can be run as, and so can an account
#     whose group has another name and one whose group has its own
#     (made with nss_wrapper, so that nothing depends on what this
#     machine's earlier runs left).
#   - a bad call: exit 2.
set -u
src=$1
no_ia32=$2
caps=$src/tools/host-caps
fail=0
check() { # WHAT CONDITION...
	what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

out=$("$caps" i686)
rc=$?
if [ $rc = 3 ]; then
	echo "skip: $out"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'int main(void) { return 42; }\n' > "$tmp/p.c"
gcc -m32 -o "$tmp/p32" "$tmp/p.c"
"$tmp/p32" 2> /dev/null
really=$?
if [ $really = 42 ]; then
	check "this host runs 32-bit programs: the probe says yes, silently" [ $rc = 0 ] && [ -z "$out" ]
else
	check "this host runs no 32-bit program: the probe says no" [ $rc = 1 ]
fi
out=$("$no_ia32" "$caps" i686)
rc=$?
check "under no_ia32 the probe answers 1 (got $rc)" [ $rc = 1 ]
check "... in one line naming the cause: '$out'" [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]
case $out in *"does not run 32-bit"*) check "... the kernel" true ;; *) check "... the kernel" false ;; esac
("$no_ia32" "$tmp/p32") 2> /dev/null
check "under no_ia32 a 32-bit program is killed" [ $? != 42 ]
"$no_ia32" sh -c 'exit 7'
check "under no_ia32 64-bit programs run" [ $? = 7 ]

out=$("$caps" sanitizers)
rc=$?
case $rc in
0)
	check "sanitizers: no prefix, or setarch -R: '$out'" \
		sh -c '[ -z "$1" ] || [ "$1" = "setarch $(uname -m) -R" ]' - "$out"
	printf '#include <stdio.h>\nint main(void){puts("hi");return 0;}\n' > "$tmp/s.c"
	cc -fsanitize=thread -o "$tmp/s" "$tmp/s.c"
	check "the prefix runs a TSan program" [ "$($out "$tmp/s")" = hi ]
	;;
1) check "sanitizers: one line saying why not: '$out'" [ -n "$out" ] ;;
*) check "sanitizers: exit 0, 1 or 3 (got $rc)" [ $rc = 3 ] ;;
esac

out=$("$caps" user cwrap-no-such-user-x)
check "an unknown user: exit 1, one line" [ $? = 1 ] && [ -n "$out" ]
if [ "$(id -u)" = 0 ]; then
	# The system's accounts as they are: nobody (Debian's has the group
	# nogroup), and the test account where tools/test made it.
	for u in nobody cwraptest; do
		id "$u" > /dev/null 2>&1 || continue
		"$caps" user "$u"
		check "as root, run as $u (group $(id -gn "$u"))" [ $? = 0 ]
	done
	# Accounts that need not exist here, from nss_wrapper's files: one
	# whose group has another name, one whose group has its own name.
	cat > "$tmp/passwd" <<-'EOF'
		capsother:x:47101:47102:other group:/:/bin/false
		capssame:x:47103:47103:same group:/:/bin/false
	EOF
	cat > "$tmp/group" <<-'EOF'
		capsgroup:x:47102:
		capssame:x:47103:
	EOF
	# (a copy of the library that those users may read: the build tree
	# may be in root's home, which they cannot enter)
	chmod 755 "$tmp"
	cp "$CWRAP_NSS_WRAPPER_LIB" "$tmp/libnss_wrapper.so"
	chmod 755 "$tmp/libnss_wrapper.so"
	for u in capsother capssame; do
		out=$(LD_PRELOAD="${CWRAP_PRELOAD_PREFIX:-}$tmp/libnss_wrapper.so" \
			NSS_WRAPPER_PASSWD=$tmp/passwd NSS_WRAPPER_GROUP=$tmp/group \
			ASAN_OPTIONS=detect_leaks=0 "$caps" user "$u")
		check "as root, run as $u (nss_wrapper's files): '$out'" [ $? = 0 ]
	done
fi
"$caps" bogus 2> /dev/null
check "a bad call exits 2" [ $? = 2 ]
exit $fail
