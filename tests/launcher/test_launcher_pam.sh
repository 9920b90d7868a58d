#!/bin/sh
# cwrap --pam DIR: pam_wrapper preloaded and enabled with DIR as its
# service directory. Until libpam_wrapper.so is built beside the other
# libraries, the option must say so in one line (status 125), and the
# test is reported as skipped (status 77).
set -u
C=$CWRAP_LAUNCHER
P=$CWRAP_TEST_BIN/launcher_probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TMPDIR=$tmp
export TMPDIR
mkdir "$tmp/services"
printf 'auth required pam_permit.so\n' > "$tmp/services/login"
# The libraries' directory, from where cwrap takes uid_wrapper.
pre=$("$C" --no-socket --with uid --print-env | sed -n "s/^export LD_PRELOAD='\(.*\)'\$/\1/p")
last=${pre##*[: ]}
libdir=${last%/libuid_wrapper.so}
[ "$libdir" != "$last" ] || { echo "FAIL: cannot tell the libraries' directory"; exit 1; }

if [ ! -e "$libdir/libpam_wrapper.so" ]; then
	"$C" --pam "$tmp/services" "$P" exit 0 2> "$tmp/err"
	rc=$?
	want="cwrap: --pam needs libpam_wrapper.so, not found in $libdir (No such file or directory)"
	if [ $rc != 125 ] || [ "$(cat "$tmp/err")" != "$want" ]; then
		echo "FAIL: --pam without the library: status $rc, stderr:"
		cat "$tmp/err"
		echo "(want: $want)"
		exit 1
	fi
	echo "ok: without libpam_wrapper.so, --pam says: $want"
	[ -z "$(ls -A "$tmp" | grep -v '^services$\|^err$')" ] || { echo "FAIL: left $(ls "$tmp")"; exit 1; }
	echo "SKIP: libpam_wrapper.so is not built in $libdir: --pam not tested further"
	exit 77
fi

failed=0
out=$("$C" --pam "$tmp/services" "$P" env PAM_WRAPPER PAM_WRAPPER_SERVICE_DIR)
want="PAM_WRAPPER=1
PAM_WRAPPER_SERVICE_DIR=$(cd "$tmp/services" && pwd -P)"
[ "$out" = "$want" ] && echo "ok: --pam sets PAM_WRAPPER and PAM_WRAPPER_SERVICE_DIR" ||
	{ echo "FAIL: --pam: $out"; failed=1; }
out=$("$C" --pam "$tmp/services" "$P" enabled pam_wrapper_enabled)
[ "$out" = "pam_wrapper_enabled 1" ] && echo "ok: pam_wrapper is preloaded and enabled" ||
	{ echo "FAIL: $out"; failed=1; }
out=$("$C" --with pam "$P" enabled pam_wrapper_enabled)
echo "(--with pam, no service directory: $out)"
out=$("$C" --debug 1 --pam "$tmp/services" "$P" env PAM_WRAPPER_DEBUGLEVEL 2> /dev/null)
[ "$out" = "PAM_WRAPPER_DEBUGLEVEL=1" ] && echo "ok: --debug reaches pam_wrapper" ||
	{ echo "FAIL: --debug: $out"; failed=1; }
exit $failed
