/*
 * Libraries a wrapped program opens with RTLD_DEEPBIND stay wrapped, as
 * Samba's ldb opens its modules: swrap_dl_mod.so (in $CWRAP_TEST_BIN/dlmods,
 * RUNPATH $ORIGIN/../dlmods, needing libswrap_dl_dep.so there) connects to an
 * emulated listener with a unix socket, not a real AF_INET one; its
 * swrap_dl_probe() is the program's (global scope first: the flag was
 * dropped), not its dependency's. With SOCKET_WRAPPER_DIR unset the flag is
 * kept. dlopen() still works on behalf of its caller: libswrap_dl_loader.so
 * (RUNPATH $ORIGIN/./dlmods) opens "swrap_dl_mod.so" and
 * "$ORIGIN/dlmods/swrap_dl_mod.so", which the program itself cannot.
 * Under a sanitizer the runtime interposes dlopen() before us: it refuses
 * RTLD_DEEPBIND itself and makes itself the caller, so those cases are
 * skipped there.
 */
#include "swrap_test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *swrap_dl_loader_open(const char *name, int flags);
const char *swrap_dl_probe(void);

/* Also defined in libswrap_dl_dep.so (see there); exported from the
 * program (ENABLE_EXPORTS). */
const char *swrap_dl_probe(void)
{
	return "program";
}

static char *dir;
static char mod_path[4096];

static int setup(void **state)
{
	(void)state;
	dir = swrap_test_setup("30");
	snprintf(mod_path, sizeof(mod_path), "%s/dlmods/swrap_dl_mod.so",
		 getenv("CWRAP_TEST_BIN"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	swrap_test_teardown(dir);
	return 0;
}

static bool sanitizer(void)
{
	return dlsym(RTLD_DEFAULT, "__asan_init") != NULL ||
	       dlsym(RTLD_DEFAULT, "__tsan_init") != NULL;
}

/* A C library without RTLD_DEEPBIND (musl): nothing to test there, and
 * socket_wrapper does not interpose dlopen(). */
#ifndef HAVE_RTLD_DEEPBIND
#define RTLD_DEEPBIND 0
#define SKIP_WITHOUT_DEEPBIND() skip()
#else
#define SKIP_WITHOUT_DEEPBIND() (void)0
#endif

struct mod {
	void *h;
	int (*connect)(const char *addr, int port);
	int (*dep)(void);
	const char *(*probe)(void);
};

static struct mod mod_open(void *h)
{
	struct mod m = {.h = h};

	if (h == NULL) {
		print_message("dlopen: %s\n", dlerror());
	}
	assert_non_null(h);
	*(void **)&m.connect = dlsym(h, "swrap_dl_mod_connect");
	*(void **)&m.dep = dlsym(h, "swrap_dl_mod_dep");
	*(void **)&m.probe = dlsym(h, "swrap_dl_mod_probe");
	assert_non_null(m.connect);
	assert_non_null(m.dep);
	assert_non_null(m.probe);
	/* its dependency, found through its RUNPATH ($ORIGIN/../dlmods) */
	assert_int_equal(m.dep(), 4242);
	return m;
}

/* Unloaded again, so that the next dlopen() maps it afresh. */
static void mod_close(struct mod *m)
{
	assert_int_equal(dlclose(m->h), 0);
#ifdef __GLIBC__ /* (musl's dlclose never unloads) */
	assert_null(dlopen(mod_path, RTLD_NOW | RTLD_NOLOAD));
#endif
}

static void test_deepbind_module_stays_wrapped(void **state)
{
	int l, fd, c;
	struct mod m;
	char name[64];

	(void)state;
	SKIP_WITHOUT_DEEPBIND();
	if (sanitizer()) {
		skip(); /* the runtime refuses RTLD_DEEPBIND */
	}
	l = swrap_test_listener("127.0.0.10", 389, 4);
	m = mod_open(dlopen(mod_path, RTLD_NOW | RTLD_DEEPBIND));
	assert_string_equal(m.probe(), "program");
	fd = m.connect("127.0.0.10", 389);
	assert_true(fd >= 0);
	/* an emulated socket: a unix one in the kernel's eyes */
	assert_true(swrap_test_is_unix(fd));
	assert_string_equal(swrap_test_name(fd, name, true), "127.0.0.10:389");
	c = accept(l, NULL, NULL);
	assert_true(c >= 0);
	swrap_test_write_all(fd, "ldap", 4);
	swrap_test_read_all(c, name, 4);
	assert_memory_equal(name, "ldap", 4);
	close(c);
	close(fd);
	close(l);
	mod_close(&m);
}

/* Inert (SOCKET_WRAPPER_DIR unset): the flag is the program's. */
static void test_deepbind_kept_when_inert(void **state)
{
	struct mod m;

	(void)state;
	SKIP_WITHOUT_DEEPBIND();
	if (sanitizer()) {
		skip();
	}
	unsetenv("SOCKET_WRAPPER_DIR");
	m = mod_open(dlopen(mod_path, RTLD_NOW | RTLD_DEEPBIND));
	assert_string_equal(m.probe(), "dependency");
	mod_close(&m);
	m = mod_open(dlopen(mod_path, RTLD_NOW));
	assert_string_equal(m.probe(), "program");
	mod_close(&m);
	setenv("SOCKET_WRAPPER_DIR", dir, 1);
}

/* Without RTLD_DEEPBIND nothing changes: the module was wrapped anyway. */
static void test_plain_module(void **state)
{
	int l, fd;
	struct mod m;

	(void)state;
	l = swrap_test_listener("127.0.0.10", 390, 4);
	m = mod_open(dlopen(mod_path, RTLD_NOW));
	assert_string_equal(m.probe(), "program");
	fd = m.connect("127.0.0.10", 390);
	assert_true(fd >= 0);
	assert_true(swrap_test_is_unix(fd));
	close(fd);
	close(l);
	mod_close(&m);
}

/* The caller's RUNPATH and $ORIGIN: the loader library finds the module,
 * the program (whose RUNPATH has no dlmods) does not. */
static void test_caller_runpath_and_origin(void **state)
{
	static const int flags[] = {RTLD_NOW, RTLD_NOW | RTLD_DEEPBIND};
	struct mod m;

	(void)state;
	SKIP_WITHOUT_DEEPBIND(); /* (dlopen() is then the C library's own) */
	if (sanitizer()) {
		skip(); /* the runtime's dlopen() is the caller */
	}
	assert_null(dlopen("swrap_dl_mod.so", RTLD_NOW));
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		m = mod_open(swrap_dl_loader_open("swrap_dl_mod.so", flags[i]));
		assert_string_equal(m.probe(), "program");
		mod_close(&m);
		m = mod_open(swrap_dl_loader_open(
		    "$ORIGIN/dlmods/swrap_dl_mod.so", flags[i]));
		mod_close(&m);
	}
	/* and the program's own $ORIGIN is its directory, not dlmods */
	assert_null(dlopen("$ORIGIN/swrap_dl_mod.so", RTLD_NOW));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deepbind_module_stays_wrapped),
	    cmocka_unit_test(test_deepbind_kept_when_inert),
	    cmocka_unit_test(test_plain_module),
	    cmocka_unit_test(test_caller_runpath_and_origin),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
