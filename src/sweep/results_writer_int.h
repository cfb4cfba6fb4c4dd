/* The results writer's state, shared by its two files: results.c (create, write) and
 * results_commit.c (the index, the content hash and the provenance at commit; abort). */
#ifndef MM_RESULTS_WRITER_INT_H
#define MM_RESULTS_WRITER_INT_H

#include <stdint.h>

#include "results_int.h"

struct mm_results_writer {
    char *path, *tmp;
    hid_t file, results;
    hid_t rtype; /* packed compound, file and memory */
    mm__rlayout lay;
    int32_t n_axes;
    int32_t *axis_n;
    int *axis_type;
    double **axis_f64; /* copies of numeric axis values */
    int64_t **axis_i64;
    int64_t n_rows;
    int64_t markout_ns[MM_MARKOUTS];
    uint64_t *written;  /* bitmap, bit r = row r written */
    unsigned char *buf; /* pack buffer, buf_rows rows */
    int64_t buf_rows;
    /* A Monte Carlo table: paths per combination (1 otherwise); keep: /paths (pds, of layout play
     * and type ptype: id, path, the per-run metrics), packed through pbuf (pbuf_rows rows). */
    int64_t paths;
    int keep;
    hid_t pds, ptype;
    mm__rlayout play;
    unsigned char *pbuf;
    int64_t pbuf_rows;
    /* Time blocks (results_blocks.c): /blocks (bds < 0: none) of n_blocks records per row, type
     * btype, and a bitmap of the rows whose blocks were written. */
    hid_t bds, btype;
    int32_t n_blocks;
    uint64_t *bwritten;
    int64_t n_no_fill; /* rows without a fill, counted at commit (attribute n_no_fill) */
};

/* A property list of class cls with object timestamps off (same rows, same bytes). */
static inline hid_t plist_no_times(hid_t cls)
{
    hid_t p = H5Pcreate(cls);
    if (p >= 0) H5Pset_obj_track_times(p, 0);
    return p;
}

static inline int is_written(const mm_results_writer *w, int64_t r)
{
    return (int)((w->written[r >> 6] >> (r & 63)) & 1);
}

/* Close what is open, remove the temporary file unless it was renamed, free w. */
void mm__results_writer_free(mm_results_writer *w);

/* results_blocks.c: every row's blocks written (-EINVAL naming the first that is not). */
int mm__blocks_commit_check(const mm_results_writer *w, mm_error *err);

#endif
