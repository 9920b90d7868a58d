#!/bin/sh
# Real programs under uid_wrapper: id, sh, python3, touch, env.
#   - without UID_WRAPPER_ROOT, id prints exactly what it prints natively;
#   - a shell started as fake root passes root on to what it execs;
#   - a python daemon drops privileges, and the program it execs sees the
#     dropped ids (UID_WRAPPER_INITIAL_* travel and are removed);
#   - what os.system() (libc's system()) starts begins as the process
#     began, fake root, while subprocess (fork + exec) hands on the
#     current ids;
#   - files are still created as the real user;
#   - a bad UID_WRAPPER_INITIAL_* value gives one line naming it;
#   - a wrapped shell's `UID_WRAPPER_INITIAL_RUID=N ... cmd` starts cmd
#     with those ids, the others from the shell's (Samba's test scripts);
#   - UID_WRAPPER_MYUID=1 makes geteuid() return the real uid.
set -eu
export LD_LIBRARY_PATH="$CWRAP_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
PRELOAD="${CWRAP_PRELOAD_PREFIX}libuid_wrapper.so"
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
fails=0

check() { # NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "ok: $1: $3"
	else
		echo "FAIL: $1: expected '$2', got '$3'"
		fails=$((fails + 1))
	fi
}

wrapped() {
	env LD_PRELOAD="$PRELOAD" UID_WRAPPER=1 "$@"
}

check "id, not root" "$(id)" "$(wrapped id)"
check "id -G, not root" "$(id -G)" "$(wrapped id -G)"
check "sh execs id as root" "0 0 0" "$(wrapped UID_WRAPPER_ROOT=1 sh -c 'echo $(id -u) $(id -g) $(id -G)')"
check "no INITIAL variable left" "" \
	"$(wrapped UID_WRAPPER_ROOT=1 sh -c 'env | grep ^UID_WRAPPER_INITIAL_ || true')"

# A daemon that starts as root, drops to 1000 (keeping root as the saved
# id, as servers do), then execs a helper.
out=$(wrapped UID_WRAPPER_ROOT=1 $PY -c '
import os
os.setgroups([100, 4, 27])
os.setresgid(100, 100, 100)
os.setresuid(1000, 1000, 0)
os.execvp("sh", ["sh", "-c", "echo $(id -u) $(id -g) $(id -G) $(id -ru)"])
')
check "python drops, execs sh, id" "1000 100 100 4 27 1000" "$out"

out=$(wrapped UID_WRAPPER_ROOT=1 $PY -c '
import os, subprocess
os.setresuid(1000, 1000, 1000)
try:
    os.setuid(0)
    print("setuid(0) worked")
except PermissionError:
    print("EPERM", subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip())
')
check "no way back once all ids dropped" "EPERM 1000" "$out"

out=$(wrapped UID_WRAPPER_ROOT=1 $PY -c '
import os, sys
os.setuid(5000)
sys.stdout.flush()
os.system("id -u")
')
check "python os.system after setuid(5000): started as root" "0" "$out"
out=$(wrapped UID_WRAPPER_ROOT=1 UID_WRAPPER_SPAWN_CURRENT=1 $PY -c '
import os, sys
os.setuid(5000)
sys.stdout.flush()
os.system("id -u")
')
check "python os.system, UID_WRAPPER_SPAWN_CURRENT=1" "5000" "$out"
# os.popen() is subprocess, which forks and execs itself
out=$(wrapped UID_WRAPPER_ROOT=1 $PY -c '
import os
os.setresuid(1000, 1000, 0)
print(os.popen("id -u").read().strip())
')
check "python os.popen (fork + exec) after the switch" "1000" "$out"

wrapped UID_WRAPPER_ROOT=1 sh -c "touch '$tmp/f'; id -u > '$tmp/who'"
check "fake root wrote the file as" "$(id -u)" "$(stat -c %u "$tmp/f")"
check "while id said" "0" "$(cat "$tmp/who")"

err=$(wrapped UID_WRAPPER_ROOT=1 UID_WRAPPER_INITIAL_RUID=abc id -ru 2>&1 > "$tmp/out")
check "bad INITIAL_RUID: fallback" "0" "$(cat "$tmp/out")"
check "bad INITIAL_RUID: one line" "1" "$(printf '%s\n' "$err" | wc -l)"
case "$err" in
*UID_WRAPPER_INITIAL_RUID*abc*) echo "ok: message: $err" ;;
*) echo "FAIL: message does not name the variable: '$err'"; fails=$((fails + 1)) ;;
esac
err=$(wrapped UID_WRAPPER_INITIAL_GROUPS_COUNT=2 UID_WRAPPER_INITIAL_GROUPS=5 id -G 2>&1 > "$tmp/out")
check "bad GROUPS: real groups kept" "$(id -G)" "$(cat "$tmp/out")"
case "$err" in
*UID_WRAPPER_INITIAL_GROUPS*) echo "ok: message: $err" ;;
*) echo "FAIL: no message for a bad group list: '$err'"; fails=$((fails + 1)) ;;
esac

# A wrapped shell starts a command as another user the way Samba's test
# scripts do: the UID_WRAPPER_INITIAL_* it puts in the command's
# environment win, the others are the shell's current ids; a bare command
# keeps the shell's ids.
out=$(wrapped UID_WRAPPER_ROOT=1 sh -c 'UID_WRAPPER_INITIAL_RUID=1000 UID_WRAPPER_INITIAL_EUID=1000 id -u')
check "fake root sh: UID_WRAPPER_INITIAL_RUID/EUID=1000 id -u" "1000" "$out"
out=$(wrapped UID_WRAPPER_ROOT=1 sh -c 'UID_WRAPPER_INITIAL_RUID=1000 UID_WRAPPER_INITIAL_EUID=1000 sh -c "echo \$(id -ru) \$(id -u) \$(id -g) \$(id -G)"; id -u')
check "the command's own children keep them, the next bare command is root" "1000 1000 0 0
0" "$out"
out=$(wrapped sh -c 'UID_WRAPPER_INITIAL_RUID=0 UID_WRAPPER_INITIAL_EUID=0 sh -c "echo \$(id -u) \$(id -ru)"; id -u')
check "real-user sh: INITIAL_RUID/EUID=0 (Samba's smbpasswd -a)" "0 0
$(id -u)" "$out"
# UID_WRAPPER_ROOT=1 given to a command by a shell (or any process) that
# did not start with it: the command starts as root, as Samba's selftest
# runs `UID_WRAPPER_ROOT=1 smbpasswd ...` from an ordinary user's shell;
# the next command without it is the shell's again
out=$(wrapped sh -c 'UID_WRAPPER_ROOT=1 id -u; id -u')
check "real-user sh: UID_WRAPPER_ROOT=1 cmd is root" "0
$(id -u)" "$out"
if [ "$(id -u)" = 0 ]; then
	# (real root: a process started without UID_WRAPPER_ROOT may switch)
	out=$(wrapped $PY -c '
import os
os.setresuid(1000, 1000, 1000)
os.execvpe("id", ["id", "-u"], dict(os.environ, UID_WRAPPER_ROOT="1"))
')
	check "switched to 1000, exec with UID_WRAPPER_ROOT=1 added: root" "0" "$out"
fi
# started with it, switched: the current ids travel (it has not changed)
out=$(wrapped UID_WRAPPER_ROOT=1 $PY -c '
import os
os.setresuid(1000, 1000, 0)
os.execvpe("id", ["id", "-u"], dict(os.environ, UID_WRAPPER_ROOT="1"))
')
check "fake root switched to 1000, UID_WRAPPER_ROOT=1 unchanged: 1000" "1000" "$out"
out=$(wrapped UID_WRAPPER_ROOT=1 sh -c 'export UID_WRAPPER_INITIAL_EGID=7; id -g; id -rg')
check "exported INITIAL_EGID: every command" "7
0" "$out"
out=$(wrapped UID_WRAPPER_ROOT=1 sh -c 'UID_WRAPPER_INITIAL_GROUPS_COUNT=2 UID_WRAPPER_INITIAL_GROUPS=6,5 id -G')
check "INITIAL_GROUPS_COUNT=2 GROUPS=6,5: the command's groups" "0 5 6" "$out"
out=$(wrapped UID_WRAPPER_ROOT=1 sh -c 'UID_WRAPPER_INITIAL_GROUPS_COUNT=0 id -G')
check "INITIAL_GROUPS_COUNT=0: no groups (id shows the gid)" "0" "$out"
# python: the command's environment given to execvpe() after a switch
out=$(wrapped UID_WRAPPER_ROOT=1 $PY -c '
import os
os.setresuid(1000, 1000, 0)
env = dict(os.environ, UID_WRAPPER_INITIAL_EUID="0")
os.execvpe("id", ["id"], env)
')
check "python execvpe with INITIAL_EUID=0 after setresuid(1000,1000,0)" \
	"uid=1000 gid=0 euid=0 groups=0" "$(echo "$out" | sed 's/([^)]*)//g')"
# bad values given to exec: one line naming them, the current ids instead
for case in "UID_WRAPPER_INITIAL_RUID=abc:UID_WRAPPER_INITIAL_RUID='abc':0" \
	"UID_WRAPPER_INITIAL_GROUPS=5:UID_WRAPPER_INITIAL_GROUPS='5':0" \
	"UID_WRAPPER_INITIAL_GROUPS_COUNT=2:UID_WRAPPER_INITIAL_GROUPS='':0" \
	"UID_WRAPPER_INITIAL_GROUPS_COUNT=x:UID_WRAPPER_INITIAL_GROUPS_COUNT='x':0"; do
	assign=${case%%:*}
	rest=${case#*:}
	named=${rest%:*}
	want=${rest##*:}
	err=$(wrapped UID_WRAPPER_ROOT=1 sh -c "$assign id -ru; id -G" 2>&1 > "$tmp/out")
	check "sh: $assign: current ids" "$want
$want" "$(cat "$tmp/out")"
	check "sh: $assign: one line" "1" "$(printf '%s\n' "$err" | wc -l)"
	case "$err" in
	UWRAP_ERROR*"$named"*"current"*) echo "ok: message: $err" ;;
	*) echo "FAIL: message does not name $named: '$err'"; fails=$((fails + 1)) ;;
	esac
done

check "MYUID: geteuid is the real uid" "$(id -u)" "$(wrapped UID_WRAPPER_ROOT=1 UID_WRAPPER_MYUID=1 id -u)"
check "MYUID: getuid still fake" "0" "$(wrapped UID_WRAPPER_ROOT=1 UID_WRAPPER_MYUID=1 id -ru)"
check "UID_WRAPPER=0 is off" "$(id -u)" "$(env LD_PRELOAD="$PRELOAD" UID_WRAPPER=0 UID_WRAPPER_ROOT=1 id -u)"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
