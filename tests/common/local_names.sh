# Sourced first (before anything else runs) by the scripts that run the
# system's `nc -v`, the article's demos: nc shows each address by the
# name getnameinfo() finds for it, and glibc asks the machine's DNS server
# for names /etc/hosts lacks. Where no DNS server answers (a machine
# offline, a network namespace with only loopback up) glibc says
# "Temporary failure in name resolution", and nc prints that instead of
# "Listening on 127.0.0.10 7". The script then runs again in a private
# mount namespace whose nsswitch.conf says "hosts: files", where a name
# /etc/hosts lacks is not found and nc shows the address, as a DNS server
# that knows no name of 127.0.0.N makes it do. Said in one line; where no
# such namespace can be made, the test is skipped (77), said so too.
# Needs: the script's own path in $0, its arguments in "$@".
if [ -z "${CWRAP_LOCAL_NAMES:-}" ] &&
	! python3 -c 'import socket; socket.getnameinfo(("127.0.0.10", 7), 0)' 2> /dev/null; then
	CWRAP_LOCAL_NAMES=$(mktemp "${TMPDIR:-/tmp}/cwrap-nsswitch-XXXXXX")
	export CWRAP_LOCAL_NAMES
	sed 's/^hosts:.*/hosts: files/' /etc/nsswitch.conf > "$CWRAP_LOCAL_NAMES"
	# (as root a mount namespace alone; otherwise a user namespace that
	# maps the user to itself and keeps the capability to mount)
	cwrap_userns=
	[ "$(id -u)" = 0 ] || cwrap_userns="-U --map-current-user --keep-caps"
	# shellcheck disable=SC2086
	if ! unshare $cwrap_userns -m sh -c 'mount --bind "$CWRAP_LOCAL_NAMES" /etc/nsswitch.conf' 2> /dev/null; then
		rm -f "$CWRAP_LOCAL_NAMES"
		echo "SKIP: this machine's DNS server does not answer (nc would say so), and no private mount namespace can be made here to use /etc/hosts alone"
		exit 77
	fi
	echo "(this machine's DNS server does not answer: names from /etc/hosts alone, in a private mount namespace)"
	# shellcheck disable=SC2086
	exec unshare $cwrap_userns -m sh -c 'mount --bind "$CWRAP_LOCAL_NAMES" /etc/nsswitch.conf &&
		rm -f "$CWRAP_LOCAL_NAMES" && exec "$@"' sh "$0" "$@"
fi
