/* The results writer (layout in docs/results.md): a temporary HDF5 file holding the /results table,
 * rows written in any order, then the objective index, the content hash and the provenance
 * attributes at commit, fsync and rename.
 *
 * Every chunk of /results is allocated when the dataset is created (no fill values written), so
 * chunk addresses do not depend on the order rows arrive in and, with object timestamps off, the
 * same rows and attributes give the same file bytes however they were chunked into calls. A bitmap
 * (one bit per row) records which rows were written.
 *
 * This file creates the table and writes rows; results_commit.c commits it (or aborts). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm_internal.h"
#include "results_writer_int.h"

/* Chunk of /results: at most 65536 rows and about 4 MiB; the chunk cache holds 16 of them so that
 * rows arriving slightly out of order (parallel workers) are merged in memory before a chunk is
 * written. */
#define CHUNK_ROWS_MAX 65536
#define CHUNK_BYTES 1048576
#define CACHE_BYTES ((size_t)64 << 20)
#define CACHE_SLOTS 12421 /* a prime, as HDF5 recommends, > 100 x the chunks that fit */

static int valid_key(const char *k)
{
    size_t n = k ? strlen(k) : 0;
    if (n == 0 || n >= MM_RESULTS_NAME_MAX || k[0] == '.') return 0;
    for (const char *c = k; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-'))
            return 0;
    return 1;
}

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Values of a numeric axis must be finite and distinct (a value names one index, for --where and
 * for reading back). */
static int check_axis_values(const char *path, const mm_results_axis *a, mm_error *err)
{
    int f = a->type == MM_COL_F64;
    size_t sz = f ? sizeof(double) : sizeof(int64_t);
    void *s = malloc((size_t)a->n * sz);
    if (!s) return mm__errf(err, -ENOMEM, "%s: out of memory", path);
    memcpy(s, f ? (const void *)a->f64 : (const void *)a->i64, (size_t)a->n * sz);
    int rc = 0;
    if (f) {
        double *v = s;
        for (int32_t i = 0; i < a->n && rc == 0; i++)
            if (!isfinite(v[i]))
                rc = mm__errf(err, MM_EUSAGE, "%s: axis %s: value %g is not finite", path, a->key,
                              v[i]);
        qsort(v, (size_t)a->n, sz, cmp_f64);
        for (int32_t i = 1; i < a->n && rc == 0; i++)
            if (v[i] == v[i - 1])
                rc = mm__errf(err, MM_EUSAGE, "%s: axis %s: value %.17g appears twice", path,
                              a->key, v[i]);
    } else {
        int64_t *v = s;
        qsort(v, (size_t)a->n, sz, cmp_i64);
        for (int32_t i = 1; i < a->n && rc == 0; i++)
            if (v[i] == v[i - 1])
                rc = mm__errf(err, MM_EUSAGE, "%s: axis %s: value %" PRId64 " appears twice", path,
                              a->key, v[i]);
    }
    free(s);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of an enum axis are not NULL and distinct: each is a member of the column's HDF5 enum
 * (results_enum.c) and names one index for --where. */
static int check_axis_names(const char *path, const mm_results_axis *a, mm_error *err)
{
    for (int32_t i = 0; i < a->n; i++)
        if (!a->names[i])
            return mm__errf(err, -EINVAL, "%s: axis %s: name %d is NULL", path, a->key, (int)i);
    const char **s = malloc((size_t)a->n * sizeof *s);
    if (!s) return mm__errf(err, -ENOMEM, "%s: out of memory", path);
    memcpy(s, a->names, (size_t)a->n * sizeof *s);
    qsort(s, (size_t)a->n, sizeof *s, cmp_str);
    int rc = 0;
    for (int32_t i = 1; i < a->n && rc == 0; i++)
        if (!strcmp(s[i], s[i - 1]))
            rc = mm__errf(err, MM_EUSAGE, "%s: axis %s: value '%s' appears twice", path, a->key,
                          s[i]);
    free(s);
    return rc;
}

static int check_args(const char *path, const mm_results_axis *axes, int32_t n_axes, int64_t n_rows,
                      const int64_t markout_ns[MM_MARKOUTS], mm_error *err)
{
    if (n_axes < 0 || (n_axes > 0 && !axes) || n_rows < 0)
        return mm__errf(err, -EINVAL, "%s: mm_results_create: bad axes or row count", path);
    char names[MM_RESULTS_METRICS][MM_RESULTS_NAME_MAX];
    for (int k = 0; k < MM_MARKOUTS; k++)
        if (markout_ns[k] <= 0)
            return mm__errf(err, MM_EUSAGE, "%s: markout horizon %" PRId64 " ns must be positive",
                            path, markout_ns[k]);
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        mm_results_metric(i, markout_ns, names[i], sizeof names[i]);
        for (int j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                return mm__errf(err, MM_EUSAGE, "%s: markout horizons give the column %s twice",
                                path, names[i]);
    }
    for (int32_t a = 0; a < n_axes; a++) {
        const mm_results_axis *x = &axes[a];
        if (!valid_key(x->key))
            return mm__errf(err, MM_EUSAGE,
                            "%s: axis key '%s' must match [A-Za-z0-9_.-]+ (at most %d characters)",
                            path, x->key ? x->key : "(null)", MM_RESULTS_NAME_MAX - 1);
        if (!strcmp(x->key, "id"))
            return mm__errf(err, MM_EUSAGE, "%s: axis key 'id' is reserved for the id column",
                            path);
        for (int i = 0; i < MM_RESULTS_METRICS; i++)
            if (!strcmp(x->key, names[i]))
                return mm__errf(err, MM_EUSAGE, "%s: axis key '%s' is the name of a metric column",
                                path, x->key);
        for (int32_t b = 0; b < a; b++)
            if (!strcmp(x->key, axes[b].key))
                return mm__errf(err, MM_EUSAGE, "%s: axis %s appears twice", path, x->key);
        if (x->n < 1) return mm__errf(err, MM_EUSAGE, "%s: axis %s: no values", path, x->key);
        int ok = (x->type == MM_COL_F64 && x->f64) || (x->type == MM_COL_I64 && x->i64) ||
                 (x->type == MM_COL_ENUM && x->names);
        if (!ok)
            return mm__errf(err, -EINVAL, "%s: axis %s: bad type %d or missing values", path,
                            x->key, x->type);
        if (x->type == MM_COL_ENUM) {
            int rc = check_axis_names(path, x, err);
            if (rc) return rc;
        } else {
            int rc = check_axis_values(path, x, err);
            if (rc) return rc;
        }
    }
    return 0;
}

/* /axes/<key>: float64, int64, or variable-length UTF-8 strings. */
static int write_axes(mm_results_writer *w, const mm_results_axis *axes, mm_error *err)
{
    hid_t gcpl = plist_no_times(H5P_GROUP_CREATE), dcpl = plist_no_times(H5P_DATASET_CREATE);
    hid_t g = H5Gcreate2(w->file, "axes", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, H5T_VARIABLE);
    H5Tset_cset(str, H5T_CSET_UTF8);
    int rc = g < 0 ? mm__errf(err, MM_EHDF5, "%s: cannot create /axes", w->path) : 0;
    for (int32_t a = 0; a < w->n_axes && rc == 0; a++) {
        const mm_results_axis *x = &axes[a];
        hsize_t n = (hsize_t)x->n;
        hid_t space = H5Screate_simple(1, &n, NULL);
        hid_t ft = x->type == MM_COL_F64   ? H5T_IEEE_F64LE
                   : x->type == MM_COL_I64 ? H5T_STD_I64LE
                                           : str;
        hid_t mt = x->type == MM_COL_F64   ? H5T_NATIVE_DOUBLE
                   : x->type == MM_COL_I64 ? H5T_NATIVE_INT64
                                           : str;
        const void *data = x->type == MM_COL_F64   ? (const void *)x->f64
                           : x->type == MM_COL_I64 ? (const void *)x->i64
                                                   : (const void *)x->names;
        hid_t ds = H5Dcreate2(g, x->key, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (ds < 0 || H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
            rc = mm__errf(err, MM_EHDF5, "%s: cannot write /axes/%s", w->path, x->key);
        if (ds >= 0) H5Dclose(ds);
        H5Sclose(space);
    }
    H5Tclose(str);
    if (g >= 0) H5Gclose(g);
    H5Pclose(dcpl);
    H5Pclose(gcpl);
    return rc;
}

/* Create dataset `name` of `rows` rows of layout `lay` (type `type`) into *ds. */
static int create_table(mm_results_writer *w, const char *name, const mm__rlayout *lay, hid_t type,
                        int64_t rows, hid_t *ds, int64_t *chunk_rows, mm_error *err)
{
    int64_t chunk = (int64_t)(CHUNK_BYTES / lay->row_bytes);
    if (chunk > CHUNK_ROWS_MAX) chunk = CHUNK_ROWS_MAX;
    if (chunk > rows) chunk = rows > 0 ? rows : 1;
    hsize_t dims = (hsize_t)rows, maxdims = H5S_UNLIMITED, cdim = (hsize_t)chunk;
    hid_t space = H5Screate_simple(1, &dims, &maxdims);
    hid_t dcpl = plist_no_times(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &cdim);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    /* w0 < 1: HDF5 evicts fully written chunks first, and only with w0 < 1 does it also evict
     * partially written ones when the cache is full (with w0 = 1 the cache grows without bound
     * under scattered writes: the whole table ended up in memory). */
    H5Pset_chunk_cache(dapl, CACHE_SLOTS, CACHE_BYTES, 0.75);
    *ds = H5Dcreate2(w->file, name, type, space, H5P_DEFAULT, dcpl, dapl);
    H5Pclose(dapl);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (*ds < 0)
        return mm__errf(err, MM_EHDF5, "%s: cannot create /%s (%" PRId64 " rows)", w->path, name,
                        rows);
    *chunk_rows = chunk;
    return 0;
}

/* The row type, file and memory alike: the index columns as enums named by their axis values
 * (results_enum.c). */
static int make_rtype(mm_results_writer *w, const mm_results_axis *axes, mm_error *err)
{
    hid_t *enums = malloc(((size_t)w->n_axes + 1) * sizeof *enums);
    if (!enums) return mm__errf(err, -ENOMEM, "%s: out of memory", w->path);
    int rc = 0;
    for (int32_t a = 0; a < w->n_axes; a++) {
        enums[a] = axes[a].type == MM_COL_ENUM ? mm__enum_h5type(axes[a].names, axes[a].n) : -1;
        if (axes[a].type == MM_COL_ENUM && enums[a] < 0 && rc == 0)
            rc = mm__errf(err, MM_EHDF5, "%s: axis %s: cannot build its enum type", w->path,
                          axes[a].key);
    }
    if (rc == 0 && (w->rtype = mm__rlayout_h5type_enums(&w->lay, enums)) < 0)
        rc = mm__errf(err, MM_EHDF5, "%s: cannot build the row type", w->path);
    for (int32_t a = 0; a < w->n_axes; a++)
        if (enums[a] >= 0) H5Tclose(enums[a]);
    free(enums);
    return rc;
}

static int copy_axes(mm_results_writer *w, const mm_results_axis *axes)
{
    int32_t n = w->n_axes;
    w->axis_n = calloc((size_t)n + 1, sizeof *w->axis_n);
    w->axis_type = calloc((size_t)n + 1, sizeof *w->axis_type);
    w->axis_f64 = calloc((size_t)n + 1, sizeof *w->axis_f64);
    w->axis_i64 = calloc((size_t)n + 1, sizeof *w->axis_i64);
    if (!w->axis_n || !w->axis_type || !w->axis_f64 || !w->axis_i64) return -ENOMEM;
    for (int32_t a = 0; a < n; a++) {
        w->axis_n[a] = axes[a].n;
        w->axis_type[a] = axes[a].type;
        if (axes[a].type == MM_COL_F64) {
            if (!(w->axis_f64[a] = malloc((size_t)axes[a].n * sizeof(double)))) return -ENOMEM;
            memcpy(w->axis_f64[a], axes[a].f64, (size_t)axes[a].n * sizeof(double));
        } else if (axes[a].type == MM_COL_I64) {
            if (!(w->axis_i64[a] = malloc((size_t)axes[a].n * sizeof(int64_t)))) return -ENOMEM;
            memcpy(w->axis_i64[a], axes[a].i64, (size_t)axes[a].n * sizeof(int64_t));
        }
    }
    return 0;
}

static int create(const char *path, const mm_results_axis *axes, int32_t n_axes, int64_t n_rows,
                  const int64_t markout_ns[MM_MARKOUTS], int64_t paths, int keep,
                  mm_results_writer **out, mm_error *err)
{
    if (!path || !out || !markout_ns)
        return mm__errf(err, -EINVAL, "mm_results_create: NULL argument");
    *out = NULL;
    int rc = check_args(path, axes, n_axes, n_rows, markout_ns, err);
    if (rc) return rc;
    if (paths < 1 || (paths > 1 && n_rows > INT64_MAX / paths) || (paths == 1 && keep))
        return mm__errf(err, -EINVAL, "%s: mm_results_create_mc: bad path count %" PRId64, path,
                        paths);
    mm_results_writer *w = calloc(1, sizeof *w);
    if (!w) return mm__errf(err, -ENOMEM, "%s: out of memory", path);
    w->file = w->results = w->rtype = w->pds = w->ptype = w->bds = w->btype = -1;
    w->paths = paths;
    w->keep = keep;
    w->n_axes = n_axes;
    w->n_rows = n_rows;
    memcpy(w->markout_ns, markout_ns, sizeof w->markout_ns);
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        free(w);
        return mm__errf(err, -ENAMETOOLONG, "%s: path too long", path);
    }
    w->path = strdup(path);
    /* The temporary's name is copied before the file exists: from then on
     * mm__results_writer_free removes it. */
    w->tmp = strdup(tmp);
    const char **keys = calloc((size_t)n_axes + 1, sizeof *keys);
    int *types = calloc((size_t)n_axes + 1, sizeof *types);
    w->written = calloc((size_t)(n_rows + 63) / 64 + 1, sizeof *w->written);
    if (!w->path || !w->tmp || !keys || !types || !w->written || copy_axes(w, axes)) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    for (int32_t a = 0; a < n_axes; a++) {
        keys[a] = axes[a].key;
        types[a] = axes[a].type;
    }
    const char *pkey = "path";
    int ptype = MM_COL_I64;
    if (mm__rlayout_init(&w->lay, n_axes, keys, types, markout_ns, paths > 1, 0) ||
        (keep && mm__rlayout_init(&w->play, 1, &pkey, &ptype, markout_ns, 0, 0))) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory (the row layout)", path);
        goto fail;
    }
    if ((rc = make_rtype(w, axes, err)) != 0) goto fail;
    if (keep && (w->ptype = mm__rlayout_h5type(&w->play)) < 0) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot build the row type", path);
        goto fail;
    }

    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    hid_t fcpl = plist_no_times(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_userblock(fcpl, MM__H5_USERBLOCK); /* its text: at commit (mm__h5_userblock_put) */
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    w->file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
    H5Pclose(fapl);
    H5Pclose(fcpl);
    if (w->file < 0)
        rc = mm__errf(err, MM_EHDF5, "%s: cannot create %s", path, tmp);
    else if (mm__attr_put_str(w->file, "mmsim_format",
                              paths > 1 ? MM_RESULTS_FORMAT_MC : MM_RESULTS_FORMAT) ||
             (paths > 1 &&
              mm__attr_put(w->file, "paths", H5T_STD_I64LE, H5T_NATIVE_INT64, &paths, -1)))
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write the format tag", path);
    if (rc == 0) rc = write_axes(w, axes, err);
    if (rc == 0)
        rc = create_table(w, "results", &w->lay, w->rtype, n_rows, &w->results, &w->buf_rows, err);
    if (rc == 0 && keep)
        rc = create_table(w, "paths", &w->play, w->ptype, n_rows * paths, &w->pds, &w->pbuf_rows,
                          err);
    if (rc == 0 && !(w->buf = malloc((size_t)w->buf_rows * w->lay.row_bytes)))
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
    if (rc == 0 && keep && !(w->pbuf = malloc((size_t)w->pbuf_rows * w->play.row_bytes)))
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
    mm__h5quiet_end(&q);
    if (rc && q.sys_errno) rc = mm__errf(err, -q.sys_errno, "%s: %s", path, strerror(q.sys_errno));
    if (rc) goto fail;
    free(keys);
    free(types);
    *out = w;
    return 0;
fail:
    free(keys);
    free(types);
    mm__results_writer_free(w);
    return rc;
}

int mm_results_create(const char *path, const mm_results_axis *axes, int32_t n_axes, int64_t n_rows,
                      const int64_t markout_ns[MM_MARKOUTS], mm_results_writer **out, mm_error *err)
{
    return create(path, axes, n_axes, n_rows, markout_ns, 1, 0, out, err);
}

int mm_results_create_mc(const char *path, const mm_results_axis *axes, int32_t n_axes,
                         int64_t n_rows, const int64_t markout_ns[MM_MARKOUTS], int64_t paths,
                         int keep_paths, mm_results_writer **out, mm_error *err)
{
    if (paths < 2)
        return mm__errf(err, -EINVAL, "%s: mm_results_create_mc: %" PRId64 " paths (2 or more)",
                        path ? path : "(null)", paths);
    return create(path, axes, n_axes, n_rows, markout_ns, paths, keep_paths != 0, out, err);
}

/* Pack rows [first, first + n) of the call (offset `at` into its arrays) into w->buf. */
static void pack(mm_results_writer *w, int64_t first, int64_t at, int64_t n,
                 const int32_t *axis_idx, const mm_metrics *m, const double *s)
{
    for (int64_t i = 0; i < n; i++) {
        unsigned char *row = w->buf + (size_t)i * w->lay.row_bytes;
        for (int c = 0; c < w->lay.n_cols; c++) {
            const mm__rcol *col = &w->lay.cols[c];
            unsigned char *dst = row + col->off;
            if (c == 0) {
                int64_t id = first + i;
                memcpy(dst, &id, 8);
            } else if (col->axis >= 0) {
                int32_t k = axis_idx[(size_t)(at + i) * (size_t)w->n_axes + (size_t)col->axis];
                if (col->type == MM_COL_F64)
                    memcpy(dst, &w->axis_f64[col->axis][k], 8);
                else if (col->type == MM_COL_I64)
                    memcpy(dst, &w->axis_i64[col->axis][k], 8);
                else
                    memcpy(dst, &k, 4);
            } else if (s) {
                memcpy(dst, &s[(size_t)(at + i) * MM_RESULTS_SUMMARY_METRICS + (size_t)col->metric],
                       8);
            } else {
                memcpy(dst, mm__metric_ptr((mm_metrics *)&m[at + i], col->metric), 8);
            }
        }
    }
}

/* Write the per-run metrics of combinations [first, first + n) into /paths. */
static int write_paths(mm_results_writer *w, int64_t first, int64_t n, const mm_metrics *m,
                       mm_error *err)
{
    int64_t rows = n * w->paths, r0 = first * w->paths;
    const mm__rlayout *l = &w->play;
    for (int64_t at = 0; at < rows; at += w->pbuf_rows) {
        int64_t k = rows - at < w->pbuf_rows ? rows - at : w->pbuf_rows;
        for (int64_t i = 0; i < k; i++) {
            unsigned char *row = w->pbuf + (size_t)i * l->row_bytes;
            int64_t q = r0 + at + i, id = q / w->paths, path = q % w->paths;
            memcpy(row + l->cols[0].off, &id, 8);
            memcpy(row + l->cols[1].off, &path, 8);
            for (int c = 2; c < l->n_cols; c++)
                memcpy(row + l->cols[c].off,
                       mm__metric_ptr((mm_metrics *)&m[at + i], l->cols[c].metric), 8);
        }
        if (mm__ds_rw(w->pds, w->ptype, r0 + at, k, w->pbuf, 1))
            return mm__errf(err, MM_EHDF5,
                            "%s: cannot write /paths rows [%" PRId64 ", %" PRId64 ")", w->path,
                            r0 + at, r0 + at + k);
    }
    return 0;
}

static int write_rows(mm_results_writer *w, int64_t first, int64_t n, const int32_t *axis_idx,
                      const mm_metrics *m, const double *s, mm_error *err)
{
    if (!w) return mm__errf(err, -EINVAL, "mm_results_write: NULL writer");
    if (first < 0 || n < 0 || first > w->n_rows || n > w->n_rows - first)
        return mm__errf(err, -EINVAL,
                        "%s: rows [%" PRId64 ", %" PRId64 ") outside the table of %" PRId64 " rows",
                        w->path, first, first + n, w->n_rows);
    if (n == 0) return 0;
    if ((s ? w->paths == 1 : w->paths > 1))
        return mm__errf(err, -EINVAL, "%s: %s on a table of %" PRId64 " path%s", w->path,
                        s ? "mm_results_write_mc" : "mm_results_write", w->paths,
                        w->paths == 1 ? "" : "s");
    if ((!m && !s) || (s && w->keep && !m) || (w->n_axes > 0 && !axis_idx))
        return mm__errf(err, -EINVAL, "%s: mm_results_write: NULL rows", w->path);
    /* Check everything before writing anything. */
    for (int64_t i = 0; i < n; i++) {
        if (is_written(w, first + i))
            return mm__errf(err, -EINVAL, "%s: row %" PRId64 " written twice", w->path, first + i);
        for (int32_t a = 0; a < w->n_axes; a++) {
            int32_t k = axis_idx[(size_t)i * (size_t)w->n_axes + (size_t)a];
            if (k < 0 || k >= w->axis_n[a])
                return mm__errf(err, -EINVAL,
                                "%s: row %" PRId64 ": axis %s: index %" PRId32
                                " outside [0, %" PRId32 ")",
                                w->path, first + i, w->lay.cols[1 + a].name, k, w->axis_n[a]);
        }
    }
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = 0;
    for (int64_t at = 0; at < n && rc == 0; at += w->buf_rows) {
        int64_t k = n - at < w->buf_rows ? n - at : w->buf_rows;
        pack(w, first + at, at, k, axis_idx, s ? NULL : m, s);
        if (mm__ds_rw(w->results, w->rtype, first + at, k, w->buf, 1))
            rc = mm__errf(err, MM_EHDF5, "%s: cannot write rows [%" PRId64 ", %" PRId64 ")",
                          w->path, first + at, first + at + k);
    }
    if (rc == 0 && s && w->keep) rc = write_paths(w, first, n, m, err);
    for (int64_t r = first; rc == 0 && r < first + n; r++)
        w->written[r >> 6] |= UINT64_C(1) << (r & 63);
    mm__h5quiet_end(&q);
    if (rc && q.sys_errno)
        rc = mm__errf(err, -q.sys_errno, "%s: %s", w->path, strerror(q.sys_errno));
    return rc;
}

int mm_results_write(mm_results_writer *w, int64_t first, int64_t n, const int32_t *axis_idx,
                     const mm_metrics *m, mm_error *err)
{
    return write_rows(w, first, n, axis_idx, m, NULL, err);
}

int mm_results_write_mc(mm_results_writer *w, int64_t first, int64_t n, const int32_t *axis_idx,
                        const double *s, const mm_metrics *m, mm_error *err)
{
    if (!s) return mm__errf(err, -EINVAL, "mm_results_write_mc: NULL summaries");
    return write_rows(w, first, n, axis_idx, m, s, err);
}
