/* The HDF5 tick store (layout in docs/formats.md):
 *
 *   /                      attribute mmsim_format = "mmsim-ticks/1"
 *   /ticks/<SYMBOL>/       group, attributes symbol, source, tick_size, lot_size, fingerprint, allow_crossed
 *   /ticks/<SYMBOL>/ts_ns  int64 [n], and bid_px ask_px bid_sz ask_sz trade_px trade_sz (int32 [n]),
 *                          trade_side (int8 [n]); chunked, optionally shuffle + deflate.
 *
 * The HDF5 library's own error printing is switched off around every call into it; errors come back as
 * one-line messages in mm_error. */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/mm_internal.h"

#define FORMAT_TAG "mmsim-ticks/1"

/* HDF5 1.10 (Debian 12) and 1.12+ name the link iteration API differently. */
#if H5_VERSION_GE(1, 12, 0)
typedef H5L_info2_t mm_h5_linfo;
#define MM_H5_LITERATE H5Literate2
#define MM_H5_IS_HDF5(p) H5Fis_accessible((p), H5P_DEFAULT)
#else
typedef H5L_info_t mm_h5_linfo;
#define MM_H5_LITERATE H5Literate
#define MM_H5_IS_HDF5(p) H5Fis_hdf5(p)
#endif

typedef struct col_desc {
    const char *name;
    int size;   /* bytes per element */
    int is_signed;
} col_desc;

static const col_desc COLS[8] = {
    {"ts_ns", 8, 1},    {"bid_px", 4, 1},   {"ask_px", 4, 1},   {"bid_sz", 4, 1},
    {"ask_sz", 4, 1},   {"trade_px", 4, 1}, {"trade_sz", 4, 1}, {"trade_side", 1, 1},
};

static void *col_ptr(const mm_ticks *t, int i)
{
    switch (i) {
    case 0: return t->ts_ns;
    case 1: return t->bid_px;
    case 2: return t->ask_px;
    case 3: return t->bid_sz;
    case 4: return t->ask_sz;
    case 5: return t->trade_px;
    case 6: return t->trade_sz;
    default: return t->trade_side;
    }
}

static hid_t native_type(int i)
{
    switch (COLS[i].size) {
    case 8: return H5T_NATIVE_INT64;
    case 4: return H5T_NATIVE_INT32;
    default: return H5T_NATIVE_INT8;
    }
}

static hid_t file_type(int i)
{
    switch (COLS[i].size) {
    case 8: return H5T_STD_I64LE;
    case 4: return H5T_STD_I32LE;
    default: return H5T_STD_I8LE;
    }
}

/* Silence HDF5's automatic error printing for the duration of one public call. */
typedef struct quiet {
    H5E_auto2_t func;
    void *data;
} quiet;

static void quiet_begin(quiet *q)
{
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void quiet_end(quiet *q)
{
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

/* ---- attributes ---- */

static int attr_write_str(hid_t obj, const char *name, const char *val)
{
    /* Variable-length UTF-8, which h5py returns as str. */
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a < 0 ? -1 : H5Awrite(a, type, &val);
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return r < 0 ? -1 : 0;
}

static int attr_write_num(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *val)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a < 0 ? -1 : H5Awrite(a, mtype, val);
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return r < 0 ? -1 : 0;
}

/* Read a string attribute (fixed or variable length) into buf. Returns 0, -1 missing, -2 wrong type. */
static int attr_read_str(hid_t obj, const char *name, char *buf, size_t cap)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t type = H5Aget_type(a);
    int rc = -2;
    if (H5Tget_class(type) == H5T_STRING) {
        if (H5Tis_variable_str(type) > 0) {
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(type));
            char *s = NULL;
            if (H5Aread(a, mt, &s) >= 0 && s) {
                snprintf(buf, cap, "%s", s);
                H5free_memory(s);
                rc = 0;
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(type);
            char *tmp = calloc(1, sz + 1);
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, sz + 1);
            H5Tset_strpad(mt, H5T_STR_NULLTERM);
            H5Tset_cset(mt, H5Tget_cset(type));
            if (tmp && H5Aread(a, mt, tmp) >= 0) {
                snprintf(buf, cap, "%s", tmp);
                rc = 0;
            }
            H5Tclose(mt);
            free(tmp);
        }
    }
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}

/* Read a numeric scalar attribute converted to mtype. Returns 0, -1 missing, -2 wrong type. */
static int attr_read_num(hid_t obj, const char *name, hid_t mtype, H5T_class_t want, void *val)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t type = H5Aget_type(a);
    hid_t space = H5Aget_space(a);
    int rc = -2;
    H5T_class_t cls = H5Tget_class(type);
    int ok_class = cls == want || (want == H5T_FLOAT && cls == H5T_INTEGER);
    if (ok_class && H5Sget_simple_extent_npoints(space) == 1 && H5Aread(a, mtype, val) >= 0) rc = 0;
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}

/* ---- writing ---- */

static int copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY);
    if (in < 0) return -errno;
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) {
        int e = -errno;
        close(in);
        return e;
    }
    char *buf = malloc(1 << 20);
    int rc = buf ? 0 : -ENOMEM;
    while (rc == 0) {
        ssize_t r = read(in, buf, 1 << 20);
        if (r < 0) rc = -errno;
        if (r <= 0) break;
        for (ssize_t off = 0; off < r && rc == 0;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0) rc = -errno;
            else off += w;
        }
    }
    free(buf);
    close(in);
    if (close(out) != 0 && rc == 0) rc = -errno;
    return rc;
}

static int fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -errno;
    int rc = fsync(fd) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}

static int write_group(hid_t file, const char *path, const mm_ticks *t, const mm_write_opts *o, mm_error *err)
{
    hid_t ticks = -1, grp = -1;
    int rc = MM_EHDF5;
    if (H5Lexists(file, "ticks", H5P_DEFAULT) > 0) ticks = H5Gopen2(file, "ticks", H5P_DEFAULT);
    else ticks = H5Gcreate2(file, "ticks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ticks < 0) {
        mm__errf(err, MM_EHDF5, "%s: cannot create group /ticks", path);
        goto out;
    }
    if (H5Lexists(ticks, t->inst.symbol, H5P_DEFAULT) > 0) {
        if (!o->replace) {
            rc = mm__errf(err, -EEXIST, "%s: instrument %s: already in the file (--replace replaces it)", path, t->inst.symbol);
            goto out;
        }
        if (H5Ldelete(ticks, t->inst.symbol, H5P_DEFAULT) < 0) {
            mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot replace", path, t->inst.symbol);
            goto out;
        }
    }
    grp = H5Gcreate2(ticks, t->inst.symbol, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (grp < 0) {
        mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot create group", path, t->inst.symbol);
        goto out;
    }
    int8_t crossed = (int8_t)(t->inst.allow_crossed ? 1 : 0);
    if (attr_write_str(grp, "symbol", t->inst.symbol) || attr_write_str(grp, "source", t->inst.source) ||
        attr_write_num(grp, "tick_size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t->inst.tick_size) ||
        attr_write_num(grp, "lot_size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t->inst.lot_size) ||
        attr_write_num(grp, "fingerprint", H5T_STD_U64LE, H5T_NATIVE_UINT64, &t->inst.fingerprint) ||
        attr_write_num(grp, "allow_crossed", H5T_STD_I8LE, H5T_NATIVE_INT8, &crossed)) {
        mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot write attributes", path, t->inst.symbol);
        goto out;
    }
    hsize_t dims = (hsize_t)t->n, maxdims = H5S_UNLIMITED;
    hsize_t chunk = (hsize_t)(o->chunk_rows > 0 ? o->chunk_rows : 65536);
    if (t->n > 0 && chunk > (hsize_t)t->n) chunk = (hsize_t)t->n;
    for (int i = 0; i < 8; i++) {
        hid_t space = H5Screate_simple(1, &dims, &maxdims);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &chunk);
        if (o->compress_level > 0) {
            H5Pset_shuffle(dcpl);
            H5Pset_deflate(dcpl, (unsigned)o->compress_level);
        }
        hid_t ds = H5Dcreate2(grp, COLS[i].name, file_type(i), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        herr_t w = ds < 0 ? -1 : (t->n > 0 ? H5Dwrite(ds, native_type(i), H5S_ALL, H5S_ALL, H5P_DEFAULT, col_ptr(t, i)) : 0);
        if (ds >= 0) H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(space);
        if (w < 0) {
            mm__errf(err, MM_EHDF5, "%s: instrument %s: column %s: cannot write", path, t->inst.symbol, COLS[i].name);
            goto out;
        }
    }
    rc = 0;
out:
    if (grp >= 0) H5Gclose(grp);
    if (ticks >= 0) H5Gclose(ticks);
    return rc;
}

int mm_ticks_write(const char *path, mm_ticks *t, const mm_write_opts *opts, mm_error *err)
{
    mm_write_opts o = opts ? *opts : (mm_write_opts){0};
    if (!path || !t) return mm__errf(err, -EINVAL, "mm_ticks_write: NULL argument");
    if (!mm__valid_symbol(t->inst.symbol))
        return mm__errf(err, MM_EUSAGE, "%s: symbol '%s' must match [A-Za-z0-9._-]+ (at most %d characters)", path,
                        t->inst.symbol, MM_SYMBOL_MAX - 1);
    if (o.compress_level < 0 || o.compress_level > 9)
        return mm__errf(err, MM_EUSAGE, "%s: compression level %d not in 0..9", path, o.compress_level);
    int rc = mm_ticks_validate(t, path, err);
    if (rc) return rc;
    t->inst.fingerprint = mm_ticks_fingerprint(t);

    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return mm__errf(err, -ENAMETOOLONG, "%s: path too long", path);
    struct stat st;
    int exists = stat(path, &st) == 0;
    quiet q;
    quiet_begin(&q);
    hid_t file = -1;
    if (exists) {
        /* Append: work on a copy so the original stays whole until the rename. */
        if (MM_H5_IS_HDF5(path) <= 0) {
            rc = mm__errf(err, MM_EFORMAT, "%s: exists and is not an HDF5 file (refusing to overwrite)", path);
            goto out;
        }
        rc = copy_file(path, tmp);
        if (rc) {
            mm__errf(err, rc, "%s: cannot copy to %s: %s", path, tmp, mm_strerror(rc));
            goto out;
        }
        file = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
    } else {
        file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        if (file >= 0 && attr_write_str(file, "mmsim_format", FORMAT_TAG)) {
            H5Fclose(file);
            file = -1;
        }
    }
    if (file < 0) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot create %s", path, tmp);
        goto out;
    }
    rc = write_group(file, path, t, &o, err);
    if (H5Fclose(file) < 0 && rc == 0) rc = mm__errf(err, MM_EHDF5, "%s: error closing file", path);
    if (rc == 0) {
        rc = fsync_path(tmp);
        if (rc) mm__errf(err, rc, "%s: fsync: %s", tmp, mm_strerror(rc));
    }
    if (rc == 0 && rename(tmp, path) != 0) rc = mm__errf(err, -errno, "%s: rename from %s: %s", path, tmp, strerror(errno));
out:
    if (rc) unlink(tmp);
    quiet_end(&q);
    return rc;
}

/* ---- reading ---- */

static int open_file(const char *path, hid_t *file, mm_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return mm__errf(err, -EISDIR, "%s: is a directory", path);
    if (MM_H5_IS_HDF5(path) <= 0) return mm__errf(err, MM_EFORMAT, "%s: not an HDF5 file", path);
    *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*file < 0) return mm__errf(err, MM_EHDF5, "%s: cannot open HDF5 file", path);
    return 0;
}

typedef struct list_ctx {
    char (*symbols)[MM_SYMBOL_MAX];
    int max, count;
} list_ctx;

static herr_t list_cb(hid_t g, const char *name, const mm_h5_linfo *info, void *data)
{
    (void)g;
    (void)info;
    list_ctx *c = data;
    if (c->count < c->max && c->symbols) snprintf(c->symbols[c->count], MM_SYMBOL_MAX, "%s", name);
    c->count++;
    return 0;
}

static int list_in_file(hid_t file, const char *path, char (*symbols)[MM_SYMBOL_MAX], int max, int *count,
                        mm_error *err)
{
    if (H5Lexists(file, "ticks", H5P_DEFAULT) <= 0)
        return mm__errf(err, MM_EFORMAT, "%s: no /ticks group (not an mmsim tick file)", path);
    hid_t g = H5Gopen2(file, "ticks", H5P_DEFAULT);
    if (g < 0) return mm__errf(err, MM_EFORMAT, "%s: /ticks is not a group", path);
    list_ctx c = {symbols, max, 0};
    hsize_t idx = 0;
    herr_t r = MM_H5_LITERATE(g, H5_INDEX_NAME, H5_ITER_INC, &idx, list_cb, &c);
    H5Gclose(g);
    if (r < 0) return mm__errf(err, MM_EHDF5, "%s: cannot list /ticks", path);
    *count = c.count;
    return 0;
}

int mm_ticks_list(const char *path, char (*symbols)[MM_SYMBOL_MAX], int max, int *count, mm_error *err)
{
    if (!path || !count) return mm__errf(err, -EINVAL, "mm_ticks_list: NULL argument");
    quiet q;
    quiet_begin(&q);
    hid_t file;
    int rc = open_file(path, &file, err);
    if (rc == 0) {
        rc = list_in_file(file, path, symbols, max, count, err);
        H5Fclose(file);
    }
    quiet_end(&q);
    return rc;
}

static const char *class_name(hid_t type)
{
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    default: return "non-numeric";
    }
}

static int load_group(hid_t file, const char *path, const char *sym, int flags, mm_ticks *out, mm_error *err)
{
    char gname[MM_SYMBOL_MAX + 8];
    snprintf(gname, sizeof gname, "ticks/%s", sym);
    if (H5Lexists(file, "ticks", H5P_DEFAULT) <= 0 || H5Lexists(file, gname, H5P_DEFAULT) <= 0)
        return mm__errf(err, MM_ENOTFOUND, "%s: instrument %s: not in the file", path, sym);
    hid_t grp = H5Gopen2(file, gname, H5P_DEFAULT);
    if (grp < 0) return mm__errf(err, MM_EFORMAT, "%s: instrument %s: /%s is not a group", path, sym, gname);
    hid_t ds[8];
    for (int i = 0; i < 8; i++) ds[i] = -1;
    mm_ticks t = {0};
    int rc = 0;
    int64_t n = -1;

    snprintf(t.inst.symbol, sizeof t.inst.symbol, "%s", sym);
    int a;
    if ((a = attr_read_num(grp, "tick_size", H5T_NATIVE_DOUBLE, H5T_FLOAT, &t.inst.tick_size)) != 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute tick_size: %s", path, sym,
                      a == -1 ? "missing" : "must be a numeric scalar");
        goto out;
    }
    if ((a = attr_read_num(grp, "lot_size", H5T_NATIVE_DOUBLE, H5T_FLOAT, &t.inst.lot_size)) != 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute lot_size: %s", path, sym,
                      a == -1 ? "missing" : "must be a numeric scalar");
        goto out;
    }
    if (attr_read_str(grp, "source", t.inst.source, sizeof t.inst.source) == -2) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute source: must be a string", path, sym);
        goto out;
    }
    int8_t crossed = 0;
    if (attr_read_num(grp, "allow_crossed", H5T_NATIVE_INT8, H5T_INTEGER, &crossed) == -2) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute allow_crossed: must be an integer", path, sym);
        goto out;
    }
    t.inst.allow_crossed = crossed != 0;
    int have_fp = 0;
    a = attr_read_num(grp, "fingerprint", H5T_NATIVE_UINT64, H5T_INTEGER, &t.inst.fingerprint);
    if (a == -2) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute fingerprint: must be an unsigned 64-bit integer",
                      path, sym);
        goto out;
    }
    have_fp = a == 0;

    for (int i = 0; i < 8; i++) {
        if (H5Lexists(grp, COLS[i].name, H5P_DEFAULT) <= 0) {
            rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: column %s: missing", path, sym, COLS[i].name);
            goto out;
        }
        ds[i] = H5Dopen2(grp, COLS[i].name, H5P_DEFAULT);
        if (ds[i] < 0) {
            rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: column %s: not a dataset", path, sym, COLS[i].name);
            goto out;
        }
        hid_t type = H5Dget_type(ds[i]);
        int ok = H5Tget_class(type) == H5T_INTEGER && (int)H5Tget_size(type) == COLS[i].size &&
                 H5Tget_sign(type) == H5T_SGN_2;
        if (!ok) {
            rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: column %s: wrong dtype (%s of %d bytes%s), expected int%d",
                          path, sym, COLS[i].name, class_name(type), (int)H5Tget_size(type),
                          H5Tget_class(type) == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE ? ", unsigned" : "",
                          COLS[i].size * 8);
            H5Tclose(type);
            goto out;
        }
        H5Tclose(type);
        hid_t space = H5Dget_space(ds[i]);
        int nd = H5Sget_simple_extent_ndims(space);
        hsize_t dim = 0;
        if (nd == 1) H5Sget_simple_extent_dims(space, &dim, NULL);
        H5Sclose(space);
        if (nd != 1) {
            rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: column %s: must be one-dimensional (has %d dimensions)",
                          path, sym, COLS[i].name, nd);
            goto out;
        }
        if (i == 0) n = (int64_t)dim;
        else if ((int64_t)dim != n) {
            rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: column %s: length %" PRId64 " differs from ts_ns length %" PRId64,
                          path, sym, COLS[i].name, (int64_t)dim, n);
            goto out;
        }
    }
    if (!have_fp && !(flags & MM_LOAD_NO_VERIFY)) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute fingerprint: missing (skip the check with --no-verify)",
                      path, sym);
        goto out;
    }
    rc = mm_ticks_alloc(&t, n, (flags & MM_LOAD_SHM) ? MM_MEM_SHM : MM_MEM_HEAP);
    if (rc) {
        mm__errf(err, rc, "%s: instrument %s: cannot allocate %" PRId64 " rows: %s", path, sym, n, mm_strerror(rc));
        goto out;
    }
    for (int i = 0; i < 8 && n > 0; i++) {
        if (H5Dread(ds[i], native_type(i), H5S_ALL, H5S_ALL, H5P_DEFAULT, col_ptr(&t, i)) < 0) {
            rc = mm__errf(err, MM_EHDF5, "%s: instrument %s: column %s: read error", path, sym, COLS[i].name);
            goto out;
        }
    }
    if (!(flags & MM_LOAD_NO_VALIDATE)) {
        rc = mm_ticks_validate(&t, path, err);
        if (rc) goto out;
    }
    if (!(flags & MM_LOAD_NO_VERIFY)) {
        uint64_t fp = mm_ticks_fingerprint(&t);
        if (fp != t.inst.fingerprint) {
            rc = mm__errf(err, MM_ECHECKSUM,
                          "%s: instrument %s: fingerprint mismatch: stored %016" PRIx64 ", content %016" PRIx64
                          " (file modified or corrupt; --no-verify skips the check)",
                          path, sym, t.inst.fingerprint, fp);
            goto out;
        }
    }
    if (t.mem_kind == MM_MEM_SHM && (rc = mm_ticks_seal(&t)) != 0) {
        mm__errf(err, rc, "%s: instrument %s: mprotect: %s", path, sym, mm_strerror(rc));
        goto out;
    }
out:
    for (int i = 7; i >= 0; i--)
        if (ds[i] >= 0) H5Dclose(ds[i]);
    H5Gclose(grp);
    if (rc) mm_ticks_free(&t);
    else *out = t;
    return rc;
}

int mm_ticks_load(const char *path, const char *symbol, int flags, mm_ticks *out, mm_error *err)
{
    if (!path || !out) return mm__errf(err, -EINVAL, "mm_ticks_load: NULL argument");
    if (symbol && !mm__valid_symbol(symbol))
        return mm__errf(err, MM_EUSAGE, "%s: symbol '%s' must match [A-Za-z0-9._-]+", path, symbol);
    quiet q;
    quiet_begin(&q);
    hid_t file;
    int rc = open_file(path, &file, err);
    if (rc) goto done;
    char only[1][MM_SYMBOL_MAX];
    if (!symbol) {
        int count = 0;
        rc = list_in_file(file, path, only, 1, &count, err);
        if (rc == 0 && count != 1)
            rc = mm__errf(err, MM_EUSAGE, "%s: holds %d instruments; name one with --symbol", path, count);
        symbol = only[0];
    }
    if (rc == 0) rc = load_group(file, path, symbol, flags, out, err);
    H5Fclose(file);
done:
    quiet_end(&q);
    return rc;
}
