/*
 * Fuzz target "pcap_state": the capture state file
 * (`<capture>.swrap-state`), which every process capturing to one file
 * maps and trusts. A corrupt or hostile one must not crash a process,
 * hang it, or make it write outside the mapping: it is either refused
 * (the process keeps a private table, with one line on stderr) or used
 * within its bounds.
 *
 * Input: patches to a freshly made state file, each `offset (4 bytes,
 * little-endian, taken modulo the file's size) length (1 byte) bytes`.
 * Bytes of the locks are left alone: whoever can write the file can hold
 * a lock forever, as with any lock processes share.
 * The target then does what a capturing process does: attach, register,
 * record a connection, hold and release its end, sweep for dead holders,
 * draw sequence numbers, leave (and then nothing of the state is mapped).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_swrap.h"
#include "capture/swrap_pcap_state.h"

static const char *cap_path, *state_path;
/* The state file as the first capturing process makes it (made once: the
 * library's code for a new file does the same at each input, whatever
 * the input), and the copy each input patches. */
static uint8_t *fresh, *work;
static size_t state_size;

static void make_fresh(void)
{
	struct swrap_pcap_state *s;
	struct stat st;
	int fd, sfd;

	unlink(state_path);
	fd = open(cap_path, O_RDWR | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	s = swrap_pcap_state_open(cap_path, fd, true);
	FUZZ_CHECK(swrap_pcap_state_shared(s));
	swrap_pcap_state_close(s, 0);
	close(fd);
	sfd = open(state_path, O_RDONLY | O_CLOEXEC);
	FUZZ_CHECK(sfd >= 0 && fstat(sfd, &st) == 0 && st.st_size > 0);
	state_size = (size_t)st.st_size;
	fresh = malloc(state_size);
	work = malloc(state_size);
	FUZZ_CHECK(fresh != NULL && work != NULL);
	FUZZ_CHECK(pread(sfd, fresh, state_size, 0) == (ssize_t)state_size);
	close(sfd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *p;

	(void)argc;
	(void)argv;
	fuzz_quiet();
	cap_path = fuzz_path("capture.pcap");
	p = malloc(strlen(cap_path) + 16);
	sprintf(p, "%s.swrap-state", cap_path);
	state_path = p;
	fuzz_write(cap_path, (const uint8_t *)"", 0);
	setenv("SOCKET_WRAPPER_DEBUGLEVEL", "0", 1);
	make_fresh();
	return 0;
}

/* Whether /proc/self/maps names `path`. */
static bool mapped(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4600];
	bool found = false;

	FUZZ_CHECK(f != NULL);
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		found = strstr(line, path) != NULL;
	}
	fclose(f);
	return found;
}

/* The state file becomes the fresh one with the input's patches, in one
 * write (a new file and a pwrite per byte made most of the target's
 * time). */
static void patch(const uint8_t *data, size_t size)
{
	int fd = open(state_path, O_RDWR | O_CLOEXEC);

	FUZZ_CHECK(fd >= 0);
	memcpy(work, fresh, state_size);
	while (size >= 5) {
		uint32_t off = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
			       (uint32_t)data[2] << 16 |
			       (uint32_t)data[3] << 24;
		size_t len = data[4];

		data += 5;
		size -= 5;
		if (len > size) {
			len = size;
		}
		off %= (uint32_t)state_size;
		if (len > state_size - off) {
			len = state_size - off;
		}
		for (size_t i = 0; i < len; i++) {
			if (!swrap_pcap_state_lock_byte(off + i)) {
				work[off + i] = data[i];
			}
		}
		data += len;
		size -= len;
	}
	FUZZ_CHECK(pwrite(fd, work, state_size, 0) == (ssize_t)state_size);
	close(fd);
}

/* An end whose FIN a sweep found due: a connection, one of its two ends. */
static void swept(void *arg, struct swrap_pcap_conn *c, int end)
{
	(void)arg;
	FUZZ_CHECK(c != NULL && (end == 0 || end == 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct swrap_pcap_ep a = {
	    .family = 4, .addr = {127, 0, 0, 10}, .port = 7};
	struct swrap_pcap_ep b = {
	    .family = 4, .addr = {127, 0, 0, 100}, .port = 16268};
	struct swrap_pcap_state *s;
	struct swrap_pcap_conn *c;
	int out = -1, fd;
	uint16_t ref;

	patch(data, size);

	fd = open(cap_path, O_RDWR | O_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	s = swrap_pcap_state_open(cap_path, fd, false);
	ref = swrap_pcap_state_register(s, getpid());
	swrap_pcap_state_keepalive(s, ref);
	swrap_pcap_state_lock(s);
	c = swrap_pcap_state_conn(s, 6, &a, &b, &out);
	FUZZ_CHECK(c != NULL && (out == 0 || out == 1));
	if (ref != 0) {
		swrap_pcap_state_hold(s, c, out, ref);
	}
	(void)swrap_pcap_state_random(s);
	(void)swrap_pcap_state_ip_id(s);
	swrap_pcap_state_unlock(s);

	swrap_pcap_state_lock(s);
	(void)swrap_pcap_state_sweep(s, swept, s);
	if (ref != 0) {
		(void)swrap_pcap_state_release(s, c, out, ref);
		swrap_pcap_state_exiting(s, ref);
	}
	swrap_pcap_state_unlock(s);
	swrap_pcap_state_close(s, ref);
	close(fd);
	/* one thread: leaving the capture unmaps its state (a corrupt
	 * `inited` once made close() think another thread held the slot) */
	FUZZ_CHECK(!mapped(state_path));
	return 0;
}
