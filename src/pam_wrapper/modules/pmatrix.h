/*
 * pam_matrix's password file: lines `user:password:service` (the service
 * is the rest of the line, so it may hold ':'), blank lines and lines
 * starting with '#' skipped. Parsing, lookup and rewriting are pure (no
 * I/O, no state): the module and the fuzz target call them. Reading and
 * the atomic rewrite of the file are apart (pmatrix_file).
 */
#ifndef PMATRIX_H
#define PMATRIX_H

#include <stdbool.h>
#include <stddef.h>

struct pmatrix_entry {
	const char *user, *password, *service; /* into the text, not
						  terminated */
	size_t user_len, password_len, service_len;
	size_t line; /* 1 for the first line */
};

/* A bad line: its number and why, in a few words. */
typedef void (*pmatrix_report_fn)(void *ctx, size_t line, const char *why);

/* The next entry of text[0..len) from *pos (0 at first), counting lines
 * in *line (0 at first): true with *e set, false at the end. Bad lines
 * are reported (report may be NULL) and skipped. */
bool pmatrix_next(const char *text, size_t len, size_t *pos, size_t *line,
		  struct pmatrix_entry *e, pmatrix_report_fn report, void *ctx);

/* The first entry of `user`. Every bad line of the text is reported, also
 * those after it. */
bool pmatrix_find(const char *text, size_t len, const char *user,
		  struct pmatrix_entry *e, pmatrix_report_fn report, void *ctx);

/* Whether pw can be a password of the file: no ':', no line end. */
bool pmatrix_password_ok(const char *pw);

/* A copy of text with e's password (e found in this text) replaced by
 * pw; every other byte is kept. NULL when out of memory. */
char *pmatrix_replace(const char *text, size_t len,
		      const struct pmatrix_entry *e, const char *pw,
		      size_t *out_len);

/* ---- pmatrix_file ---------------------------------------------------- */

/* The whole file, NUL-terminated after *len bytes; NULL with errno. */
char *pmatrix_read(const char *path, size_t *len);

/* Replace the file by one holding text, atomically (a new file beside it,
 * renamed over it: a reader sees the old or the new text, whole), with
 * the old file's permissions. 0, or -1 with errno. */
int pmatrix_write(const char *path, const char *text, size_t len);

#endif
