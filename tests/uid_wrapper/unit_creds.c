/*
 * The kernel's set*id rules (uwrap_creds.c), linked directly.
 *
 * 1. A table of cases written from the kernel's rules (kernel/sys.c),
 *    each a start triple, an operation and the expected result.
 * 2. As real root, every operation on every start triple over a small id
 *    domain is also run against the real kernel in a thread of its own
 *    (raw system calls, so only that thread's credentials change) and
 *    compared with the pure functions: the rules are the kernel's, not
 *    our reading of them. Skipped when not root.
 */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cwrap_compiler.h"
#include "cwrap_test.h"
#include "uwrap_creds.h"
#include "uwrap_test.h"

#define K UWRAP_KEEP

enum op { SET, SETE, SETRE, SETRES };

struct rule_case {
	struct uwrap_triple start;
	bool privileged;
	enum op op;
	uint32_t a, b, c;
	int err;
	struct uwrap_triple end; /* when err == 0 */
};

static int apply(struct uwrap_triple *t, bool priv, enum op op, uint32_t a,
		 uint32_t b, uint32_t c)
{
	switch (op) {
	case SET:
		return uwrap_rule_setid(t, priv, a);
	case SETE:
		return uwrap_rule_seteid(t, priv, a);
	case SETRE:
		return uwrap_rule_setreid(t, priv, a, b);
	case SETRES:
		return uwrap_rule_setresid(t, priv, a, b, c);
	}
	return -1;
}

/* clang-format off */
static const struct rule_case rule_cases[] = {
	/* setuid: privileged sets all three */
	{{0, 0, 0}, true, SET, 1000, 0, 0, 0, {1000, 1000, 1000}},
	/* unprivileged: effective only, to the real or saved id */
	{{1000, 1001, 1002}, false, SET, 1000, 0, 0, 0, {1000, 1000, 1002}},
	{{1000, 1001, 1002}, false, SET, 1002, 0, 0, 0, {1000, 1002, 1002}},
	{{1000, 1001, 1002}, false, SET, 1001, 0, 0, EPERM, {0}},
	{{1000, 1000, 1000}, false, SET, 0, 0, 0, EPERM, {0}},
	/* a root saved id lets a non-root euid back to 0, not further */
	{{1000, 1000, 0}, false, SET, 0, 0, 0, 0, {1000, 0, 0}},
	{{0, 0, 0}, true, SET, K, 0, 0, EINVAL, {0}},
	/* seteuid */
	{{0, 0, 0}, true, SETE, 1000, 0, 0, 0, {0, 1000, 0}},
	{{0, 1000, 0}, false, SETE, 0, 0, 0, 0, {0, 0, 0}},
	{{1000, 1000, 1000}, false, SETE, 0, 0, 0, EPERM, {0}},
	{{1000, 1001, 1002}, false, SETE, 1002, 0, 0, 0, {1000, 1002, 1002}},
	{{0, 0, 0}, true, SETE, K, 0, 0, EINVAL, {0}},
	/* setreuid: the saved id follows */
	{{0, 0, 0}, true, SETRE, 1000, 1001, 0, 0, {1000, 1001, 1001}},
	{{0, 0, 0}, true, SETRE, K, 1001, 0, 0, {0, 1001, 1001}},
	{{0, 0, 0}, true, SETRE, K, 0, 0, 0, {0, 0, 0}},
	{{1000, 0, 0}, true, SETRE, K, 1000, 0, 0, {1000, 1000, 0}},
	{{1000, 1001, 1002}, false, SETRE, 1001, K, 0, 0, {1001, 1001, 1001}},
	{{1000, 1001, 1002}, false, SETRE, 1002, K, 0, EPERM, {0}},
	{{1000, 1001, 1002}, false, SETRE, K, 1002, 0, 0, {1000, 1002, 1002}},
	{{1000, 1001, 1002}, false, SETRE, K, 1000, 0, 0, {1000, 1000, 1002}},
	{{1000, 1001, 1002}, false, SETRE, 1001, 1000, 0, 0, {1001, 1000, 1000}},
	{{1000, 1001, 1002}, false, SETRE, K, K, 0, 0, {1000, 1001, 1002}},
	/* setresuid */
	{{1000, 1001, 1002}, false, SETRES, 1002, 1000, 1001, 0, {1002, 1000, 1001}},
	{{1000, 1001, 1002}, false, SETRES, K, 0, K, EPERM, {0}},
	{{1000, 1000, 0}, false, SETRES, 0, 0, 0, 0, {0, 0, 0}},
	{{0, 0, 0}, true, SETRES, 5, 6, 7, 0, {5, 6, 7}},
	{{0, 0, 0}, true, SETRES, K, K, K, 0, {0, 0, 0}},
	/* the concurrency test's swap: always allowed */
	{{1000, 2000, 0}, false, SETRES, 2000, 1000, 0, 0, {2000, 1000, 0}},
};
/* clang-format on */

static void test_rule_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < CWRAP_ARRAY_SIZE(rule_cases); i++) {
		const struct rule_case *c = &rule_cases[i];
		struct uwrap_triple t = c->start;
		int err = apply(&t, c->privileged, c->op, c->a, c->b, c->c);

		if (err != c->err) {
			fail_msg("case %zu: errno %d, expected %d", i, err,
				 c->err);
		}
		if (err == 0) {
			if (t.r != c->end.r || t.e != c->end.e ||
			    t.s != c->end.s) {
				fail_msg(
				    "case %zu: %u/%u/%u, expected %u/%u/%u", i,
				    t.r, t.e, t.s, c->end.r, c->end.e,
				    c->end.s);
			}
		} else if (t.r != c->start.r || t.e != c->start.e ||
			   t.s != c->start.s) {
			fail_msg("case %zu: failed call changed the ids", i);
		}
	}
}

static void test_setgroups_rule(void **state)
{
	uint32_t g[] = {5, 1, 3, 1};

	(void)state;
	assert_int_equal(uwrap_rule_setgroups(false, 1), EPERM);
	assert_int_equal(uwrap_rule_setgroups(false, -1), EPERM);
	assert_int_equal(uwrap_rule_setgroups(true, -1), EINVAL);
	assert_int_equal(uwrap_rule_setgroups(true, UWRAP_NGROUPS_MAX + 1),
			 EINVAL);
	assert_int_equal(uwrap_rule_setgroups(true, UWRAP_NGROUPS_MAX), 0);
	assert_int_equal(uwrap_rule_setgroups(true, 0), 0);
	uwrap_sort_groups(g, 4);
	assert_int_equal(g[0], 1);
	assert_int_equal(g[1], 1);
	assert_int_equal(g[2], 3);
	assert_int_equal(g[3], 5);
}

/* ---- the real kernel, as root ---- */

static const uint32_t domain[] = {0, 1000, 1001, K};
#define ND 3 /* ids; domain[3] is "keep" */

struct outcome {
	int err;
	struct uwrap_triple t;
};

/* One case against the kernel, run by a thread of its own: on Linux a
 * raw set*id system call changes the credentials of the calling thread
 * only (glibc's wrappers are what extend them to the whole process), and
 * a new thread starts with its creator's, this test's root. A thread per
 * case is as fresh a start as a forked child, and far cheaper: on a
 * machine loaded by builds (load 8 to 13 on 2 cores) the 11880 cases took
 * 191 s with a child each, 4 s with a thread each. */
struct kernel_case {
	bool gid;
	struct uwrap_triple uids, gids;
	enum op op;
	uint32_t a, b, c;
	int setup_err; /* the start credentials were refused */
	struct outcome out;
};

static void *kernel_case_thread(void *arg)
{
	struct kernel_case *k = arg;
	long rc = 0;

	if (syscall(UWRAP_SYS(setresgid), k->gids.r, k->gids.e, k->gids.s) !=
		0 ||
	    syscall(UWRAP_SYS(setresuid), k->uids.r, k->uids.e, k->uids.s) !=
		0) {
		k->setup_err = errno;
		return NULL;
	}
	switch (k->op) {
	case SET:
		rc = syscall(k->gid ? UWRAP_SYS(setgid) : UWRAP_SYS(setuid),
			     k->a);
		break;
	case SETE: /* glibc's seteuid: EINVAL for -1, else setres */
		if (k->a == K) {
			rc = -1;
			errno = EINVAL;
		} else {
			rc = syscall(k->gid ? UWRAP_SYS(setresgid)
					    : UWRAP_SYS(setresuid),
				     K, k->a, K);
		}
		break;
	case SETRE:
		rc = syscall(k->gid ? UWRAP_SYS(setregid) : UWRAP_SYS(setreuid),
			     k->a, k->b);
		break;
	case SETRES:
		rc = syscall(k->gid ? UWRAP_SYS(setresgid)
				    : UWRAP_SYS(setresuid),
			     k->a, k->b, k->c);
		break;
	}
	k->out.err = rc == 0 ? 0 : errno;
	if (k->gid) {
		syscall(UWRAP_SYS(getresgid), &k->out.t.r, &k->out.t.e,
			&k->out.t.s);
	} else {
		syscall(UWRAP_SYS(getresuid), &k->out.t.r, &k->out.t.e,
			&k->out.t.s);
	}
	return NULL;
}

/* Set the start credentials, run the operation with raw system calls,
 * return errno and the resulting triple. */
static struct outcome kernel_run(bool gid, struct uwrap_triple uids,
				 struct uwrap_triple gids, enum op op,
				 uint32_t a, uint32_t b, uint32_t c)
{
	struct kernel_case k = {gid, uids, gids, op, a, b, c, 0, {0, {0}}};
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, kernel_case_thread, &k), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (k.setup_err != 0) {
		fail_msg("start uids %u/%u/%u gids %u/%u/%u refused: %s",
			 uids.r, uids.e, uids.s, gids.r, gids.e, gids.s,
			 strerror(k.setup_err));
	}
	return k.out;
}

/* One operation from one start triple, by the rules and by the kernel;
 * the test fails on any difference. OTHER is the other kind of ids (the
 * uids when GID). */
static void compare_one(bool gid, struct uwrap_triple other,
			struct uwrap_triple start, enum op op, uint32_t a,
			uint32_t b, uint32_t c)
{
	struct uwrap_triple mine = start;
	struct uwrap_triple uids = gid ? other : start;
	struct uwrap_triple gids = gid ? start : other;
	int err = apply(&mine, uids.e == 0, op, a, b, c);
	struct outcome k = kernel_run(gid, uids, gids, op, a, b, c);

	if (k.err != err || (err == 0 && (k.t.r != mine.r || k.t.e != mine.e ||
					  k.t.s != mine.s))) {
		fail_msg("%s op %u(%d,%d,%d) from %u/%u/%u (uids %u/%u/%u): "
			 "kernel %d %u/%u/%u, uid_wrapper %d %u/%u/%u",
			 gid ? "gid" : "uid", op, (int)a, (int)b, (int)c,
			 start.r, start.e, start.s, uids.r, uids.e, uids.s,
			 k.err, k.t.r, k.t.e, k.t.s, err, mine.r, mine.e,
			 mine.s);
	}
}

/* Every operation with every argument of the domain from every start
 * triple of it: the number of cases. */
static int compare_all(bool gid, struct uwrap_triple other)
{
	int cases = 0;
	unsigned r, e, s, op, a, b, c;

	/* clang-format off */
	for (r = 0; r < ND; r++)
	for (e = 0; e < ND; e++)
	for (s = 0; s < ND; s++)
	for (op = SET; op <= SETRES; op++)
	for (a = 0; a < 4; a++)
	for (b = 0; b < (op >= SETRE ? 4u : 1u); b++)
	for (c = 0; c < (op == SETRES ? 4u : 1u); c++) {
		struct uwrap_triple start = {domain[r], domain[e], domain[s]};

		compare_one(gid, other, start, (enum op)op, domain[a],
			    domain[b], domain[c]);
		cases++;
	}
	/* clang-format on */
	return cases;
}

static void test_against_kernel(void **state)
{
	static const struct uwrap_triple uid_sets[] = {
	    {0, 0, 0}, {1000, 1000, 0}, {1000, 1001, 1000}, {0, 1000, 0}};
	struct uwrap_triple root = {0, 0, 0};
	int cases = 0;
	size_t i;

	(void)state;
	if (geteuid() != 0) {
		skip();
	}
	cases += compare_all(false, root);
	for (i = 0; i < CWRAP_ARRAY_SIZE(uid_sets); i++) {
		cases += compare_all(true, uid_sets[i]);
	}
	print_message("%d cases agree with the kernel\n", cases);
}

/* setgroups needs CAP_SETGID, and the kernel returns the list sorted. */
static void test_setgroups_against_kernel(void **state)
{
	static const uint32_t euids[] = {0, 1000};
	size_t i;

	(void)state;
	if (geteuid() != 0) {
		skip();
	}
	for (i = 0; i < CWRAP_ARRAY_SIZE(euids); i++) {
		int fd[2], status;
		int res[6];
		pid_t pid;

		assert_int_equal(pipe(fd), 0);
		pid = fork();
		if (pid == 0) {
			gid_t set[3] = {5, 1, 3}, got[8] = {0};
			int rc;

			syscall(UWRAP_SYS(setresuid), 0, euids[i], 0);
			rc = (int)syscall(UWRAP_SYS(setgroups), 3, set);
			res[0] = rc == 0 ? 0 : errno;
			rc = (int)syscall(UWRAP_SYS(setgroups), -1, set);
			res[1] = rc == 0 ? 0 : errno;
			res[2] = (int)syscall(UWRAP_SYS(getgroups), 8, got);
			res[3] = (int)got[0];
			res[4] = (int)got[1];
			res[5] = (int)got[2];
			_exit(write(fd[1], res, sizeof(res)) == sizeof(res)
				  ? 0
				  : 1);
		}
		close(fd[1]);
		assert_int_equal(read(fd[0], res, sizeof(res)),
				 (ssize_t)sizeof(res));
		close(fd[0]);
		waitpid(pid, &status, 0);
		assert_int_equal(res[0],
				 uwrap_rule_setgroups(euids[i] == 0, 3));
		assert_int_equal(res[1],
				 uwrap_rule_setgroups(euids[i] == 0, -1));
		if (euids[i] == 0) {
			assert_int_equal(res[2], 3);
			assert_int_equal(res[3], 1);
			assert_int_equal(res[4], 3);
			assert_int_equal(res[5], 5);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rule_table),
	    cmocka_unit_test(test_setgroups_rule),
	    cmocka_unit_test(test_against_kernel),
	    cmocka_unit_test(test_setgroups_against_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
