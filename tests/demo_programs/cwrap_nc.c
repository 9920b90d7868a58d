/*
 * cwrap_nc: the part of OpenBSD netcat (Debian's netcat-openbsd) that the
 * article's socket_wrapper demo and its capture test use, built by the
 * project so that the demo runs in every build (a musl-built wrapper
 * cannot be preloaded into the system's glibc nc):
 *     cwrap_nc [-Nnuv] [-w SECONDS] ADDR PORT     connect, then relay
 *     cwrap_nc -l [-Nnv] [ADDR] PORT              accept one, then relay
 * Relay, as nc: stdin to the socket and the socket to stdout, until both
 * have ended (or, with -w, nothing happened for SECONDS; client only).
 * At the end of stdin, -N shuts the socket down for writing (a FIN).
 * With -v the messages are nc's, on stderr:
 *     Listening on ADDR PORT
 *     Connection received on PEERADDR PEERPORT
 *     Connection to ADDR PORT port [tcp/SERVICE] succeeded!
 * SERVICE from getservbyport(), "*" when there is none. Addresses are
 * numeric only and never looked up (nc would look up the peer's name
 * without -n; -n is accepted). With -u and -v, the port is first tested
 * as Debian's nc 1.219 does (seen with strace): "X" written twice, then,
 * a second apart, once more with -w1, twice more with -w2, three times
 * more otherwise; a write that fails (ECONNREFUSED: the port unreachable
 * of an earlier "X") ends the program with exit 1 and no message.
 * C11 + POSIX only: it builds against glibc and musl alike.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG "cwrap_nc"

struct opts {
	bool listen, shut, udp, verbose;
	int idle_ms; /* -w, -1: none */
	const char *host, *port;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [-Nnuv] [-w timeout] destination port\n"
		"       " PROG " -l [-Nnv] [address] port\n");
	exit(1);
}

/* "port number too large: 99999", as nc says it. */
static void check_port(const char *p)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(p, &end, 10);
	if (*p == '\0' || *end != '\0' || errno == ERANGE) {
		if (errno == ERANGE) {
			fprintf(stderr, PROG ": port number too %s: %s\n",
				v < 0 ? "small" : "large", p);
		} else {
			fprintf(stderr, PROG ": port number invalid: %s\n", p);
		}
		exit(1);
	}
	if (v < 1 || v > 65535) {
		fprintf(stderr, PROG ": port number too %s: %s\n",
			v < 1 ? "small" : "large", p);
		exit(1);
	}
}

static void parse(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){.idle_ms = -1};
	while ((c = getopt(argc, argv, "lNnuvw:")) != -1) {
		switch (c) {
		case 'l':
			o->listen = true;
			break;
		case 'N':
			o->shut = true;
			break;
		case 'n':
			break;
		case 'u':
			o->udp = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'w': {
			char *end;
			long s = strtol(optarg, &end, 10);

			if (*optarg == '\0' || *end != '\0' || s < 0 ||
			    s > 100000) {
				fprintf(stderr, PROG ": timeout invalid: %s\n",
					optarg);
				exit(1);
			}
			o->idle_ms = (int)s * 1000;
			break;
		}
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 2) {
		o->host = argv[0];
		o->port = argv[1];
	} else if (argc == 1 && o->listen) {
		o->port = argv[0];
	} else {
		usage();
	}
	if (o->listen && o->udp) {
		fprintf(stderr, PROG ": -l with -u is not supported\n");
		exit(1);
	}
	check_port(o->port);
}

static struct addrinfo *resolve(const struct opts *o)
{
	struct addrinfo hints = {
	    .ai_family = AF_UNSPEC,
	    .ai_socktype = o->udp ? SOCK_DGRAM : SOCK_STREAM,
	    .ai_flags =
		AI_NUMERICHOST | AI_NUMERICSERV | (o->listen ? AI_PASSIVE : 0),
	};
	struct addrinfo *res;
	int rc = getaddrinfo(o->host, o->port, &hints, &res);

	if (rc != 0) {
		fprintf(stderr,
			PROG ": getaddrinfo for host \"%s\" port %s: %s\n",
			o->host ? o->host : "", o->port, gai_strerror(rc));
		exit(1);
	}
	return res;
}

/* "MSG on ADDR PORT", both numeric. */
static void report(const char *msg, const struct sockaddr *sa, socklen_t len)
{
	char host[1025], serv[32];
	int rc = getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
			     NI_NUMERICHOST | NI_NUMERICSERV);

	if (rc != 0) {
		fprintf(stderr, PROG ": getnameinfo: %s\n", gai_strerror(rc));
		exit(1);
	}
	fprintf(stderr, "%s on %s %s\n", msg, host, serv);
}

static int serve(const struct opts *o)
{
	struct addrinfo *ai = resolve(o);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int one = 1, s, c;

	s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (s < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(s, ai->ai_addr, ai->ai_addrlen) != 0 || listen(s, 1) != 0) {
		fprintf(stderr, PROG ": bind failed: %s\n", strerror(errno));
		exit(1);
	}
	freeaddrinfo(ai);
	if (o->verbose) {
		if (getsockname(s, (struct sockaddr *)&ss, &len) != 0) {
			fprintf(stderr, PROG ": getsockname: %s\n",
				strerror(errno));
			exit(1);
		}
		report("Listening", (struct sockaddr *)&ss, len);
	}
	len = sizeof(ss);
	do {
		c = accept(s, (struct sockaddr *)&ss, &len);
	} while (c < 0 && errno == EINTR);
	if (c < 0) {
		fprintf(stderr, PROG ": accept: %s\n", strerror(errno));
		exit(1);
	}
	/* One connection: the listener goes, as nc's without -k. */
	close(s);
	if (o->verbose) {
		report("Connection received", (struct sockaddr *)&ss, len);
	}
	return c;
}

static int dial(const struct opts *o)
{
	const char *proto = o->udp ? "udp" : "tcp";
	struct addrinfo *ai = resolve(o);
	int s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);

	if (s < 0 || connect(s, ai->ai_addr, ai->ai_addrlen) != 0) {
		fprintf(stderr,
			PROG ": connect to %s port %s (%s) failed: %s\n",
			o->host, o->port, proto, strerror(errno));
		exit(1);
	}
	freeaddrinfo(ai);
	if (o->udp && o->verbose) {
		int more = o->idle_ms < 0 || o->idle_ms >= 3000
			       ? 3
			       : o->idle_ms / 1000 + (o->idle_ms < 1000);

		for (int i = 0; i < 2 + more; i++) {
			if (i >= 2) {
				sleep(1);
			}
			if (write(s, "X", 1) != 1) {
				exit(1);
			}
		}
	}
	if (o->verbose) {
		struct servent *sv =
		    getservbyport(htons((uint16_t)atoi(o->port)), proto);

		fprintf(stderr, "Connection to %s %s port [%s/%s] succeeded!\n",
			o->host, o->port, proto, sv ? sv->s_name : "*");
	}
	return s;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Two directions, each done at its end or at a failure to write it on:
 * stdin to the socket (at its end, -N sends a FIN) and the socket to
 * stdout. Returns when both are done, or on the idle timeout (-w, client
 * only, as nc), or -1 when poll() fails.
 */
static int relay(int s, const struct opts *o)
{
	struct pollfd p[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
			      {.fd = s, .events = POLLIN}};
	int idle = o->listen ? -1 : o->idle_ms;
	char buf[16384];

	while (p[0].fd != -1 || p[1].fd != -1) {
		ssize_t n;
		int ready = poll(p, 2, idle);

		if (ready < 0 && errno == EINTR) {
			continue;
		}
		if (ready <= 0) {
			return ready;
		}
		if (p[1].revents != 0) {
			n = read(s, buf, sizeof(buf));
			if (n < 0 && errno == EINTR) {
				continue;
			}
			if (n < 0 || (n == 0 && !o->udp) ||
			    write_all(STDOUT_FILENO, buf, (size_t)n) != 0) {
				p[1].fd = -1;
			}
		}
		if (p[0].revents != 0) {
			n = read(STDIN_FILENO, buf, sizeof(buf));
			if (n < 0 && errno == EINTR) {
				continue;
			}
			if (n > 0 && write_all(s, buf, (size_t)n) == 0) {
				continue;
			}
			p[0].fd = -1;
			if (n <= 0 && o->shut) {
				shutdown(s, SHUT_WR);
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	int s, rc;

	/* A peer gone while we write: an error, not a signal (as nc). */
	signal(SIGPIPE, SIG_IGN);
	parse(argc, argv, &o);
	s = o.listen ? serve(&o) : dial(&o);
	rc = relay(s, &o);
	close(s);
	return rc < 0 ? 1 : 0;
}
