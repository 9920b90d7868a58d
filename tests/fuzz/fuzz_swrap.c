/*
 * See fuzz_swrap.h.
 */
#include "fuzz_swrap.h"

#include <string.h>

/* swrap_init.c defines the library's cwrap_lib (its name in messages):
 * a reference to it links that object whatever else a target uses. */
pid_t (*const fuzz_swrap_init_linked)(void) = swrap_pid;

void fuzz_swrap_conf(struct swrap_conf *c, unsigned iface, bool net10)
{
	memset(c, 0, sizeof(*c));
	c->enabled = true;
	strcpy(c->dir, "/tmp/cwrap-fuzz-swrap");
	c->dir_len = strlen(c->dir);
	c->default_iface = 1 + iface % SWRAP_IFACE_MAX;
	c->ipv4_net = net10 ? 0x0a353900u : 0x7f000000u;
	c->ipv4_bcast = net10 ? 0x0affffffu : 0x7fffffffu;
	c->max_sockets = 65535;
	c->mtu = 1500;
}
