/* The results reader (layout in docs/results.md): open and check a file, read rows back as axis
 * indices and metrics, read the objective index, and recompute the content hash. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mm_h5guard.h"
#include "mm_internal.h"
#include "results_reader_int.h"

static int cmp_lookup_f(const void *a, const void *b)
{
    double x = ((const lookup *)a)->f, y = ((const lookup *)b)->f;
    return (x > y) - (x < y);
}

static int cmp_lookup_i(const void *a, const void *b)
{
    int64_t x = ((const lookup *)a)->i, y = ((const lookup *)b)->i;
    return (x > y) - (x < y);
}

/* Index of a numeric value on axis a, or -1. */
int32_t mm__results_find_value(const mm_results_reader *r, int a, const unsigned char *bytes)
{
    const mm_results_axis *x = &r->axes[a];
    const lookup *lk = r->lk[a];
    int32_t lo = 0, hi = x->n - 1;
    lookup key = {0};
    if (x->type == MM_COL_F64)
        memcpy(&key.f, bytes, 8);
    else
        memcpy(&key.i, bytes, 8);
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = x->type == MM_COL_F64 ? cmp_lookup_f(&lk[mid], &key) : cmp_lookup_i(&lk[mid], &key);
        if (c == 0) return lk[mid].idx;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

void mm_results_close(mm_results_reader *r)
{
    if (!r) return;
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    if (r->mtype >= 0) H5Tclose(r->mtype);
    if (r->ptype >= 0) H5Tclose(r->ptype);
    if (r->pds >= 0) H5Dclose(r->pds);
    if (r->bds >= 0) H5Dclose(r->bds);
    if (r->btype >= 0) H5Tclose(r->btype);
    if (r->results >= 0) H5Dclose(r->results);
    if (r->file >= 0) H5Fclose(r->file);
    mm__h5quiet_end(&q);
    for (int32_t a = 0; r->axes && a < r->info.n_axes; a++) {
        mm_results_axis *x = &r->axes[a];
        free((void *)x->f64);
        free((void *)x->i64);
        for (int32_t i = 0; x->names && i < x->n; i++)
            free((void *)x->names[i]);
        free((void *)x->names);
        if (r->lk) free(r->lk[a]);
    }
    free(r->axes);
    free(r->lk);
    for (int32_t i = 0; i < r->info.meta.n_inputs; i++) {
        if (r->inputs) free(r->inputs[i]);
        if (r->in_paths) free(r->in_paths[i]);
    }
    for (int32_t i = 0; i < r->info.meta.n_side; i++) {
        if (r->side_roles) free(r->side_roles[i]);
        if (r->side_paths) free(r->side_paths[i]);
    }
    free(r->side_roles);
    free(r->side_paths);
    free(r->side_xxh3);
    free(r->inputs);
    free(r->in_paths);
    free(r->in_syms);
    free(r->fps);
    free(r->bend);
    free(r->spans);
    free(r->config);
    free(r->engine);
    free(r->version);
    free(r->objective);
    mm__rlayout_free(&r->lay);
    mm__rlayout_free(&r->play);
    free(r->mnames);
    free(r->mtypes);
    free(r->buf);
    free(r->path);
    free(r);
}

/* Column type from the HDF5 member type: MM_COL_I64, MM_COL_F64, MM_COL_ENUM (int32, or an enum
 * over int32: results_enum.c), or 0. */
static int member_type(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    size_t sz = H5Tget_size(t);
    if (c == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_2)
        return sz == 8 ? MM_COL_I64 : sz == 4 ? MM_COL_ENUM : 0;
    if (c == H5T_FLOAT && sz == 8) return MM_COL_F64;
    if (mm__enum_is_index(t)) return MM_COL_ENUM; /* the int32 index with its names */
    return 0;
}

static const char *type_name(int t)
{
    return t == MM_COL_I64    ? "int64"
           : t == MM_COL_F64  ? "float64"
           : t == MM_COL_ENUM ? "int32"
                              : "other";
}

/* Read /axes/<key> into x (values or names) and build the lookup for a numeric axis. */
static int read_axis(mm_results_reader *r, int a, mm_error *err)
{
    mm_results_axis *x = &r->axes[a];
    const char *p = r->path;
    char name[MM_RESULTS_NAME_MAX + 8];
    snprintf(name, sizeof name, "axes/%s", x->key);
    if (H5Lexists(r->file, "axes", H5P_DEFAULT) <= 0 || H5Lexists(r->file, name, H5P_DEFAULT) <= 0)
        return mm__errf(err, MM_EFORMAT, "%s: not a results file: column %s has no /%s", p, x->key,
                        name);
    hid_t ds = H5Dopen2(r->file, name, H5P_DEFAULT);
    if (ds < 0)
        return mm__errf(err, MM_EFORMAT, "%s: not a results file: /%s is not a dataset", p, name);
    hid_t t = H5Dget_type(ds), space = H5Dget_space(ds);
    int rc = 0;
    hsize_t n = 0;
    if (H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &n, NULL) < 0 ||
        n < 1 || n > INT32_MAX) {
        rc = mm__errf(err, MM_EFORMAT, "%s: /%s: must be a non-empty one-dimensional dataset", p,
                      name);
        goto out;
    }
    x->n = (int32_t)n;
    int is_str = H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0;
    int want = x->type == MM_COL_ENUM ? is_str : member_type(t) == x->type;
    if (!want) {
        rc = mm__errf(
            err, MM_EFORMAT, "%s: /%s: type does not match column %s (%s)", p, name, x->key,
            x->type == MM_COL_ENUM ? "int32 index: strings expected" : type_name(x->type));
        goto out;
    }
    if (x->type == MM_COL_ENUM) {
        char **names = calloc((size_t)n, sizeof *names), **tmp = calloc((size_t)n, sizeof *tmp);
        x->names = (const char *const *)names;
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(t));
        if (!names || !tmp)
            rc = mm__errf(err, -ENOMEM, "%s: out of memory", p);
        else if (H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp) < 0)
            rc = mm__errf(err, MM_EHDF5, "%s: /%s: read error", p, name);
        else {
            for (hsize_t i = 0; i < n; i++)
                if (!(names[i] = strdup(tmp[i] ? tmp[i] : "")))
                    rc = mm__errf(err, -ENOMEM, "%s: out of memory", p);
            MM_H5_RECLAIM(mt, space, tmp);
        }
        H5Tclose(mt);
        free(tmp);
        goto out;
    }
    int f = x->type == MM_COL_F64;
    void *vals = malloc((size_t)n * 8);
    lookup *lk = calloc((size_t)n, sizeof *lk);
    r->lk[a] = lk;
    if (f)
        x->f64 = vals;
    else
        x->i64 = vals;
    if (!vals || !lk) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", p);
        goto out;
    }
    if (H5Dread(ds, f ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, vals) <
        0) {
        rc = mm__errf(err, MM_EHDF5, "%s: /%s: read error", p, name);
        goto out;
    }
    for (hsize_t i = 0; i < n; i++) {
        /* The writer stores finite values only; a NaN would also compare equal to everything below.
         */
        if (f && !isfinite(x->f64[i])) {
            rc = mm__errf(err, MM_EFORMAT, "%s: /%s: value %llu is %s (axis values must be finite)",
                          p, name, (unsigned long long)i, isnan(x->f64[i]) ? "NaN" : "infinite");
            goto out;
        }
        lk[i].idx = (int32_t)i;
        if (f)
            lk[i].f = x->f64[i];
        else
            lk[i].i = x->i64[i];
    }
    qsort(lk, (size_t)n, sizeof *lk, f ? cmp_lookup_f : cmp_lookup_i);
    for (hsize_t i = 1; i < n; i++)
        if ((f ? cmp_lookup_f : cmp_lookup_i)(&lk[i], &lk[i - 1]) == 0) {
            if (f)
                rc = mm__errf(err, MM_EFORMAT, "%s: /%s: the value %.17g appears twice", p, name,
                              lk[i].f);
            else
                rc = mm__errf(err, MM_EFORMAT, "%s: /%s: the value %" PRId64 " appears twice", p,
                              name, lk[i].i);
            goto out;
        }
out:
    H5Sclose(space);
    H5Tclose(t);
    H5Dclose(ds);
    return rc;
}

/* The table's columns: id, axes, then the metric columns named from markout_ns. */
static int read_columns(mm_results_reader *r, const int64_t markout_ns[MM_MARKOUTS], int summary,
                        mm_error *err)
{
    const char *p = r->path;
    hid_t t = H5Dget_type(r->results);
    int rc = 0, nm = H5Tget_class(t) == H5T_COMPOUND ? H5Tget_nmembers(t) : -1;
    /* A table written before pnl_spread and pnl_inventory has neither (nor their _mean). */
    r->v1 = nm > 0 && H5Tget_member_index(t, summary ? "pnl_spread_mean" : "pnl_spread") < 0;
    int n_metrics = summary ? MM_RESULTS_SUMMARY_METRICS : MM_RESULTS_METRICS;
    if (r->v1) n_metrics = summary ? 2 * MM__RESULTS_METRICS_V1 + 10 : MM__RESULTS_METRICS_V1;
    if (nm < 1 + n_metrics) {
        H5Tclose(t);
        return mm__errf(err, MM_EFORMAT,
                        "%s: not a results file: /results is not a table of id, axes and %d "
                        "metrics",
                        p, n_metrics);
    }
    int32_t n_axes = nm - 1 - n_metrics;
    char **keys = calloc((size_t)nm, sizeof *keys);
    int *types = calloc((size_t)nm, sizeof *types);
    if (!keys || !types) rc = mm__errf(err, -ENOMEM, "%s: out of memory", p);
    for (int c = 0; c < nm && rc == 0; c++) {
        keys[c] = H5Tget_member_name(t, (unsigned)c);
        hid_t mt = H5Tget_member_type(t, (unsigned)c);
        types[c] = mt >= 0 ? member_type(mt) : 0;
        if (mt >= 0) H5Tclose(mt);
        if (!keys[c]) rc = mm__errf(err, MM_EHDF5, "%s: /results: cannot read member %d", p, c);
    }
    if (rc == 0)
        rc = mm__rlayout_init(&r->lay, n_axes, (const char *const *)keys + 1, types + 1, markout_ns,
                              summary, r->v1);
    if (rc == -ENOMEM) mm__errf(err, rc, "%s: out of memory", p);
    for (int c = 0; c < nm && rc == 0; c++) {
        const mm__rcol *col = &r->lay.cols[c];
        if (strcmp(keys[c], col->name))
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: not a results file: /results column %d is '%s', expected '%s'", p, c,
                          keys[c], col->axis >= 0 ? "an axis" : col->name);
        else if (types[c] != col->type || (col->axis < 0 && types[c] == MM_COL_ENUM) || !types[c])
            rc = mm__errf(err, MM_EFORMAT, "%s: /results column %s: wrong type (expected %s)", p,
                          keys[c],
                          col->axis >= 0 ? "int64, float64 or int32" : type_name(col->type));
    }
    if (rc == 0) {
        r->axes = calloc((size_t)n_axes + 1, sizeof *r->axes);
        r->lk = calloc((size_t)n_axes + 1, sizeof *r->lk);
        if (!r->axes || !r->lk) rc = mm__errf(err, -ENOMEM, "%s: out of memory", p);
    }
    if (rc == 0) {
        r->mnames = calloc((size_t)n_metrics, sizeof *r->mnames);
        r->mtypes = calloc((size_t)n_metrics, sizeof *r->mtypes);
        if (!r->mnames || !r->mtypes) rc = mm__errf(err, -ENOMEM, "%s: out of memory", p);
        for (int i = 0; i < n_metrics && rc == 0; i++) {
            r->mnames[i] = r->lay.cols[1 + n_axes + i].name;
            r->mtypes[i] = r->lay.cols[1 + n_axes + i].type;
        }
        r->info.n_metrics = rc == 0 ? n_metrics : 0;
        r->info.metric_names = r->mnames;
        r->info.metric_types = r->mtypes;
    }
    r->info.n_axes = rc == 0 ? n_axes : 0;
    for (int32_t a = 0; a < r->info.n_axes && rc == 0; a++) {
        r->axes[a].key = r->lay.cols[1 + a].name;
        r->axes[a].type = r->lay.cols[1 + a].type;
        rc = read_axis(r, a, err);
    }
    for (int c = 0; keys && c < nm; c++)
        if (keys[c]) H5free_memory(keys[c]);
    free(keys);
    free(types);
    H5Tclose(t);
    return rc;
}

/* a: the attribute reader's code (-1 missing, -2 wrong type or shape, -3 out of memory). */
static int attr_err(const char *path, const char *name, int a, const char *want, mm_error *err)
{
    if (a == -3)
        return mm__errf(err, -ENOMEM, "%s: out of memory reading attribute %s", path, name);
    return mm__errf(err, MM_EFORMAT, "%s: not a results file: attribute %s of /results %s", path,
                    name, a == -1 ? "is missing" : want);
}

static int read_meta(mm_results_reader *r, mm_error *err)
{
    const char *p = r->path;
    hid_t d = r->results;
    mm_results_meta *m = &r->info.meta;
    int a;
    const struct {
        const char *name;
        char **dst;
    } strs[] = {{"config", &r->config},
                {"mmsim_version", &r->version},
                {"engine", &r->engine},
                {"objective", &r->objective}};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if ((a = mm__attr_get_str(d, strs[i].name, strs[i].dst)) != 0)
            return attr_err(p, strs[i].name, a, "must be a variable-length string", err);
    const struct {
        const char *name;
        hid_t mt;
        H5T_class_t cls;
        void *dst;
    } nums[] = {{"seed", H5T_NATIVE_UINT64, H5T_INTEGER, &m->seed},
                {"workers", H5T_NATIVE_INT32, H5T_INTEGER, &m->workers},
                {"wall_s", H5T_NATIVE_DOUBLE, H5T_FLOAT, &m->wall_s},
                {"combos_per_s", H5T_NATIVE_DOUBLE, H5T_FLOAT, &m->combos_per_s},
                {"updates_per_s", H5T_NATIVE_DOUBLE, H5T_FLOAT, &m->updates_per_s},
                {"content_hash", H5T_NATIVE_UINT64, H5T_INTEGER, &r->info.content_hash}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if ((a = mm__attr_get(d, nums[i].name, nums[i].mt, nums[i].cls, nums[i].dst, 1)) != 0)
            return attr_err(p, nums[i].name, a, "must be a numeric scalar", err);
    if ((a = mm__attr_get(d, "n_no_fill", H5T_NATIVE_INT64, H5T_INTEGER, &r->info.n_no_fill, 1)) ==
        -1)
        r->info.n_no_fill = -1; /* (a file from before the count) */
    else if (a)
        return attr_err(p, "n_no_fill", a, "must be an integer scalar", err);
    /* Written since the stall limit (mm_sweep_opts.stall_s); older files: 0. */
    if ((a = mm__attr_get(d, "stalls", H5T_NATIVE_INT64, H5T_INTEGER, &m->stalls, 1)) == -1)
        m->stalls = 0;
    else if (a)
        return attr_err(p, "stalls", a, "must be an integer scalar", err);
    int64_t n_combos;
    if ((a = mm__attr_get(d, "n_combos", H5T_NATIVE_INT64, H5T_INTEGER, &n_combos, 1)) != 0)
        return attr_err(p, "n_combos", a, "must be an integer scalar", err);
    if (n_combos != r->info.n_rows)
        return mm__errf(err, MM_EFORMAT,
                        "%s: attribute n_combos %" PRId64 " differs from the %" PRId64
                        " rows of /results",
                        p, n_combos, r->info.n_rows);
    int32_t ni = 0;
    if ((a = mm__attr_get_strs(d, "inputs", &r->inputs, &ni)) != 0)
        return attr_err(p, "inputs", a, "must be an array of variable-length strings", err);
    m->n_inputs = ni;
    r->fps = calloc((size_t)ni + 1, sizeof *r->fps);
    r->in_paths = calloc((size_t)ni + 1, sizeof *r->in_paths);
    r->in_syms = calloc((size_t)ni + 1, sizeof *r->in_syms);
    if (!r->fps || !r->in_paths || !r->in_syms)
        return mm__errf(err, -ENOMEM, "%s: out of memory", p);
    if ((a = mm__attr_get(d, "input_fingerprints", H5T_NATIVE_UINT64, H5T_INTEGER, r->fps, ni)) !=
        0)
        return attr_err(p, "input_fingerprints", a, "must hold one unsigned integer per input",
                        err);
    /* Written since issue 32 (the Sharpe flag); older files: none. */
    if (!(r->spans = calloc((size_t)ni + 1, sizeof *r->spans)))
        return mm__errf(err, -ENOMEM, "%s: out of memory", p);
    if ((a = mm__attr_get(d, "input_span_ns", H5T_NATIVE_INT64, H5T_INTEGER, r->spans, ni)) == 0)
        m->input_span_ns = r->spans;
    else if (a != -1)
        return attr_err(p, "input_span_ns", a, "must hold one integer per input", err);
    /* "path#symbol": symbols never hold '#', so the last one splits. */
    for (int32_t i = 0; i < ni; i++) {
        if (!(r->in_paths[i] = strdup(r->inputs[i])))
            return mm__errf(err, -ENOMEM, "%s: out of memory", p);
        char *h = strrchr(r->in_paths[i], '#');
        if (h) *h = 0;
        r->in_syms[i] = h ? h + 1 : NULL;
    }
    /* Side inputs: absent from files written before them (n_side 0); when present the three
     * attributes have one entry per file. */
    if (mm__attr_len(d, "side_inputs") >= 0) {
        int32_t nr = 0, np = 0;
        if ((a = mm__attr_get_strs(d, "side_input_roles", &r->side_roles, &nr)) != 0)
            return attr_err(p, "side_input_roles", a, "must be an array of variable-length strings",
                            err);
        m->n_side = nr; /* what mm_results_close frees */
        if ((a = mm__attr_get_strs(d, "side_inputs", &r->side_paths, &np)) != 0)
            return attr_err(p, "side_inputs", a, "must be an array of variable-length strings",
                            err);
        if (np != nr) {
            for (int32_t i = 0; i < np; i++)
                free(r->side_paths[i]);
            free(r->side_paths);
            r->side_paths = NULL;
            return mm__errf(err, MM_EFORMAT,
                            "%s: attribute side_inputs has %" PRId32
                            " entries, side_input_roles %" PRId32,
                            p, np, nr);
        }
        if (!(r->side_xxh3 = calloc((size_t)nr + 1, sizeof *r->side_xxh3)))
            return mm__errf(err, -ENOMEM, "%s: out of memory", p);
        if ((a = mm__attr_get(d, "side_input_xxh3", H5T_NATIVE_UINT64, H5T_INTEGER, r->side_xxh3,
                              nr)) != 0)
            return attr_err(p, "side_input_xxh3", a,
                            "must hold one unsigned integer per side input", err);
        m->side_roles = (const char *const *)r->side_roles;
        m->side_paths = (const char *const *)r->side_paths;
        m->side_xxh3 = r->side_xxh3;
    }
    m->config_text = r->config;
    m->engine = r->engine;
    m->objective = r->objective;
    m->input_paths = (const char *const *)r->in_paths;
    m->input_symbols = (const char *const *)r->in_syms;
    m->input_fingerprints = r->fps;
    r->info.mmsim_version = r->version;
    r->info.axes = r->axes;
    return 0;
}

/* /paths of a Monte Carlo table, when there: n_rows x paths rows of id, path and the per-run
 * metrics. */
static int open_paths(mm_results_reader *r, const int64_t mk[MM_MARKOUTS], mm_error *err)
{
    if (H5Lexists(r->file, "paths", H5P_DEFAULT) <= 0) return 0;
    const char *p = r->path, *key = "path";
    int type = MM_COL_I64;
    if ((r->pds = H5Dopen2(r->file, "paths", H5P_DEFAULT)) < 0)
        return mm__errf(err, MM_EFORMAT, "%s: /paths is not a dataset", p);
    if (mm__rlayout_init(&r->play, 1, &key, &type, mk, 0, r->v1) ||
        (r->ptype = mm__rlayout_h5type(&r->play)) < 0)
        return mm__errf(err, -ENOMEM, "%s: out of memory", p);
    hid_t t = H5Dget_type(r->pds), space = H5Dget_space(r->pds);
    hsize_t n = 0;
    int ok = H5Tget_class(t) == H5T_COMPOUND && H5Tget_nmembers(t) == r->play.n_cols &&
             H5Sget_simple_extent_ndims(space) == 1 &&
             H5Sget_simple_extent_dims(space, &n, NULL) == 1 &&
             (int64_t)n == r->info.n_rows * r->info.paths;
    for (int c = 0; ok && c < r->play.n_cols; c++) {
        char *name = H5Tget_member_name(t, (unsigned)c);
        hid_t mt = H5Tget_member_type(t, (unsigned)c);
        ok = name && !strcmp(name, r->play.cols[c].name) && mt >= 0 &&
             member_type(mt) == r->play.cols[c].type;
        if (name) H5free_memory(name);
        if (mt >= 0) H5Tclose(mt);
    }
    H5Tclose(t);
    H5Sclose(space);
    if (!ok)
        return mm__errf(err, MM_EFORMAT,
                        "%s: /paths must hold %" PRId64 " rows of id, path and the %d metrics", p,
                        r->info.n_rows * r->info.paths, r->play.n_metrics);
    r->info.has_paths = 1;
    return 0;
}

int mm_results_open(const char *path, mm_results_reader **out, mm_error *err)
{
    if (!path || !out) return mm__errf(err, -EINVAL, "mm_results_open: NULL argument");
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return mm__errf(err, -EISDIR, "%s: is a directory", path);
    mm_results_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return mm__errf(err, -ENOMEM, "%s: out of memory", path);
    }
    r->file = r->results = r->mtype = r->pds = r->ptype = r->bds = r->btype = -1;
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = 0, a;
    char *tag = NULL;
    int64_t mk[MM_MARKOUTS];
    if (MM_H5_IS_HDF5(path) <= 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: not an HDF5 file", path);
        goto out;
    }
    if ((r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot open HDF5 file", path);
        goto out;
    }
    if ((rc = mm__h5_guard(r->file, path, err)) != 0)
        goto out; /* before any variable-length string */
    if ((a = mm__attr_get_str(r->file, "mmsim_format", &tag)) != 0) {
        rc = a == -3
                 ? mm__errf(err, -ENOMEM, "%s: out of memory reading attribute mmsim_format", path)
                 : mm__errf(err, MM_EFORMAT, "%s: not a results file (no mmsim_format tag)", path);
        goto out;
    }
    if (!strcmp(tag, "mmsim-results/1")) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: a mmsim-results/1 table from an older mmsim (before pnl_close and the "
                      "per-second rates): run its sweep again",
                      path);
        goto out;
    }
    int summary = !strcmp(tag, MM_RESULTS_FORMAT_MC);
    if (strcmp(tag, MM_RESULTS_FORMAT) && !summary) {
        rc =
            mm__errf(err, MM_EFORMAT, "%s: not a results file (format '%s', expected '%s' or '%s')",
                     path, tag, MM_RESULTS_FORMAT, MM_RESULTS_FORMAT_MC);
        goto out;
    }
    r->info.paths = 1;
    if (summary && ((a = mm__attr_get(r->file, "paths", H5T_NATIVE_INT64, H5T_INTEGER,
                                      &r->info.paths, 1)) != 0 ||
                    r->info.paths < 2)) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: a Monte Carlo table needs an integer attribute paths >= 2", path);
        goto out;
    }
    if (H5Lexists(r->file, "results", H5P_DEFAULT) <= 0 ||
        (r->results = H5Dopen2(r->file, "results", H5P_DEFAULT)) < 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: not a results file (no /results table)", path);
        goto out;
    }
    hid_t space = H5Dget_space(r->results);
    hsize_t n = 0;
    int nd = H5Sget_simple_extent_ndims(space);
    if (nd == 1) H5Sget_simple_extent_dims(space, &n, NULL);
    H5Sclose(space);
    if (nd != 1) {
        rc = mm__errf(err, MM_EFORMAT, "%s: /results must be one-dimensional", path);
        goto out;
    }
    r->info.n_rows = (int64_t)n;
    if ((a = mm__attr_get(r->results, "markout_ns", H5T_NATIVE_INT64, H5T_INTEGER, mk,
                          MM_MARKOUTS)) != 0) {
        rc = attr_err(path, "markout_ns", a, "must hold 3 integers", err);
        goto out;
    }
    memcpy(r->info.meta.markout_ns, mk, sizeof mk);
    if ((rc = read_columns(r, mk, summary, err)) != 0 || (rc = read_meta(r, err)) != 0 ||
        (summary && (rc = open_paths(r, mk, err)) != 0) ||
        (rc = mm__results_open_blocks(r, err)) != 0)
        goto out;
    if ((rc = mm__results_mtype(r->results, &r->lay, r->axes, path, &r->mtype, err)) != 0) goto out;
    if (!(r->buf = malloc((size_t)MM_RESULTS_BLOCK * r->lay.row_bytes)))
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
out:
    free(tag);
    mm__h5quiet_end(&q);
    if (rc)
        mm_results_close(r);
    else
        *out = r;
    return rc;
}

const mm_results_info *mm_results_describe(const mm_results_reader *r)
{
    return r ? &r->info : NULL;
}
