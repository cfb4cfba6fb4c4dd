/* Reading rows back (layout in docs/results.md): /results as axis indices and metrics or values,
 * /paths, the objective index, and the content hash recomputed. Opening and checking a file is in
 * results_read.c. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "results_reader_int.h"

static int unpack(mm_results_reader *r, int64_t first, int64_t n, int32_t *axis_idx, mm_metrics *m,
                  mm_results_value *v, mm_error *err)
{
    const mm__rlayout *l = &r->lay;
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *row = r->buf + (size_t)i * l->row_bytes;
        int64_t id;
        memcpy(&id, row, 8);
        if (m && r->v1) /* not recorded in a table written before them */
            m[i].pnl_spread = m[i].pnl_inventory = NAN;
        if (id != first + i)
            return mm__errf(err, MM_EFORMAT, "%s: row %" PRId64 " holds id %" PRId64, r->path,
                            first + i, id);
        for (int c = 1; c < l->n_cols; c++) {
            const mm__rcol *col = &l->cols[c];
            if (col->axis >= 0 && axis_idx) {
                int32_t k;
                if (col->type == MM_COL_ENUM) {
                    memcpy(&k, row + col->off, 4);
                    if (k < 0 || k >= r->axes[col->axis].n) k = -1;
                } else {
                    k = mm__results_find_value(r, col->axis, row + col->off);
                }
                if (k < 0)
                    return mm__errf(err, MM_EFORMAT,
                                    "%s: row %" PRId64
                                    ": column %s: value not on the axis /axes/%s",
                                    r->path, first + i, col->name, col->name);
                axis_idx[(size_t)i * (size_t)r->info.n_axes + (size_t)col->axis] = k;
            } else if (col->metric >= 0 && m) {
                memcpy(mm__metric_ptr(&m[i], col->metric), row + col->off, 8);
            } else if (col->metric >= 0 && v) {
                memcpy(&v[(size_t)i * (size_t)l->n_metrics + (size_t)col->metric], row + col->off,
                       8);
            }
        }
    }
    return 0;
}

static int read_rows(mm_results_reader *r, int64_t first, int64_t n, int32_t *axis_idx,
                     mm_metrics *m, mm_results_value *v, mm_error *err)
{
    if (!r) return mm__errf(err, -EINVAL, "mm_results_read: NULL reader");
    if (first < 0 || n < 0 || first > r->info.n_rows || n > r->info.n_rows - first)
        return mm__errf(err, -EINVAL,
                        "%s: rows [%" PRId64 ", %" PRId64 ") outside the table of %" PRId64 " rows",
                        r->path, first, first + n, r->info.n_rows);
    if (m && r->lay.summary)
        return mm__errf(err, MM_EUSAGE,
                        "%s: a Monte Carlo table (%" PRId64
                        " paths per combination) holds summaries, not one run's metrics",
                        r->path, r->info.paths);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = 0;
    size_t nm = (size_t)r->lay.n_metrics;
    for (int64_t at = 0; at < n && rc == 0; at += MM_RESULTS_BLOCK) {
        int64_t k = n - at < MM_RESULTS_BLOCK ? n - at : MM_RESULTS_BLOCK;
        if (mm__ds_rw(r->results, r->mtype, first + at, k, r->buf, 0))
            rc = mm__errf(err, MM_EHDF5, "%s: cannot read rows [%" PRId64 ", %" PRId64 ")", r->path,
                          first + at, first + at + k);
        else
            rc = unpack(r, first + at, k,
                        axis_idx ? axis_idx + (size_t)at * (size_t)r->info.n_axes : NULL,
                        m ? m + at : NULL, v ? v + (size_t)at * nm : NULL, err);
    }
    mm__h5quiet_end(&q);
    return rc;
}

int mm_results_read(mm_results_reader *r, int64_t first, int64_t n, int32_t *axis_idx,
                    mm_metrics *m, mm_error *err)
{
    return read_rows(r, first, n, axis_idx, m, NULL, err);
}

int mm_results_read_values(mm_results_reader *r, int64_t first, int64_t n, int32_t *axis_idx,
                           mm_results_value *v, mm_error *err)
{
    return read_rows(r, first, n, axis_idx, NULL, v, err);
}

int mm_results_read_paths(mm_results_reader *r, int64_t first, int64_t n, mm_metrics *m,
                          mm_error *err)
{
    if (!r || (n > 0 && !m)) return mm__errf(err, -EINVAL, "mm_results_read_paths: NULL argument");
    if (r->pds < 0)
        return mm__errf(err, MM_ENOTFOUND, "%s: no /paths (the sweep did not keep its paths)",
                        r->path);
    int64_t total = r->info.n_rows * r->info.paths;
    if (first < 0 || n < 0 || first > total || n > total - first)
        return mm__errf(err, -EINVAL,
                        "%s: /paths rows [%" PRId64 ", %" PRId64 ") outside [0, %" PRId64 ")",
                        r->path, first, first + n, total);
    const mm__rlayout *l = &r->play;
    int64_t blk = 4096;
    unsigned char *buf = malloc((size_t)blk * l->row_bytes);
    if (!buf) return mm__errf(err, -ENOMEM, "%s: out of memory", r->path);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = 0;
    for (int64_t at = 0; at < n && rc == 0; at += blk) {
        int64_t k = n - at < blk ? n - at : blk;
        if (mm__ds_rw(r->pds, r->ptype, first + at, k, buf, 0)) {
            rc = mm__errf(err, MM_EHDF5, "%s: cannot read /paths rows [%" PRId64 ", %" PRId64 ")",
                          r->path, first + at, first + at + k);
            break;
        }
        for (int64_t i = 0; i < k && rc == 0; i++) {
            const unsigned char *row = buf + (size_t)i * l->row_bytes;
            int64_t id, path, want = first + at + i;
            memcpy(&id, row + l->cols[0].off, 8);
            memcpy(&path, row + l->cols[1].off, 8);
            if (id != want / r->info.paths || path != want % r->info.paths)
                rc = mm__errf(err, MM_EFORMAT,
                              "%s: /paths row %" PRId64 " holds id %" PRId64 " path %" PRId64,
                              r->path, want, id, path);
            for (int c = 2; c < l->n_cols && rc == 0; c++)
                memcpy(mm__metric_ptr(&m[at + i], l->cols[c].metric), row + l->cols[c].off, 8);
        }
    }
    mm__h5quiet_end(&q);
    free(buf);
    return rc;
}

int mm_results_read_index(mm_results_reader *r, const char *objective, int64_t first, int64_t n,
                          int64_t *rows, mm_error *err)
{
    if (!r || !objective || (n > 0 && !rows))
        return mm__errf(err, -EINVAL, "mm_results_read_index: NULL argument");
    int64_t total = r->info.n_rows;
    if (first < 0 || n < 0 || first > total || n > total - first)
        return mm__errf(err, -EINVAL,
                        "%s: index entries [%" PRId64 ", %" PRId64 ") outside [0, %" PRId64 ")",
                        r->path, first, first + n, total);
    char name[MM_RESULTS_NAME_MAX + 8];
    if (!*objective || strchr(objective, '/') || strlen(objective) >= MM_RESULTS_NAME_MAX)
        return mm__errf(err, MM_ENOTFOUND, "%s: no index for '%s'", r->path, objective);
    snprintf(name, sizeof name, "index/%s", objective);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = 0;
    hid_t ds = -1;
    if (H5Lexists(r->file, "index", H5P_DEFAULT) <= 0 ||
        H5Lexists(r->file, name, H5P_DEFAULT) <= 0 ||
        (ds = H5Dopen2(r->file, name, H5P_DEFAULT)) < 0) {
        rc = mm__errf(err, MM_ENOTFOUND, "%s: no index for '%s'", r->path, objective);
        goto out;
    }
    hid_t space = H5Dget_space(ds);
    hsize_t len = 0;
    int nd = H5Sget_simple_extent_ndims(space);
    if (nd == 1) H5Sget_simple_extent_dims(space, &len, NULL);
    H5Sclose(space);
    if (nd != 1 || (int64_t)len != total) {
        rc = mm__errf(err, MM_EFORMAT, "%s: /%s: must hold %" PRId64 " row numbers", r->path, name,
                      total);
        goto out;
    }
    if (mm__ds_rw(ds, H5T_NATIVE_INT64, first, n, rows, 0)) {
        rc = mm__errf(err, MM_EHDF5, "%s: /%s: read error", r->path, name);
        goto out;
    }
    for (int64_t i = 0; i < n; i++)
        if (rows[i] < 0 || rows[i] >= total) {
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: /%s: entry %" PRId64 " is row %" PRId64 ", outside the table",
                          r->path, name, first + i, rows[i]);
            goto out;
        }
out:
    if (ds >= 0) H5Dclose(ds);
    mm__h5quiet_end(&q);
    return rc;
}

int mm_results_hash(const char *path, uint64_t *hash, mm_error *err)
{
    if (!hash) return mm__errf(err, -EINVAL, "mm_results_hash: NULL argument");
    mm_results_reader *r;
    int rc = mm_results_open(path, &r, err);
    if (rc) return rc;
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    rc = mm__results_stream(r->results, r->mtype, r->lay.row_bytes, r->info.n_rows, hash, NULL,
                            NULL);
    uint64_t hp = 0;
    if (rc == 0 && r->pds >= 0 &&
        (rc = mm__results_stream(r->pds, r->ptype, r->play.row_bytes,
                                 r->info.n_rows * r->info.paths, &hp, NULL, NULL)) == 0)
        *hash = mm__hash_pair(*hash, hp);
    uint64_t hb = 0;
    if (rc == 0 && r->bds >= 0 &&
        (rc = mm__blocks_hash(r->bds, r->btype, r->info.n_blocks, r->info.n_rows, &hb)) == 0)
        *hash = mm__hash_pair(*hash, hb);
    mm__h5quiet_end(&q);
    if (rc) mm__errf(err, rc, "%s: cannot read /results: %s", path, mm_strerror(rc));
    mm_results_close(r);
    return rc;
}
