/*
 * The rules of SOCKET_WRAPPER_FAULTS: the parser, the published rule set
 * and its reload, matching an endpoint, and the seeded generator.
 *
 * One rule a line, `#` comments:
 *     PROTO ENDPOINT [to|from|both] EFFECT [ARGS] [probability PCT]
 * A malformed line is reported in one stderr line naming the file and the
 * line number, and left out; the other rules apply.
 *
 * The file is looked at again (one stat) at most every SWRAP_FX_RECHECK_MS
 * by whichever thread comes first, and read again when its identity, size
 * or times changed, or when it was modified in the last moments (a
 * rewrite within one tick of the file system's clock). The rule set is
 * published with an atomic store and never freed (each keeps the one
 * before it reachable), so readers take no lock. `lock` serialises the
 * reload and the reading of the variables; the checks before it are
 * atomics.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "cwrap_env.h"
#include "cwrap_log.h"
#include "swrap_fx.h"
#include "swrap_libc.h"

#define SWRAP_FX_RECHECK_MS 5
#define SWRAP_FX_MAX_FILE (1u << 20)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long env_seen;	       /* cwrap_env_gen() when last read */
static bool file_set;		       /* atomic: SOCKET_WRAPPER_FAULTS set */
static char path[4096];		       /* under lock */
static const struct swrap_fx_set *cur; /* atomic */
static unsigned gen_next = 1;	       /* under lock */
static uint64_t next_check_ms;	       /* atomic */
static struct stat last_st;	       /* under lock */
static char *last_text;		       /* under lock: the file as last read */
static uint64_t seed_base;	       /* atomic */
static uint64_t draw_ctr;	       /* atomic */
static bool seed_given;
static uint64_t seed_set; /* the SOCKET_WRAPPER_FAULTS_SEED read */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t swrap_fx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t swrap_fx_draw(void)
{
	uint64_t n = __atomic_add_fetch(&draw_ctr, 1, __ATOMIC_RELAXED);

	return mix64(__atomic_load_n(&seed_base, __ATOMIC_RELAXED) ^ mix64(n));
}

bool swrap_fx_chosen(uint64_t u, uint64_t id, unsigned prob)
{
	if (prob >= 10000) {
		return true;
	}
	return mix64(u ^ id) % 10000u < prob;
}

/* A child draws its own sequence, the same run after run. */
static void fx_atfork_child(void)
{
	static uint64_t forks;

	forks++;
	seed_base = mix64(seed_base ^ mix64(forks ^ 0x5eedf0f0ull));
	draw_ctr = 0;
	/* (taken by the prepare handler: released, not made anew, so that
	 * a thread checker sees the lock free in the child) */
	pthread_mutex_unlock(&lock);
}

static void fx_atfork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fx_atfork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static uint64_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s != '\0'; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	}
	return mix64(h);
}

/* ---- parser -------------------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	return cwrap_parse_digits(s, strlen(s), max, out);
}

/* "50", "12.5", "0.01", with an optional "%": basis points. */
static bool parse_pct(const char *s, uint64_t *bp)
{
	char buf[32];
	char *dot, *end;
	uint64_t whole, frac = 0;
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(buf)) {
		return false;
	}
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%') {
		buf[--n] = '\0';
	}
	dot = strchr(buf, '.');
	if (dot != NULL) {
		*dot = '\0';
		end = dot + 1;
		if (strlen(end) == 0 || strlen(end) > 2 ||
		    !parse_u64(end, 99, &frac)) {
			return false;
		}
		if (strlen(end) == 1) {
			frac *= 10;
		}
	}
	if (!parse_u64(buf, 100, &whole)) {
		return false;
	}
	*bp = whole * 100 + frac;
	return *bp <= 10000;
}

static bool parse_port(const char *s, unsigned *port)
{
	uint64_t v;

	if (!parse_u64(s, 65535, &v) || v == 0) {
		return false;
	}
	*port = (unsigned)v;
	return true;
}

static bool parse_endpoint(char *s, struct swrap_fx_rule *r)
{
	char *colon, *addr = s;

	r->family = 0;
	r->port = 0;
	if (s[0] == '[') {
		char *close = strchr(s, ']');

		if (close == NULL) {
			return false;
		}
		*close = '\0';
		addr = s + 1;
		if (close[1] == ':') {
			if (!parse_port(close + 2, &r->port)) {
				return false;
			}
		} else if (close[1] != '\0') {
			return false;
		}
		if (inet_pton(AF_INET6, addr, r->addr) != 1) {
			return false;
		}
		r->family = AF_INET6;
		return true;
	}
	colon = strchr(s, ':');
	if (colon != NULL && strchr(colon + 1, ':') != NULL) {
		/* a bare IPv6 address */
		if (inet_pton(AF_INET6, s, r->addr) != 1) {
			return false;
		}
		r->family = AF_INET6;
		return true;
	}
	if (colon != NULL) {
		*colon = '\0';
		if (!parse_port(colon + 1, &r->port)) {
			return false;
		}
	}
	if (strcmp(addr, "*") == 0) {
		return true;
	}
	if (inet_pton(AF_INET, addr, r->addr) == 1) {
		r->family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, addr, r->addr) == 1) {
		r->family = AF_INET6;
		return true;
	}
	return false;
}

static const struct {
	const char *name;
	enum swrap_fx_kind kind;
} kinds[] = {
    {"delay", SWRAP_FX_DELAY},	       {"rate", SWRAP_FX_RATE},
    {"loss", SWRAP_FX_LOSS},	       {"duplicate", SWRAP_FX_DUPLICATE},
    {"reorder", SWRAP_FX_REORDER},     {"refuse", SWRAP_FX_REFUSE},
    {"blackhole", SWRAP_FX_BLACKHOLE}, {"reset", SWRAP_FX_RESET},
    {"close", SWRAP_FX_CLOSE},	       {"slice", SWRAP_FX_SLICE},
};

#define MAX_WORDS 12
#define MAX_MS 86400000u
#define MAX_BYTES (1ull << 48)

/* EFFECT [ARGS]: the words w[0..n), as many as the effect takes. */
static const char *parse_effect(char **w, int n, struct swrap_fx_rule *r)
{
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (strcmp(w[0], kinds[k].name) == 0) {
			break;
		}
	}
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		return "unknown effect";
	}
	r->kind = kinds[k].kind;
	switch (r->kind) {
	case SWRAP_FX_DELAY:
		if (n < 2 || n > 3 || !parse_u64(w[1], MAX_MS, &r->arg) ||
		    (n == 3 && !parse_u64(w[2], MAX_MS, &r->arg2))) {
			return "delay takes MS [JITTER_MS]";
		}
		break;
	case SWRAP_FX_RATE:
		if (n != 2 || !parse_u64(w[1], MAX_BYTES, &r->arg) ||
		    r->arg == 0) {
			return "rate takes BYTES_PER_SECOND (at least 1)";
		}
		break;
	case SWRAP_FX_LOSS:
	case SWRAP_FX_DUPLICATE:
	case SWRAP_FX_REORDER:
		if (n != 2 || !parse_pct(w[1], &r->arg)) {
			return "takes a percentage (0 to 100)";
		}
		break;
	case SWRAP_FX_REFUSE:
	case SWRAP_FX_BLACKHOLE:
		if (n != 1) {
			return "takes no argument";
		}
		break;
	case SWRAP_FX_RESET:
		if (n == 1) {
			break;
		}
		if (n != 3 || strcmp(w[1], "after") != 0) {
			return "reset takes [after BYTES | after MSms]";
		}
		r->has_after = true;
		k = strlen(w[2]);
		if (k > 2 && strcmp(w[2] + k - 2, "ms") == 0) {
			w[2][k - 2] = '\0';
			r->after_ms = true;
			if (!parse_u64(w[2], MAX_MS, &r->arg)) {
				return "reset after takes BYTES or MSms";
			}
		} else if (!parse_u64(w[2], MAX_BYTES, &r->arg)) {
			return "reset after takes BYTES or MSms";
		}
		break;
	case SWRAP_FX_CLOSE:
		if (n != 3 || strcmp(w[1], "after") != 0 ||
		    !parse_u64(w[2], MAX_BYTES, &r->arg)) {
			return "close takes after BYTES";
		}
		break;
	case SWRAP_FX_SLICE:
		if (n != 2 || !parse_u64(w[1], MAX_BYTES, &r->arg) ||
		    r->arg == 0) {
			return "slice takes MAX_BYTES (at least 1)";
		}
		break;
	}
	return NULL;
}

int swrap_fx_parse_line(const char *line, const char *file, unsigned lineno,
			struct swrap_fx_rule *r)
{
	char buf[512];
	char *w[MAX_WORDS], *p, *save = NULL;
	const char *err = NULL;
	int n = 0, i = 0;

	memset(r, 0, sizeof(*r));
	if (strlen(line) >= sizeof(buf)) {
		err = "line too long";
		goto bad;
	}
	strcpy(buf, line);
	p = strchr(buf, '#');
	if (p != NULL) {
		*p = '\0';
	}
	for (p = strtok_r(buf, " \t\r", &save); p != NULL;
	     p = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_WORDS) {
			err = "too many words";
			goto bad;
		}
		w[n++] = p;
	}
	if (n == 0) {
		return 0;
	}
	r->id = hash_text(line);
	r->prob = 10000;
	r->dir = SWRAP_FX_TO | SWRAP_FX_FROM;
	if (n < 3) {
		err = "expected PROTO ENDPOINT [to|from|both] EFFECT [ARGS]";
		goto bad;
	}
	if (strcmp(w[0], "tcp") == 0) {
		r->proto = SOCK_STREAM;
	} else if (strcmp(w[0], "udp") == 0) {
		r->proto = SOCK_DGRAM;
	} else if (strcmp(w[0], "any") != 0) {
		err = "PROTO is tcp, udp or any";
		goto bad;
	}
	if (!parse_endpoint(w[1], r)) {
		err = "bad ENDPOINT (ADDRESS, ADDRESS:PORT, [IPV6]:PORT, "
		      "*:PORT or *)";
		goto bad;
	}
	i = 2;
	if (strcmp(w[i], "to") == 0) {
		r->dir = SWRAP_FX_TO;
		i++;
	} else if (strcmp(w[i], "from") == 0) {
		r->dir = SWRAP_FX_FROM;
		i++;
	} else if (strcmp(w[i], "both") == 0) {
		i++;
	}
	if (n >= i + 2 && strcmp(w[n - 2], "probability") == 0) {
		uint64_t bp;

		if (!parse_pct(w[n - 1], &bp)) {
			err = "probability takes a percentage (0 to 100)";
			goto bad;
		}
		r->prob = (unsigned)bp;
		n -= 2;
	}
	if (i >= n) {
		err = "no EFFECT";
		goto bad;
	}
	err = parse_effect(w + i, n - i, r);
	if (err == NULL) {
		return 1;
	}
bad:
	cwrap_log_print(CWRAP_LOG_ERROR, __func__,
			"%s:%u: %s, line ignored: %s", file, lineno, err, line);
	return -1;
}

/* ---- the file ------------------------------------------------------------ */

static char *read_file(const char *p)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	char *text;
	size_t len = 0, cap = 4096;
	ssize_t r;

	if (fd < 0) {
		return NULL;
	}
	text = malloc(cap + 1);
	while (text != NULL) {
		if (len == cap) {
			char *t = cap >= SWRAP_FX_MAX_FILE
				      ? NULL
				      : realloc(text, cap * 2 + 1);

			if (t == NULL) {
				break;
			}
			text = t;
			cap *= 2;
		}
		r = libc_read(fd, text + len, cap - len);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			break;
		}
		len += (size_t)r;
	}
	libc_close(fd);
	if (text != NULL) {
		text[len] = '\0';
	}
	return text;
}

static void publish(const char *text)
{
	struct swrap_fx_set *set;
	const char *p = text;
	unsigned lineno = 0;
	int n = 0;

	for (const char *q = text; q != NULL && *q != '\0'; q++) {
		n += *q == '\n';
	}
	n++;
	set = calloc(1, sizeof(*set) + (size_t)n * sizeof(set->r[0]));
	if (set == NULL) {
		return;
	}
	set->n = 0;
	while (p != NULL && *p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char line[600];

		lineno++;
		if (len >= sizeof(line)) {
			len = sizeof(line) - 1;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		if (swrap_fx_parse_line(line, path, lineno, &set->r[set->n]) ==
		    1) {
			set->n++;
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
	set->gen = gen_next++;
	set->prev = cur;
	CWRAP_DEBUG("%s: %d rules (generation %u)", path, set->n, set->gen);
	__atomic_store_n(&cur, set, __ATOMIC_RELEASE);
}

static void publish_empty(void)
{
	if (cur != NULL && cur->n == 0) {
		return;
	}
	publish("");
}

/* Under lock: the variables again. */
static void read_env(void)
{
	const char *f = getenv("SOCKET_WRAPPER_FAULTS");
	const char *sd = getenv("SOCKET_WRAPPER_FAULTS_SEED");
	long seed;
	static bool atfork_done;

	if (!atfork_done) {
		pthread_atfork(fx_atfork_prepare, fx_atfork_parent,
			       fx_atfork_child);
		atfork_done = true;
	}
	if (sd != NULL && *sd != '\0') {
		if (cwrap_parse_long(sd, 0, LONG_MAX, &seed)) {
			if (!seed_given || seed_set != (uint64_t)seed) {
				seed_set = (uint64_t)seed;
				/* each program its own sequence: dig's
				 * draws are not dnsmasq's */
				__atomic_store_n(
				    &seed_base,
				    mix64((uint64_t)seed) ^
					hash_text(
					    program_invocation_short_name),
				    __ATOMIC_RELAXED);
				__atomic_store_n(&draw_ctr, 0,
						 __ATOMIC_RELAXED);
			}
			seed_given = true;
		} else {
			cwrap_log_print(CWRAP_LOG_ERROR, __func__,
					"SOCKET_WRAPPER_FAULTS_SEED=%s: not a "
					"number, ignored",
					sd);
		}
	}
	if (!seed_given && seed_base == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed_base =
		    mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
			  (uint64_t)getpid());
	}
	if (f == NULL || *f == '\0') {
		__atomic_store_n(&file_set, false, __ATOMIC_RELEASE);
		path[0] = '\0';
		return;
	}
	if (strcmp(f, path) != 0) {
		snprintf(path, sizeof(path), "%s", f);
		memset(&last_st, 0, sizeof(last_st));
		free(last_text);
		last_text = NULL;
		__atomic_store_n(&next_check_ms, 0, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&file_set, true, __ATOMIC_RELEASE);
}

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Under lock: the file again if it changed. */
static void check_file(void)
{
	struct stat st;
	struct timespec now;
	char *text;
	bool recent;

	if (path[0] == '\0') {
		return;
	}
	if (stat(path, &st) != 0) {
		if (last_st.st_ino != 0 || cur == NULL) {
			CWRAP_DEBUG("%s: %s, no rules", path, strerror(errno));
		}
		memset(&last_st, 0, sizeof(last_st));
		free(last_text);
		last_text = NULL;
		publish_empty();
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	/* modified within the last 50 ms: a second rewrite may keep size
	 * and times (a coarse file system clock), so compare the text */
	recent = now.tv_sec - st.st_mtim.tv_sec <= 1 &&
		 (now.tv_sec - st.st_mtim.tv_sec) * 1000000000L +
			 (now.tv_nsec - st.st_mtim.tv_nsec) <
		     50000000L;
	if (same_stat(&st, &last_st) && !recent && cur != NULL) {
		return;
	}
	text = read_file(path);
	if (text == NULL) {
		publish_empty();
		return;
	}
	last_st = st;
	if (last_text != NULL && cur != NULL && strcmp(text, last_text) == 0) {
		free(text);
		return;
	}
	free(last_text);
	last_text = text;
	publish(text);
}

bool swrap_faults_armed(void)
{
	unsigned long g = cwrap_env_gen();
	const struct swrap_fx_set *set;
	uint64_t now, next;

	if (cwrap_likely(g == __atomic_load_n(&env_seen, __ATOMIC_ACQUIRE) &&
			 !__atomic_load_n(&file_set, __ATOMIC_ACQUIRE))) {
		return false;
	}
	if (g != __atomic_load_n(&env_seen, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&lock);
		read_env();
		__atomic_store_n(&env_seen, g, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&lock);
		if (!__atomic_load_n(&file_set, __ATOMIC_ACQUIRE)) {
			return false;
		}
	}
	now = swrap_fx_now_ms();
	next = __atomic_load_n(&next_check_ms, __ATOMIC_RELAXED);
	if (now >= next && __atomic_compare_exchange_n(
			       &next_check_ms, &next, now + SWRAP_FX_RECHECK_MS,
			       false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&lock);
		check_file();
		pthread_mutex_unlock(&lock);
	}
	set = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
	return set != NULL && set->n > 0 &&
	       __atomic_load_n(&file_set, __ATOMIC_RELAXED);
}

const struct swrap_fx_set *swrap_fx_rules(void)
{
	return __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
}

bool swrap_fx_match(const struct swrap_fx_rule *r, const struct swrap_conf *c,
		    int type, const struct swrap_ep *ep)
{
	struct sockaddr_storage ss;
	struct swrap_ep e;

	if (r->proto != 0 && r->proto != type) {
		return false;
	}
	if (r->port != 0 && r->port != ep->port) {
		return false;
	}
	if (r->family == 0) {
		return true;
	}
	e = *ep;
	if (e.iface == 0) {
		e.iface = c->default_iface;
	}
	swrap_addr_encode(c, &e, e.family, &ss);
	if (r->family == AF_INET && ss.ss_family == AF_INET) {
		return memcmp(&((struct sockaddr_in *)&ss)->sin_addr, r->addr,
			      4) == 0;
	}
	if (r->family == AF_INET6 && ss.ss_family == AF_INET6) {
		return memcmp(&((struct sockaddr_in6 *)&ss)->sin6_addr, r->addr,
			      16) == 0;
	}
	return false;
}
