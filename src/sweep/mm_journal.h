/* Sweep journal (journal.c). Internal. */
#ifndef MM_JOURNAL_H
#define MM_JOURNAL_H

#include <stdint.h>

#include "mmsim/mmsim.h"

typedef struct mm__journal {
    int fd;
    int unsynced;
} mm__journal;

/* New journal; fails with MM_EUSAGE if one exists (an interrupted run: resume it or delete it). */
int mm__journal_create(mm__journal *j, const char *path, uint64_t run_id, int64_t n_combos, mm_error *err);
/* Open an existing journal (or create one), check it belongs to this run, mark done[id] = 1 for every
 * combination of every whole record, cut a torn tail. */
int mm__journal_resume(mm__journal *j, const char *path, uint64_t run_id, int64_t n_combos, uint8_t *done,
                       int64_t *n_done, mm_error *err);
/* Append a record (not yet durable: mm__journal_sync). */
int mm__journal_append(mm__journal *j, int64_t first, uint32_t count, const mm_metrics *m);
int mm__journal_sync(mm__journal *j);
void mm__journal_close(mm__journal *j);

/* Read every record of a complete journal in file order. */
typedef int (*mm__journal_cb)(int64_t first, uint32_t count, const mm_metrics *m, void *user);
int mm__journal_scan(const char *path, mm__journal_cb cb, void *user);

#endif
