/*
 * uwrap_odb: the owner database, where fake owners go that a file cannot
 * carry in its own extended attribute (symbolic links, devices, fifos and
 * sockets, files the real user may not write, file systems without user
 * extended attributes). See uwrap_odb.c for the file and its locking.
 *
 * A record names a file by device and inode number plus its birth time,
 * so that a new file on a reused inode number is not taken for the old
 * one; the newest record of a file wins, and a tombstone record says "no
 * fake owner here any more" (the owner went back to the real one, or into
 * the file's extended attribute).
 */
#ifndef UWRAP_ODB_H
#define UWRAP_ODB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One record, as stored in the file: fixed-width fields only, so that
 * 32-bit and 64-bit processes share the file. */
struct uwrap_odb_rec {
	uint64_t dev; /* makedev() of st_dev */
	uint64_t ino;
	int64_t btime_sec;
	uint32_t btime_nsec;
	uint32_t flags; /* file type (S_IFMT bits) | UWRAP_ODB_* */
	uint32_t uid, gid;
};

#define UWRAP_ODB_TYPE 0170000u	 /* S_IFMT */
#define UWRAP_ODB_BTIME 0x10000u /* btime_* are the file's birth time */
#define UWRAP_ODB_TOMB 0x20000u	 /* no fake owner (uid, gid unused) */

/* Where the database of this real user lives: /tmp/uid_wrapper-UID.owners. */
void uwrap_odb_default_path(char *buf, size_t size, uint32_t ruid);

/* Tests only: use `path` instead (before any other call). */
void uwrap_odb_set_path(const char *path);

/* A stored record passes: a known type, no unknown flag, nanoseconds below
 * a second (pure; for the unit tests and the fuzz target). */
bool uwrap_odb_rec_valid(const struct uwrap_odb_rec *r);

/* Lookups: the newest record of (dev, ino) into *out (maybe a tombstone);
 * false if there is none or the database cannot be used. Lock free while
 * the database is empty; otherwise under the process's lock. Reentrant
 * calls (a signal handler's stat() inside our own) find nothing. */
bool uwrap_odb_find(uint64_t dev, uint64_t ino, struct uwrap_odb_rec *out);

/* Changes: uwrap_odb_lock() serialises this process's threads and, where
 * the database file can be used, all processes of the real user. It
 * returns 1 (both held), 0 (only the process's lock: the file cannot be
 * used, uwrap_odb_append fails) or -1 (nothing held: the calling thread
 * is inside the database already, from a signal handler). After 0 or 1:
 * uwrap_odb_find_locked() and uwrap_odb_append() (0, or an errno value),
 * then uwrap_odb_unlock(). */
int uwrap_odb_lock(void);
bool uwrap_odb_find_locked(uint64_t dev, uint64_t ino,
			   struct uwrap_odb_rec *out);
int uwrap_odb_append(const struct uwrap_odb_rec *r);
void uwrap_odb_unlock(void);

/* Why the database cannot be used, for a message ("" if it can). */
const char *uwrap_odb_problem(void);

#endif
