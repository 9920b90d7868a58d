/*
 * The socket_wrapper fuzz targets' common pieces: a configuration made
 * from an input's first bytes (as SOCKET_WRAPPER_DIR, _DEFAULT_IFACE and
 * _IPV4_NETWORK would give), without the environment.
 */
#ifndef FUZZ_SWRAP_H
#define FUZZ_SWRAP_H

#include "fuzz_util.h"
#include "swrap.h"

/* Interface 1..254 from `iface`, the 10.53.57.0 network if `net10`. */
void fuzz_swrap_conf(struct swrap_conf *c, unsigned iface, bool net10);

#endif
