/*
 * The backends' order: the files (NSS_WRAPPER_PASSWD and NSS_WRAPPER_GROUP)
 * first, then the module for what they lack, as upstream does (Samba's
 * winbind maps uid 0 to DOMAIN/root, which must not shadow the file's
 * root). Which are in force is the configuration's (nwrap_config());
 * this file sits above it and above both backends, so that the
 * configuration names none of them (the files backend reads through the
 * caches, which ask the configuration). No state, no lock.
 */
#include "nwrap_backend.h"

size_t nwrap_backends(const struct nwrap_backend *b[NWRAP_BACKEND_MAX])
{
	const struct nwrap_config *c = nwrap_config();
	size_t n = 0;

	if (c->files_enabled) {
		b[n++] = &nwrap_files_backend;
	}
	if (c->module != NULL) {
		b[n++] = nwrap_module_backend(c->module);
	}
	return n;
}
