/*
 * Fuzz target "elf": the headers cwrap_elf_kind() reads to tell whether a
 * program needs the supervisor (src/common/cwrap_elf.c), from a file of
 * any content: an answer of "static", "Go" or none, never a crash or a
 * read outside what the file holds; an answer only for a file that starts
 * as an ELF file does, and "static" only for one without an interpreter
 * (no PT_INTERP program header among those the answer came from).
 *
 * Input: the file's bytes.
 */
#include <elf.h>
#include <string.h>

#include "cwrap_supervise.h"
#include "fuzz_util.h"

static bool has_interp(const uint8_t *d, size_t n)
{
	Elf64_Ehdr eh;

	if (n < sizeof(eh)) {
		return false;
	}
	memcpy(&eh, d, sizeof(eh));
	for (size_t i = 0; i < eh.e_phnum; i++) {
		uint64_t off = eh.e_phoff + i * (uint64_t)sizeof(Elf64_Phdr);
		Elf64_Phdr ph;

		if (off > n || n - off < sizeof(ph)) {
			return false;
		}
		memcpy(&ph, d + off, sizeof(ph));
		if (ph.p_type == PT_INTERP) {
			return true;
		}
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *path;
	const char *kind;

	if (path == NULL) {
		path = fuzz_path("program");
	}
	fuzz_write(path, data, size);
	kind = cwrap_elf_kind(path);
	FUZZ_CHECK(kind == NULL || strcmp(kind, "static") == 0 ||
		   strcmp(kind, "Go") == 0);
	if (kind != NULL) {
		FUZZ_CHECK(size >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0);
	}
	if (kind != NULL && strcmp(kind, "static") == 0 &&
	    data[EI_CLASS] == ELFCLASS64) {
		FUZZ_CHECK(!has_interp(data, size));
	}
	return 0;
}
