/*
 * Which programs need the supervisor (src/supervisor): an ELF file of this machine's
 * class and architecture that has no interpreter (statically linked,
 * static-pie included: no dynamic loader, so no LD_PRELOAD), or that Go
 * built (a ".go.buildinfo" section, or a "Go" build-id note): Go makes
 * its own system calls, with cgo too. Reads the file's headers only; no
 * state. Asked by the launcher and by socket_wrapper's exec wrappers.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cwrap_supervise.h"

#if UINTPTR_MAX == 0xffffffffu
#define SUP_ELFCLASS ELFCLASS32
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Phdr Phdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Nhdr Nhdr;
#else
#define SUP_ELFCLASS ELFCLASS64
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Phdr Phdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Nhdr Nhdr;
#endif

#if defined(__x86_64__)
#define SUP_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define SUP_MACHINE EM_AARCH64
#elif defined(__riscv)
#define SUP_MACHINE EM_RISCV
#elif defined(__i386__)
#define SUP_MACHINE EM_386
#else
#define SUP_MACHINE EM_NONE
#endif

/* Headers and tables larger than this are not a program we run. */
#define TABLE_MAX (1u << 20)

static void *read_at(int fd, uint64_t off, uint64_t len)
{
	char *p;

	if (len == 0 || len > TABLE_MAX) {
		return NULL;
	}
	p = malloc(len);
	if (p != NULL && pread(fd, p, len, (off_t)off) != (ssize_t)len) {
		free(p);
		p = NULL;
	}
	return p;
}

/* A PT_NOTE segment holding the note "Go" (Go's build id). */
static bool go_note(int fd, const Phdr *ph)
{
	char *buf = read_at(fd, ph->p_offset, ph->p_filesz);
	size_t off = 0;
	bool found = false;

	while (buf != NULL && off + sizeof(Nhdr) <= ph->p_filesz) {
		Nhdr nh;
		size_t name, desc;

		memcpy(&nh, buf + off, sizeof(nh));
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		off += sizeof(nh);
		if (name > ph->p_filesz - off) {
			break;
		}
		if (nh.n_namesz == 3 && memcmp(buf + off, "Go", 3) == 0) {
			found = true;
			break;
		}
		off += name;
		if (desc > ph->p_filesz - off) {
			break;
		}
		off += desc;
	}
	free(buf);
	return found;
}

/* A section named ".go.buildinfo". */
static bool go_section(int fd, const Ehdr *eh)
{
	Shdr *sh, str;
	char *names = NULL;
	bool found = false;

	if (eh->e_shnum == 0 || eh->e_shentsize != sizeof(Shdr) ||
	    eh->e_shstrndx >= eh->e_shnum) {
		return false;
	}
	sh = read_at(fd, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Shdr));
	if (sh == NULL) {
		return false;
	}
	str = sh[eh->e_shstrndx];
	names = read_at(fd, str.sh_offset, str.sh_size);
	for (unsigned i = 0; names != NULL && i < eh->e_shnum && !found; i++) {
		static const char want[] = ".go.buildinfo";

		found = sh[i].sh_name < str.sh_size &&
			str.sh_size - sh[i].sh_name >= sizeof(want) &&
			memcmp(names + sh[i].sh_name, want, sizeof(want)) == 0;
	}
	free(names);
	free(sh);
	return found;
}

const char *cwrap_elf_kind(const char *path)
{
	const char *kind = NULL;
	bool interp = false, go = false;
	Phdr *ph = NULL;
	Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return NULL;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != SUP_ELFCLASS ||
	    eh.e_machine != SUP_MACHINE ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    eh.e_phentsize != sizeof(Phdr)) {
		goto out;
	}
	ph = read_at(fd, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Phdr));
	if (ph == NULL) {
		goto out;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		interp |= ph[i].p_type == PT_INTERP;
		if (!go && ph[i].p_type == PT_NOTE) {
			go = go_note(fd, &ph[i]);
		}
	}
	/* (a shared library has neither an interpreter nor an entry point) */
	if (!interp && eh.e_entry == 0) {
		goto out;
	}
	if (go || go_section(fd, &eh)) {
		kind = "Go";
	} else if (!interp) {
		kind = "static";
	}
out:
	free(ph);
	close(fd);
	return kind;
}

char *cwrap_find_command(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	size_t nlen = strlen(name);

	if (strchr(name, '/') != NULL) {
		return strdup(name);
	}
	if (path == NULL) {
		path = "/bin:/usr/bin";
	}
	for (p = path;; p = end + 1) {
		struct stat st;
		size_t dlen;
		char *file;

		end = strchr(p, ':');
		if (end == NULL) {
			end = p + strlen(p);
		}
		dlen = (size_t)(end - p);
		file = malloc(dlen + nlen + 2);
		if (file == NULL) {
			return NULL;
		}
		memcpy(file, p, dlen);
		file[dlen] = '/';
		memcpy(file + dlen + (dlen > 0), name, nlen + 1);
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(file, X_OK) == 0) {
			return file;
		}
		free(file);
		if (*end == '\0') {
			return NULL;
		}
	}
}
