/*
 * Fuzz target "variables": the values of the variables, parsed as each
 * library parses them. Numbers (cwrap_parse_long) are accepted exactly
 * when they are whole decimal numbers in range; socket_wrapper's
 * configuration always ends within its documented ranges (interface
 * 1..254, MTU 512..32768, 1..256000 sockets, one of the two networks, a
 * directory that fits a socket name), whatever the values; a debug level
 * is always 0..3.
 *
 * Input: NUL-separated values: SOCKET_WRAPPER_DIR (a name under the
 * target's directory, or unset when empty), _DIR_ALLOW_ORIG,
 * _DEFAULT_IFACE, _IPV4_NETWORK, _MAX_SOCKETS, _MTU, _PCAP_FILE, then a
 * value for SOCKET_WRAPPER_DEBUGLEVEL. A missing value is unset.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/un.h>

#include "cwrap_env.h"
#include "cwrap_log.h"
#include "fuzz_swrap.h"

#define NFIELDS 8

static void check_number(const char *v)
{
	static const long ranges[][2] = {
	    {1, 254}, {512, 32768}, {1, 256000}, {0, LONG_MAX}, {LONG_MIN, 0}};
	size_t digits = strspn(v, "0123456789");

	for (size_t i = 0; i < CWRAP_ARRAY_SIZE(ranges); i++) {
		long out = 12345;
		bool ok = cwrap_parse_long(v, ranges[i][0], ranges[i][1], &out);

		if (ok) {
			FUZZ_CHECK(out >= ranges[i][0] && out <= ranges[i][1]);
		} else {
			FUZZ_CHECK(out == 12345);
		}
		/* plain digits that fit: accepted iff in range */
		if (v[0] != '\0' && v[digits] == '\0' && digits < 12) {
			long want = strtol(v, NULL, 10);

			FUZZ_CHECK(ok == (want >= ranges[i][0] &&
					  want <= ranges[i][1]));
			FUZZ_CHECK(!ok || out == want);
		}
		/* anything else after the number: refused */
		if (ok) {
			FUZZ_CHECK(strpbrk(v, "xX.eE") == NULL);
		}
	}
}

static const char *dir;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	dir = fuzz_path("");
	/* what the configuration reports goes nowhere */
	setenv("SOCKET_WRAPPER_DEBUGLEVEL", "-1", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *f[NFIELDS] = {0}, *raw[16] = {0};
	struct swrap_conf c;
	size_t nf = 0, o = 0;
	int level;

	memcpy(copy, data, size);
	copy[size] = '\0';
	while (nf < NFIELDS && o <= size) {
		f[nf++] = copy + o;
		o += strlen(copy + o) + 1;
	}
	for (size_t i = 0; i < nf; i++) {
		check_number(f[i]);
	}
	for (size_t i = 1; i < 7 && i < nf; i++) {
		raw[i] = f[i];
	}
	if (nf > 0 && f[0][0] != '\0') {
		raw[0] = malloc(strlen(dir) + strlen(f[0]) + 1);
		sprintf(raw[0], "%s%s", dir, f[0]);
	}
	swrap_conf_parse(&c, raw);
	FUZZ_CHECK(c.default_iface >= 1 && c.default_iface <= 254);
	FUZZ_CHECK(c.mtu >= 512 && c.mtu <= 32768);
	FUZZ_CHECK(c.max_sockets >= 1 && c.max_sockets <= 256000);
	FUZZ_CHECK((c.ipv4_net == 0x7f000000u && c.ipv4_bcast == 0x7fffffffu) ||
		   (c.ipv4_net == 0x0a353900u && c.ipv4_bcast == 0x0affffffu));
	if (c.enabled) {
		FUZZ_CHECK(c.dir_len == strlen(c.dir));
		FUZZ_CHECK(c.dir_len + 9 <
			   sizeof(((struct sockaddr_un *)0)->sun_path));
	}
	FUZZ_CHECK(c.pcap_file == NULL || c.pcap_file == raw[6]);

	if (nf == NFIELDS) {
		setenv("SOCKET_WRAPPER_DEBUGLEVEL", f[7], 1);
		cwrap_log_invalidate();
		level = cwrap_log_level();
		FUZZ_CHECK(level >= 0 && level <= 3);
		setenv("SOCKET_WRAPPER_DEBUGLEVEL", "-1", 1);
		cwrap_log_invalidate();
	}
	free(raw[0]);
	free(copy);
	return 0;
}
