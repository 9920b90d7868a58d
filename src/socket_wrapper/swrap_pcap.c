/*
 * Capture writer: see swrap_pcap.h. (Stub until the capture issue: capture
 * is never on.)
 */
#include "swrap_pcap.h"

bool swrap_pcap_enabled(void)
{
	return false;
}

void swrap_pcap_event(enum swrap_pcap_event event, int sotype,
		      const struct sockaddr *local, socklen_t local_len,
		      const struct sockaddr *peer, socklen_t peer_len,
		      const struct iovec *iov, int iovcnt, size_t len)
{
	(void)event;
	(void)sotype;
	(void)local;
	(void)local_len;
	(void)peer;
	(void)peer_len;
	(void)iov;
	(void)iovcnt;
	(void)len;
}
