/*
 * Capture writer, threads: four threads of one process send on one TCP
 * connection and on UDP flows of their own at once; the capture holds
 * every message once, whole, with contiguous sequence numbers.
 */
#include "pcap_test_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTHR 4
#define NMSG 400
#define MSG 700

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;
	struct pt_ep c = pt_ep(4, 100, 46000), s = pt_ep(4, 10, 80);
	struct pt_ep uc = pt_ep(6, 100, (uint16_t)(47000 + t));
	struct pt_ep us = pt_ep(6, 10, 7);
	uint8_t buf[MSG];
	int m;

	for (m = 0; m < NMSG; m++) {
		memset(buf, t * 16 + m % 16, sizeof(buf));
		buf[0] = (uint8_t)t;
		buf[1] = (uint8_t)(m >> 8);
		buf[2] = (uint8_t)m;
		pt_event(SWRAP_PCAP_SEND, SOCK_STREAM, &c, &s, buf, MSG);
		pt_event(SWRAP_PCAP_SEND, SOCK_DGRAM, &uc, &us, buf, 3);
	}
	return NULL;
}

static void threads(void *arg)
{
	struct pt_ep c = pt_ep(4, 100, 46000), s = pt_ep(4, 10, 80);
	pthread_t th[NTHR];
	int t;

	(void)arg;
	pt_event(SWRAP_PCAP_CONNECT, SOCK_STREAM, &c, &s, NULL, 0);
	for (t = 0; t < NTHR; t++) {
		if (pthread_create(&th[t], NULL, thread_main,
				   (void *)(intptr_t)t) != 0) {
			_exit(3);
		}
	}
	for (t = 0; t < NTHR; t++) {
		pthread_join(th[t], NULL);
	}
	pt_event(SWRAP_PCAP_CLOSE, SOCK_STREAM, &c, &s, NULL, 0);
}

static void test_threads(void **state)
{
	static uint8_t stream[NTHR * NMSG * MSG];
	int next[NTHR] = {0}, unext[NTHR] = {0};
	struct pt_run run;
	uint32_t ic = 0;
	size_t i, off = 0;

	(void)state;
	pt_capture(&run, "1000", threads, NULL);
	assert_non_null(run.cap);
	for (i = 0; i < run.cap->n; i++) {
		struct cwrap_pcap_pkt *k = &run.cap->pkts[i];

		assert_true(k->ip_csum_ok && k->l4_csum_ok);
		if (k->proto == 17) {
			int t = k->sport - 47000;

			assert_true(t >= 0 && t < NTHR);
			assert_int_equal(k->payload[0], t);
			assert_int_equal((k->payload[1] << 8) | k->payload[2],
					 unext[t]++);
		} else if (k->tcp_flags == 0x02) {
			ic = k->seq;
		} else if (k->sport == 46000 && k->payload_len > 0) {
			assert_true(k->payload_len <= 1000);
			assert_int_equal(k->seq, ic + 1 + (uint32_t)off);
			memcpy(stream + off, k->payload, k->payload_len);
			off += k->payload_len;
		}
	}
	assert_int_equal(off, sizeof(stream));
	for (off = 0; off < sizeof(stream); off += MSG) {
		int t = stream[off],
		    m = (stream[off + 1] << 8) | stream[off + 2];

		assert_true(t < NTHR);
		assert_int_equal(m, next[t]++);
		assert_int_equal(stream[off + MSG - 1], t * 16 + m % 16);
	}
	for (i = 0; i < NTHR; i++) {
		assert_int_equal(next[i], NMSG);
		assert_int_equal(unext[i], NMSG);
	}
	pt_run_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
