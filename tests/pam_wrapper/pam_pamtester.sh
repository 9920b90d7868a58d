#!/bin/bash
# pamtester (Debian's, a real PAM application using libpam's misc_conv)
# under pam_wrapper with pam_matrix answering: authentication, account,
# sessions and a password change through its conversation, as an
# ordinary user, from a service directory of our own.
set -euo pipefail
if ! command -v pamtester > /dev/null; then
	echo "SKIP: pamtester is not installed (tools/deps installs it)"
	exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-pam-pamtester-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
mods=$CWRAP_PAM_MODULE_DIR
mkdir services
cat > services/cwrap-login << EOT
auth     required $mods/pam_matrix.so passdb=$dir/passdb verbose
auth     required $mods/pam_get_items.so
account  required $mods/pam_matrix.so passdb=$dir/passdb
password required $mods/pam_matrix.so passdb=$dir/passdb
session  required $mods/pam_matrix.so passdb=$dir/passdb
EOT
printf 'auth required pam_deny.so\naccount required pam_deny.so\n' > services/other
printf 'alice:secret:cwrap-login\nbob:pw:elsewhere\n' > passdb
export LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}$CWRAP_PAM_WRAPPER_LIB"
export PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR=$dir/services
fail=0

run() { # EXPECTED-EXIT EXPECTED-OUTPUT STDIN pamtester-ARGS...
	local want_rc=$1 want=$2 input=$3 out rc=0
	shift 3
	echo "\$ printf '$input' | pamtester $*"
	out=$(printf "$input" | pamtester "$@" 2> stderr.txt) || rc=$?
	echo "$out"
	cat stderr.txt
	if [ "$rc" -ne "$want_rc" ] || [ "$out" != "$want" ]; then
		echo "FAIL: expected exit $want_rc and:"
		echo "$want"
		fail=1
	fi
}

run 0 "Authentication succeeded
pamtester: successfully authenticated
pamtester: account management done.
pamtester: successfully opened a session
pamtester: session has successfully been closed." 'secret\n' \
	-I rhost=client.example cwrap-login alice \
	authenticate acct_mgmt open_session close_session
grep -q '^Password: ' stderr.txt || { echo "FAIL: no password prompt"; fail=1; }

# (misc_conv prints error messages on stderr, information on stdout)
run 1 "" 'wrong\n' cwrap-login alice authenticate
grep -q '^Password: Authentication failed$' stderr.txt || { echo "FAIL: no error message"; fail=1; }
grep -q 'pamtester: Authentication failure' stderr.txt || { echo "FAIL: no failure"; fail=1; }

# bob's service is another one: authenticated, refused by the account
run 1 "Authentication succeeded
pamtester: successfully authenticated" 'pw\n' cwrap-login bob authenticate acct_mgmt
grep -q 'pamtester: Permission denied' stderr.txt || { echo "FAIL: no account refusal"; fail=1; }

# a password change through the conversation rewrites the file
run 0 "pamtester: authentication token altered successfully." \
	'secret\nn3w\nn3w\n' cwrap-login alice chauthtok
for p in 'Old password: ' 'New Password :' 'Verify New Password :'; do
	grep -qF "$p" stderr.txt || { echo "FAIL: no prompt '$p'"; fail=1; }
done
[ "$(cat passdb)" = "alice:n3w:cwrap-login
bob:pw:elsewhere" ] || { echo "FAIL: passdb is now:"; cat passdb; fail=1; }
run 0 "Authentication succeeded
pamtester: successfully authenticated" 'n3w\n' cwrap-login alice authenticate

# a module that cannot be loaded: libpam's line carries dlerror()'s text,
# which a dynamic linker call made before the line is formatted would free
# (a fresh process: nothing of the wrapper bound yet)
echo "auth required $dir/nosuch/pam_nosuch.so" > services/broken
run 1 "" 'x\n' broken alice authenticate
grep -qF "unable to dlopen($dir/nosuch/pam_nosuch.so): $dir/nosuch/pam_nosuch.so: cannot open shared object file: No such file or directory" stderr.txt ||
	{ echo "FAIL: the dlopen error is not in the log line"; fail=1; }
rm services/broken

# no file left beside the password file
left=$(ls -A "$dir" | grep -v -x -e services -e passdb -e stderr.txt || true)
[ -z "$left" ] || { echo "FAIL: left in the directory: $left"; fail=1; }
[ "$fail" = 0 ] && echo "ok: pamtester under pam_wrapper as $(id -un)"
exit "$fail"
