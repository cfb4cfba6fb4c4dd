/* A guard run after HDF5 opens a file that came from outside and before anything reads a
 * variable-length string from it (docs/formats.md, "Corrupt files HDF5 cannot read"). */
#ifndef MM_H5GUARD_H
#define MM_H5GUARD_H

#include <hdf5.h>
#include <stddef.h>
#include <xxhash.h>

#include "mmsim/mmsim.h"

/* HDF5 1.10.8 (Debian 12) divides by zero opening a dataset whose chunked layout has a zero
 * dimension (finding F9) and reads out of bounds on a string attribute whose heap ID names a
 * missing heap object (F7): for a file open read-only, every dataset is first opened and every
 * variable-length string attribute read in a forked child, and a child that does not exit cleanly
 * gives MM_EFORMAT "PATH: corrupt HDF5 file (HDF5 crashes reading it)". It also decodes a global
 * heap collection ("GCOL") forever when the walk over its objects does not advance (a free-space
 * object of size 0), and reads past its buffer when an object claims more bytes than its collection
 * holds; every variable-length string (each mmsim format tag) is read through such a heap, so a
 * corrupt file would hang or crash mmsim instead of being reported. This scans the file at path,
 * which is open in HDF5 as file, for such a heap: whole up to 64 MiB, above that skipping the raw
 * data of every dataset (so the cost follows the metadata, not the columns). Returns 0 (nothing
 * found; also when the file cannot be mapped: HDF5 then reports its own error), or MM_EFORMAT with
 * "PATH: corrupt HDF5 file (global heap at byte N does not advance)" or
 * "... has an object past its end)". */
int mm__h5_guard(hid_t file, const char *path, mm_error *err);

/* The guard's record across processes (h5guard_record.c; docs/formats.md, "The guard's record"):
 * a file of (size, XXH3-128) of files up to 64 MiB whose forked probe passed under this HDF5
 * version; such a file skips the probe (never the heap scan). Off until a path is set.
 * mm__h5_guard_record_set: the record's file (copied; NULL turns the record off and forgets what
 * this process added); 0 or -ENOMEM. It is read at the first guard that needs it; an absent,
 * unreadable or corrupt file reads as empty.
 * mm__h5_guard_record_has: 1 when a file of n bytes with hash h is recorded, else 0.
 * mm__h5_guard_record_add: remembers a file that passed in this process, for the next save.
 * mm__h5_guard_record_save: appends what was added since the last save (making the directory,
 * 0700, where missing; rewriting the file whole, through a temporary file and a rename, when it
 * held a bad record or more than 4,096); 0 (also when off or nothing was added) or -errno. The CLI
 * calls it when a command has succeeded, so a failed command leaves no trace there. */
int mm__h5_guard_record_set(const char *path);
int mm__h5_guard_record_has(size_t n, XXH128_hash_t h);
void mm__h5_guard_record_add(size_t n, XXH128_hash_t h);
int mm__h5_guard_record_save(void);

/* Forked probes run by this process (for tests). */
extern unsigned long mm__h5_guard_probes;

/* pread of bytes [0, n) of fd into b, through short reads and EINTR: the bytes read (n, or fewer at
 * end of file or on an error). */
size_t mm__h5_guard_pread(int fd, void *b, size_t n);

#endif
