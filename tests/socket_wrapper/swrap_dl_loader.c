/*
 * Test library for test_swrap_dlopen: calls dlopen() on behalf of the
 * program. Its RUNPATH ($ORIGIN/./dlmods) is where glibc looks for a name
 * without a slash that this library opens, and $ORIGIN in such a name is
 * this library's directory: both depend on dlopen() knowing its caller.
 */
#include <dlfcn.h>

void *swrap_dl_loader_open(const char *name, int flags);

void *swrap_dl_loader_open(const char *name, int flags)
{
	void *h = dlopen(name, flags);

	/* Not a tail call: this library must be the one that calls. */
	__asm__ volatile("" ::: "memory");
	return h;
}
