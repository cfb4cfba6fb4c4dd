/* Sweep journal (journal.c, layout in docs/sweep.md). Internal. */
#ifndef MM_JOURNAL_H
#define MM_JOURNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "mmsim/mmsim.h"

/* An open journal. fd is -1 when closed; while open, the file is locked (flock LOCK_EX) by this
 * process. */
typedef struct mm__journal {
    int fd;
    int unsynced;
    int64_t n_combos;
    int64_t records; /* whole records in the file */
    size_t rec;      /* bytes per combination in a record */
    off_t data_off;  /* offset of the first record (after the header and the run's identity text) */
} mm__journal;

/* Early check with no side effects (called before the tapes are loaded): MM_ELOCKED "OUT is being
 * written by mmsim pid N" when another process holds the journal's lock; without resume, MM_EUSAGE
 * when a journal of an interrupted run exists. 0 otherwise (no journal, or resume and an unlocked
 * journal). */
int mm__journal_precheck(const char *path, const char *out, int resume, mm_error *err);

/* Open the journal of this run and lock it until mm__journal_close.
 *   resume = 0: create it (a complete header is linked into place atomically, already locked); an
 * existing journal is MM_ELOCKED (a live run) or MM_EUSAGE (an interrupted run: resume it or delete
 * it). resume = 1: open it (create it when absent); a journal of another run is MM_EUSAGE naming
 * the first line of the identity text that differs ("seed 1 there, 2 here"); then mark done[id] = 1
 * for every combination of every whole, verified record and cut the file before the first record
 *               that is torn or fails its checksum (its chunk and everything after it are
 * recomputed). ident: the run's identity, lines "name<TAB>value\n" (build_identity in sweep_run.c);
 * run_id its hash. *n_done: combinations already done; j->records: records kept. */
int mm__journal_open(mm__journal *j, const char *path, const char *out, int resume, uint64_t run_id,
                     const char *ident, int64_t n_combos, size_t rec_bytes, uint8_t *done,
                     int64_t *n_done, mm_error *err);
/* Append a record of count x j->rec bytes (not yet durable: mm__journal_sync). Returns 0 or -errno.
 */
int mm__journal_append(mm__journal *j, int64_t first, uint32_t count, const void *m);
int mm__journal_sync(mm__journal *j);
/* Close (releases the lock) and set fd to -1; a no-op on a closed journal. */
void mm__journal_close(mm__journal *j);

/* Read every record of the open journal in file order, verifying each one again (tag, checksum, ids
 * inside the grid): a record that fails is MM_ECHECKSUM naming the record and its byte offset, and
 * nothing after it is read. cb returning non-zero stops the scan with that code. */
typedef int (*mm__journal_cb)(int64_t first, uint32_t count, const unsigned char *m, void *user);
int mm__journal_scan(const mm__journal *j, const char *path, mm__journal_cb cb, void *user,
                     mm_error *err);

#endif
