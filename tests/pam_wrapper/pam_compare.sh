#!/bin/bash
# Our modules against upstream's (Debian's libpam-wrapper): the same
# scenarios, one PAM transaction each (pam_probe, under our pam_wrapper),
# with upstream's pam_matrix, pam_get_items, pam_set_items and pam_chatty
# and with ours, must print the same transcripts: prompts, messages and
# their styles, results, the PAM environment, the password file after.
# Left out, as documented in pam_matrix(8) and pam_chatty(8): the values
# of PAM_AUTHTOK and PAM_OLDAUTHTOK that pam_matrix leaves (ours: what was
# typed; upstream's: empty), password files with comments or bad lines
# (upstream's module crashes on them), num_lines outside 3..16 (upstream
# clamps it), setcred of pam_chatty (upstream's has none) and a NULL new
# password ("!" after the old one: upstream's answers PAM_SUCCESS and
# changes nothing, ours PAM_AUTHINFO_UNAVAIL).
set -euo pipefail
upstream=${CWRAP_UPSTREAM_PAM_MODULE_DIR:-/usr/lib/$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)/pam_wrapper}
if [ ! -f "$upstream/pam_matrix.so" ]; then
	echo "SKIP: upstream's modules are not installed ($upstream/pam_matrix.so; Debian package libpam-wrapper, tools/deps installs it)"
	exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-pam-compare-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export LD_PRELOAD="${CWRAP_PRELOAD_PREFIX}$CWRAP_PAM_WRAPPER_LIB"
export PAM_WRAPPER=1

services() { # MODULE-DIR: the service files, naming that directory
	local m=$1 s=$dir/services-$2
	mkdir -p "$s"
	for t in auth account password session; do
		echo "$t required $m/pam_matrix.so passdb=$dir/passdb"
	done > "$s/plain"
	for t in auth account password session; do
		echo "$t required $m/pam_matrix.so passdb=$dir/passdb verbose"
	done > "$s/verbose"
	for t in auth account password session; do
		echo "$t required $m/pam_matrix.so echo passdb=$dir/passdb"
	done > "$s/echo"
	for t in auth account password session; do
		echo "$t required $m/pam_matrix.so"
	done > "$s/envdb"
	for t in auth account password session; do
		echo "$t required $m/pam_matrix.so passdb=$dir/nonexistent"
	done > "$s/nodb"
	for t in auth account password session; do
		echo "$t required $m/pam_set_items.so"
		echo "$t required $m/pam_get_items.so"
	done > "$s/items"
	for t in auth account password session; do
		echo "$t required $m/pam_matrix.so passdb=$dir/passdb"
		echo "$t required $m/pam_get_items.so"
	done > "$s/matrix_items"
	for o in "" "info" "error" "num_lines=5 info error" "error info num_lines=16" \
		"num_lines=3 error" "num_lines=7" "bogus info"; do
		echo "auth required $m/pam_chatty.so $o"
	done > "$s/chatty"
	echo "account required $m/pam_chatty.so info" > "$s/chatty_acct"
}
services "$upstream" upstream
services "$CWRAP_PAM_MODULE_DIR" ours

scenarios() {
	cat << 'EOT'
plain alice secret auth setcred acct open close
plain alice wrong auth acct
plain bob pw auth acct open close
plain carol x auth setcred acct open close
plain - x auth
plain - x setcred acct open close chauthtok
plain alice secret,new,new chauthtok
plain alice secret,new,other chauthtok
plain alice wrong,a,a chauthtok
plain carol x chauthtok
plain bob pw,n1,n1 chauthtok:32
plain alice secret setcred:4 setcred:8 setcred:16
plain alice _ auth
plain eve e auth acct
plain dave d1 auth acct
plain dave d2 auth acct
verbose alice secret auth acct
verbose alice wrong auth
verbose alice secret,n,n chauthtok
verbose alice nope chauthtok
echo alice secret auth
plain alice ! auth
verbose alice ! auth
echo alice ! auth
plain alice ! chauthtok
verbose alice ! chauthtok
plain alice secret,new,! chauthtok
echo alice secret,n,n chauthtok
envdb alice secret auth setcred acct open close
nodb alice secret auth setcred acct open close chauthtok
matrix_items alice secret auth acct open close
matrix_items alice secret,n,n chauthtok
items alice _ auth setcred acct open close chauthtok
chatty alice _ auth
chatty_acct alice _ acct
EOT
}

run_all() { # upstream|ours
	export PAM_WRAPPER_SERVICE_DIR=$dir/services-$1
	while read -r svc user answers ops; do
		printf 'alice:secret:plain\nbob:pw:elsewhere\neve:e:plain:extra\ndave:d1:plain\ndave:d2:other\n' > passdb
		echo "### $svc $user $answers $ops"
		# shellcheck disable=SC2086
		PAM_MATRIX_PASSWD=$dir/passdb PAM_USER=setuser PAM_RHOST=rhost.example \
			PAM_TTY=tty7 PAM_RUSER=ruser PAM_AUTHTOK=tok PAM_OLDAUTHTOK=oldtok \
			"$CWRAP_TEST_BIN/pam_probe" "$svc" "$user" "$answers" $ops 2> /dev/null ||
			echo "(exit status $?)"
		echo "passdb: $(tr '\n' '|' < passdb)"
	done < <(scenarios) | awk '
		/^### / { svc = $2 }
		# (pam_matrix leaves these, see above)
		svc == "matrix_items" && /^  env PAM_(OLD)?AUTHTOK=/ { sub(/=.*/, "=...") }
		{ print }'
}

run_all upstream > upstream.txt
run_all ours > ours.txt
n=$(scenarios | wc -l)
for f in upstream ours; do
	if [ "$(grep -c '^start -> 0$' $f.txt)" != "$n" ]; then
		cat $f.txt
		echo "FAIL: not every scenario started a PAM transaction with $f's modules"
		exit 1
	fi
done
if ! diff -u upstream.txt ours.txt > diff.txt; then
	cat diff.txt
	echo "FAIL: our modules differ from upstream's (- upstream, + ours)"
	exit 1
fi
echo "ok: $(grep -c '^###' ours.txt) scenarios print the same with upstream's modules ($upstream) and ours"
