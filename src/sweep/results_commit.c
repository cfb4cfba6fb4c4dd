/* The results writer's commit (layout in docs/results.md; the writer is in results.c): the table is
 * streamed once for the content hash and the objective index, the provenance attributes are
 * written, then the temporary file is flushed, closed, fsync'd and renamed over the output. Abort,
 * and a failed commit, remove the temporary file. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm_internal.h"
#include "results_writer_int.h"

/* Point the descriptor under an HDF5 file at /dev/null. Used only when a flush has failed (a full
 * disk): HDF5 1.10 keeps a file whose close failed half-closed in its ID table and crashes on it at
 * exit, so the data it still holds is written to /dev/null instead and the close succeeds. The
 * temporary file is being removed anyway; its blocks are freed when its last descriptor goes. */
static void divert_to_null(hid_t file)
{
    void *h = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &h) < 0 || !h) return;
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (nul < 0) return;
    dup2(nul, *(int *)h);
    close(nul);
}

/* Close what is open, remove the temporary file unless it was renamed, free w. */
void mm__results_writer_free(mm_results_writer *w)
{
    if (!w) return;
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    if (w->file >= 0 && H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0) {
        divert_to_null(w->file);
        H5Fflush(w->file, H5F_SCOPE_LOCAL);
    }
    if (w->results >= 0) H5Dclose(w->results);
    if (w->rtype >= 0) H5Tclose(w->rtype);
    if (w->pds >= 0) H5Dclose(w->pds);
    if (w->ptype >= 0) H5Tclose(w->ptype);
    if (w->bds >= 0) H5Dclose(w->bds);
    if (w->btype >= 0) H5Tclose(w->btype);
    if (w->file >= 0) H5Fclose(w->file);
    mm__h5quiet_end(&q);
    if (w->tmp) unlink(w->tmp);
    for (int32_t a = 0; a < w->n_axes; a++) {
        if (w->axis_f64) free(w->axis_f64[a]);
        if (w->axis_i64) free(w->axis_i64[a]);
    }
    free(w->axis_f64);
    free(w->axis_i64);
    free(w->axis_n);
    free(w->axis_type);
    mm__rlayout_free(&w->lay);
    mm__rlayout_free(&w->play);
    free(w->pbuf);
    free(w->bwritten);
    free(w->written);
    free(w->buf);
    free(w->tmp);
    free(w->path);
    free(w);
}

/* The index's block function, which also counts the rows without a fill (fills_bid and fills_ask,
 * or their means, both 0: attribute n_no_fill). */
typedef struct idle_ctx {
    mm__index_ctx ix;
    size_t off_b, off_a;
    int type, have;
    int64_t idle;
} idle_ctx;

static int index_idle_block(const unsigned char *rows, int64_t first, int64_t n, void *user)
{
    idle_ctx *c = user;
    int rc = mm__index_block(rows, first, n, &c->ix);
    for (int64_t i = 0; c->have && i < n; i++) {
        const unsigned char *r = rows + (size_t)i * c->ix.row_bytes;
        if (c->type == MM_COL_I64) {
            int64_t b, a;
            memcpy(&b, r + c->off_b, 8);
            memcpy(&a, r + c->off_a, 8);
            c->idle += b == 0 && a == 0;
        } else {
            double b, a;
            memcpy(&b, r + c->off_b, 8);
            memcpy(&a, r + c->off_a, 8);
            c->idle += b == 0 && a == 0;
        }
    }
    return rc;
}

/* Stream the table once for the content hash and the objective's (key, row) pairs; sort them and
 * write /index/<objective> (int64, contiguous). */
static int build_index_and_hash(mm_results_writer *w, int obj_col, uint64_t *hash, mm_error *err)
{
    size_t n = (size_t)w->n_rows;
    mm__ipair *pairs = malloc((n ? n : 1) * sizeof *pairs), *tmp = NULL;
    hid_t gcpl = -1, dcpl = -1, g = -1, space = -1, ds = -1;
    int rc = 0;
    if (!pairs) {
        rc = mm__errf(err, -ENOMEM, "%s: cannot allocate the index of %" PRId64 " rows", w->path,
                      w->n_rows);
        goto out;
    }
    idle_ctx c = {{pairs, w->lay.row_bytes, w->lay.cols[obj_col].off, w->lay.cols[obj_col].type},
                  0,
                  0,
                  0,
                  0,
                  0};
    int cb = mm__rlayout_find(&w->lay, w->paths > 1 ? "fills_bid_mean" : "fills_bid"),
        ca = mm__rlayout_find(&w->lay, w->paths > 1 ? "fills_ask_mean" : "fills_ask");
    if (cb >= 0 && ca >= 0) {
        c.have = 1;
        c.off_b = w->lay.cols[cb].off;
        c.off_a = w->lay.cols[ca].off;
        c.type = w->lay.cols[cb].type;
    }
    rc = mm__results_stream(w->results, w->rtype, w->lay.row_bytes, w->n_rows, hash,
                            index_idle_block, &c);
    w->n_no_fill = c.idle;
    if (rc) {
        mm__errf(err, rc, "%s: cannot read the table back: %s", w->path, mm_strerror(rc));
        goto out;
    }
    tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) {
        rc = mm__errf(err, -ENOMEM, "%s: cannot allocate the index of %" PRId64 " rows", w->path,
                      w->n_rows);
        goto out;
    }
    mm__index_sort(pairs, tmp, w->n_rows);
    free(tmp);
    tmp = NULL;
    gcpl = plist_no_times(H5P_GROUP_CREATE);
    dcpl = plist_no_times(H5P_DATASET_CREATE);
    hsize_t dims = (hsize_t)n;
    space = H5Screate_simple(1, &dims, NULL);
    g = H5Gcreate2(w->file, "index", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (g >= 0)
        ds = H5Dcreate2(g, w->lay.cols[obj_col].name, H5T_STD_I64LE, space, H5P_DEFAULT, dcpl,
                        H5P_DEFAULT);
    if (ds < 0 ||
        (n > 0 && H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, pairs) < 0))
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write /index/%s", w->path,
                      w->lay.cols[obj_col].name);
out:
    if (ds >= 0) H5Dclose(ds);
    if (g >= 0) H5Gclose(g);
    if (space >= 0) H5Sclose(space);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (gcpl >= 0) H5Pclose(gcpl);
    free(tmp);
    free(pairs);
    return rc;
}

static int write_meta(mm_results_writer *w, const mm_results_meta *meta, const char *objective,
                      uint64_t hash, mm_error *err)
{
    int32_t ni = meta->n_inputs;
    char **inputs = calloc((size_t)ni + 1, sizeof *inputs);
    uint64_t *fps = calloc((size_t)ni + 1, sizeof *fps);
    int rc = inputs && fps ? 0 : mm__errf(err, -ENOMEM, "%s: out of memory", w->path);
    for (int32_t i = 0; i < ni && rc == 0; i++) {
        const char *p = meta->input_paths[i] ? meta->input_paths[i] : "";
        const char *s =
            meta->input_symbols && meta->input_symbols[i] ? meta->input_symbols[i] : NULL;
        size_t len = strlen(p) + (s ? strlen(s) + 1 : 0) + 1;
        if (!(inputs[i] = malloc(len)))
            rc = mm__errf(err, -ENOMEM, "%s: out of memory", w->path);
        else
            snprintf(inputs[i], len, s ? "%s#%s" : "%s", p, s);
        fps[i] = meta->input_fingerprints ? meta->input_fingerprints[i] : 0;
    }
    hid_t d = w->results;
    int32_t workers = meta->workers;
    int64_t n = w->n_rows;
    if (rc == 0 &&
        (mm__attr_put_str(d, "config", meta->config_text) ||
         mm__attr_put(d, "seed", H5T_STD_U64LE, H5T_NATIVE_UINT64, &meta->seed, -1) ||
         mm__attr_put_str(d, "mmsim_version", mm_version()) ||
         mm__attr_put_str(d, "engine", meta->engine) ||
         mm__attr_put(d, "workers", H5T_STD_I32LE, H5T_NATIVE_INT32, &workers, -1) ||
         mm__attr_put(d, "wall_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &meta->wall_s, -1) ||
         mm__attr_put(d, "combos_per_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &meta->combos_per_s,
                      -1) ||
         mm__attr_put(d, "updates_per_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &meta->updates_per_s,
                      -1) ||
         mm__attr_put(d, "stalls", H5T_STD_I64LE, H5T_NATIVE_INT64, &meta->stalls, -1) ||
         mm__attr_put_strs(d, "inputs", (const char *const *)inputs, ni) ||
         mm__attr_put(d, "input_fingerprints", H5T_STD_U64LE, H5T_NATIVE_UINT64, fps, ni) ||
         mm__attr_put(d, "markout_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, w->markout_ns,
                      MM_MARKOUTS) ||
         mm__attr_put_str(d, "objective", objective) ||
         mm__attr_put(d, "n_combos", H5T_STD_I64LE, H5T_NATIVE_INT64, &n, -1) ||
         mm__attr_put(d, "content_hash", H5T_STD_U64LE, H5T_NATIVE_UINT64, &hash, -1) ||
         mm__attr_put(d, "n_no_fill", H5T_STD_I64LE, H5T_NATIVE_INT64, &w->n_no_fill, -1)))
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write the attributes of /results", w->path);
    if (rc == 0 && meta->input_span_ns && ni > 0 &&
        mm__attr_put(d, "input_span_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, meta->input_span_ns, ni))
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write the attributes of /results", w->path);
    if (rc == 0 && meta->n_side > 0 &&
        (mm__attr_put_strs(d, "side_input_roles", meta->side_roles, meta->n_side) ||
         mm__attr_put_strs(d, "side_inputs", meta->side_paths, meta->n_side) ||
         mm__attr_put(d, "side_input_xxh3", H5T_STD_U64LE, H5T_NATIVE_UINT64, meta->side_xxh3,
                      meta->n_side)))
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write the attributes of /results", w->path);
    for (int32_t i = 0; inputs && i < ni; i++)
        free(inputs[i]);
    free(inputs);
    free(fps);
    return rc;
}

static int check_meta(const mm_results_writer *w, const mm_results_meta *meta, int *obj_col,
                      mm_error *err)
{
    if (meta->n_inputs < 0 || (meta->n_inputs > 0 && !meta->input_paths))
        return mm__errf(err, -EINVAL, "%s: meta: %" PRId32 " inputs without paths", w->path,
                        meta->n_inputs);
    if (meta->n_side < 0 ||
        (meta->n_side > 0 && (!meta->side_roles || !meta->side_paths || !meta->side_xxh3)))
        return mm__errf(err, -EINVAL, "%s: meta: %" PRId32 " side inputs without their records",
                        w->path, meta->n_side);
    for (int32_t i = 0; i < meta->n_side; i++)
        if (!meta->side_roles[i] || !meta->side_paths[i])
            return mm__errf(err, -EINVAL, "%s: meta: side input %" PRId32 " has a NULL string",
                            w->path, i);
    const char *obj = meta->objective ? meta->objective : "pnl";
    int c = mm__rlayout_find(&w->lay, obj);
    if (c < 0 || w->lay.cols[c].metric < 0) {
        char list[1024] = "";
        size_t len = 0;
        for (int k = 0; k < w->lay.n_cols; k++)
            if (w->lay.cols[k].metric >= 0 && len < sizeof list)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                        w->lay.cols[k].name);
        return mm__errf(err, MM_EUSAGE, "%s: objective '%s' is not a metric column (%s)", w->path,
                        obj, list);
    }
    *obj_col = c;
    int zero = 1;
    for (int k = 0; k < MM_MARKOUTS; k++)
        zero &= meta->markout_ns[k] == 0;
    if (!zero && memcmp(meta->markout_ns, w->markout_ns, sizeof w->markout_ns))
        return mm__errf(err, -EINVAL, "%s: meta markout horizons differ from the table's columns",
                        w->path);
    return 0;
}

int mm_results_commit(mm_results_writer *w, const mm_results_meta *meta, mm_error *err)
{
    return mm__results_commit_hash(w, meta, NULL, err);
}

int mm__results_commit_hash(mm_results_writer *w, const mm_results_meta *meta, uint64_t *hash_out,
                            mm_error *err)
{
    if (!w) return mm__errf(err, -EINVAL, "mm_results_commit: NULL writer");
    int rc = 0, obj_col = -1;
    if (!meta)
        rc = mm__errf(err, -EINVAL, "%s: mm_results_commit: NULL meta", w->path);
    else
        rc = check_meta(w, meta, &obj_col, err);
    for (int64_t r = 0; rc == 0 && r < w->n_rows; r += 64) {
        uint64_t word = w->written[r >> 6];
        int64_t bits = w->n_rows - r < 64 ? w->n_rows - r : 64;
        uint64_t full = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        if (word != full) {
            int64_t miss = r + __builtin_ctzll(~word);
            int64_t count = 0;
            for (int64_t q = miss; q < w->n_rows; q++)
                count += !is_written(w, q);
            rc = mm__errf(err, -EINVAL,
                          "%s: row %" PRId64 " was never written (%" PRId64 " rows missing)",
                          w->path, miss, count);
        }
    }
    if (rc == 0) rc = mm__blocks_commit_check(w, err);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    uint64_t hash = 0;
    if (rc == 0) rc = build_index_and_hash(w, obj_col, &hash, err);
    if (rc == 0 && w->keep) {
        /* With /paths, the content hash also covers its rows (docs/results.md). */
        uint64_t hp = 0;
        rc = mm__results_stream(w->pds, w->ptype, w->play.row_bytes, w->n_rows * w->paths, &hp,
                                NULL, NULL);
        if (rc)
            mm__errf(err, rc, "%s: cannot read /paths back: %s", w->path, mm_strerror(rc));
        else
            hash = mm__hash_pair(hash, hp);
    }
    if (rc == 0 && w->bds >= 0) {
        /* With /blocks, the content hash also covers them (docs/results.md). */
        uint64_t hb = 0;
        rc = mm__blocks_hash(w->bds, w->btype, w->n_blocks, w->n_rows, &hb);
        if (rc)
            mm__errf(err, rc, "%s: cannot read /blocks back: %s", w->path, mm_strerror(rc));
        else
            hash = mm__hash_pair(hash, hb);
    }
    if (rc == 0) rc = write_meta(w, meta, w->lay.cols[obj_col].name, hash, err);
    /* Flush first: a flush that fails (a full disk) leaves every ID valid, and
     * mm__results_writer_free closes them safely. */
    if (rc == 0 && H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0)
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write %s", w->path, w->tmp);
    if (rc == 0 && w->bds >= 0) {
        herr_t a = H5Dclose(w->bds);
        w->bds = -1;
        if (a < 0) rc = mm__errf(err, MM_EHDF5, "%s: error closing %s", w->path, w->tmp);
    }
    if (rc == 0 && w->pds >= 0) {
        herr_t a = H5Dclose(w->pds);
        w->pds = -1;
        if (a < 0) rc = mm__errf(err, MM_EHDF5, "%s: error closing %s", w->path, w->tmp);
    }
    if (rc == 0) {
        herr_t a = H5Dclose(w->results);
        w->results = -1;
        herr_t b = H5Fclose(w->file);
        if (b >= 0) w->file = -1;
        if (a < 0 || b < 0) rc = mm__errf(err, MM_EHDF5, "%s: error closing %s", w->path, w->tmp);
    }
    mm__h5quiet_end(&q);
    if (rc && q.sys_errno)
        rc = mm__errf(err, -q.sys_errno, "%s: %s", w->path, strerror(q.sys_errno));
    if (rc == 0 && (rc = mm__h5_userblock_put(w->tmp, w->paths > 1 ? MM_RESULTS_FORMAT_MC
                                                                   : MM_RESULTS_FORMAT)) != 0)
        mm__errf(err, rc, "%s: %s: %s", w->path, w->tmp, mm_strerror(rc));
    if (rc == 0 && (rc = mm__fsync_path(w->tmp)) != 0)
        mm__errf(err, rc, "%s: %s", w->path, mm_strerror(rc));
    if (rc == 0 && rename(w->tmp, w->path) != 0)
        rc = mm__errf(err, -errno, "%s: rename from %s: %s", w->path, w->tmp, strerror(errno));
    if (rc == 0) {
        /* The rename is durable once the directory is synced (no allocation here: the path is
         * shorter than the temporary's name, which fit in 4096 bytes). */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", w->path);
        char *slash = strrchr(dir, '/');
        if (slash) *(slash == dir ? slash + 1 : slash) = 0;
        mm__fsync_path(slash ? dir : ".");
        free(w->tmp);
        w->tmp = NULL; /* renamed: nothing to remove */
        if (hash_out) *hash_out = hash;
    }
    mm__results_writer_free(w);
    return rc;
}

void mm_results_abort(mm_results_writer *w)
{
    mm__results_writer_free(w);
}
