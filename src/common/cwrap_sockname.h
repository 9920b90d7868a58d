/*
 * The name of an emulated socket in the socket directory, "T0A0007": a
 * letter (T TCP/IPv4, U UDP/IPv4, X TCP/IPv6, Y UDP/IPv6), the interface
 * as 2 hex digits, the port as 4. Read by socket_wrapper (an address from
 * a unix name) and by the launcher (cwrap --sockets), which does not link
 * the libraries' code: header only, pure, no state.
 */
#ifndef CWRAP_SOCKNAME_H
#define CWRAP_SOCKNAME_H

#include <stdbool.h>

static inline int cwrap_hexval(char ch)
{
	if (ch >= '0' && ch <= '9') {
		return ch - '0';
	}
	if (ch >= 'A' && ch <= 'F') {
		return ch - 'A' + 10;
	}
	if (ch >= 'a' && ch <= 'f') {
		return ch - 'a' + 10;
	}
	return -1;
}

/* The 7 characters at `s` (what follows is the caller's): true when they
 * have the shape of a name, with its letter, interface and port; the
 * interface's range is the caller's to check. */
static inline bool cwrap_sockname_parse(const char *s, char *letter,
					unsigned *iface, unsigned *port)
{
	unsigned v = 0;

	if (s[0] != 'T' && s[0] != 'U' && s[0] != 'X' && s[0] != 'Y') {
		return false;
	}
	for (int i = 1; i < 7; i++) {
		int h = cwrap_hexval(s[i]);

		if (h < 0) {
			return false;
		}
		v = v << 4 | (unsigned)h;
		if (i == 2) {
			*iface = v;
			v = 0;
		}
	}
	*letter = s[0];
	*port = v;
	return true;
}

#endif
