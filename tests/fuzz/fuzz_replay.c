/*
 * main() of a fuzz target in an ordinary build (no libFuzzer): every file
 * named on the command line, or found in a directory named there, is given
 * to LLVMFuzzerTestOneInput once, in name order. ctest replays each
 * target's corpus and regression inputs this way in every build (normal,
 * ASan+UBSan, i686, valgrind), so an input that once crashed, hung or gave
 * a wrong answer stays fixed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static unsigned long replayed;

static void replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL) {
		perror(path);
		exit(1);
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (buf == NULL) {
				abort();
			}
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* A copy of exactly `len` bytes, so ASan sees any read past it. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (exact == NULL) {
			abort();
		}
		memcpy(exact, buf, len);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	free(buf);
	replayed++;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void replay(const char *path)
{
	struct stat st;
	struct dirent **ents;
	int n;

	if (stat(path, &st) != 0) {
		perror(path);
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}
	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			char *p =
			    malloc(strlen(path) + strlen(ents[i]->d_name) + 2);

			if (p == NULL) {
				abort();
			}
			sprintf(p, "%s/%s", path, ents[i]->d_name);
			replay(p);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
}

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		replay(argv[i]);
	}
	if (replayed == 0) {
		fprintf(stderr, "no input replayed\n");
		return 1;
	}
	printf("%lu inputs replayed, no finding\n", replayed);
	return 0;
}
