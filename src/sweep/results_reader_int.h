/* The results reader's state, shared by results_read.c (open, check, close) and results_rows.c
 * (rows, /paths, the index, the hash). */
#ifndef MM_RESULTS_READER_INT_H
#define MM_RESULTS_READER_INT_H

#include <stdint.h>

#include "results_int.h"

/* A numeric axis value and its index, sorted by value for the value -> index lookup. */
typedef struct lookup {
    double f;
    int64_t i;
    int32_t idx;
} lookup;

struct mm_results_reader {
    char *path;
    hid_t file, results, mtype;
    mm__rlayout lay;
    int v1; /* 1: written before pnl_spread and pnl_inventory (MM__RESULTS_METRICS_V1 metrics) */
    mm_results_info info;
    mm_results_axis *axes;
    lookup **lk;
    char *config, *engine, *version, *objective;
    char **inputs; /* "path#symbol", split into in_paths / in_syms */
    char **in_paths, **in_syms;
    uint64_t *fps;
    char **side_roles, **side_paths; /* n_side each (NULL: none recorded) */
    uint64_t *side_xxh3;
    unsigned char *buf;
    /* The metric columns (info.metric_names, info.metric_types) and /paths (pds < 0: none). */
    const char **mnames;
    int *mtypes;
    hid_t pds, ptype;
    mm__rlayout play;
    /* /blocks (bds < 0: none) and /block_end_ns (bend, info.block_tapes x info.n_blocks). */
    hid_t bds, btype;
    int64_t *bend;
    int64_t *spans; /* input_span_ns (info.meta.input_span_ns when the file has it) */
};

/* /blocks and /block_end_ns, when the file has them (results_blocks.c): checked, into r->info. */
int mm__results_open_blocks(mm_results_reader *r, mm_error *err);

/* Index of a numeric value (8 bytes at `bytes`) on axis a of r, or -1. */
int32_t mm__results_find_value(const mm_results_reader *r, int a, const unsigned char *bytes);

#endif
