/* Internals of the results file (docs/results.md) shared by the writer, the reader and the hash:
 * the packed row layout, block reads and writes, and the streaming pass over the table. */
#ifndef MM_RESULTS_INT_H
#define MM_RESULTS_INT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "mm_h5util.h" /* quiet error stack, attributes, HDF5 1.10/1.12 names */
#include "mmsim/results.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error                                                                                             \
    "the results table is packed little-endian and used as the memory layout; add byte swapping here"
#endif

#define MM_RESULTS_FORMAT "mmsim-results/2"
/* A table of Monte Carlo summaries (more than one path per combination) and its optional /paths. */
#define MM_RESULTS_FORMAT_MC "mmsim-results/3"
#define MM_RESULTS_NAME_MAX 64 /* column names, NUL included */
/* Rows per block when the table is streamed (hash, index, reading): bounded memory whatever n_rows.
 */
#define MM_RESULTS_BLOCK 65536

/* One column of the table. Its bytes sit at `off` in a packed row of mm__rlayout.row_bytes. */
typedef struct mm__rcol {
    char name[MM_RESULTS_NAME_MAX];
    int type; /* MM_COL_F64 (float64), MM_COL_I64 (int64) or MM_COL_ENUM (int32) */
    int size; /* bytes: 8, or 4 for MM_COL_ENUM */
    size_t off;
    int axis;   /* axis number for axis columns, else -1 */
    int metric; /* metric number (mm_results_metric) for metric columns, else -1 */
} mm__rcol;

/* The per-run metric columns of a table written before pnl_spread and pnl_inventory (mmsim 0.1.0
 * to issue 32 item 3): the first 21 of today's, and of its summary columns the first 52
 * (mm_results_summary_metric keeps them first). Such a table still reads (mm__rlayout_init's v1).
 */
#define MM__RESULTS_METRICS_V1 21

typedef struct mm__rlayout {
    int summary;   /* 1: the Monte Carlo summary columns (mm_results_summary_metric) */
    int n_metrics; /* MM_RESULTS_METRICS or MM_RESULTS_SUMMARY_METRICS (fewer in a v1 table) */
    int n_cols;    /* 1 (id) + n_axes + n_metrics */
    mm__rcol *cols;
    size_t row_bytes;
} mm__rlayout;

/* Address of metric i (mm_results_metric order) inside m: an int64_t or a double; NULL for a bad i.
 */
void *mm__metric_ptr(mm_metrics *m, int i);

/* Build the layout for these axis keys and types, with the per-run metric columns (summary 0) or
 * the Monte Carlo summary columns (summary 1); v1 = 1: only those of a table written before
 * pnl_spread (MM__RESULTS_METRICS_V1), for reading one. Returns 0 or -ENOMEM. */
int mm__rlayout_init(mm__rlayout *l, int32_t n_axes, const char *const *keys, const int *types,
                     const int64_t markout_ns[MM_MARKOUTS], int summary, int v1);
void mm__rlayout_free(mm__rlayout *l);
/* Column number of a name, or -1. */
int mm__rlayout_find(const mm__rlayout *l, const char *name);
/* The packed little-endian compound type of the layout (file and memory type alike), the index
 * columns as plain int32. Caller closes.
 */
hid_t mm__rlayout_h5type(const mm__rlayout *l);
/* The same with enums[a] (when enums is not NULL and enums[a] >= 0) as the type of index column a,
 * an enum over little-endian int32 (results_enum.c). The caller keeps owning the enums. */
hid_t mm__rlayout_h5type_enums(const mm__rlayout *l, const hid_t *enums);

/* The index columns' enums (results_enum.c, docs/results.md). mm__enum_h5type: the enum over
 * little-endian int32 with member i = names[i] (unique), or -1; caller closes. mm__enum_is_index: 1
 * when t is an enum over a 4-byte signed integer. mm__results_mtype: the memory type to read table
 * ds with (layout l, axes read from /axes): the file's enum for an index column stored as one over
 * little-endian int32 (no conversion), else plain int32; an enum whose members are not the axis'
 * names in order is MM_EFORMAT. Returns 0 or an error code, *out closed by the caller. */
hid_t mm__enum_h5type(const char *const *names, int32_t n);
int mm__enum_is_index(hid_t t);
int mm__results_mtype(hid_t ds, const mm__rlayout *l, const mm_results_axis *axes, const char *path,
                      hid_t *out, mm_error *err);

/* Stream rows [0, n) of `ds` in blocks through memory type `mtype` (row_bytes each), hashing them
 * with XXH3-64 into *hash, and calling fn (if not NULL) on each block. Returns 0 or MM_EHDF5 /
 * -ENOMEM / what fn returns (non-zero stops). */
typedef int (*mm__block_fn)(const unsigned char *rows, int64_t first, int64_t n, void *user);
int mm__results_stream(hid_t ds, hid_t mtype, size_t row_bytes, int64_t n, uint64_t *hash,
                       mm__block_fn fn, void *user);

/* The content hash of a table with /paths: XXH3-64 of the 16 bytes h_results, h_paths (both
 * little-endian). */
uint64_t mm__hash_pair(uint64_t h_results, uint64_t h_paths);

/* Read/write n elements of 1-D dataset ds starting at first, with memory type mtype. */
int mm__ds_rw(hid_t ds, hid_t mtype, int64_t first, int64_t n, void *buf, int write);

/* The objective index (docs/results.md). mm__index_key_* map a value to a key whose ascending
 * unsigned order is the index order (largest value first, NaN last, -0 == +0). mm__index_sort sorts
 * the n (key, row) pairs, built in row order, stably by key (so equal keys keep ascending rows),
 * using tmp (room for n pairs), then packs the row numbers to the front of p: on return ((int64_t
 * *)p)[i] is the i-th best row. */
typedef struct mm__ipair {
    uint64_t key;
    int64_t row;
} mm__ipair;
uint64_t mm__index_key_f64(double v);
uint64_t mm__index_key_i64(int64_t v);
void mm__index_sort(mm__ipair *p, mm__ipair *tmp, int64_t n);
/* An mm__block_fn: the (key, row) pair of each row of a block into pairs[row], the key made from
 * the column at col_off (of type MM_COL_F64 or MM_COL_I64) of the packed rows. */
typedef struct mm__index_ctx {
    mm__ipair *pairs;
    size_t row_bytes, col_off;
    int type;
} mm__index_ctx;
int mm__index_block(const unsigned char *rows, int64_t first, int64_t n, void *user);

int mm__fsync_path(const char *path);

/* Time blocks (results_blocks.c): the record type of /blocks (caller closes), and the XXH3-64 of
 * its n_rows x nb records, packed, in row-major order. */
hid_t mm__block_h5type(void);
int mm__blocks_hash(hid_t ds, hid_t t, int32_t nb, int64_t n_rows, uint64_t *hash);

/* mm_results_commit that also returns the content hash it wrote (hash may be NULL): a caller
 * needing the hash does not reopen the file, which could fail after the table is in place. */
int mm__results_commit_hash(mm_results_writer *w, const mm_results_meta *meta, uint64_t *hash,
                            mm_error *err);

#endif
