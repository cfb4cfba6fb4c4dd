/* Time blocks in the results file (docs/results.md, "/blocks"): each combination's PnL, position,
 * fills and fees at the end of each of B time blocks of its tape, beside the table.
 *
 *   /blocks         compound [n_rows][B] of mm_results_block (pnl f64, q i64, fills i64, fees f64,
 *                   32 bytes packed little-endian), attribute block_ns (int64; 0: equal spans)
 *   /block_end_ns   int64 [n_tapes][B]: the exchange time each block of each tape ends at
 *
 * Written by mm_results_add_blocks / mm_results_write_blocks (the writer's other parts are
 * results.c and results_commit.c), read by mm__results_open_blocks / mm_results_read_blocks. The
 * content hash of a table with blocks is mm__hash_pair(hash of /results, hash of /blocks), the
 * latter XXH3-64 over the packed records in row-major order. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "mm_internal.h"
#include "results_reader_int.h"
#include "results_writer_int.h"

_Static_assert(sizeof(mm_results_block) == 32, "mm_results_block is the packed file record");

/* The record type, file and memory alike (the struct has no padding: four 8-byte members). */
hid_t mm__block_h5type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(mm_results_block));
    if (t < 0) return -1;
    if (H5Tinsert(t, "pnl", offsetof(mm_results_block, pnl), H5T_IEEE_F64LE) < 0 ||
        H5Tinsert(t, "q", offsetof(mm_results_block, q), H5T_STD_I64LE) < 0 ||
        H5Tinsert(t, "fills", offsetof(mm_results_block, fills), H5T_STD_I64LE) < 0 ||
        H5Tinsert(t, "fees", offsetof(mm_results_block, fees), H5T_IEEE_F64LE) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* Rows [first, first + n) of the 2-D dataset ds ([rows][nb] records of type t) to or from buf. */
static int blocks_rw(hid_t ds, hid_t t, int32_t nb, int64_t first, int64_t n, void *buf, int write)
{
    if (n == 0) return 0;
    hsize_t start[2] = {(hsize_t)first, 0}, count[2] = {(hsize_t)n, (hsize_t)nb};
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(2, count, NULL);
    herr_t r =
        fs < 0 || ms < 0 ? -1 : H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (r >= 0)
        r = write ? H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, buf)
                  : H5Dread(ds, t, ms, fs, H5P_DEFAULT, buf);
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return r < 0 ? MM_EHDF5 : 0;
}

int mm__blocks_hash(hid_t ds, hid_t t, int32_t nb, int64_t n_rows, uint64_t *hash)
{
    XXH3_state_t *st = XXH3_createState();
    int64_t blk = (int64_t)(1 << 20) / ((int64_t)nb * (int64_t)sizeof(mm_results_block));
    if (blk < 1) blk = 1;
    if (blk > n_rows) blk = n_rows > 0 ? n_rows : 1;
    mm_results_block *buf = malloc((size_t)blk * (size_t)nb * sizeof *buf);
    int rc = st && buf ? 0 : -ENOMEM;
    if (rc == 0) XXH3_64bits_reset(st);
    for (int64_t first = 0; rc == 0 && first < n_rows; first += blk) {
        int64_t k = n_rows - first < blk ? n_rows - first : blk;
        rc = blocks_rw(ds, t, nb, first, k, buf, 0);
        if (rc == 0) XXH3_64bits_update(st, buf, (size_t)k * (size_t)nb * sizeof *buf);
    }
    if (rc == 0) *hash = XXH3_64bits_digest(st);
    free(buf);
    if (st) XXH3_freeState(st);
    return rc;
}

int mm_results_add_blocks(mm_results_writer *w, int32_t n_blocks, int64_t block_ns, int32_t n_tapes,
                          const int64_t *end_ns, mm_error *err)
{
    if (!w || !end_ns) return mm__errf(err, -EINVAL, "mm_results_add_blocks: NULL argument");
    if (w->paths > 1)
        return mm__errf(err, -EINVAL, "%s: time blocks on a Monte Carlo table", w->path);
    if (w->bds >= 0) return mm__errf(err, -EINVAL, "%s: blocks added twice", w->path);
    if (n_blocks < 1 || n_blocks > MM_RESULTS_BLOCKS_MAX || n_tapes < 1 || block_ns < 0)
        return mm__errf(err, -EINVAL,
                        "%s: %" PRId32 " blocks over %" PRId32 " tapes (1 to %d blocks)", w->path,
                        n_blocks, n_tapes, MM_RESULTS_BLOCKS_MAX);
    for (int64_t r = 0; r < (w->n_rows + 63) / 64; r++)
        if (w->written[r])
            return mm__errf(err, -EINVAL, "%s: blocks added after rows were written", w->path);
    for (int32_t t = 0; t < n_tapes; t++)
        for (int32_t b = 1; b < n_blocks; b++)
            if (end_ns[(size_t)t * n_blocks + b] < end_ns[(size_t)t * n_blocks + b - 1])
                return mm__errf(err, -EINVAL,
                                "%s: tape %" PRId32 ": block %" PRId32
                                " ends before block %" PRId32,
                                w->path, t, b, b - 1);
    if (!(w->bwritten = calloc((size_t)(w->n_rows + 63) / 64 + 1, sizeof *w->bwritten)))
        return mm__errf(err, -ENOMEM, "%s: out of memory", w->path);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = 0;
    hid_t space = -1, dcpl = -1, ds = -1;
    if ((w->btype = mm__block_h5type()) < 0) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot build the block type", w->path);
        goto out;
    }
    /* Chunks of about 1 MiB of whole rows, allocated at creation (no fill values written), as the
     * table's. */
    int64_t crow = (int64_t)(1 << 20) / ((int64_t)n_blocks * 32);
    if (crow < 1) crow = 1;
    if (crow > w->n_rows) crow = w->n_rows > 0 ? w->n_rows : 1;
    hsize_t dims[2] = {(hsize_t)w->n_rows, (hsize_t)n_blocks},
            cdim[2] = {(hsize_t)crow, (hsize_t)n_blocks};
    space = H5Screate_simple(2, dims, NULL);
    dcpl = plist_no_times(H5P_DATASET_CREATE);
    if (w->n_rows > 0) {
        H5Pset_chunk(dcpl, 2, cdim);
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    }
    w->bds = H5Dcreate2(w->file, "blocks", w->btype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose(space);
    space = -1;
    if (w->bds < 0 ||
        mm__attr_put(w->bds, "block_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, &block_ns, -1)) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot create /blocks", w->path);
        goto out;
    }
    hsize_t edims[2] = {(hsize_t)n_tapes, (hsize_t)n_blocks};
    H5Pclose(dcpl);
    dcpl = plist_no_times(H5P_DATASET_CREATE);
    space = H5Screate_simple(2, edims, NULL);
    ds = H5Dcreate2(w->file, "block_end_ns", H5T_STD_I64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, end_ns) < 0)
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write /block_end_ns", w->path);
    w->n_blocks = n_blocks;
out:
    if (ds >= 0) H5Dclose(ds);
    if (space >= 0) H5Sclose(space);
    if (dcpl >= 0) H5Pclose(dcpl);
    mm__h5quiet_end(&q);
    if (rc && q.sys_errno)
        rc = mm__errf(err, -q.sys_errno, "%s: %s", w->path, strerror(q.sys_errno));
    return rc;
}

int mm_results_write_blocks(mm_results_writer *w, int64_t first, int64_t n,
                            const mm_results_block *b, mm_error *err)
{
    if (!w || (!b && n > 0))
        return mm__errf(err, -EINVAL, "mm_results_write_blocks: NULL argument");
    if (w->bds < 0) return mm__errf(err, -EINVAL, "%s: the table has no blocks", w->path);
    if (first < 0 || n < 0 || first > w->n_rows || n > w->n_rows - first)
        return mm__errf(err, -EINVAL,
                        "%s: block rows [%" PRId64 ", %" PRId64 ") outside the table of %" PRId64
                        " rows",
                        w->path, first, first + n, w->n_rows);
    for (int64_t r = first; r < first + n; r++)
        if ((w->bwritten[r >> 6] >> (r & 63)) & 1)
            return mm__errf(err, -EINVAL, "%s: blocks of row %" PRId64 " written twice", w->path,
                            r);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = blocks_rw(w->bds, w->btype, w->n_blocks, first, n, (void *)b, 1);
    mm__h5quiet_end(&q);
    if (rc) {
        if (q.sys_errno)
            return mm__errf(err, -q.sys_errno, "%s: %s", w->path, strerror(q.sys_errno));
        return mm__errf(err, MM_EHDF5,
                        "%s: cannot write the blocks of rows [%" PRId64 ", %" PRId64 ")", w->path,
                        first, first + n);
    }
    for (int64_t r = first; r < first + n; r++)
        w->bwritten[r >> 6] |= UINT64_C(1) << (r & 63);
    return 0;
}

int mm__blocks_commit_check(const mm_results_writer *w, mm_error *err)
{
    for (int64_t r = 0; w->bds >= 0 && r < w->n_rows; r++)
        if (!((w->bwritten[r >> 6] >> (r & 63)) & 1))
            return mm__errf(err, -EINVAL, "%s: the blocks of row %" PRId64 " were never written",
                            w->path, r);
    return 0;
}

/* ---- reading ---- */

int mm__results_open_blocks(mm_results_reader *r, mm_error *err)
{
    const char *p = r->path;
    if (H5Lexists(r->file, "blocks", H5P_DEFAULT) <= 0) return 0;
    if ((r->bds = H5Dopen2(r->file, "blocks", H5P_DEFAULT)) < 0)
        return mm__errf(err, MM_EFORMAT, "%s: /blocks is not a dataset", p);
    if ((r->btype = mm__block_h5type()) < 0)
        return mm__errf(err, MM_EHDF5, "%s: cannot build the block type", p);
    hid_t space = H5Dget_space(r->bds), ft = H5Dget_type(r->bds);
    hsize_t d[2] = {0, 0};
    int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
             H5Sget_simple_extent_dims(space, d, NULL) == 2 && (int64_t)d[0] == r->info.n_rows &&
             d[1] >= 1 && d[1] <= MM_RESULTS_BLOCKS_MAX && ft >= 0 &&
             H5Tget_class(ft) == H5T_COMPOUND && H5Tget_nmembers(ft) == 4;
    static const char *const names[4] = {"pnl", "q", "fills", "fees"};
    for (int k = 0; ok && k < 4; k++) {
        char *nm = H5Tget_member_name(ft, (unsigned)k);
        hid_t mt = H5Tget_member_type(ft, (unsigned)k);
        H5T_class_t want = k == 0 || k == 3 ? H5T_FLOAT : H5T_INTEGER;
        ok = nm && !strcmp(nm, names[k]) && mt >= 0 && H5Tget_class(mt) == want &&
             H5Tget_size(mt) == 8;
        if (mt >= 0) H5Tclose(mt);
        H5free_memory(nm);
    }
    if (ft >= 0) H5Tclose(ft);
    if (space >= 0) H5Sclose(space);
    if (!ok)
        return mm__errf(err, MM_EFORMAT,
                        "%s: /blocks must be [%" PRId64
                        " rows][1 to %d blocks] of pnl, q, fills, fees",
                        p, r->info.n_rows, MM_RESULTS_BLOCKS_MAX);
    int32_t nb = (int32_t)d[1], nt = 1;
    for (int32_t a = 0; a < r->info.n_axes; a++)
        if (!strcmp(r->axes[a].key, "tape")) nt = r->axes[a].n;
    int64_t bns = 0;
    if (mm__attr_get(r->bds, "block_ns", H5T_NATIVE_INT64, H5T_INTEGER, &bns, 1) != 0 || bns < 0)
        return mm__errf(err, MM_EFORMAT, "%s: /blocks needs an integer attribute block_ns >= 0", p);
    hid_t e = H5Lexists(r->file, "block_end_ns", H5P_DEFAULT) > 0
                  ? H5Dopen2(r->file, "block_end_ns", H5P_DEFAULT)
                  : -1;
    hsize_t ed[2] = {0, 0};
    hid_t es = e >= 0 ? H5Dget_space(e) : -1;
    ok = es >= 0 && H5Sget_simple_extent_ndims(es) == 2 &&
         H5Sget_simple_extent_dims(es, ed, NULL) == 2 && ed[0] == (hsize_t)nt &&
         ed[1] == (hsize_t)nb;
    if (es >= 0) H5Sclose(es);
    if (ok && !(r->bend = malloc((size_t)nt * (size_t)nb * sizeof *r->bend))) {
        H5Dclose(e);
        return mm__errf(err, -ENOMEM, "%s: out of memory", p);
    }
    if (ok) ok = H5Dread(e, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->bend) >= 0;
    if (e >= 0) H5Dclose(e);
    if (!ok)
        return mm__errf(err, MM_EFORMAT,
                        "%s: /block_end_ns must be int64 [%" PRId32 " tapes][%" PRId32 " blocks]",
                        p, nt, nb);
    r->info.n_blocks = nb;
    r->info.block_tapes = nt;
    r->info.block_ns = bns;
    r->info.block_end_ns = r->bend;
    return 0;
}

int mm_results_read_blocks(mm_results_reader *r, int64_t first, int64_t n, mm_results_block *b,
                           mm_error *err)
{
    if (!r || (!b && n > 0)) return mm__errf(err, -EINVAL, "mm_results_read_blocks: NULL argument");
    if (r->bds < 0) return mm__errf(err, MM_ENOTFOUND, "%s: no time blocks (/blocks)", r->path);
    if (first < 0 || n < 0 || first > r->info.n_rows || n > r->info.n_rows - first)
        return mm__errf(err, -EINVAL, "%s: block rows [%" PRId64 ", %" PRId64 ") outside the table",
                        r->path, first, first + n);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = blocks_rw(r->bds, r->btype, r->info.n_blocks, first, n, b, 0);
    mm__h5quiet_end(&q);
    if (rc) return mm__errf(err, MM_EHDF5, "%s: cannot read /blocks", r->path);
    return 0;
}
