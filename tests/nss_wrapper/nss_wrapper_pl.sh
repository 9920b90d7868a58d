#!/bin/bash
# nss_wrapper.pl (NSS_WRAPPER_PL: the script as installed in bin/): users,
# groups and members added and deleted in the passwd and group files with
# both calling conventions (--path with addmember/delmember, and Samba's
# --passwd_path/--group_path with --type member), what getent and id see
# under libnss_wrapper.so afterwards; every bad call exits 1 with one line
# naming what is wrong and leaves the file as it was; the file is replaced
# by rename (a new inode, its mode kept, nothing left beside it); a call
# waits for another's lock; concurrent calls from many processes lose
# nothing.
set -euo pipefail
. "$CWRAP_SOURCE_DIR/tests/common/wait.sh"
PL=${NSS_WRAPPER_PL:?}
dir=$(mktemp -d "${TMPDIR:-/tmp}/cwrap-nsspl-XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export LD_LIBRARY_PATH=${CWRAP_LIBRARY_PATH}
PRE="${CWRAP_PRELOAD_PREFIX:-}libnss_wrapper.so"
export NSS_WRAPPER_PASSWD=$dir/passwd NSS_WRAPPER_GROUP=$dir/group
fail=0

bad() { echo "FAIL: $*"; fail=1; }
# files in the directory but the two and this test's err.txt
others() { ls | grep -v -x -e passwd -e group -e err.txt | tr '\n' ' ' || true; }
# expect WANT COMMAND...: what the command prints under nss_wrapper
expect() {
	local want=$1 out
	shift
	out=$(LD_PRELOAD="$PRE" "$@" 2>&1) || true
	[ "$out" = "$want" ] && echo "ok: $* -> $(printf '%s' "$out" | head -n 1)" ||
		bad "$*: printed '$out', want '$want'"
}
# refused PATTERN ARGS...: exit 1, one line on stderr matching PATTERN,
# nothing on stdout, the files unchanged
refused() {
	local pattern=$1 out err rc=0 before
	shift
	before=$(cat passwd group)
	out=$("$PL" "$@" 2> err.txt) || rc=$?
	err=$(cat err.txt)
	if [ "$rc" != 1 ] || [ -n "$out" ] || [ "$(wc -l < err.txt)" != 1 ] ||
		! grep -q -- "^nss_wrapper.pl: .*$pattern" err.txt; then
		bad "nss_wrapper.pl $*: exit $rc, stdout '$out', stderr '$err' (want 1 and one line with '$pattern')"
	elif [ "$(cat passwd group)" != "$before" ]; then
		bad "nss_wrapper.pl $*: changed a file"
	else
		echo "ok: refused: $err"
	fi
}

printf 'root:x:0:0:root:/root:/bin/sh\nbob:x:1000:1000:Bob:/home/bob:/bin/sh\n' > passwd
printf 'root:x:0:\nusers:x:1000:bob\n' > group
chmod 0640 passwd
ino=$(stat -c %i passwd)

# --path convention
"$PL" --path passwd --type passwd --action add --name alice
expect "alice:x:1001:65534:alice gecos:/nonexistent:/bin/false" getent passwd alice
[ "$(stat -c %i passwd)" != "$ino" ] && [ "$(stat -c %a passwd)" = 640 ] &&
	echo "ok: passwd replaced (a new inode), its mode kept" ||
	bad "passwd not replaced by rename with its mode: inode $(stat -c %i passwd) (was $ino), mode $(stat -c %a passwd)"
"$PL" --path group --type group --action add --name staff
"$PL" --path group --type group --action add --name admins --gid 3000
"$PL" --path group --type group --action addmember --name staff --member alice \
	--passwd_path passwd
"$PL" --path group --type group --action addmember --name staff --member bob
expect "staff:x:1001:alice,bob" getent group staff
expect "admins:x:3000:" getent group admins
"$PL" --path passwd --type passwd --action add --name carol --uid 2000 --gid 3000
expect "uid=2000(carol) gid=3000(admins) groups=3000(admins)" id carol
expect "uid=1001(alice) gid=65534 groups=65534,1001(staff)" id alice
"$PL" --path group --type group --action delmember --name staff --member alice
expect "staff:x:1001:bob" getent group staff
"$PL" --path passwd --type passwd --action delete --name carol
"$PL" --path group --type group --action delete --name admins
expect "" getent passwd carol
expect "" getent group admins

# Samba's convention
"$PL" --type passwd --action add --name dave --gid 1000 --passwd_path passwd
expect "dave:x:1002:1000:dave gecos:/nonexistent:/bin/false" getent passwd dave
"$PL" --type group --action add --name devs --group_path group
"$PL" --type member --action add --name devs --member dave --group_path group \
	--passwd_path passwd
expect "devs:x:1002:dave" getent group devs
expect "uid=1002(dave) gid=1000(users) groups=1000(users),1002(devs)" id dave
"$PL" --type member --action delete --name devs --member dave --group_path group
"$PL" --type group --action delete --name devs --group_path group
"$PL" --type passwd --action delete --name dave --passwd_path passwd
expect "" getent passwd dave
# the freed id is the next one's
"$PL" --type passwd --action add --name erin --passwd_path passwd
expect "erin:x:1002:65534:erin gecos:/nonexistent:/bin/false" getent passwd erin
[ "$(others)" = "" ] && echo "ok: nothing left beside the files" || bad "files left: $(others)"

# bad calls
refused "Unknown option: bogus" --bogus
refused "unexpected argument 'extra'" --path passwd --type passwd --action add --name x extra
refused "--type is missing" --path passwd --action add --name x
refused "--action is missing" --path passwd --type passwd --name x
refused "--name is missing" --path passwd --type passwd --action add
refused "--type 'users' is not passwd, group or member" --path passwd --type users --action add --name x
refused "--action 'rename' is not add, delete" --path passwd --type passwd --action rename --name x
refused "needs --path or --passwd_path" --type passwd --action add --name x
refused "needs --path or --group_path" --type member --action add --name staff --member bob
refused "nosuch: No such file or directory" --path nosuch --type passwd --action add --name x
refused "alice is already in passwd" --path passwd --type passwd --action add --name alice
refused "staff is already in group" --group_path group --type group --action add --name staff
refused "no passwd entry zed in passwd" --path passwd --type passwd --action delete --name zed
refused "no group nogroup in group" --path group --type group --action addmember --name nogroup --member bob
refused "bob is already a member of staff" --path group --type group --action addmember --name staff --member bob
refused "alice is not a member of staff" --path group --type group --action delmember --name staff --member alice
refused "no user zed in passwd" --path group --type group --action addmember --name staff --member zed --passwd_path passwd
refused "--member is missing" --path group --type group --action addmember --name staff
refused "--name 'a:b' is empty or holds" --path passwd --type passwd --action add --name a:b
refused "--member 'x,y' is empty or holds" --path group --type group --action addmember --name staff --member x,y
refused "--action addmember needs --type group" --path passwd --type passwd --action addmember --name bob --member x
refused "id 1000 is already used in passwd" --path passwd --type passwd --action add --name x --uid 1000
refused "--gid 'ten' is not an id" --path group --type group --action add --name x --gid ten
refused "--path passwd and --passwd_path other name different files" --path passwd --passwd_path other --type passwd --action add --name x

# a call waits while another holds the lock: it is blocked on the lock
# (a waiter in /proc/locks) and has changed nothing, until the holder
# lets go (told by the file "release", however long that takes)
perl -e 'use Fcntl qw(:flock); open(my $f, "<", "group") or die; flock($f, LOCK_EX) or die;
	open(my $s, ">", "locked") or die; close($s);
	select(undef, undef, undef, 0.05) until -e "release";' &
holder=$!
wait_until test -e locked || bad "the lock holder never took the lock"
"$PL" --path group --type group --action add --name late &
late=$!
blocked() { grep -q -E "^[0-9]+: +-> +FLOCK +ADVISORY +WRITE +$late " /proc/locks; }
if wait_until blocked; then
	echo "ok: the call waits for the lock"
else
	bad "the call did not wait for the lock"
fi
grep -q '^late:' group && bad "the call added its group while the lock was held"
: > release
wait "$holder"
wait "$late" || bad "the call that waited for the lock failed"
rm -f locked release
expect "late:x:1002:" getent group late

# concurrent calls: 30 users and 30 members from 30 processes at once
pids=()
for i in $(seq 1 30); do
	("$PL" --path passwd --type passwd --action add --name "u$i" &&
		"$PL" --type member --action add --name staff --member "u$i" --group_path group) &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || bad "a concurrent call failed"; done
n=$(LD_PRELOAD="$PRE" getent passwd | grep -c '^u[0-9]*:' || true)
ids=$(LD_PRELOAD="$PRE" getent passwd | cut -d: -f3 | sort | uniq -d)
members=$(LD_PRELOAD="$PRE" getent group staff | cut -d: -f4 | tr ',' '\n' | grep -c '^u' || true)
[ "$n" = 30 ] && [ -z "$ids" ] && [ "$members" = 30 ] &&
	echo "ok: 30 concurrent adds and member adds: all there, no id twice" ||
	bad "concurrent: $n users (want 30), ids twice: '$ids', $members members (want 30)"
[ "$(others)" = "" ] && echo "ok: nothing left after the concurrent calls" || bad "files left: $(others)"

[ "$fail" = 0 ] || exit 1
echo "ok: nss_wrapper.pl"
