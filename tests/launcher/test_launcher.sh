#!/bin/sh
# The launcher as a user meets it: every option in --help and cwrap(1),
# errors (one line, status 125, nothing left behind), exit statuses, the
# private socket directory (made, used, removed), --keep and --dir,
# --print-env evaluated by sh, arguments passed unchanged, LD_PRELOAD
# kept in front, --debug, --with, --no-socket and CWRAP_LIBDIR. The
# command is the project's launcher_probe (tests/launcher), so every build
# runs this.
set -u
C=$CWRAP_LAUNCHER
P=$CWRAP_TEST_BIN/launcher_probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Private socket directories are made here, where the test sees them.
TMPDIR=$tmp/tmpdir
export TMPDIR
mkdir "$TMPDIR"
failed=0

ok() { echo "ok: $*"; }
bad() {
	echo "FAIL: $*"
	failed=1
}
# same DESCRIPTION EXPECTED ACTUAL
same() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		bad "$1"
		printf 'expected:\n%s\ngot:\n%s\n' "$2" "$3" | sed 's/^/    /'
	fi
}
# nothing_left DESCRIPTION: no private directory is left in TMPDIR.
nothing_left() {
	left=$(ls -A "$TMPDIR")
	if [ -n "$left" ]; then
		bad "$1: left in TMPDIR: $left"
		rm -rf "${TMPDIR:?}"/*
	fi
}
# refused DESCRIPTION PATTERN ARG...: cwrap ARG... exits 125 with one line
# on stderr, "cwrap: " then PATTERN (an extended regex), nothing on stdout,
# and leaves no directory behind.
refused() {
	desc=$1
	pat=$2
	shift 2
	"$C" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc = 125 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
		grep -q -E -- "^cwrap: $pat\$" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$desc: $(cat "$tmp/err")"
	else
		bad "$desc: status $rc (want 125), stderr (want one line matching 'cwrap: $pat'):"
		sed 's/^/    /' "$tmp/err" "$tmp/out"
	fi
	nothing_left "$desc"
}

echo "--- every option is in --help and in cwrap(1)"
"$C" --help > "$tmp/help" || bad "--help exits $?"
sed 's/\\-/-/g' "$CWRAP_SOURCE_DIR/doc/cwrap.1" > "$tmp/man"
for o in --dir --keep --iface --pcap --faults --no-socket --passwd --group \
	--shadow --hosts --hostname --root --resolv --resolv-conf --pam --with \
	--debug --print-env --sockets --json --listening --help --version; do
	grep -q -- "$o\\b" "$tmp/help" || bad "--help does not list $o"
	grep -q -- "^\\.B.*$o\\b" "$tmp/man" || bad "cwrap(1) does not describe $o"
done
same "--version" "cwrap $("$C" --version | sed -n 's/^cwrap \([0-9.]*\)$/\1/p')" "$("$C" --version)"

echo "--- exit status"
for n in 0 1 7 255; do
	"$C" "$P" exit $n
	same "exit $n passed on" $n $?
done
"$C" "$P" raise 15
same "killed by SIGTERM: 128+15 in the shell" 143 $?
"$C" /nonexistent/command 2> "$tmp/err"
same "command not found: 127" 127 $?
same "command not found: one line" "cwrap: /nonexistent/command: No such file or directory" "$(cat "$tmp/err")"
printf '#!/bin/sh\n' > "$tmp/noexec"
chmod 644 "$tmp/noexec"
"$C" "$tmp/noexec" 2> "$tmp/err"
same "command not executable: 126" 126 $?
same "command not executable: one line" "cwrap: $tmp/noexec: Permission denied" "$(cat "$tmp/err")"
nothing_left "exit statuses"

echo "--- the private socket directory"
"$C" "$P" env SOCKET_WRAPPER_DIR > "$tmp/out"
dir=$(sed -n 's/^SOCKET_WRAPPER_DIR=//p' "$tmp/out")
case $dir in
"$TMPDIR"/cwrap-??????) ok "a private directory in TMPDIR: $dir" ;;
*) bad "SOCKET_WRAPPER_DIR: $(cat "$tmp/out")" ;;
esac
[ -e "$dir" ] && bad "$dir is still there"
same "the command binds 127.0.0.10:7 in it" T0A0007 "$("$C" "$P" bind)"
nothing_left "private directory"
"$C" "$P" raise 9
same "killed by SIGKILL: 137" 137 $?
nothing_left "private directory of a killed command"
# A TMPDIR too long for socket names: the directory is made in /tmp.
long=$TMPDIR/$(printf '%0100d' 0)
mkdir "$long"
dir=$(TMPDIR=$long "$C" "$P" env SOCKET_WRAPPER_DIR | sed -n 's/^SOCKET_WRAPPER_DIR=//p')
case $dir in
/tmp/cwrap-??????) ok "TMPDIR too long: the directory is made in /tmp" ;;
*) bad "TMPDIR too long: SOCKET_WRAPPER_DIR=$dir" ;;
esac
[ -e "$dir" ] && bad "$dir is still there"
rmdir "$long"

echo "--- --keep"
"$C" --keep "$P" bind > "$tmp/out" 2> "$tmp/err"
dir=$(sed -n 's/^cwrap: socket directory \(.*\) (kept)$/\1/p' "$tmp/err")
if [ -n "$dir" ] && [ -d "$dir" ]; then
	ok "--keep: $(cat "$tmp/err")"
	rm -rf "$dir"
else
	bad "--keep: stderr: $(cat "$tmp/err")"
fi
nothing_left "--keep"

echo "--- --dir (shared, made if missing, kept; cwrap then becomes the command)"
cd "$tmp"
"$C" --dir shared "$P" bind > "$tmp/out"
same "--dir shared (relative): bound in it" T0A0007 "$(cat "$tmp/out")"
[ -d "$tmp/shared" ] && ok "--dir made and kept" || bad "--dir: $tmp/shared missing"
"$C" --dir shared "$P" env SOCKET_WRAPPER_DIR > "$tmp/out"
same "--dir: made absolute" "SOCKET_WRAPPER_DIR=$(cd "$tmp/shared" && pwd -P)" "$(cat "$tmp/out")"
"$C" --dir shared "$P" pid > "$tmp/out" &
pid=$!
wait $pid
same "--dir: the command runs as cwrap's own process (exec)" $pid "$(cat "$tmp/out")"
"$C" "$P" pid > "$tmp/out" &
pid=$!
wait $pid
[ "$(cat "$tmp/out")" != $pid ] && ok "private directory: the command is a child" ||
	bad "private directory: the command ran as cwrap's pid"
refused "--dir too long" "--dir $tmp/d0+: its path .* is [0-9]+ bytes, socket names allow 99" \
	--dir "$tmp/d$(printf '%0100d' 0)" "$P" bind
[ -e "$tmp/d$(printf '%0100d' 0)" ] && bad "--dir too long: the directory made was left"
# The longest directory socket_wrapper takes: "$DIR/T0A0007" fills sun_path.
base=$(cd "$tmp" && pwd -P)
n=$((99 - ${#base} - 1))
d99=$base/$(printf "%0${n}d" 0)
"$C" --dir "$d99" "$P" bind > "$tmp/out"
same "--dir of 99 bytes: bound in it" T0A0007 "$(cat "$tmp/out")"
refused "--dir of 100 bytes" "--dir ${d99}0: its path ${d99}0 is 100 bytes, socket names allow 99" \
	--dir "${d99}0" "$P" bind
refused "--dir under a missing directory" "--dir $tmp/no/such: No such file or directory" \
	--dir "$tmp/no/such" "$P" bind
refused "--dir a file" "--dir $tmp/noexec: not a directory" --dir "$tmp/noexec" "$P" bind

echo "--- arguments reach the command unchanged"
"$C" "$P" args 'a b' "c'd" 'e;f' '' 'g"h' '$HOME' '*' --dir -x '\n' > "$tmp/out"
same "spaces, quotes, ;, empty, \$, *, options after the command" "[a b]
[c'd]
[e;f]
[]
[g\"h]
[\$HOME]
[*]
[--dir]
[-x]
[\\n]" "$(cat "$tmp/out")"
"$C" -- "$P" args -- x > "$tmp/out"
same "-- ends cwrap's options" "[--]
[x]" "$(cat "$tmp/out")"

echo "--- files become absolute paths; the variables of each option"
printf 'bob:x:1000:1000:Bob:/home/bob:/bin/false\n' > passwd
printf 'users:x:1000:\n' > group
printf 'bob:*:0:0:99999:7:::\n' > shadow
printf '127.0.0.170 test.cwrap.org\n' > hosts
printf 'A test.cwrap.org 127.0.0.170\n' > records
printf 'nameserver 127.0.0.10\n' > resolv.conf
printf 'tcp * delay 1\n' > faults
real=$(pwd -P)
"$C" --passwd passwd --group group --shadow shadow --hosts hosts --hostname h.example \
	--root --resolv records --resolv-conf resolv.conf --iface 100 --pcap cap.pcap \
	--faults faults "$P" env NSS_WRAPPER_PASSWD NSS_WRAPPER_GROUP NSS_WRAPPER_SHADOW \
	NSS_WRAPPER_HOSTS NSS_WRAPPER_HOSTNAME UID_WRAPPER UID_WRAPPER_ROOT \
	RESOLV_WRAPPER_HOSTS RESOLV_WRAPPER_CONF SOCKET_WRAPPER_DEFAULT_IFACE \
	SOCKET_WRAPPER_PCAP_FILE SOCKET_WRAPPER_FAULTS > "$tmp/out"
same "every option's variable" "NSS_WRAPPER_PASSWD=$real/passwd
NSS_WRAPPER_GROUP=$real/group
NSS_WRAPPER_SHADOW=$real/shadow
NSS_WRAPPER_HOSTS=$real/hosts
NSS_WRAPPER_HOSTNAME=h.example
UID_WRAPPER=1
UID_WRAPPER_ROOT=1
RESOLV_WRAPPER_HOSTS=$real/records
RESOLV_WRAPPER_CONF=$real/resolv.conf
SOCKET_WRAPPER_DEFAULT_IFACE=100
SOCKET_WRAPPER_PCAP_FILE=$real/cap.pcap
SOCKET_WRAPPER_FAULTS=$real/faults" "$(cat "$tmp/out")"
"$C" --passwd passwd --group group --root "$P" enabled socket_wrapper_enabled \
	nss_wrapper_enabled uid_wrapper_enabled > "$tmp/out"
same "the libraries are loaded and enabled" "socket_wrapper_enabled 1
nss_wrapper_enabled 1
uid_wrapper_enabled 1" "$(cat "$tmp/out")"
"$C" "$P" enabled socket_wrapper_enabled nss_wrapper_enabled uid_wrapper_enabled > "$tmp/out"
same "socket_wrapper alone unless an option asks" "socket_wrapper_enabled 1
nss_wrapper_enabled absent
uid_wrapper_enabled absent" "$(cat "$tmp/out")"
"$C" --debug 2 --root "$P" env SOCKET_WRAPPER_DEBUGLEVEL UID_WRAPPER_DEBUGLEVEL \
	NSS_WRAPPER_DEBUGLEVEL > "$tmp/out" 2> /dev/null
same "--debug: the level of the libraries used" "SOCKET_WRAPPER_DEBUGLEVEL=2
UID_WRAPPER_DEBUGLEVEL=2
NSS_WRAPPER_DEBUGLEVEL unset" "$(cat "$tmp/out")"
"$C" --debug Trace --root "$P" env SOCKET_WRAPPER_DEBUGLEVEL UID_WRAPPER_DEBUGLEVEL \
	> "$tmp/out" 2> /dev/null
same "--debug: a level's name, as given" "SOCKET_WRAPPER_DEBUGLEVEL=Trace
UID_WRAPPER_DEBUGLEVEL=Trace" "$(cat "$tmp/out")"
"$C" --with uid,nss --with resolv "$P" env UID_WRAPPER UID_WRAPPER_ROOT > "$tmp/out"
same "--with uid: enabled, not root" "UID_WRAPPER=1
UID_WRAPPER_ROOT unset" "$(cat "$tmp/out")"
"$C" --with uid,nss --with resolv "$P" enabled uid_wrapper_enabled nss_wrapper_enabled > "$tmp/out"
same "--with: the libraries are loaded" "uid_wrapper_enabled 1
nss_wrapper_enabled 0" "$(cat "$tmp/out")"
env -u SOCKET_WRAPPER_DIR "$C" --no-socket --root "$P" enabled socket_wrapper_enabled \
	uid_wrapper_enabled > "$tmp/out"
same "--no-socket" "socket_wrapper_enabled absent
uid_wrapper_enabled 1" "$(cat "$tmp/out")"
nothing_left "options"

echo "--- LD_PRELOAD: what was there stays first"
rt=${CWRAP_PRELOAD_PREFIX% } # the sanitizer runtime, in a sanitizer build
base=$("$C" --dir shared --root --print-env | sed -n "s/^export LD_PRELOAD='\(.*\)'\$/\1/p")
libs=${base#"$rt"}
libs=${libs#:}
S=${libs%%:*}
U=${libs#*:}
case $S in */libsocket_wrapper.so) ;; *) bad "LD_PRELOAD=$base: no socket_wrapper first" ;; esac
case $U in */libuid_wrapper.so) ;; *) bad "LD_PRELOAD=$base: no uid_wrapper second" ;; esac
if [ -z "$rt" ]; then
	got=$(LD_PRELOAD="$U" "$C" --dir shared --root "$P" env LD_PRELOAD)
	same "kept first, not repeated" "LD_PRELOAD=$U:$S" "$got"
else
	# (a sanitizer build's libraries load only after its runtime, in
	# cwrap too)
	got=$(LD_PRELOAD="$CWRAP_PRELOAD_PREFIX$U" "$C" --dir shared --root "$P" env LD_PRELOAD)
	same "kept first, not repeated, the sanitizer runtime first" "LD_PRELOAD=$rt $U:$S" "$got"
fi

echo "--- --print-env, evaluated by sh"
weird="$tmp/a b'c \$d \"e"
out=$(sh -c 'eval "$("$1" --print-env --dir "$2" --hostname "x'\''y \$z")" &&
	"$3" env SOCKET_WRAPPER_DIR NSS_WRAPPER_HOSTNAME && "$3" bind' sh "$C" "$weird" "$P")
same "quoted values survive eval; the command is wrapped" "SOCKET_WRAPPER_DIR=$(cd "$weird" && pwd -P)
NSS_WRAPPER_HOSTNAME=x'y \$z
T0A0007" "$out"
"$C" --print-env > "$tmp/out" 2> "$tmp/err"
dir=$(sed -n "s/^export SOCKET_WRAPPER_DIR='\(.*\)'\$/\1/p" "$tmp/out")
if [ -d "$dir" ] && grep -q "^cwrap: socket directory $dir (kept)\$" "$tmp/err"; then
	ok "--print-env without --dir: a directory made and kept"
	rmdir "$dir"
else
	bad "--print-env without --dir: $(cat "$tmp/out" "$tmp/err")"
fi

echo "--- errors: one line, status 125, nothing made"
refused "unknown option" "unknown option '--bogus' \\(cwrap --help\\)" --bogus "$P" exit 0
refused "unknown short option" "unknown option '-x' \\(cwrap --help\\)" -x "$P" exit 0
refused "missing argument" "--passwd needs an argument \\(cwrap --help\\)" --passwd
refused "no command" "no command given \\(cwrap --help\\)"
refused "missing file" "--passwd $tmp/nope: No such file or directory" \
	--passwd "$tmp/nope" --group group "$P" exit 0
refused "missing file (hosts)" "--hosts nope: No such file or directory" --hosts nope "$P" exit 0
refused "a directory as a file" "--group $tmp: is a directory" --passwd passwd --group "$tmp" "$P" exit 0
refused "--passwd alone" "--passwd needs --group too: nss_wrapper reads users and groups only from both files" \
	--passwd passwd "$P" exit 0
refused "--group alone" "--group needs --passwd too: .*" --group group "$P" exit 0
refused "--iface 0" "--iface 0: not a number from 1 to 254" --iface 0 "$P" exit 0
refused "--iface 255" "--iface 255: not a number from 1 to 254" --iface 255 "$P" exit 0
refused "--iface x" "--iface x: not a number from 1 to 254" --iface x "$P" exit 0
refused "--debug 4" "--debug 4: not a level from 0 to 3, nor error, warn, warning, debug or trace" --debug 4 "$P" exit 0
refused "--debug loud" "--debug loud: not a level from 0 to 3, nor .*" --debug loud "$P" exit 0
refused "--pcap in a missing directory" "--pcap $tmp/no/x.pcap: $tmp/no: No such file or directory" \
	--pcap "$tmp/no/x.pcap" "$P" exit 0
refused "--faults missing" "--faults nofaults: No such file or directory" --faults nofaults "$P" exit 0
refused "--resolv missing" "--resolv nothere: No such file or directory" --resolv nothere "$P" exit 0
refused "--pam a file" "--pam passwd: not a directory" --pam passwd "$P" exit 0
refused "--with unknown" "--with foo: not one of socket, nss, uid, resolv, pam, priv" --with foo "$P" exit 0
refused "--no-socket and --dir" "--no-socket and --dir contradict each other" --no-socket --dir shared "$P" exit 0
refused "--no-socket and --with socket" "--no-socket and --with socket contradict each other" \
	--no-socket --with socket "$P" exit 0
refused "--print-env and a command" "--print-env runs no command: '$P' given" --print-env "$P" exit 0
CWRAP_LIBDIR=$tmp
export CWRAP_LIBDIR
refused "a library not installed" "socket_wrapper needs libsocket_wrapper.so, not found in $tmp \\(No such file or directory\\)" \
	"$P" exit 0
unset CWRAP_LIBDIR

exit $failed
