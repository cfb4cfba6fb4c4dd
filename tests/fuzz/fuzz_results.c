/* Fuzz target for the results reader (docs/results.md): the input is the bytes of an HDF5 file,
 * opened through a scratch file in $TMPDIR (fuzz_mem_file.h) with mm_results_open. When it opens:
 * the description must be consistent (axes with n >= 1 values, a name per enum value), every row is
 * read in blocks of up to 64 (the first 4096 rows), the stored index of meta.objective is read, and
 * mm_results_hash recomputes the content hash. Any input must give 0 or an error whose message is
 * one line starting with the path. Seeds: fixtures/fuzz/results/ (files written by `mmsim sweep`,
 * docs/fuzzing.md). */
#include "fuzz_mem_file.h"

#include "mmsim/mmsim.h"
#include "mmsim/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROWS_MAX 4096
#define BLOCK 64

static void check(int rc, const mm_error *e, const char *path)
{
    if (rc) mm_fuzz_check_msg("fuzz_results", rc, e->msg, path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Findings F1 and F4 (HDF5 1.10.8 hangs or crashes on such heaps) are no longer skipped:
     * mmsim's mm__h5_guard reports those files (src/io/h5guard.c), and the regress inputs check
     * that it does. */
    if (size > (1 << 20)) return 0;
    const char *path = mm_fuzz_tmp_file(data, size);
    mm_results_reader *r = NULL;
    mm_error e = {0};
    int rc = mm_results_open(path, &r, &e);
    check(rc, &e, path);
    if (rc == 0) {
        const mm_results_info *in = mm_results_describe(r);
        if (!in || in->n_rows < 0 || in->n_axes < 0) abort();
        for (int32_t a = 0; a < in->n_axes; a++) {
            const mm_results_axis *ax = &in->axes[a];
            if (!ax->key || ax->n < 1) abort();
            if (ax->type == MM_COL_ENUM)
                for (int32_t k = 0; k < ax->n; k++)
                    if (!ax->names[k]) abort();
        }
        int64_t rows = in->n_rows < ROWS_MAX ? in->n_rows : ROWS_MAX;
        int32_t *idx = malloc(sizeof *idx * BLOCK * (size_t)(in->n_axes ? in->n_axes : 1));
        mm_metrics *m = malloc(sizeof *m * BLOCK);
        int64_t *order = malloc(sizeof *order * BLOCK);
        if (!idx || !m || !order) abort();
        for (int64_t first = 0; first < rows; first += BLOCK) {
            int64_t n = rows - first < BLOCK ? rows - first : BLOCK;
            memset(&e, 0, sizeof e);
            rc = mm_results_read(r, first, n, idx, m, &e);
            check(rc, &e, path);
            if (rc) break;
            for (int64_t i = 0; i < n; i++)
                for (int32_t a = 0; a < in->n_axes; a++) {
                    int32_t k = idx[i * in->n_axes + a];
                    if (k < 0 || k >= in->axes[a].n) abort(); /* a value index is on its axis */
                }
        }
        if (in->meta.objective && in->n_rows > 0) {
            memset(&e, 0, sizeof e);
            int64_t n = rows < BLOCK ? rows : BLOCK;
            rc = mm_results_read_index(r, in->meta.objective, 0, n, order, &e);
            if (rc && rc != MM_ENOTFOUND) check(rc, &e, path);
            if (rc == 0)
                for (int64_t i = 0; i < n; i++)
                    if (order[i] < 0 || order[i] >= in->n_rows)
                        abort(); /* index entries are rows */
        }
        free(idx);
        free(m);
        free(order);
        mm_results_close(r);
        uint64_t h;
        memset(&e, 0, sizeof e);
        check(mm_results_hash(path, &h, &e), &e, path);
    }
    return 0;
}
