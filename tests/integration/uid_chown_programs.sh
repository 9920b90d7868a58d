#!/bin/sh
# Real programs under uid_wrapper as fake root with UID_WRAPPER_FAKE_CHOWN=1:
#   - install -o/-g, install -d, chown -R, chgrp, tar --same-owner -x of an
#     archive tar made under the wrapper, rsync -a: the owners they give
#     are what stat, ls -ln and find -uid (each a new process under the
#     wrapper) report, for files, directories and symbolic links;
#   - the set-user-ID bit install sets after its chown stays;
#   - a process without the setting, or without the wrapper, sees the real
#     owner; a wrapped process that is not root gets EPERM, as from the
#     kernel.
set -eu
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PRELOAD="${CWRAP_PRELOAD_PREFIX}libuid_wrapper.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cd "$tmp"
fails=0
skipped=0
me="$(id -u):$(id -g)"

check() { # NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "ok: $1: $3"
	else
		echo "FAIL: $1: expected '$2', got '$3'"
		fails=$((fails + 1))
	fi
}

w() { # as fake root, with the setting
	env LD_PRELOAD="$PRELOAD" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 \
		UID_WRAPPER_FAKE_CHOWN=1 "$@"
}

owners() { # "path uid:gid" of everything below $1, sorted, under the wrapper
	(cd "$1" && w find . -printf '%p %U:%G %M\n' | sort)
}

echo data > src.txt

# install
w install -o 1234 -g 5678 -m 0644 src.txt inst.txt
check "install -o -g: stat" "1234:5678" "$(w stat -c %u:%g inst.txt)"
check "install -o -g: ls -ln" "1234 5678" "$(w ls -ln inst.txt | awk '{print $3, $4}')"
check "install -o -g: find -uid" "./inst.txt" "$(w find . -maxdepth 1 -uid 1234)"
check "install -o -g: find -gid" "./inst.txt" "$(w find . -maxdepth 1 -gid 5678)"
check "without the setting: the real owner" "$me" \
	"$(env LD_PRELOAD="$PRELOAD" UID_WRAPPER=1 UID_WRAPPER_ROOT=1 stat -c %u:%g inst.txt)"
check "without the wrapper: the real owner" "$me" "$(stat -c %u:%g inst.txt)"
w install -d -o 42 -g 43 instdir
check "install -d -o -g" "42:43" "$(w stat -c %u:%g instdir)"
w install -o 7 -g 8 -m 4755 src.txt setuid.bin
check "install -m 4755 -o: owner and mode" "7:8 4755" "$(w stat -c '%u:%g %a' setuid.bin)"

# chown -R and chgrp over a tree with a symbolic link
mkdir -p tree/a/b
echo 1 > tree/a/f1
echo 2 > tree/a/b/f2
ln -s f1 tree/a/link
w chown -R 2000:3000 tree
check "chown -R: nothing left with another uid" "" "$(w find tree ! -uid 2000)"
check "chown -R: nothing left with another gid" "" "$(w find tree ! -gid 3000)"
check "chown -R: the link itself" "2000:3000" "$(w stat -c %u:%g tree/a/link)"
check "chown -R: ls -ln" "2000 3000" "$(w ls -lnd tree/a/b | awk '{print $3, $4}')"
w chgrp 4000 tree/a/f1
check "chgrp" "2000:4000" "$(w stat -c %u:%g tree/a/f1)"
check "unwrapped find: all real" "" "$(find tree ! -user "$(id -u)")"

# tar: an archive made under the wrapper records the fake owners, and
# extracted under it they come back
mkdir -p src/d
echo a > src/d/a
echo b > src/b
chmod 444 src/b
ln -s b src/l
w chown 1001:1002 src/d/a
w chown 1003:1004 src/b
w chown -h 1005:1006 src/l
w chown 1007:1008 src/d
w chown 0:0 src
w tar -C src -c --numeric-owner -f a.tar .
check "tar -c under the wrapper records the fake owners" "1001/1002" \
	"$(tar -tvf a.tar --numeric-owner ./d/a | awk '{print $2}')"
mkdir dst
w tar -C dst --same-owner -xf a.tar
check "tar --same-owner -x: owners as in the source" "$(owners src)" "$(owners dst)"
check "tar -x: the read-only file" "1003:1004" "$(w stat -c %u:%g dst/b)"
check "tar -x: the link" "1005 1006" "$(w ls -ln dst/l | awk '{print $3, $4}')"
check "tar -x: find -uid" "./d/a" "$(cd dst && w find . -uid 1001)"

# rsync -a
if command -v rsync > /dev/null; then
	w rsync -a src/ rdst/
	check "rsync -a: owners as in the source" "$(owners src)" "$(owners rdst)"
	check "rsync -a: ls -ln" "1001 1002" "$(w ls -ln rdst/d/a | awk '{print $3, $4}')"
	check "rsync -a: find -uid" "rdst/l" "$(w find rdst -uid 1005)"
else
	echo "SKIP: rsync is not installed (tools/deps installs it)"
	skipped=1
fi

# a fake user: only the kernel's rules for an owner
u1000() {
	env LD_PRELOAD="$PRELOAD" UID_WRAPPER=1 UID_WRAPPER_FAKE_CHOWN=1 \
		UID_WRAPPER_INITIAL_RUID=1000 UID_WRAPPER_INITIAL_EUID=1000 \
		UID_WRAPPER_INITIAL_SUID=1000 UID_WRAPPER_INITIAL_RGID=1000 \
		UID_WRAPPER_INITIAL_EGID=1000 UID_WRAPPER_INITIAL_SGID=1000 \
		UID_WRAPPER_INITIAL_GROUPS_COUNT=2 \
		UID_WRAPPER_INITIAL_GROUPS=1000,2000 "$@"
}
echo x > mine.txt
w chown 1000:1000 mine.txt
u1000 chgrp 2000 mine.txt
check "a fake user gives its file to one of its groups" "1000:2000" \
	"$(u1000 stat -c %u:%g mine.txt)"
check "a fake user gives its file away: EPERM" "1" \
	"$(u1000 chown 1234 mine.txt 2>&1 | grep -c 'Operation not permitted')"
check "a fake user, to a group not its own: EPERM" "1" \
	"$(u1000 chgrp 3000 mine.txt 2>&1 | grep -c 'Operation not permitted')"
check "a fake user, another's file: EPERM" "1" \
	"$(u1000 chgrp 2000 inst.txt 2>&1 | grep -c 'Operation not permitted')"
check "after the refusals" "1000:2000 1234:5678" \
	"$(w stat -c %u:%g mine.txt inst.txt | tr '\n' ' ' | sed 's/ $//')"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
[ "$skipped" = 0 ] || exit 77
