/*
 * priv_wrapper's configuration: the PRIV_WRAPPER_* variables, read when
 * they are used. Each thread keeps the values it parsed together with the
 * environment generation it read them at (cwrap_env.h) and parses again
 * when that number moved: a test that setenv()s PRIV_WRAPPER_CHROOT_DISABLE
 * between two calls gets the new value at the next one, and a call in an
 * unchanged environment costs a few loads. Parsing is short (four
 * variables, lists of a few names) and the calls are rare, so a copy per
 * thread is simpler than a shared snapshot: no lock, nothing to free, and
 * a fork child has its thread's copy. The only shared state is the hash
 * of the last bad value reported for each variable (atomics), so that a
 * bad value is reported once, not at every call of every thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cwrap_env.h"
#include "cwrap_lib.h"
#include "cwrap_log.h"
#include "pwrap.h"

const struct cwrap_lib cwrap_lib = {
    .name = "priv_wrapper",
    .log_prefix = "PRIVWRAP",
    .env_prefix = "PRIV_WRAPPER",
};

const struct pwrap_name pwrap_prctl_names[] = {
    {"PR_SET_SECCOMP", PWRAP_PR_SECCOMP},
    {"PR_SET_NO_NEW_PRIVS", PWRAP_PR_NO_NEW_PRIVS},
    {"PR_SET_DUMPABLE", PWRAP_PR_DUMPABLE},
};
const size_t pwrap_prctl_names_count = CWRAP_ARRAY_SIZE(pwrap_prctl_names);

/* clang-format off */
#define RL(name) {#name, 1u << (name)}
/* clang-format on */
const struct pwrap_name pwrap_rlimit_names[] = {
    RL(RLIMIT_CPU),	 RL(RLIMIT_FSIZE),  RL(RLIMIT_DATA),
    RL(RLIMIT_STACK),	 RL(RLIMIT_CORE),   RL(RLIMIT_RSS),
    RL(RLIMIT_NPROC),	 RL(RLIMIT_NOFILE), RL(RLIMIT_MEMLOCK),
    RL(RLIMIT_AS),	 RL(RLIMIT_LOCKS),  RL(RLIMIT_SIGPENDING),
    RL(RLIMIT_MSGQUEUE), RL(RLIMIT_NICE),   RL(RLIMIT_RTPRIO),
    RL(RLIMIT_RTTIME),
};
#undef RL
const size_t pwrap_rlimit_names_count = CWRAP_ARRAY_SIZE(pwrap_rlimit_names);

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

uint32_t pwrap_parse_list(const char *value, const struct pwrap_name *table,
			  size_t count, pwrap_unknown_fn unknown, void *ctx)
{
	uint32_t all = 0, bits = 0;

	if (value == NULL) {
		return 0;
	}
	for (size_t i = 0; i < count; i++) {
		all |= table[i].bits;
	}
	for (const char *p = value;;) {
		size_t len = strcspn(p, "|,");
		const char *b = p, *e = p + len;

		while (b < e && is_blank(*b)) {
			b++;
		}
		while (e > b && is_blank(e[-1])) {
			e--;
		}
		if (e > b) {
			size_t n = (size_t)(e - b);
			bool known = false;

			if (n == 3 && memcmp(b, "ALL", 3) == 0) {
				bits |= all;
				known = true;
			}
			for (size_t i = 0; !known && i < count; i++) {
				if (strlen(table[i].name) == n &&
				    memcmp(table[i].name, b, n) == 0) {
					bits |= table[i].bits;
					known = true;
				}
			}
			if (!known && unknown != NULL) {
				unknown(b, n, ctx);
			}
		}
		if (p[len] == '\0') {
			return bits;
		}
		p += len + 1;
	}
}

/* ---- reporting bad values once --------------------------------------- */

enum { VAR_ENABLE, VAR_CHROOT, VAR_PRCTL, VAR_RLIMIT, VAR_COUNT };

/* FNV-1a of the last bad value reported for each variable; 0: none. */
static uint32_t reported[VAR_COUNT];

static uint32_t value_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++) {
		h = (h ^ (unsigned char)*s) * 16777619u;
	}
	return h | 1;
}

/* True for the first report about this value of variable `var`. */
static bool first_report(int var, const char *value)
{
	uint32_t h = value_hash(value);

	return __atomic_exchange_n(&reported[var], h, __ATOMIC_RELAXED) != h;
}

/* `len` bytes of `s` fit for one line: control bytes as '?', cut long. */
static const char *printable(char *out, size_t size, const char *s, size_t len)
{
	size_t n = 0;

	for (; n < len && n + 4 < size; n++) {
		unsigned char c = (unsigned char)s[n];

		out[n] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (n < len) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

static bool env_flag(const char *var, int slot)
{
	const char *s = getenv(var);
	char buf[80];

	if (s == NULL || s[0] == '\0' || strcmp(s, "0") == 0) {
		return false;
	}
	if (strcmp(s, "1") == 0) {
		return true;
	}
	if (first_report(slot, s)) {
		CWRAP_ERROR("%s='%s' is neither 1 nor 0, taken as 0 (off)", var,
			    printable(buf, sizeof(buf), s, strlen(s)));
	}
	return false;
}

struct list_report {
	const char *var;
	const char *value;
	int slot;
	int state; /* 0: not decided yet, 1: report, 2: reported before */
};

static void report_unknown(const char *name, size_t len, void *ctx)
{
	struct list_report *r = ctx;
	char buf[80];

	if (r->state == 0) {
		r->state = first_report(r->slot, r->value) ? 1 : 2;
	}
	if (r->state == 1) {
		CWRAP_ERROR("%s: unknown name '%s' ignored", r->var,
			    printable(buf, sizeof(buf), name, len));
	}
}

static uint32_t env_list(const char *var, int slot,
			 const struct pwrap_name *table, size_t count)
{
	struct list_report r = {var, getenv(var), slot, 0};

	return pwrap_parse_list(r.value, table, count, report_unknown, &r);
}

void pwrap_conf_read(struct pwrap_conf *c)
{
	int saved_errno = errno;

	memset(c, 0, sizeof(*c));
	c->enabled = env_flag("PRIV_WRAPPER", VAR_ENABLE);
	if (c->enabled) {
		c->chroot_disabled =
		    env_flag("PRIV_WRAPPER_CHROOT_DISABLE", VAR_CHROOT);
		c->prctl = env_list("PRIV_WRAPPER_PRCTL_DISABLE", VAR_PRCTL,
				    pwrap_prctl_names, pwrap_prctl_names_count);
		c->rlimit =
		    env_list("PRIV_WRAPPER_SETRLIMIT_DISABLE", VAR_RLIMIT,
			     pwrap_rlimit_names, pwrap_rlimit_names_count);
	}
	errno = saved_errno;
}

/* ---- the calling thread's copy --------------------------------------- */

static __thread struct {
	unsigned long gen; /* cwrap_env_gen() when read; 0: never */
	struct pwrap_conf conf;
} tls;

const struct pwrap_conf *pwrap_conf(void)
{
	unsigned long gen = cwrap_env_gen();

	if (cwrap_unlikely(tls.gen != gen)) {
		pwrap_conf_read(&tls.conf);
		tls.gen = gen;
	}
	return &tls.conf;
}
