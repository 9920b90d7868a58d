/*
 * Fake ownership's pure parts, linked directly: the kernel's chown rules
 * (uwrap_rule_chown), the attribute's value, the listxattr() filter and
 * the owner database (uwrap_odb.c) with a file of the test's own.
 *
 * 1. A table of rule cases written from fs/attr.c and fs/open.c.
 * 2. As real root, every request of a small domain (callers, owners,
 *    modes, immutable and append-only files) is also made of the real
 *    kernel by a thread with those credentials, and the errno, the
 *    owner and the mode it leaves are compared with the rule's: the rules
 *    are the kernel's, not our reading of them. Skipped when not root.
 * 3. Values and lists: round trips, every malformed value refused, and
 *    random input that must neither crash nor be accepted wrongly.
 * 4. The database, each case in a fresh child (its state is the
 *    process's): records written by another process are seen, a damaged
 *    record or header is named in one line and ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<linux/fs.h>)
#include <linux/fs.h>
#endif

#include "cwrap_compiler.h"
#include "cwrap_test.h"
#include "uwrap_creds.h"
#include "uwrap_odb.h"
#include "uwrap_owner.h"
#include "uwrap_test.h"

#define K UWRAP_KEEP

struct caller {
	uint32_t uid, gid;
	uint32_t groups[2];
	uint32_t ngroups;
};

static struct uwrap_chown_caller mk_caller(const struct caller *c)
{
	struct uwrap_chown_caller w = {c->uid, c->gid, c->groups, c->ngroups,
				       c->uid == 0};

	return w;
}

struct rule_case {
	struct caller who;
	struct uwrap_chown_file file;
	uint32_t uid, gid;
	int err;
	uint32_t end_uid, end_gid, end_mode; /* when err == 0 */
};

#define ROOT                                                                   \
	{                                                                      \
		0, 0, {0}, 1                                                   \
	}
#define U1000                                                                  \
	{                                                                      \
		1000, 1000, {1000, 2000}, 2                                    \
	}
#define F(u, g, m)                                                             \
	{                                                                      \
		u, g, m, false, false                                          \
	}
#define REG S_IFREG
#define DIR S_IFDIR

/* clang-format off */
static const struct rule_case rule_cases[] = {
	/* root gives files away, and clears set-user-ID; a group-executable
	 * set-group-ID bit goes too, one without group execute stays */
	{ROOT, F(0, 0, REG | 0644), 1234, 5678, 0, 1234, 5678, REG | 0644},
	{ROOT, F(0, 0, REG | 04755), 1234, K, 0, 1234, 0, REG | 0755},
	{ROOT, F(0, 0, REG | 02755), K, 5678, 0, 0, 5678, REG | 0755},
	{ROOT, F(0, 0, REG | 02745), 1, 1, 0, 1, 1, REG | 02745},
	/* even chown(-1, -1) clears them */
	{ROOT, F(7, 7, REG | 06755), K, K, 0, 7, 7, REG | 0755},
	/* a directory keeps its bits */
	{ROOT, F(0, 0, DIR | 06755), 1, 2, 0, 1, 2, DIR | 06755},
	/* an owner: to its own groups only, never away */
	{U1000, F(1000, 1000, REG | 0644), K, 2000, 0, 1000, 2000, REG | 0644},
	{U1000, F(1000, 3000, REG | 0644), K, 3000, 0, 1000, 3000, REG | 0644},
	{U1000, F(1000, 1000, REG | 0644), K, 3000, EPERM, 0, 0, 0},
	{U1000, F(1000, 1000, REG | 0644), 1000, K, 0, 1000, 1000, REG | 0644},
	{U1000, F(1000, 1000, REG | 0644), 1001, K, EPERM, 0, 0, 0},
	/* not the owner: nothing but chown(-1, -1) of a plain file */
	{U1000, F(0, 1000, REG | 0644), K, K, 0, 0, 1000, REG | 0644},
	{U1000, F(0, 1000, REG | 0644), K, 1000, EPERM, 0, 0, 0},
	{U1000, F(0, 0, REG | 04755), K, K, EPERM, 0, 0, 0},
	/* the owner's set-group-ID bit without group execute: kept in one
	 * of its groups, cleared when it is not in the file's group */
	{U1000, F(1000, 1000, REG | 06745), K, 2000, 0, 1000, 2000, REG | 02745},
	{U1000, F(1000, 3000, REG | 02745), K, K, 0, 1000, 3000, REG | 0745},
	/* immutable: nothing; append-only: no owner change */
	{ROOT, {0, 0, REG | 0644, true, false}, K, K, EPERM, 0, 0, 0},
	{ROOT, {0, 0, REG | 0644, false, true}, 1, K, EPERM, 0, 0, 0},
	{ROOT, {0, 0, REG | 0644, false, true}, K, K, 0, 0, 0, REG | 0644},
};
/* clang-format on */

static void test_rule_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < CWRAP_ARRAY_SIZE(rule_cases); i++) {
		const struct rule_case *c = &rule_cases[i];
		struct uwrap_chown_caller w = mk_caller(&c->who);
		struct uwrap_chown_file f = c->file;
		int err = uwrap_rule_chown(&w, &f, c->uid, c->gid);

		if (err != c->err) {
			fail_msg("case %zu: errno %d, expected %d", i, err,
				 c->err);
		}
		if (err == 0 && (f.uid != c->end_uid || f.gid != c->end_gid ||
				 f.mode != c->end_mode)) {
			fail_msg("case %zu: %u:%u %o, expected %u:%u %o", i,
				 f.uid, f.gid, f.mode, c->end_uid, c->end_gid,
				 c->end_mode);
		}
		if (err != 0 && memcmp(&f, &c->file, sizeof(f)) != 0) {
			fail_msg("case %zu: a refused chown changed the file",
				 i);
		}
	}
}

/* ---- the same requests of the real kernel ---- */

#ifdef FS_IOC_SETFLAGS
static bool set_inode_flags(const char *path, long flags)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	int v = (int)flags;
	bool ok;

	if (fd < 0) {
		return false;
	}
	ok = ioctl(fd, FS_IOC_SETFLAGS, &v) == 0;
	close(fd);
	return ok;
}
#define IMMUTABLE_FL FS_IMMUTABLE_FL
#define APPEND_FL FS_APPEND_FL
#else
static bool set_inode_flags(const char *path, long flags)
{
	(void)path;
	(void)flags;
	return false;
}
#define IMMUTABLE_FL 0
#define APPEND_FL 0
#endif

/* Make `path` a file (or directory) owned by uid:gid with `mode` and
 * flags; false if the file system cannot take the flags. */
static bool make_file(const char *path, const struct uwrap_chown_file *f)
{
	long fl =
	    (f->immutable ? IMMUTABLE_FL : 0) | (f->append ? APPEND_FL : 0);

	if (S_ISDIR(f->mode)) {
		assert_int_equal(mkdir(path, 0700), 0);
	} else {
		int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);

		assert_true(fd >= 0);
		close(fd);
	}
	assert_int_equal(chown(path, f->uid, f->gid), 0);
	assert_int_equal(chmod(path, f->mode & 07777), 0);
	if (!f->immutable && !f->append) {
		return true;
	}
	return fl != 0 && set_inode_flags(path, fl);
}

static void remove_file(const char *path, mode_t mode)
{
	set_inode_flags(path, 0);
	if (S_ISDIR(mode)) {
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* The kernel's answer: chown(path, uid, gid) by a thread with who's
 * credentials; its errno. Credentials are per thread in Linux, and raw
 * set*id system calls change the calling thread's alone (glibc's
 * wrappers change every thread's): a new thread starts as its creator,
 * root, as fresh a start as a forked child's and far cheaper (a child
 * each made this test take minutes under ASan on a loaded machine). */
struct kernel_chown_case {
	const char *path;
	const struct caller *who;
	uint32_t uid, gid;
	int res;
};

static void *kernel_chown_thread(void *arg)
{
	struct kernel_chown_case *k = arg;
	gid_t g[2] = {k->who->groups[0], k->who->groups[1]};

	if (syscall(UWRAP_SYS(setgroups), (long)k->who->ngroups, g) != 0 ||
	    syscall(UWRAP_SYS(setresgid), (long)k->who->gid, (long)k->who->gid,
		    (long)k->who->gid) != 0 ||
	    syscall(UWRAP_SYS(setresuid), (long)k->who->uid, (long)k->who->uid,
		    (long)k->who->uid) != 0) {
		k->res = -1;
		return NULL;
	}
	k->res = chown(k->path, k->uid, k->gid) == 0 ? 0 : errno;
	return NULL;
}

static int kernel_chown(const char *path, const struct caller *who,
			uint32_t uid, uint32_t gid)
{
	struct kernel_chown_case k = {path, who, uid, gid, 0};
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, kernel_chown_thread, &k), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_not_equal(k.res, -1); /* the credentials were taken */
	return k.res;
}

/* One request of the rule and of the kernel, compared: 1 when compared,
 * 0 when the file system cannot take the file's flags (no chattr), -1
 * when it is a chown(-1, -1) of an immutable or append-only file on a
 * file system that allows it (`lenient`, tmpfs, which then even drops
 * the set-user-ID bit of an append-only file: ext4 and xfs refuse both,
 * and the rule follows them). */
static int compare_one(const char *path, const struct caller *who,
		       const struct uwrap_chown_file *f, uint32_t uid,
		       uint32_t gid, bool lenient)
{
	struct uwrap_chown_caller w = mk_caller(who);
	struct uwrap_chown_file want = *f;
	struct stat st;
	int err, kerr;

	if (!make_file(path, f)) {
		remove_file(path, f->mode);
		return 0;
	}
	kerr = kernel_chown(path, who, uid, gid);
	assert_int_equal(lstat(path, &st), 0);
	remove_file(path, f->mode);
	err = uwrap_rule_chown(&w, &want, uid, gid);
	if (lenient && (f->immutable || f->append) && uid == K && gid == K &&
	    kerr == 0) {
		return -1;
	}
	if (err != kerr ||
	    (err == 0 && (want.uid != st.st_uid || want.gid != st.st_gid ||
			  want.mode != st.st_mode))) {
		fail_msg("caller %u/%u, file %u:%u %o%s%s, chown(%d, %d): "
			 "kernel %s -> %u:%u %o, rule %s -> %u:%u %o",
			 who->uid, who->gid, f->uid, f->gid, f->mode,
			 f->immutable ? " immutable" : "",
			 f->append ? " append-only" : "", (int)uid, (int)gid,
			 strerror(kerr), (unsigned)st.st_uid,
			 (unsigned)st.st_gid, (unsigned)st.st_mode,
			 strerror(err), want.uid, want.gid, want.mode);
	}
	return 1;
}

/* Does this file system let root's chown(-1, -1) of an immutable file
 * succeed? tmpfs does (it has no check of its own beyond the VFS's, which
 * looks only at a change), ext4 and xfs refuse it. */
static bool noop_chown_of_immutable_allowed(const char *path)
{
	static const struct caller root = {0, 0, {0}, 0};
	struct uwrap_chown_file f = {0, 0, S_IFREG | 0644, true, false};
	int kerr;

	if (!make_file(path, &f)) {
		remove_file(path, f.mode);
		return false;
	}
	kerr = kernel_chown(path, &root, K, K);
	remove_file(path, f.mode);
	return kerr == 0;
}

static void test_rule_against_kernel(void **state)
{
	static const struct caller callers[] = {
	    ROOT, U1000, {1001, 1001, {0}, 0}, {0, 3000, {2000}, 1}};
	static const uint32_t owners[][2] = {
	    {0, 0}, {1000, 1000}, {1000, 3000}, {1001, 2000}};
	static const uint32_t modes[] = {REG | 0644,  REG | 04755, REG | 02755,
					 REG | 02745, REG | 06745, REG | 04744,
					 DIR | 06755};
	static const uint32_t uids[] = {K, 0, 1000, 1001};
	static const uint32_t gids[] = {K, 0, 1000, 2000, 3000};
	char *dir, *path;
	int cases = 0, flagged = 0, not_given = 0;
	size_t c, o, m, u, g, fl;
	bool lenient;

	(void)state;
	if (geteuid() != 0) {
		skip();
	}
	dir = cwrap_test_mkdtemp("uwrap-chown-rule");
	assert_int_equal(chmod(dir, 0755), 0);
	path = cwrap_test_path(dir, "f");
	lenient = noop_chown_of_immutable_allowed(path);
	if (lenient) {
		print_message("this file system (%s) lets chown(-1, -1) of an "
			      "immutable or append-only file succeed, where "
			      "ext4 and xfs, and the rule, refuse it: those "
			      "cases are not compared here\n",
			      dir);
	}
	/* clang-format off */
	for (c = 0; c < CWRAP_ARRAY_SIZE(callers); c++)
	for (o = 0; o < CWRAP_ARRAY_SIZE(owners); o++)
	for (m = 0; m < CWRAP_ARRAY_SIZE(modes); m++)
	for (fl = 0; fl < 3; fl++)
	for (u = 0; u < CWRAP_ARRAY_SIZE(uids); u++)
	for (g = 0; g < CWRAP_ARRAY_SIZE(gids); g++) {
		struct uwrap_chown_file f = {owners[o][0], owners[o][1],
					     modes[m], fl == 1, fl == 2};
		int r;

		if (fl != 0 && (u + g) % 3 != 0) {
			continue; /* flags: a third of the requests */
		}
		r = compare_one(path, &callers[c], &f, uids[u], gids[g],
				lenient);
		if (r < 0) {
			not_given++;
		} else if (r > 0) {
			cases++;
			flagged += fl != 0;
		}
	}
	/* clang-format on */
	cwrap_test_rmtree(dir);
	free(path);
	free(dir);
	print_message("%d cases agree with the kernel (%d on immutable or "
		      "append-only files)",
		      cases, flagged);
	if (not_given > 0) {
		print_message("; %d not given by this file system", not_given);
	}
	print_message("\n");
}

/* ---- the attribute's value and the list filter ---- */

static void test_value(void **state)
{
	static const char *const bad[] = {"",
					  ":",
					  "1:2",
					  "1:2:",
					  ":1:2",
					  "1:2:3:",
					  "1::3",
					  "a:2:3",
					  "1:2:3a",
					  " 1:2:3",
					  "1:2:3 ",
					  "-1:2:3",
					  "+1:2:3",
					  "1:-2:3",
					  "4294967295:0:1",
					  "0:4294967295:1",
					  "0:0:18446744073709551616",
					  "1:2:3\n",
					  "99999999999999999999:1:1"};
	char v[UWRAP_OWNER_VALUE_MAX];
	uint32_t u, g;
	uint64_t i;
	size_t n, k;

	(void)state;
	n = uwrap_owner_format(v, 4294967294u, 0, UINT64_MAX);
	assert_true(n < sizeof(v));
	assert_true(uwrap_owner_parse(v, n, &u, &g, &i));
	assert_int_equal(u, 4294967294u);
	assert_int_equal(g, 0);
	assert_true(i == UINT64_MAX);
	n = uwrap_owner_format(v, 1234, 5678, 42);
	assert_string_equal(v, "1234:5678:42");
	assert_true(uwrap_owner_parse("0007:08:09", 10, &u, &g, &i));
	assert_int_equal(u, 7);
	/* the length counts, not a terminating NUL */
	assert_false(uwrap_owner_parse("1:2:3", 4, &u, &g, &i) && i == 3);
	assert_true(uwrap_owner_parse("1:2:34", 5, &u, &g, &i));
	assert_true(i == 3);
	for (k = 0; k < CWRAP_ARRAY_SIZE(bad); k++) {
		if (uwrap_owner_parse(bad[k], strlen(bad[k]), &u, &g, &i)) {
			fail_msg("accepted '%s'", bad[k]);
		}
	}
}

static void test_list_hide(void **state)
{
	static const char list[] = "user.a\0user.uid_wrapper.owner\0user.b\0"
				   "user.uid_wrapper.owner\0"
				   "user.uid_wrapper.ownerX\0";
	char buf[sizeof(list)];
	size_t n;

	(void)state;
	memcpy(buf, list, sizeof(list));
	n = uwrap_owner_list_hide(buf, sizeof(list) - 1);
	assert_int_equal(n, sizeof("user.a\0user.b\0user.uid_wrapper.ownerX") +
				1 - 1);
	assert_memory_equal(buf, "user.a\0user.b\0user.uid_wrapper.ownerX\0",
			    n);
	/* only ours */
	memcpy(buf, "user.uid_wrapper.owner", sizeof(UWRAP_OWNER_XATTR));
	assert_int_equal(uwrap_owner_list_hide(buf, sizeof(UWRAP_OWNER_XATTR)),
			 0);
	/* a list without the last NUL (never from the kernel) */
	memcpy(buf, "user.a\0user.b", 13);
	assert_int_equal(uwrap_owner_list_hide(buf, 13), 13);
	assert_int_equal(uwrap_owner_list_hide(buf, 0), 0);
}

/* Random bytes and mutated good values: no crash, no read outside the
 * input (ASan), and whatever is accepted prints back the same. */
static void test_random_input(void **state)
{
	char in[64], out[UWRAP_OWNER_VALUE_MAX], list[96];
	unsigned seed = 12345;
	uint32_t u, g;
	uint64_t i;
	int round;

	(void)state;
	for (round = 0; round < 200000; round++) {
		size_t n = (size_t)(rand_r(&seed) % 40), k;

		if (round % 2 == 0) {
			n = uwrap_owner_format(in, (uint32_t)rand_r(&seed),
					       (uint32_t)rand_r(&seed),
					       (uint64_t)rand_r(&seed));
			in[rand_r(&seed) % (int)n] =
			    (char)(rand_r(&seed) % 3 == 0
				       ? ':'
				       : '0' + rand_r(&seed) % 12);
		} else {
			for (k = 0; k < n; k++) {
				in[k] = (char)(rand_r(&seed) % 4 == 0
						   ? ':'
						   : rand_r(&seed) % 256);
			}
		}
		if (uwrap_owner_parse(in, n, &u, &g, &i)) {
			/* what was accepted prints back as the same numbers */
			size_t m = uwrap_owner_format(out, u, g, i);
			uint32_t u2, g2;
			uint64_t i2;

			assert_true(u != UINT32_MAX && g != UINT32_MAX);
			assert_true(uwrap_owner_parse(out, m, &u2, &g2, &i2));
			assert_true(u2 == u && g2 == g && i2 == i);
			assert_true(strspn(in, "0123456789:") >= n);
		}
		n = (size_t)(rand_r(&seed) % (int)sizeof(list));
		for (k = 0; k < n; k++) {
			list[k] = (char)(rand_r(&seed) % 5 == 0 ? '\0' : 'u');
		}
		assert_true(uwrap_owner_list_hide(list, n) <= n);
	}
}

/* ---- the owner database ---- */

#define ODB_HEAD 64
#define ODB_REC 40

static char *odb_dir;

/* Run fn in a child with a fresh database state on `file`; the child's
 * stderr goes to `err_file` if given. */
static void odb_case(const char *file, const char *err_file,
		     int (*fn)(const char *path))
{
	char *path = cwrap_test_path(odb_dir, file);
	pid_t pid;
	int status;

	pid = fork();
	if (pid == 0) {
		if (err_file != NULL) {
			char *ep = cwrap_test_path(odb_dir, err_file);
			int fd = open(ep, O_CREAT | O_TRUNC | O_WRONLY, 0600);

			dup2(fd, 2);
		}
		uwrap_odb_set_path(path);
		_exit(fn(path));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) != 0) {
		fail_msg("database case on %s failed at check %d", file,
			 WEXITSTATUS(status));
	}
	free(path);
}

#define CHECK(n, cond)                                                         \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,     \
				#cond);                                        \
			return (n);                                            \
		}                                                              \
	} while (0)

static struct uwrap_odb_rec mkrec(uint64_t ino, uint32_t uid)
{
	struct uwrap_odb_rec r = {.dev = 0x801,
				  .ino = ino,
				  .btime_sec = 1700000000,
				  .btime_nsec = 5,
				  .flags = S_IFLNK | UWRAP_ODB_BTIME,
				  .uid = uid,
				  .gid = uid + 1};

	return r;
}

static int odb_append_one(const struct uwrap_odb_rec *r)
{
	int rc;

	if (uwrap_odb_lock() != 1) {
		uwrap_odb_unlock();
		return -1;
	}
	rc = uwrap_odb_append(r);
	uwrap_odb_unlock();
	return rc;
}

static int odb_basic(const char *path)
{
	struct uwrap_odb_rec r = mkrec(7, 1234), got;
	struct stat st;
	pid_t pid;
	int status, i;

	CHECK(1, !uwrap_odb_find(7, 7, &got)); /* creates it, empty */
	CHECK(2, stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(3, st.st_size == ODB_HEAD);
	CHECK(4, odb_append_one(&r) == 0);
	CHECK(5, uwrap_odb_find(0x801, 7, &got) && got.uid == 1234 &&
		     got.gid == 1235);
	/* another process appends; this one sees it at its next lookup */
	pid = fork();
	if (pid == 0) {
		struct uwrap_odb_rec a = mkrec(7, 99), b = mkrec(8, 42);

		_exit(odb_append_one(&a) == 0 && odb_append_one(&b) == 0 ? 0
									 : 1);
	}
	CHECK(6, waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		     WEXITSTATUS(status) == 0);
	CHECK(7, uwrap_odb_find(0x801, 7, &got) && got.uid == 99);
	CHECK(8, uwrap_odb_find(0x801, 8, &got) && got.uid == 42);
	CHECK(9, !uwrap_odb_find(0x802, 8, &got));
	/* many: the index grows */
	for (i = 0; i < 1000; i++) {
		r = mkrec(1000 + (uint64_t)i, (uint32_t)i);
		CHECK(10, odb_append_one(&r) == 0);
	}
	for (i = 0; i < 1000; i++) {
		CHECK(11, uwrap_odb_find(0x801, 1000 + (uint64_t)i, &got) &&
			      got.uid == (uint32_t)i);
	}
	CHECK(12,
	      stat(path, &st) == 0 && st.st_size == ODB_HEAD + 1003 * ODB_REC);
	return 0;
}

/* A record with an unknown type or flag is skipped, with one line. */
static int odb_bad_record(const char *path)
{
	struct uwrap_odb_rec r = mkrec(5, 55), bad = mkrec(6, 66), got;
	int fd;

	CHECK(1, odb_append_one(&r) == 0);
	bad.flags = 0x12345;
	CHECK(2, odb_append_one(&bad) == 0); /* (as a damaged writer would) */
	/* a second view, as a new process has */
	fd = open(path, O_RDWR);
	CHECK(3, fd >= 0);
	close(fd);
	CHECK(4, uwrap_odb_find(0x801, 5, &got) && got.uid == 55);
	CHECK(5, !uwrap_odb_find(0x801, 6, &got));
	return 0;
}

static int odb_bad_header(const char *path)
{
	struct uwrap_odb_rec r = mkrec(5, 55), got;
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);

	CHECK(1, fd >= 0 && write(fd,
				  "not a database at all, no, not at "
				  "all, not in the slightest way, no\n",
				  64) == 64);
	close(fd);
	CHECK(2, !uwrap_odb_find(0x801, 5, &got));
	CHECK(3, uwrap_odb_lock() == 0);
	CHECK(4, uwrap_odb_append(&r) != 0);
	uwrap_odb_unlock();
	CHECK(5, strstr(uwrap_odb_problem(), path) != NULL);
	return 0;
}

/* The header counts records the file does not hold: what is there is
 * read, one line says so, and nothing is appended over the gap. */
static int odb_short(const char *path)
{
	struct uwrap_odb_rec r = mkrec(5, 55), got;
	uint32_t count = 10;
	int fd;

	CHECK(1, odb_append_one(&r) == 0);
	fd = open(path, O_WRONLY);
	CHECK(2, fd >= 0 && pwrite(fd, &count, 4, 16) == 4);
	close(fd);
	CHECK(3, uwrap_odb_find(0x801, 5, &got) && got.uid == 55);
	r = mkrec(6, 66);
	CHECK(4, odb_append_one(&r) == ENOSPC);
	return 0;
}

/* Someone else's file, or one others may write, is not used. */
static int odb_not_ours(const char *path)
{
	struct uwrap_odb_rec got;
	int fd = open(path, O_CREAT | O_WRONLY, 0600);

	CHECK(1, fd >= 0 && fchmod(fd, 0666) == 0);
	close(fd);
	CHECK(2, !uwrap_odb_find(0x801, 5, &got));
	CHECK(3, uwrap_odb_lock() == 0);
	uwrap_odb_unlock();
	CHECK(4, strstr(uwrap_odb_problem(), "mode 0600") != NULL);
	return 0;
}

static void expect_one_line(const char *err_file, const char *needle)
{
	char *p = cwrap_test_path(odb_dir, err_file);
	char *text = cwrap_test_read_file(p, NULL);
	char *nl;

	assert_non_null(text);
	if (strstr(text, needle) == NULL) {
		fail_msg("stderr lacks '%s': %s", needle, text);
	}
	nl = strchr(text, '\n');
	assert_non_null(nl);
	assert_int_equal(nl[1], '\0'); /* one line */
	free(text);
	free(p);
}

static void test_odb(void **state)
{
	(void)state;
	odb_dir = cwrap_test_mkdtemp("uwrap-odb");
	odb_case("basic", NULL, odb_basic);
	odb_case("badrec", "badrec.err", odb_bad_record);
	expect_one_line("badrec.err", "ignoring a damaged record");
	odb_case("badhead", "badhead.err", odb_bad_header);
	expect_one_line("badhead.err", "not written by this version");
	odb_case("short", "short.err", odb_short);
	expect_one_line("short.err", "the header counts 10 records");
	odb_case("notours", "notours.err", odb_not_ours);
	expect_one_line("notours.err", "mode 0600");
	cwrap_test_rmtree(odb_dir);
	free(odb_dir);
}

static void test_odb_rec_valid(void **state)
{
	struct uwrap_odb_rec r = mkrec(1, 1);

	(void)state;
	assert_true(uwrap_odb_rec_valid(&r));
	r.flags = S_IFREG | UWRAP_ODB_TOMB;
	assert_true(uwrap_odb_rec_valid(&r));
	r.flags = 0;
	assert_false(uwrap_odb_rec_valid(&r));
	r.flags = 0170000;
	assert_false(uwrap_odb_rec_valid(&r));
	r.flags = S_IFREG | 0x40000;
	assert_false(uwrap_odb_rec_valid(&r));
	r.flags = S_IFREG;
	r.btime_nsec = 1000000000u;
	assert_false(uwrap_odb_rec_valid(&r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rule_table),
	    cmocka_unit_test(test_rule_against_kernel),
	    cmocka_unit_test(test_value),
	    cmocka_unit_test(test_list_hide),
	    cmocka_unit_test(test_random_input),
	    cmocka_unit_test(test_odb_rec_valid),
	    cmocka_unit_test(test_odb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
