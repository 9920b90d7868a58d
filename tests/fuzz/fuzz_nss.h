/*
 * The nss_wrapper fuzz targets' common set-up: every NSS_WRAPPER_* file
 * variable names a file in the target's private directory, and an input
 * becomes one of those files, loaded afresh (the caches are reset), so
 * the target then asks the library's own lookups about it.
 */
#ifndef FUZZ_NSS_H
#define FUZZ_NSS_H

#include "fuzz_util.h"
#include "nwrap.h"

/* Point the variables at the private files (an empty one for each). */
void fuzz_nss_setup(void);
/* Make `data` the file of `kind`, and drop every cache. */
void fuzz_nss_load(enum nwrap_kind kind, const uint8_t *data, size_t size);

#endif
