/*
 * Carrying out the launcher's plan: where the libraries are (beside the
 * launcher's own install), the socket directory (shared, or private and
 * removed afterwards), the environment (LD_PRELOAD and the variables), and
 * the command. Single-threaded; the only state shared with a signal
 * handler is the child's pid, written before the handler can run.
 *
 * Without a private directory to remove there is nothing to do after the
 * command, so cwrap becomes the command (execvp): same pid, same signals,
 * same exit status. With one, cwrap waits for the command, forwards the
 * signals sent to cwrap alone, removes the directory, and then ends as the
 * command ended, re-raising the signal that killed it.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"
#ifdef CWRAP_HAVE_SUPERVISOR
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "cwrap_supervise.h"
#include "sup.h"
#endif

/* "$DIR/T0A0007" and its NUL must fit in sun_path (108 bytes):
 * socket_wrapper refuses a longer directory. */
#define SOCKET_DIR_MAX 99

static const struct {
	const char *file;
	const char *debugvar;
} lib_info[LIB_COUNT] = {
    [LIB_SOCKET] = {"libsocket_wrapper.so", "SOCKET_WRAPPER_DEBUGLEVEL"},
    [LIB_NSS] = {"libnss_wrapper.so", "NSS_WRAPPER_DEBUGLEVEL"},
    [LIB_UID] = {"libuid_wrapper.so", "UID_WRAPPER_DEBUGLEVEL"},
    [LIB_RESOLV] = {"libresolv_wrapper.so", "RESOLV_WRAPPER_DEBUGLEVEL"},
    [LIB_PAM] = {"libpam_wrapper.so", "PAM_WRAPPER_DEBUGLEVEL"},
    [LIB_PRIV] = {"libpriv_wrapper.so", "PRIV_WRAPPER_DEBUGLEVEL"},
};

static char *private_dir; /* made by us: removed at the end */

static char *cat3(const char *a, const char *b, const char *c)
{
	char *s;

	if (asprintf(&s, "%s%s%s", a, b, c) < 0) {
		launcher_die("out of memory");
	}
	return s;
}

/* The directory of the libraries: $CWRAP_LIBDIR, or the install's libdir
 * seen from the launcher's own directory (CWRAP_LAUNCHER_LIBDIR is the
 * relative path from bindir to libdir), so that a tree installed under
 * any prefix, or moved, finds its own libraries. */
static char *lib_dir(const char *argv0)
{
	const char *env = getenv("CWRAP_LIBDIR");
	char *self, *slash, *joined, *dir;

	if (env != NULL && *env != '\0') {
		dir = realpath(env, NULL);
		if (dir == NULL) {
			launcher_die("CWRAP_LIBDIR=%s: %s", env,
				     strerror(errno));
		}
		return dir;
	}
	self = realpath("/proc/self/exe", NULL);
	if (self == NULL && strchr(argv0, '/') != NULL) {
		self = realpath(argv0, NULL);
	}
	if (self == NULL) {
		launcher_die("cannot find where cwrap is installed "
			     "(no /proc/self/exe); set CWRAP_LIBDIR");
	}
	slash = strrchr(self, '/');
	*slash = '\0';
	joined = cat3(self, "/", CWRAP_LAUNCHER_LIBDIR);
	dir = realpath(joined, NULL);
	if (dir == NULL) {
		launcher_die("the libraries' directory %s: %s", joined,
			     strerror(errno));
	}
	free(joined);
	free(self);
	return dir;
}

/* Whether a token of a LD_PRELOAD value (separated by spaces or colons,
 * as the dynamic loader reads it) is `path`, or, with basename_prefix, has
 * a file name that begins with `path`. */
static bool preload_has(const char *preload, const char *path,
			bool basename_prefix)
{
	size_t plen = strlen(path);
	const char *t = preload, *end, *base;

	while (*t != '\0') {
		t += strspn(t, " :\t");
		end = t + strcspn(t, " :\t");
		if (basename_prefix) {
			for (base = end; base > t && base[-1] != '/'; base--) {
			}
			if ((size_t)(end - base) >= plen &&
			    memcmp(base, path, plen) == 0) {
				return true;
			}
		} else if ((size_t)(end - t) == plen &&
			   memcmp(t, path, plen) == 0) {
			return true;
		}
		t = end;
	}
	return false;
}

/* LD_PRELOAD for the command: what the environment had stays first (a
 * sanitizer runtime must come before every other library), ours follow.
 * In a sanitizer build of cwrap, the libraries need its runtime first:
 * it is added in front unless already there. */
static char *preload_value(const struct launcher_plan *p, const char *dir)
{
	const char *old = getenv("LD_PRELOAD");
	char *v = old != NULL ? strdup(old) : strdup(""), *lib, *n;
	const char *rt = CWRAP_SANITIZER_RUNTIME, *rtbase, *so;
	int i;

	if (v == NULL) {
		launcher_die("out of memory");
	}
	for (i = 0; i < LIB_COUNT; i++) {
		if (!p->use[i]) {
			continue;
		}
		lib = cat3(dir, "/", lib_info[i].file);
		if (access(lib, R_OK) != 0) {
			launcher_die("%s needs %s, not found in %s (%s)",
				     p->why[i], lib_info[i].file, dir,
				     strerror(errno));
		}
		if (!preload_has(v, lib, false)) {
			n = cat3(v, *v != '\0' ? ":" : "", lib);
			free(v);
			v = n;
		}
		free(lib);
	}
	if (*rt != '\0') {
		/* .../libasan.so.8: any libasan.so* there will do */
		rtbase = strrchr(rt, '/') != NULL ? strrchr(rt, '/') + 1 : rt;
		so = strstr(rtbase, ".so");
		n = strndup(rtbase, so != NULL ? (size_t)(so + 3 - rtbase)
					       : strlen(rtbase));
		if (n == NULL) {
			launcher_die("out of memory");
		}
		if (!preload_has(v, n, true)) {
			free(n);
			n = cat3(rt, *v != '\0' ? ":" : "", v);
			free(v);
			v = n;
		} else {
			free(n);
		}
	}
	return v;
}

/* Resolved and short enough for socket names, or one line and exit
 * (after removing the directory if cwrap has just made it). */
static char *socket_dir_checked(const char *opt, const char *dir, bool made)
{
	char *real = realpath(dir, NULL);
	const char *why = NULL;
	struct stat st;
	int err = 0;

	if (real == NULL || stat(real, &st) != 0) {
		err = errno;
	} else if (!S_ISDIR(st.st_mode)) {
		why = "not a directory";
	} else if (access(real, W_OK | X_OK) != 0) {
		err = errno;
	} else if (strlen(real) > SOCKET_DIR_MAX) {
		if (made) {
			rmdir(real);
		}
		launcher_die("%s %s: its path %s is %zu bytes, socket names "
			     "allow %d",
			     opt, dir, real, strlen(real), SOCKET_DIR_MAX);
	}
	if (err != 0 || why != NULL) {
		launcher_die("%s %s: %s", opt, dir,
			     why != NULL ? why : strerror(err));
	}
	return real;
}

/* A fresh directory in $TMPDIR (or /tmp when that path would be too long
 * for socket names), mode 0700. */
static char *make_private_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl, *real;

	if (tmp == NULL || *tmp == '\0') {
		tmp = "/tmp";
	}
	for (;;) {
		tmpl = cat3(tmp, "/", "cwrap-XXXXXX");
		if (mkdtemp(tmpl) == NULL) {
			launcher_die("cannot make a socket directory in %s: %s",
				     tmp, strerror(errno));
		}
		real = realpath(tmpl, NULL);
		if (real == NULL) {
			launcher_die("%s: %s", tmpl, strerror(errno));
		}
		if (strlen(real) <= SOCKET_DIR_MAX ||
		    strcmp(tmp, "/tmp") == 0) {
			free(tmpl);
			return real;
		}
		rmdir(tmpl);
		free(tmpl);
		free(real);
		tmp = "/tmp";
	}
}

void launcher_prepare(struct launcher_plan *p, const char *argv0)
{
	char *dir = lib_dir(argv0);
	bool made;
	size_t i;
	int l;

	/* (checked before anything is made: a missing library leaves no
	 * directory behind) */
	launcher_set(p, "LD_PRELOAD", preload_value(p, dir));
	free(dir);
	if (p->debug != NULL) {
		for (l = 0; l < LIB_COUNT; l++) {
			if (p->use[l]) {
				launcher_set(p, lib_info[l].debugvar,
					     strdup(p->debug));
			}
		}
	}
	if (p->use[LIB_SOCKET]) {
		if (p->dir != NULL) {
			made = mkdir(p->dir, 0777) == 0;
			if (!made && errno != EEXIST) {
				launcher_die("--dir %s: %s", p->dir,
					     strerror(errno));
			}
			dir = socket_dir_checked("--dir", p->dir, made);
		} else {
			dir = make_private_dir();
			if (p->keep || p->print_env) {
				fprintf(stderr,
					"cwrap: socket directory %s (kept)\n",
					dir);
			} else {
				private_dir = strdup(dir);
				if (private_dir == NULL) {
					rmdir(dir);
					launcher_die("out of memory");
				}
			}
		}
		launcher_set(p, "SOCKET_WRAPPER_DIR", dir);
	}
	for (i = 0; i < p->nvars; i++) {
		if (p->vars[i].value == NULL) {
			launcher_die("out of memory");
		}
		if (!p->print_env &&
		    setenv(p->vars[i].name, p->vars[i].value, 1) != 0) {
			launcher_die("%s: %s", p->vars[i].name,
				     strerror(errno));
		}
	}
}

void launcher_print_env(const struct launcher_plan *p)
{
	const char *c;
	size_t i;

	for (i = 0; i < p->nvars; i++) {
		printf("export %s='", p->vars[i].name);
		for (c = p->vars[i].value; *c != '\0'; c++) {
			if (*c == '\'') {
				fputs("'\\''", stdout);
			} else {
				putchar(*c);
			}
		}
		fputs("'\n", stdout);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		launcher_die("writing the variables: %s", strerror(errno));
	}
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path) != 0 && errno != ENOENT) {
		fprintf(stderr, "cwrap: removing %s: %s\n", path,
			strerror(errno));
	}
	return 0;
}

static void remove_private_dir(void)
{
	if (private_dir != NULL) {
		nftw(private_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(private_dir);
		private_dir = NULL;
	}
}

/* The signals sent to cwrap that the command should get instead. */
static const int forwarded[] = {SIGHUP,	 SIGINT,  SIGQUIT,
				SIGTERM, SIGUSR1, SIGUSR2};

static volatile pid_t child;

static void forward(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	/* A signal from the terminal (Ctrl-C, Ctrl-\, a hang-up: si_code
	 * SI_KERNEL) went to the whole foreground process group, which the
	 * command shares with cwrap: it has its own copy. One from the
	 * command itself is not sent back to it. */
	if (si->si_code == SI_KERNEL || si->si_pid == child) {
		return;
	}
	kill(child, sig);
}

static int exec_command(char **argv)
{
	int err;

	execvp(argv[0], argv);
	err = errno;
	fprintf(stderr, "cwrap: %s: %s\n", argv[0], strerror(err));
	return err == ENOENT ? LAUNCHER_EXIT_NOTFOUND : LAUNCHER_EXIT_NOEXEC;
}

/* Ends this process as the command ended: by the same signal (the
 * default action restored, without a second core dump), or its status. */
static int end_like(int status)
{
	struct rlimit none = {0, 0};
	sigset_t set;
	int sig;

	if (!WIFSIGNALED(status)) {
		return WEXITSTATUS(status);
	}
	sig = WTERMSIG(status);
	signal(sig, SIG_DFL);
	setrlimit(RLIMIT_CORE, &none);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	/* (a signal whose default action does not end a process) */
	return 128 + sig;
}

#ifdef CWRAP_HAVE_SUPERVISOR
/* Why the command is supervised, or NULL. */
static const char *supervision(const struct launcher_plan *p, const char *name)
{
	const char *why;
	char *file;

	if (p->supervise < 0 || !p->use[LIB_SOCKET]) {
		return NULL;
	}
	if (p->supervise > 0) {
		return "--supervise";
	}
	file = cwrap_find_command(name);
	why = file != NULL ? cwrap_elf_kind(file) : NULL;
	free(file);
	return why != NULL && strcmp(why, "Go") == 0 ? "a Go program"
	       : why != NULL			      ? "statically linked"
						      : NULL;
}

/* In the child: the filter, its listener's number sent up, the parent's
 * word that it has its copy awaited (from here on the socket calls of
 * this process wait for the supervisor). */
static void supervised_child(int up, int down)
{
	int fd = sup_filter_install();
	char ok;

	if (write(up, &fd, sizeof(fd)) != (ssize_t)sizeof(fd) || fd < 0 ||
	    read(down, &ok, 1) != 1) {
		_exit(LAUNCHER_EXIT_ERROR);
	}
	close(fd);
}

/* In the parent: the listener taken from the child and served. 0, or
 * the reason it could not be (printed). */
static int supervise(pid_t pid, const char *name, int up, int down)
{
	int fd = -1, listener = -1, err = 0;

	if (read(up, &fd, sizeof(fd)) != (ssize_t)sizeof(fd)) {
		err = EPIPE;
	} else if (fd < 0) {
		err = -fd;
		fprintf(stderr,
			"cwrap: cannot supervise %s: installing the seccomp "
			"filter: %s\n",
			name, strerror(err));
		return err;
	}
	if (err == 0) {
		listener = sup_fd_of(pid, fd);
		err = listener < 0 ? errno : 0;
	}
	if (err == 0) {
		err = sup_serve_start(listener);
	}
	if (err != 0) {
		fprintf(stderr,
			"cwrap: cannot supervise %s: taking the filter's "
			"listener: %s\n",
			name, strerror(err));
		if (listener >= 0) {
			close(listener);
		}
		return err;
	}
	if (write(down, "", 1) != 1) {
		return errno;
	}
	return 0;
}
#endif

#ifdef CWRAP_HAVE_SUPERVISOR
/* The supervisor for a process that is not our child (--exec-supervised):
 * a grandchild of it, detached, that takes the listener `*fd` from
 * process `pid` once told its number on `down`, says so on `up`, and
 * becomes `cwrap --serve-listener N` without LD_PRELOAD. Never returns. */
static void detached_supervisor(pid_t pid, int up, int down)
{
	char num[16], *argv[4];
	extern char **environ;
	int fd, listener, devnull;
	char **env, **e, **o;
	size_t n = 0;

	setsid();
	if (read(down, &fd, sizeof(fd)) != (ssize_t)sizeof(fd)) {
		_exit(1);
	}
	listener = sup_fd_of(pid, fd);
	if (listener < 0) {
		fprintf(stderr,
			"cwrap: cannot supervise: taking the filter's listener "
			"of process %d: %s\n",
			(int)pid, strerror(errno));
		_exit(1);
	}
	/* (pidfd_getfd() sets close-on-exec: this one must stay) */
	fcntl(listener, F_SETFD, 0);
	/* (stdin and stdout are the program's; stderr stays for messages) */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
	}
	snprintf(num, sizeof(num), "%d", listener);
	for (e = environ; *e != NULL; e++) {
		n++;
	}
	env = calloc(n + 1, sizeof(*env));
	if (env == NULL) {
		_exit(1);
	}
	for (e = environ, o = env; *e != NULL; e++) {
		if (strncmp(*e, "LD_PRELOAD=", 11) != 0) {
			*o++ = *e;
		}
	}
	if (write(up, "", 1) != 1) {
		_exit(1);
	}
	/* the listener the one descriptor kept past exec, besides stdio */
	for (int i = 3; i < 1024; i++) {
		if (i != listener) {
			close(i);
		}
	}
	argv[0] = (char *)"cwrap";
	argv[1] = (char *)"--serve-listener";
	argv[2] = num;
	argv[3] = NULL;
	execve("/proc/self/exe", argv, env);
	_exit(1);
}

int launcher_exec_supervised(char **argv)
{
	extern char **environ;
	const char *path = argv[0], *lacks;
	int up[2], down[2], fd;
	pid_t me = getpid(), h1, h2 = -1;
	char ok;

	if (path == NULL || argv[1] == NULL) {
		launcher_die("--exec-supervised PATH ARG0 [ARG...]: for "
			     "socket_wrapper's exec of a static or Go program");
	}
	lacks = sup_host_lacks();
	if (lacks != NULL) {
		fprintf(stderr,
			"cwrap: cannot supervise %s: this host lacks %s; it "
			"runs unsupervised\n",
			path, lacks);
		goto exec;
	}
	if (pipe2(up, O_CLOEXEC) != 0 || pipe2(down, O_CLOEXEC) != 0) {
		launcher_die("cannot supervise %s: pipe: %s", path,
			     strerror(errno));
	}
	h1 = fork();
	if (h1 < 0) {
		launcher_die("cannot supervise %s: fork: %s", path,
			     strerror(errno));
	}
	if (h1 == 0) {
		/* (twice: the supervisor must not be the program's child) */
		pid_t h = fork();

		if (h == 0) {
			close(up[0]);
			close(down[1]);
			detached_supervisor(me, up[1], down[0]);
		}
		_exit(write(up[1], &h, sizeof(h)) == (ssize_t)sizeof(h) ? 0 : 1);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &h2, sizeof(h2)) != (ssize_t)sizeof(h2) || h2 < 0) {
		launcher_die("cannot supervise %s: fork: %s", path,
			     strerror(errno));
	}
	waitpid(h1, NULL, 0);
	/* Yama's ptrace_scope 1: the supervisor, not an ancestor, may read
	 * this process's memory (EINVAL without Yama) */
	prctl(PR_SET_PTRACER, (unsigned long)h2, 0, 0, 0);
	fd = sup_filter_install();
	if (fd < 0) {
		close(down[1]);
		launcher_die("cannot supervise %s: installing the seccomp "
			     "filter: %s",
			     path, strerror(-fd));
	}
	/* From here every socket call of this process waits for the
	 * supervisor: none is made before the exec. */
	if (write(down[1], &fd, sizeof(fd)) != (ssize_t)sizeof(fd) ||
	    read(up[0], &ok, 1) != 1) {
		launcher_die("cannot supervise %s: its supervisor failed", path);
	}
	close(fd);
	close(up[0]);
	close(down[1]);
exec:
	/* The system call itself: a socket_wrapper preloaded here would
	 * send an exec() of this program to us again. */
	syscall(SYS_execve, path, argv + 1, environ);
	fprintf(stderr, "cwrap: %s: %s\n", path, strerror(errno));
	return errno == ENOENT ? LAUNCHER_EXIT_NOTFOUND : LAUNCHER_EXIT_NOEXEC;
}

int launcher_serve_listener(char **argv)
{
	static const int quiet[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM,
				    SIGPIPE};
	char *end;
	long fd;
	size_t i;

	fd = argv[0] != NULL ? strtol(argv[0], &end, 10) : -1;
	if (argv[0] == NULL || *end != '\0' || fd < 0 || fd > 65535) {
		launcher_die("--serve-listener FD: the supervisor of a program "
			     "socket_wrapper started");
	}
	/* It ends when the last supervised process does, not before. */
	for (i = 0; i < CWRAP_ARRAY_SIZE(quiet); i++) {
		signal(quiet[i], SIG_IGN);
	}
	if (sup_serve_start((int)fd) != 0) {
		launcher_die("--serve-listener: %s", strerror(errno));
	}
	sup_serve_wait();
	return 0;
}
#else
int launcher_exec_supervised(char **argv)
{
	if (argv[0] == NULL || argv[1] == NULL) {
		launcher_die("--exec-supervised PATH ARG0 [ARG...]");
	}
	fprintf(stderr,
		"cwrap: cannot supervise %s: this build has no supervisor; it "
		"runs unsupervised\n",
		argv[0]);
	execv(argv[0], argv + 1);
	fprintf(stderr, "cwrap: %s: %s\n", argv[0], strerror(errno));
	return errno == ENOENT ? LAUNCHER_EXIT_NOTFOUND : LAUNCHER_EXIT_NOEXEC;
}

int launcher_serve_listener(char **argv)
{
	(void)argv;
	launcher_die("--serve-listener: this build has no supervisor");
}
#endif

int launcher_run(const struct launcher_plan *p, char **argv)
{
	struct sigaction sa, old[CWRAP_ARRAY_SIZE(forwarded)];
	sigset_t set, saved;
	const char *why = NULL;
#ifdef CWRAP_HAVE_SUPERVISOR
	int up[2] = {-1, -1}, down[2] = {-1, -1};
#endif
	size_t i;
	pid_t pid;
	int status;

#ifdef CWRAP_HAVE_SUPERVISOR
	why = supervision(p, argv[0]);
	if (why != NULL) {
		const char *lacks = sup_host_lacks();

		if (lacks != NULL) {
			fprintf(stderr,
				"cwrap: cannot supervise %s (%s): this host "
				"lacks %s\n",
				argv[0], why, lacks);
			remove_private_dir();
			return LAUNCHER_EXIT_ERROR;
		}
		if (p->debug != NULL && atoi(p->debug) >= 2) {
			fprintf(stderr, "cwrap: supervising %s (%s)\n",
				argv[0], why);
		}
		if (pipe2(up, O_CLOEXEC) != 0 || pipe2(down, O_CLOEXEC) != 0) {
			fprintf(stderr, "cwrap: cannot supervise %s: pipe: %s\n",
				argv[0], strerror(errno));
			remove_private_dir();
			return LAUNCHER_EXIT_ERROR;
		}
	}
#else
	if (p->supervise > 0) {
		fprintf(stderr, "cwrap: cannot supervise %s: this build has no "
				"supervisor (Linux on x86_64, aarch64 or riscv64 only)\n",
			argv[0]);
		remove_private_dir();
		return LAUNCHER_EXIT_ERROR;
	}
#endif
	if (private_dir == NULL && why == NULL) {
		return exec_command(argv);
	}
	/* Blocked from before the fork until the pid is known; signals
	 * ignored when cwrap started stay ignored, for cwrap and the
	 * command (nohup). */
	sigemptyset(&set);
	for (i = 0; i < CWRAP_ARRAY_SIZE(forwarded); i++) {
		sigaddset(&set, forwarded[i]);
	}
	sigprocmask(SIG_BLOCK, &set, &saved);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < CWRAP_ARRAY_SIZE(forwarded); i++) {
		sigaction(forwarded[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN) {
			sigaction(forwarded[i], &sa, NULL);
		}
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cwrap: fork: %s\n", strerror(errno));
		remove_private_dir();
		return LAUNCHER_EXIT_ERROR;
	}
	if (pid == 0) {
		for (i = 0; i < CWRAP_ARRAY_SIZE(forwarded); i++) {
			sigaction(forwarded[i], &old[i], NULL);
		}
		sigprocmask(SIG_SETMASK, &saved, NULL);
#ifdef CWRAP_HAVE_SUPERVISOR
		if (why != NULL) {
			supervised_child(up[1], down[0]);
		}
#endif
		_exit(exec_command(argv));
	}
	child = pid;
	sigprocmask(SIG_SETMASK, &saved, NULL);
#ifdef CWRAP_HAVE_SUPERVISOR
	if (why != NULL) {
		close(up[1]);
		close(down[0]);
		if (supervise(pid, argv[0], up[0], down[1]) != 0) {
			/* (the child ends at once: no word comes) */
			close(down[1]);
			down[1] = -1;
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			remove_private_dir();
			return LAUNCHER_EXIT_ERROR;
		}
		close(up[0]);
		close(down[1]);
	}
#endif

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "cwrap: waiting for %s: %s\n", argv[0],
				strerror(errno));
			status = LAUNCHER_EXIT_ERROR << 8;
			break;
		}
	}
	/* The command is gone: a signal now is for cwrap, and must not
	 * stop the directory's removal half-way. */
	sigprocmask(SIG_BLOCK, &set, NULL);
#ifdef CWRAP_HAVE_SUPERVISOR
	if (why != NULL) {
		sup_serve_finish();
	}
#endif
	remove_private_dir();
	for (i = 0; i < CWRAP_ARRAY_SIZE(forwarded); i++) {
		sigaction(forwarded[i], &old[i], NULL);
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return end_like(status);
}
