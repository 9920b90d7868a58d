/*
 * Every file is read again on the next lookup after it is edited: group
 * (a new member, a changed gid), hosts (a new address for a name, a name
 * moved to another line) and shadow (a changed field), each edited in
 * place at once (same size, within the file timestamp's tick) and
 * replaced by rename. passwd (also in test_pwd) is looked up in a loop
 * first, as a benchmark or a batch job does, and then changed every way a
 * writer can: in place, by rename, unlink, truncate, from another process
 * or thread, through a shared mapping; after the application closed every
 * descriptor; in a forked child and its parent.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <shadow.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "nwrap_test.h"

static char *passwd_path, *group_path, *hosts_path, *shadow_path;

static bool member(const char *group, const char *user)
{
	struct group *gr = getgrnam(group);

	if (gr == NULL) {
		return false;
	}
	for (char **m = gr->gr_mem; *m != NULL; m++) {
		if (strcmp(*m, user) == 0) {
			return true;
		}
	}
	return false;
}

static void test_group(void **state)
{
	(void)state;
	assert_true(member("staff", "ann"));
	assert_false(member("staff", "bo"));
	cwrap_test_write_file(group_path, "staff:x:500:bo\n"); /* in place */
	assert_false(member("staff", "ann"));
	assert_true(member("staff", "bo"));
	nt_replace(group_path, "staff:x:501:ann,bo\nwheel:x:10:ann\n");
	assert_int_equal(getgrnam("staff")->gr_gid, 501);
	assert_true(member("wheel", "ann"));
	assert_non_null(getgrgid(10));
}

static const char *addr_of(const char *name)
{
	static char buf[INET_ADDRSTRLEN];
	struct hostent *h = gethostbyname(name);

	if (h == NULL) {
		return "none";
	}
	return inet_ntop(AF_INET, h->h_addr_list[0], buf, sizeof(buf));
}

static void test_hosts(void **state)
{
	(void)state;
	assert_string_equal(addr_of("db.example"), "10.0.0.1");
	cwrap_test_write_file(hosts_path, "10.0.0.2 db.example\n");
	assert_string_equal(addr_of("db.example"), "10.0.0.2");
	nt_replace(hosts_path, "10.0.0.3 web.example\n10.0.0.4 db.example\n");
	assert_string_equal(addr_of("db.example"), "10.0.0.4");
	assert_string_equal(addr_of("web.example"), "10.0.0.3");
	{
		struct addrinfo hints = {.ai_family = AF_INET}, *ai;
		char buf[INET_ADDRSTRLEN];

		assert_int_equal(getaddrinfo("web.example", NULL, &hints, &ai),
				 0);
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)ai->ai_addr)->sin_addr, buf,
			  sizeof(buf));
		assert_string_equal(buf, "10.0.0.3");
		freeaddrinfo(ai);
	}
}

static void test_shadow(void **state)
{
	(void)state;
	assert_string_equal(getspnam("ann")->sp_pwdp, "$6$a$old");
	cwrap_test_write_file(shadow_path, "ann:$6$a$new:19000:0:99999:7:::\n");
	assert_string_equal(getspnam("ann")->sp_pwdp, "$6$a$new");
	nt_replace(shadow_path, "bo:!:1:2:3:4:5:6:\n");
	assert_null(getspnam("ann"));
	assert_int_equal(getspnam("bo")->sp_lstchg, 1);
}

/* An enumeration goes on over the records of its first entry, as glibc's
 * reads on in the file it opened (and it costs no fstat per entry); a
 * lookup, and the next setpwent, see the new file. */
static void test_enumeration_keeps_its_records(void **state)
{
	struct group *gr;

	(void)state;
	nt_replace(passwd_path, "amy:x:1001:1001::/:/bin/sh\n"
				"bea:x:1002:1002::/:/bin/sh\n");
	setpwent();
	assert_string_equal(getpwent()->pw_name, "amy");
	nt_replace(passwd_path, "cid:x:1003:1003::/:/bin/sh\n"
				"dan:x:1004:1004::/:/bin/sh\n"
				"eve:x:1005:1005::/:/bin/sh\n");
	assert_string_equal(getpwent()->pw_name, "bea");
	assert_null(getpwent());
	assert_int_equal(getpwnam("dan")->pw_uid, 1004);
	assert_null(getpwnam("amy"));
	setpwent();
	assert_string_equal(getpwent()->pw_name, "cid");
	assert_string_equal(getpwent()->pw_name, "dan");
	endpwent();
	assert_string_equal(getpwent()->pw_name, "cid");
	endpwent();

	nt_replace(group_path, "one:x:601:\ntwo:x:602:\n");
	setgrent();
	assert_string_equal(getgrent()->gr_name, "one");
	cwrap_test_write_file(group_path, "uno:x:601:\ndos:x:602:\n");
	assert_string_equal(getgrent()->gr_name, "two");
	assert_null(getgrent());
	setgrent();
	gr = getgrent();
	assert_string_equal(gr->gr_name, "uno");
	endgrent();
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* The user's uid, or -1 if there is no such user. */
static long uid_of(const char *name)
{
	struct passwd *pw = getpwnam(name);

	return pw == NULL ? -1 : (long)pw->pw_uid;
}

static void write_passwd(const char *name, int uid)
{
	char line[128];

	snprintf(line, sizeof(line), "%s:x:%d:%d::/home/%s:/bin/sh\n", name,
		 uid, uid, name);
	cwrap_test_write_file(passwd_path, line);
}

/* A loop of lookups on `name`, past the racy window of a file just
 * written: the cache is hot and trusted when the change comes. */
static void heat(const char *name, long uid)
{
	sleep_ms(60);
	for (int i = 0; i < 6000; i++) {
		assert_int_equal(uid_of(name), uid);
	}
}

static void test_loop_in_place_same_size(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	write_passwd("bea", 1001); /* same size, same inode */
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("bea"), 1001);
}

static void test_loop_rename_over(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	nt_replace(passwd_path, "cid:x:1002:1002::/:/bin/sh\n");
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("cid"), 1002);
}

static void test_loop_unlink_and_truncate(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	assert_int_equal(unlink(passwd_path), 0);
	assert_int_equal(uid_of("amy"), -1);

	write_passwd("amy", 1001);
	heat("amy", 1001);
	assert_int_equal(truncate(passwd_path, 0), 0);
	assert_int_equal(uid_of("amy"), -1);
}

static void test_loop_edit_by_another_process(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(passwd_path, O_WRONLY);

		/* "amy" becomes "amz" in place: one byte, one write */
		_exit(fd >= 0 && pwrite(fd, "z", 1, 2) == 1 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("amz"), 1001);
}

static int edited;
static char edit_byte;

static void *edit_thread(void *arg)
{
	int fd = open(passwd_path, O_WRONLY);

	(void)arg;
	if (fd < 0 || pwrite(fd, &edit_byte, 1, 2) != 1) {
		abort();
	}
	close(fd);
	__atomic_store_n(&edited, 1, __ATOMIC_RELEASE);
	for (;;) {
		/* stays alive, so the lookup below cannot be after a join */
		if (__atomic_load_n(&edited, __ATOMIC_ACQUIRE) == 2) {
			return NULL;
		}
	}
}

/* Another thread edits while this one spins on a flag: the next lookup
 * here sees the edit, ten times over. */
static void test_loop_edit_by_another_thread(void **state)
{
	char name[] = "amy";

	(void)state;
	write_passwd(name, 1001);
	for (int i = 0; i < 10; i++) {
		pthread_t t;

		heat(name, 1001);
		edit_byte = i % 2 ? 'y' : 'w';
		__atomic_store_n(&edited, 0, __ATOMIC_RELEASE);
		assert_int_equal(pthread_create(&t, NULL, edit_thread, NULL),
				 0);
		while (__atomic_load_n(&edited, __ATOMIC_ACQUIRE) == 0) {
		}
		assert_int_equal(uid_of(name), -1);
		name[2] = edit_byte;
		assert_int_equal(uid_of(name), 1001);
		__atomic_store_n(&edited, 2, __ATOMIC_RELEASE);
		assert_int_equal(pthread_join(t, NULL), 0);
	}
}

static void *lookup_thread(void *arg)
{
	return (void *)(intptr_t)uid_of((const char *)arg);
}

/* A thread that did not heat the cache sees changes as well. */
static void test_loop_other_thread_looks_up(void **state)
{
	pthread_t t;
	void *r;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	write_passwd("dot", 1003);
	assert_int_equal(pthread_create(&t, NULL, lookup_thread, (void *)"dot"),
			 0);
	assert_int_equal(pthread_join(t, &r), 0);
	assert_int_equal((intptr_t)r, 1003);
	assert_int_equal(uid_of("dot"), 1003);
}

/* The writer maps the file and writes through the mapping. */
static void test_loop_mapped_write_then_close(void **state)
{
	int fd;
	char *m;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	fd = open(passwd_path, O_RDWR);
	assert_true(fd >= 0);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	m[2] = 'x';
	assert_int_equal(munmap(m, 4096), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("amx"), 1001);
}

/* A daemon closes every descriptor, the library's too. */
static void test_loop_application_closes_everything(void **state)
{
	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	for (int fd = 3; fd < 1024; fd++) {
		close(fd);
	}
	assert_int_equal(uid_of("amy"), 1001);
	write_passwd("eve", 1004);
	assert_int_equal(uid_of("amy"), -1);
	assert_int_equal(uid_of("eve"), 1004);
}

/* A child forked from a process in a lookup loop: it sees every later
 * change, the parent's and its own, and so does the parent. */
static void test_loop_fork(void **state)
{
	int to_child[2], to_parent[2], status;
	pid_t pid;
	char c;

	(void)state;
	write_passwd("amy", 1001);
	heat("amy", 1001);
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok = uid_of("amy") == 1001;

		for (int i = 0; i < 300; i++) {
			ok &= uid_of("amy") == 1001;
		}
		ok &= write(to_parent[1], "1", 1) == 1;
		ok &= read(to_child[0], &c, 1) == 1; /* the parent edited */
		ok &= uid_of("amy") == -1 && uid_of("fay") == 1005;
		for (int i = 0; i < 300; i++) {
			ok &= uid_of("fay") == 1005;
		}
		ok &= write(to_parent[1], "2", 1) == 1;
		ok &= read(to_child[0], &c, 1) == 1; /* edited again */
		ok &= uid_of("fay") == -1 && uid_of("gus") == 1006;
		write_passwd("hal", 1007);
		ok &= uid_of("hal") == 1007;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	write_passwd("fay", 1005);
	assert_int_equal(uid_of("fay"), 1005);
	assert_int_equal(write(to_child[1], "1", 1), 1);
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	write_passwd("gus", 1006);
	assert_int_equal(write(to_child[1], "2", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(uid_of("hal"), 1007);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_group),
	    cmocka_unit_test(test_hosts),
	    cmocka_unit_test(test_shadow),
	    cmocka_unit_test(test_enumeration_keeps_its_records),
	    cmocka_unit_test(test_loop_in_place_same_size),
	    cmocka_unit_test(test_loop_rename_over),
	    cmocka_unit_test(test_loop_unlink_and_truncate),
	    cmocka_unit_test(test_loop_edit_by_another_process),
	    cmocka_unit_test(test_loop_edit_by_another_thread),
	    cmocka_unit_test(test_loop_other_thread_looks_up),
	    cmocka_unit_test(test_loop_mapped_write_then_close),
	    cmocka_unit_test(test_loop_application_closes_everything),
	    cmocka_unit_test(test_loop_fork),
	};

	passwd_path = nt_file(
	    "passwd", "ann:x:1000:500::/:/bin/sh\nbo:x:1001:500::/:/bin/sh\n",
	    "NSS_WRAPPER_PASSWD");
	group_path = nt_file("group", "staff:x:500:ann\n", "NSS_WRAPPER_GROUP");
	hosts_path =
	    nt_file("hosts", "10.0.0.1 db.example\n", "NSS_WRAPPER_HOSTS");
	shadow_path = nt_file("shadow", "ann:$6$a$old:19000:0:99999:7:::\n",
			      "NSS_WRAPPER_SHADOW");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
