/*
 * cwrap [OPTIONS] [--] COMMAND [ARG...]: the options, checked and turned
 * into a plan (launcher.h) before anything is made or run, so that a bad
 * option or a missing file costs one line on stderr and exit status 125,
 * and leaves nothing behind. Single-threaded: no locks.
 *
 * Every file and directory named is made absolute here: the command may
 * change directory (servers go to / when they start) before the libraries
 * read their variables.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "launcher_sockets.h"

static const char *const lib_names[LIB_COUNT] = {
    [LIB_SOCKET] = "socket", [LIB_NSS] = "nss", [LIB_UID] = "uid",
    [LIB_RESOLV] = "resolv", [LIB_PAM] = "pam", [LIB_PRIV] = "priv",
};

/* The variable that enables a library by itself (--with), or NULL where
 * the library's own variables (files, the socket directory) enable it. */
static const char *const lib_enable[LIB_COUNT] = {
    [LIB_UID] = "UID_WRAPPER",
    [LIB_PAM] = "PAM_WRAPPER",
    [LIB_PRIV] = "PRIV_WRAPPER",
};

void launcher_die(const char *fmt, ...)
{
	va_list ap;

	fputs("cwrap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(LAUNCHER_EXIT_ERROR);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL) {
		launcher_die("out of memory");
	}
	return d;
}

/* Sets (or replaces) a variable of the plan. */
void launcher_set(struct launcher_plan *p, const char *name, char *value)
{
	size_t i;

	for (i = 0; i < p->nvars; i++) {
		if (strcmp(p->vars[i].name, name) == 0) {
			free(p->vars[i].value);
			p->vars[i].value = value;
			return;
		}
	}
	if (p->nvars == LAUNCHER_MAX_VARS) {
		launcher_die("too many variables");
	}
	p->vars[p->nvars].name = name;
	p->vars[p->nvars].value = value;
	p->nvars++;
}

static void use(struct launcher_plan *p, enum launcher_lib lib, const char *opt)
{
	if (!p->use[lib]) {
		p->use[lib] = true;
		p->why[lib] = opt;
	}
}

/* OPT FILE: an existing file (a directory when `dir`), readable, as an
 * absolute path. */
static char *existing(const char *opt, const char *path, bool dir)
{
	struct stat st;
	char *real;

	if (*path == '\0') {
		launcher_die("%s: empty file name", opt);
	}
	real = realpath(path, NULL);
	if (real == NULL || stat(real, &st) != 0) {
		launcher_die("%s %s: %s", opt, path, strerror(errno));
	}
	if (dir && !S_ISDIR(st.st_mode)) {
		launcher_die("%s %s: not a directory", opt, path);
	}
	if (!dir && S_ISDIR(st.st_mode)) {
		launcher_die("%s %s: is a directory", opt, path);
	}
	if (access(real, dir ? R_OK | X_OK : R_OK) != 0) {
		launcher_die("%s %s: %s", opt, path, strerror(errno));
	}
	return real;
}

/* OPT FILE: a file that may not exist yet (a capture), in an existing
 * directory, as an absolute path. */
static char *to_create(const char *opt, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash != NULL ? slash + 1 : path;
	char *parent, *real, *abs;
	struct stat st;

	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0) {
		launcher_die("%s %s: not a file name", opt, path);
	}
	if (slash == NULL) {
		parent = xstrdup(".");
	} else if (slash == path) {
		parent = xstrdup("/");
	} else {
		parent = strndup(path, (size_t)(slash - path));
		if (parent == NULL) {
			launcher_die("out of memory");
		}
	}
	real = realpath(parent, NULL);
	if (real == NULL) {
		launcher_die("%s %s: %s: %s", opt, path, parent,
			     strerror(errno));
	}
	free(parent);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		launcher_die("%s %s: is a directory", opt, path);
	}
	if (asprintf(&abs, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/",
		     base) < 0) {
		launcher_die("out of memory");
	}
	free(real);
	return abs;
}

/* A decimal number in [min, max], or one line and exit. */
static long number(const char *opt, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || v < min ||
	    v > max) {
		launcher_die("%s %s: not a number from %ld to %ld", opt, arg,
			     min, max);
	}
	return v;
}

/* --debug LEVEL: 0..3, or a name the libraries take for one (any case),
 * passed on as given */
static const char *level(const char *opt, const char *arg)
{
	static const char *const names[] = {"error", "warn", "warning", "debug",
					    "trace"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(arg, names[i]) == 0) {
			return arg;
		}
	}
	errno = 0;
	char *end;
	long v = strtol(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || v > 3) {
		launcher_die("%s %s: not a level from 0 to 3, nor error, "
			     "warn, warning, debug or trace",
			     opt, arg);
	}
	return arg;
}

/* --with LIB[,LIB...] */
static void with(struct launcher_plan *p, const char *arg)
{
	char *list = xstrdup(arg), *save = NULL, *name;
	int lib, n = 0;

	for (name = strtok_r(list, ",", &save); name != NULL;
	     name = strtok_r(NULL, ",", &save)) {
		for (lib = 0; lib < LIB_COUNT; lib++) {
			if (strcmp(name, lib_names[lib]) == 0) {
				break;
			}
		}
		if (lib == LIB_COUNT) {
			launcher_die("--with %s: not one of socket, nss, uid, "
				     "resolv, pam, priv",
				     name);
		}
		use(p, (enum launcher_lib)lib, "--with");
		n++;
		if (lib_enable[lib] != NULL) {
			launcher_set(p, lib_enable[lib], xstrdup("1"));
		}
	}
	if (n == 0) {
		launcher_die("--with %s: no library named", arg);
	}
	free(list);
}

static const char usage[] =
    "Usage: cwrap [OPTIONS] [--] COMMAND [ARG...]\n"
    "       cwrap --print-env [OPTIONS]\n"
    "       cwrap --sockets [--json] [--listening] [DIR]\n"
    "Runs COMMAND under the cwrap libraries that the options ask for, and\n"
    "exits with its status. socket_wrapper is always used (unless\n"
    "--no-socket), with a private socket directory removed when COMMAND\n"
    "ends.\n"
    "\n"
    "socket_wrapper:\n"
    "  --dir DIR          shared socket directory (SOCKET_WRAPPER_DIR),\n"
    "                     made if missing, never removed\n"
    "  --keep             keep the private socket directory (its name is\n"
    "                     printed on stderr)\n"
    "  --iface N          the command's interface, 127.0.0.N (1..254)\n"
    "  --pcap FILE        capture the traffic to FILE\n"
    "  --faults FILE      network conditions (SOCKET_WRAPPER_FAULTS)\n"
    "  --no-socket        do not use socket_wrapper\n"
    "  --supervise        supervise COMMAND and what it starts, so that\n"
    "                     programs making their own system calls are in\n"
    "                     the emulated network (the default for a static\n"
    "                     or Go COMMAND)\n"
    "  --no-supervise     never supervise\n"
    "nss_wrapper:\n"
    "  --passwd FILE      users (needs --group)\n"
    "  --group FILE       groups (needs --passwd)\n"
    "  --shadow FILE      shadow entries\n"
    "  --hosts FILE       host names and addresses\n"
    "  --hostname NAME    what gethostname() returns\n"
    "uid_wrapper:\n"
    "  --root             start as a fake root (uid 0, gid 0)\n"
    "resolv_wrapper:\n"
    "  --resolv FILE      DNS records (RESOLV_WRAPPER_HOSTS)\n"
    "  --resolv-conf FILE resolv.conf to use (RESOLV_WRAPPER_CONF)\n"
    "pam_wrapper:\n"
    "  --pam DIR          PAM service directory (PAM_WRAPPER_SERVICE_DIR)\n"
    "any library:\n"
    "  --with LIB[,LIB]   use LIB (socket, nss, uid, resolv, pam, priv)\n"
    "                     with the variables already set; uid, pam and\n"
    "                     priv are enabled (UID_WRAPPER=1, ...)\n"
    "  --debug LEVEL      the libraries' debug level: 0..3, or error,\n"
    "                     warn, debug, trace\n"
    "  --print-env        print the variables as export lines, run nothing\n"
    "                     (the private directory is then kept)\n"
    "the socket directory, as ss(8) shows a host's sockets:\n"
    "  --sockets [DIR]    list DIR's endpoints (default: --dir, else\n"
    "                     $SOCKET_WRAPPER_DIR), run nothing\n"
    "  --json             as a JSON array\n"
    "  --listening        listeners only\n"
    "  --help             this help\n"
    "  --version          the version\n"
    "Exit status: COMMAND's (a signal that killed it kills cwrap too);\n"
    "125 for cwrap's own errors, 126/127 when COMMAND cannot run.\n"
    "See cwrap(1).\n";

enum {
	OPT_DIR = 256,
	OPT_KEEP,
	OPT_IFACE,
	OPT_PCAP,
	OPT_FAULTS,
	OPT_NO_SOCKET,
	OPT_SUPERVISE,
	OPT_NO_SUPERVISE,
	OPT_PASSWD,
	OPT_GROUP,
	OPT_SHADOW,
	OPT_HOSTS,
	OPT_HOSTNAME,
	OPT_ROOT,
	OPT_RESOLV,
	OPT_RESOLV_CONF,
	OPT_PAM,
	OPT_WITH,
	OPT_DEBUG,
	OPT_PRINT_ENV,
	OPT_SOCKETS,
	OPT_JSON,
	OPT_LISTENING,
	OPT_HELP,
	OPT_VERSION,
};

static const struct option options[] = {
    {"dir", required_argument, NULL, OPT_DIR},
    {"keep", no_argument, NULL, OPT_KEEP},
    {"iface", required_argument, NULL, OPT_IFACE},
    {"pcap", required_argument, NULL, OPT_PCAP},
    {"faults", required_argument, NULL, OPT_FAULTS},
    {"no-socket", no_argument, NULL, OPT_NO_SOCKET},
    {"supervise", no_argument, NULL, OPT_SUPERVISE},
    {"no-supervise", no_argument, NULL, OPT_NO_SUPERVISE},
    {"passwd", required_argument, NULL, OPT_PASSWD},
    {"group", required_argument, NULL, OPT_GROUP},
    {"shadow", required_argument, NULL, OPT_SHADOW},
    {"hosts", required_argument, NULL, OPT_HOSTS},
    {"hostname", required_argument, NULL, OPT_HOSTNAME},
    {"root", no_argument, NULL, OPT_ROOT},
    {"resolv", required_argument, NULL, OPT_RESOLV},
    {"resolv-conf", required_argument, NULL, OPT_RESOLV_CONF},
    {"pam", required_argument, NULL, OPT_PAM},
    {"with", required_argument, NULL, OPT_WITH},
    {"debug", required_argument, NULL, OPT_DEBUG},
    {"print-env", no_argument, NULL, OPT_PRINT_ENV},
    {"sockets", no_argument, NULL, OPT_SOCKETS},
    {"json", no_argument, NULL, OPT_JSON},
    {"listening", no_argument, NULL, OPT_LISTENING},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* The option being handled, as the user wrote it, for messages. */
static const char *opt_name(int c)
{
	const struct option *o;

	for (o = options; o->name != NULL; o++) {
		if (o->val == c) {
			return o->name;
		}
	}
	return "?";
}

/* An option of the socket directory or the socket library's variables:
 * needs socket_wrapper (so contradicts --no-socket). */
static void socket_option(struct launcher_plan *p, const char *opt)
{
	if (p->no_socket_conflict == NULL) {
		p->no_socket_conflict = opt;
	}
}

static void nss_file(struct launcher_plan *p, const char *opt, const char *var,
		     const char *arg)
{
	launcher_set(p, var, existing(opt, arg, false));
	use(p, LIB_NSS, opt);
}

static void parse(struct launcher_plan *p, int argc, char **argv)
{
	char opt[32];
	int c;

	opterr = 0;
	/* "+": options end at the command's name, as for env(1). */
	while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		if (c >= OPT_DIR) {
			snprintf(opt, sizeof(opt), "--%s", opt_name(c));
		}
		if (c >= OPT_DIR && c != OPT_DIR && c != OPT_SOCKETS &&
		    c != OPT_JSON && c != OPT_LISTENING &&
		    p->run_option == NULL) {
			p->run_option = opt_name(c);
		}
		switch (c) {
		case OPT_DIR:
			if (*optarg == '\0') {
				launcher_die("--dir: empty directory name");
			}
			free(p->dir);
			p->dir = xstrdup(optarg);
			socket_option(p, "--dir");
			break;
		case OPT_KEEP:
			p->keep = true;
			socket_option(p, "--keep");
			break;
		case OPT_IFACE:
			number(opt, optarg, 1, 254);
			launcher_set(p, "SOCKET_WRAPPER_DEFAULT_IFACE",
				     xstrdup(optarg));
			socket_option(p, "--iface");
			break;
		case OPT_PCAP:
			launcher_set(p, "SOCKET_WRAPPER_PCAP_FILE",
				     to_create(opt, optarg));
			socket_option(p, "--pcap");
			break;
		case OPT_FAULTS:
			launcher_set(p, "SOCKET_WRAPPER_FAULTS",
				     existing(opt, optarg, false));
			socket_option(p, "--faults");
			break;
		case OPT_NO_SOCKET:
			p->no_socket = true;
			break;
		case OPT_SUPERVISE:
		case OPT_NO_SUPERVISE:
			if (p->supervise != 0 &&
			    p->supervise != (c == OPT_SUPERVISE ? 1 : -1)) {
				launcher_die("--supervise and --no-supervise "
					     "contradict each other");
			}
			p->supervise = c == OPT_SUPERVISE ? 1 : -1;
			if (c == OPT_SUPERVISE) {
				socket_option(p, "--supervise");
			}
			break;
		case OPT_PASSWD:
			nss_file(p, "--passwd", "NSS_WRAPPER_PASSWD", optarg);
			break;
		case OPT_GROUP:
			nss_file(p, "--group", "NSS_WRAPPER_GROUP", optarg);
			break;
		case OPT_SHADOW:
			nss_file(p, "--shadow", "NSS_WRAPPER_SHADOW", optarg);
			break;
		case OPT_HOSTS:
			nss_file(p, "--hosts", "NSS_WRAPPER_HOSTS", optarg);
			break;
		case OPT_HOSTNAME:
			if (*optarg == '\0') {
				launcher_die("--hostname: empty name");
			}
			launcher_set(p, "NSS_WRAPPER_HOSTNAME",
				     xstrdup(optarg));
			use(p, LIB_NSS, "--hostname");
			break;
		case OPT_ROOT:
			launcher_set(p, "UID_WRAPPER", xstrdup("1"));
			launcher_set(p, "UID_WRAPPER_ROOT", xstrdup("1"));
			use(p, LIB_UID, "--root");
			break;
		case OPT_RESOLV:
			launcher_set(p, "RESOLV_WRAPPER_HOSTS",
				     existing(opt, optarg, false));
			use(p, LIB_RESOLV, "--resolv");
			break;
		case OPT_RESOLV_CONF:
			launcher_set(p, "RESOLV_WRAPPER_CONF",
				     existing(opt, optarg, false));
			use(p, LIB_RESOLV, "--resolv-conf");
			break;
		case OPT_PAM:
			launcher_set(p, "PAM_WRAPPER", xstrdup("1"));
			launcher_set(p, "PAM_WRAPPER_SERVICE_DIR",
				     existing(opt, optarg, true));
			use(p, LIB_PAM, "--pam");
			break;
		case OPT_WITH:
			with(p, optarg);
			break;
		case OPT_DEBUG:
			p->debug = level(opt, optarg);
			break;
		case OPT_PRINT_ENV:
			p->print_env = true;
			break;
		case OPT_SOCKETS:
			p->sockets = true;
			break;
		case OPT_JSON:
			p->json = true;
			break;
		case OPT_LISTENING:
			p->listening = true;
			break;
		case 'h':
		case OPT_HELP:
			fputs(usage, stdout);
			exit(0);
		case OPT_VERSION:
			printf("cwrap %s\n", CWRAP_VERSION);
			exit(0);
		case ':':
			launcher_die("%s needs an argument (cwrap --help)",
				     argv[optind - 1]);
		default:
			if (optopt != 0) {
				snprintf(opt, sizeof(opt), "-%c", optopt);
			}
			launcher_die("unknown option '%s' (cwrap --help)",
				     optopt != 0 ? opt : argv[optind - 1]);
		}
	}
}

/* What the options together say: the pairs nss_wrapper needs, and no
 * socket option with --no-socket. */
static void check(struct launcher_plan *p)
{
	bool passwd = false, group = false;
	size_t i;

	for (i = 0; i < p->nvars; i++) {
		passwd |= strcmp(p->vars[i].name, "NSS_WRAPPER_PASSWD") == 0;
		group |= strcmp(p->vars[i].name, "NSS_WRAPPER_GROUP") == 0;
	}
	/* nss_wrapper reads users and groups only from both files: one
	 * alone would be ignored, and the system's users seen. */
	if (passwd != group) {
		launcher_die("%s needs %s too: nss_wrapper reads users and "
			     "groups only from both files",
			     passwd ? "--passwd" : "--group",
			     passwd ? "--group" : "--passwd");
	}
	if (p->no_socket) {
		if (p->use[LIB_SOCKET]) {
			launcher_die("--no-socket and --with socket "
				     "contradict each other");
		}
		if (p->no_socket_conflict != NULL) {
			launcher_die("--no-socket and %s contradict each other",
				     p->no_socket_conflict);
		}
	} else {
		use(p, LIB_SOCKET, "socket_wrapper");
	}
}

static void plan_free(struct launcher_plan *p)
{
	size_t i;

	for (i = 0; i < p->nvars; i++) {
		free(p->vars[i].value);
	}
	free(p->dir);
}

/* cwrap --sockets [--json] [--listening] [DIR], options before or after
 * DIR; --dir DIR says it too. Runs nothing. */
static int sockets(struct launcher_plan *p, int argc, char **argv)
{
	const char *dir = NULL;
	int status;

	while (optind < argc) {
		if (dir != NULL) {
			launcher_die("--sockets takes one directory: '%s' "
				     "given after '%s'",
				     argv[optind], dir);
		}
		dir = argv[optind++];
		parse(p, argc, argv);
	}
	if (p->run_option != NULL) {
		launcher_die("--sockets and --%s contradict each other "
			     "(--sockets runs nothing)",
			     p->run_option);
	}
	if (dir != NULL && p->dir != NULL) {
		launcher_die("--sockets %s and --dir %s: two directories", dir,
			     p->dir);
	}
	status =
	    launcher_sockets(dir != NULL ? dir : p->dir, p->json, p->listening);
	plan_free(p);
	return status;
}

int main(int argc, char **argv)
{
	struct launcher_plan plan = {0};
	int status;

	if (argc >= 2 && strcmp(argv[1], "--exec-supervised") == 0) {
		return launcher_exec_supervised(argv + 2);
	}
	if (argc >= 2 && strcmp(argv[1], "--serve-listener") == 0) {
		return launcher_serve_listener(argv + 2);
	}
	parse(&plan, argc, argv);
	if (plan.sockets) {
		return sockets(&plan, argc, argv);
	}
	if (plan.json || plan.listening) {
		launcher_die("--%s needs --sockets",
			     plan.json ? "json" : "listening");
	}
	check(&plan);
	if (plan.print_env && optind < argc) {
		launcher_die("--print-env runs no command: '%s' given",
			     argv[optind]);
	}
	if (!plan.print_env && optind == argc) {
		launcher_die("no command given (cwrap --help)");
	}
	launcher_prepare(&plan, argv[0]);
	if (plan.print_env) {
		launcher_print_env(&plan);
		plan_free(&plan);
		return 0;
	}
	status = launcher_run(&plan, argv + optind);
	plan_free(&plan);
	return status;
}
