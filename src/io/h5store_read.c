/* Reading the HDF5 tick store (layout in docs/formats.md): mm_ticks_list and mm_ticks_load. A file
 * from outside is opened through mm__h5_open_ro (the corrupt-heap guard first), its root tag
 * checked, and every failure names file, instrument, column and reason. The writer is h5store.c. */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mm_h5store.h"
#include "mm_h5util.h"
#include "mm_internal.h"

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

/* ---- reading ---- */

static int open_file(const char *path, hid_t *file, mm_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return mm__errf(err, -EISDIR, "%s: is a directory", path);
    int rc = mm__h5_open_ro(path, file, err);
    if (rc == MM__H5_NOT_HDF5) return mm__errf(err, MM_EFORMAT, "%s: not an HDF5 file", path);
    if (rc == MM__H5_NO_OPEN) return mm__errf(err, MM_EHDF5, "%s: cannot open HDF5 file", path);
    if (rc) return rc; /* the guard's error */
    /* The root tag says what the file is: a results file, or any other HDF5 file, is not read as
     * ticks. */
    char tag[128];
    int a = mm__attr_get_strbuf(*file, "mmsim_format", tag, sizeof tag);
    if (a == -1)
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: attribute mmsim_format: missing (not an mmsim tick file; expected %s)",
                      path, MM__TICKS_FORMAT);
    else if (a == -2)
        rc = mm__errf(err, MM_EFORMAT, "%s: attribute mmsim_format: must be a string (expected %s)",
                      path, MM__TICKS_FORMAT);
    else if (a == -3)
        rc = mm__errf(err, -ENOMEM, "%s: out of memory reading attribute mmsim_format", path);
    else if (strcmp(tag, MM__TICKS_FORMAT) != 0)
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: attribute mmsim_format: '%s' is not a tick file format (expected %s)",
                      path, tag, MM__TICKS_FORMAT);
    if (rc) {
        H5Fclose(*file);
        *file = -1;
    }
    return rc;
}

typedef struct list_ctx {
    char (*symbols)[MM_SYMBOL_MAX];
    int max, count;
    char bad[MM_SYMBOL_MAX + 4]; /* the first group name that is not a valid symbol (shortened) */
} list_ctx;

/* Every member of /ticks is an instrument whose name is its symbol; a name that is not a valid
 * symbol is a malformed file (stops the iteration: the caller reports it). */
static herr_t list_cb(hid_t g, const char *name, const mm__h5_linfo *info, void *data)
{
    (void)g;
    (void)info;
    list_ctx *c = data;
    if (!mm__valid_symbol(name)) {
        snprintf(c->bad, sizeof c->bad, "%.*s%s", MM_SYMBOL_MAX - 1, name,
                 strlen(name) >= MM_SYMBOL_MAX ? "..." : "");
        return 1;
    }
    if (c->count < c->max && c->symbols) snprintf(c->symbols[c->count], MM_SYMBOL_MAX, "%s", name);
    c->count++;
    return 0;
}

static int list_in_file(hid_t file, const char *path, char (*symbols)[MM_SYMBOL_MAX], int max,
                        int *count, mm_error *err)
{
    if (H5Lexists(file, "ticks", H5P_DEFAULT) <= 0)
        return mm__errf(err, MM_EFORMAT, "%s: no /ticks group (not an mmsim tick file)", path);
    hid_t g = H5Gopen2(file, "ticks", H5P_DEFAULT);
    if (g < 0) return mm__errf(err, MM_EFORMAT, "%s: /ticks is not a group", path);
    list_ctx c = {symbols, max, 0, ""};
    hsize_t idx = 0;
    herr_t r = MM_H5_LITERATE(g, H5_INDEX_NAME, H5_ITER_INC, &idx, list_cb, &c);
    H5Gclose(g);
    if (c.bad[0])
        return mm__errf(
            err, MM_EFORMAT,
            "%s: /ticks/%s: not a valid symbol ([A-Za-z0-9._-]+, at most %d characters)", path,
            c.bad, MM_SYMBOL_MAX - 1);
    if (r < 0) return mm__errf(err, MM_EHDF5, "%s: cannot list /ticks", path);
    *count = c.count;
    return 0;
}

int mm_ticks_list(const char *path, char (*symbols)[MM_SYMBOL_MAX], int max, int *count,
                  mm_error *err)
{
    if (!path || !count) return mm__errf(err, -EINVAL, "mm_ticks_list: NULL argument");
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    hid_t file;
    int rc = open_file(path, &file, err);
    if (rc == 0) {
        rc = list_in_file(file, path, symbols, max, count, err);
        H5Fclose(file);
    }
    mm__h5quiet_end(&q);
    return rc;
}

static const char *class_name(hid_t type)
{
    switch (H5Tget_class(type)) {
    case H5T_INTEGER:
        return "integer";
    case H5T_FLOAT:
        return "float";
    case H5T_STRING:
        return "string";
    case H5T_COMPOUND:
        return "compound";
    default:
        return "non-numeric";
    }
}

/* Open column c of grp (`kind`: "column" or "depth column", as the messages name it) and check it:
 * a dataset, an integer of exactly c's size, signed, one-dimensional. *ds is open on success (the
 * caller closes it, also on failure when it is >= 0); *dim its length. */
static int open_column(hid_t grp, const char *kind, const mm__tick_col *c, const char *path,
                       const char *sym, hid_t *ds, int64_t *dim, mm_error *err)
{
    if (H5Lexists(grp, c->name, H5P_DEFAULT) <= 0)
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: %s %s: missing", path, sym, kind,
                        c->name);
    *ds = H5Dopen2(grp, c->name, H5P_DEFAULT);
    if (*ds < 0)
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: %s %s: not a dataset", path, sym, kind,
                        c->name);
    hid_t type = H5Dget_type(*ds);
    int ok = H5Tget_class(type) == H5T_INTEGER && (int)H5Tget_size(type) == c->size &&
             H5Tget_sign(type) == H5T_SGN_2;
    if (!ok) {
        int rc = mm__errf(
            err, MM_EFORMAT,
            "%s: instrument %s: %s %s: wrong dtype (%s of %d bytes%s), expected int%d", path, sym,
            kind, c->name, class_name(type), (int)H5Tget_size(type),
            H5Tget_class(type) == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE ? ", unsigned"
                                                                                   : "",
            c->size * 8);
        H5Tclose(type);
        return rc;
    }
    H5Tclose(type);
    hid_t space = H5Dget_space(*ds);
    int nd = H5Sget_simple_extent_ndims(space);
    hsize_t d = 0;
    if (nd == 1) H5Sget_simple_extent_dims(space, &d, NULL);
    H5Sclose(space);
    if (nd != 1)
        return mm__errf(err, MM_EFORMAT,
                        "%s: instrument %s: %s %s: must be one-dimensional (has %d dimensions)",
                        path, sym, kind, c->name, nd);
    *dim = (int64_t)d;
    return 0;
}

/* The depth subgroup of an instrument, when there is one (docs/formats.md, "Depth"): its
 * attributes into t->depth (levels, ids), its columns opened into ds[6], their length into *m. No
 * subgroup: *m = 0, levels 0. */
static int open_depth(hid_t grp, const char *path, const char *sym, mm_ticks *t, hid_t *dgrp,
                      hid_t ds[6], int64_t *m, mm_error *err)
{
    *m = 0;
    if (H5Lexists(grp, MM__DEPTH_GROUP, H5P_DEFAULT) <= 0) return 0;
    if ((*dgrp = H5Gopen2(grp, MM__DEPTH_GROUP, H5P_DEFAULT)) < 0)
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: depth: not a group", path, sym);
    int32_t levels = 0;
    int8_t ids = 0;
    int a = attr_read_num(*dgrp, "levels", H5T_NATIVE_INT32, H5T_INTEGER, &levels);
    if (a != 0)
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: depth attribute levels: %s", path, sym,
                        a == -1 ? "missing" : "must be an integer scalar");
    a = attr_read_num(*dgrp, "ids", H5T_NATIVE_INT8, H5T_INTEGER, &ids);
    if (a != 0)
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: depth attribute ids: %s", path, sym,
                        a == -1 ? "missing" : "must be an integer scalar");
    /* Out of range values are the validation's (MM_EINVALID), but levels 0 would read as "no
     * depth": refused here. */
    if (levels < 1 || levels > MM_DEPTH_MAX_LEVELS)
        return mm__errf(err, MM_EFORMAT,
                        "%s: instrument %s: depth attribute levels: %" PRId32 " is not in 1..%d",
                        path, sym, levels, MM_DEPTH_MAX_LEVELS);
    t->depth.levels = levels;
    t->depth.ids = ids;
    for (int i = 0; i < 6; i++) {
        int64_t dim = 0;
        int rc =
            open_column(*dgrp, "depth column", &MM__DEPTH_COLS[i], path, sym, &ds[i], &dim, err);
        if (rc) return rc;
        if (i == 0)
            *m = dim;
        else if (dim != *m)
            return mm__errf(err, MM_EFORMAT,
                            "%s: instrument %s: depth column %s: length %" PRId64
                            " differs from depth column row's length %" PRId64,
                            path, sym, MM__DEPTH_COLS[i].name, dim, *m);
    }
    return 0;
}

/* The signal column of an instrument, when there is one (docs/formats.md, "Signal"): a float64
 * dataset of n rows with a string attribute `name` (a valid symbol), copied into t->signal_name.
 * *ds is open on success (the caller closes it, also on failure when it is >= 0). No column: *ds
 * stays -1. */
static int open_signal(hid_t grp, const char *path, const char *sym, int64_t n, mm_ticks *t,
                       hid_t *ds, mm_error *err)
{
    if (H5Lexists(grp, MM__SIGNAL_COL, H5P_DEFAULT) <= 0) return 0;
    if ((*ds = H5Dopen2(grp, MM__SIGNAL_COL, H5P_DEFAULT)) < 0)
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: column signal: not a dataset", path,
                        sym);
    hid_t type = H5Dget_type(*ds);
    int ok = H5Tget_class(type) == H5T_FLOAT && H5Tget_size(type) == 8;
    const char *cls = class_name(type);
    int size = (int)H5Tget_size(type);
    H5Tclose(type);
    if (!ok)
        return mm__errf(err, MM_EFORMAT,
                        "%s: instrument %s: column signal: wrong dtype (%s of %d bytes), expected "
                        "float64",
                        path, sym, cls, size);
    hid_t space = H5Dget_space(*ds);
    int nd = H5Sget_simple_extent_ndims(space);
    hsize_t d = 0;
    if (nd == 1) H5Sget_simple_extent_dims(space, &d, NULL);
    H5Sclose(space);
    if (nd != 1 || (int64_t)d != n)
        return mm__errf(err, MM_EFORMAT,
                        "%s: instrument %s: column signal: %s %" PRId64
                        " differs from ts_ns length %" PRId64,
                        path, sym, nd == 1 ? "length" : "a shape of dimensions",
                        nd == 1 ? (int64_t)d : (int64_t)nd, n);
    char name[MM_SYMBOL_MAX + 4];
    int a = mm__attr_get_strbuf(*ds, "name", name, sizeof name);
    if (a != 0 || !mm__valid_symbol(name))
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: column signal: attribute name: %s",
                        path, sym,
                        a == -1  ? "missing"
                        : a != 0 ? "must be a string"
                                 : "must match [A-Za-z0-9._-]+ (at most 63 characters)");
    memcpy(t->signal_name, name, strlen(name) + 1); /* a valid symbol: shorter than the field */
    return 0;
}

static int load_group(hid_t file, const char *path, const char *sym, int flags, mm_ticks *out,
                      mm_error *err)
{
    char gname[MM_SYMBOL_MAX + 8];
    snprintf(gname, sizeof gname, "ticks/%s", sym);
    if (H5Lexists(file, "ticks", H5P_DEFAULT) <= 0 || H5Lexists(file, gname, H5P_DEFAULT) <= 0)
        return mm__errf(err, MM_ENOTFOUND, "%s: instrument %s: not in the file", path, sym);
    hid_t grp = H5Gopen2(file, gname, H5P_DEFAULT);
    if (grp < 0)
        return mm__errf(err, MM_EFORMAT, "%s: instrument %s: /%s is not a group", path, sym, gname);
    hid_t ds[8], dds[6], dgrp = -1, sds = -1;
    for (int i = 0; i < 8; i++)
        ds[i] = -1;
    for (int i = 0; i < 6; i++)
        dds[i] = -1;
    mm_ticks t = {0};
    int rc = 0;
    int64_t n = -1, m = 0;

    snprintf(t.inst.symbol, sizeof t.inst.symbol, "%s", sym);
    int a;
    /* The symbol attribute repeats the group name (a reader that renames one must rename both). */
    char stored[MM_SYMBOL_MAX + 4];
    if ((a = mm__attr_get_strbuf(grp, "symbol", stored, sizeof stored)) != 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute symbol: %s", path, sym,
                      a == -1 ? "missing" : "must be a string");
        goto out;
    }
    if (strcmp(stored, sym) != 0) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: instrument %s: attribute symbol: '%s' differs from the group name", path,
                      sym, stored);
        goto out;
    }
    if ((a = attr_read_num(grp, "tick_size", H5T_NATIVE_DOUBLE, H5T_FLOAT, &t.inst.tick_size)) !=
        0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute tick_size: %s", path, sym,
                      a == -1 ? "missing" : "must be a numeric scalar");
        goto out;
    }
    if ((a = attr_read_num(grp, "lot_size", H5T_NATIVE_DOUBLE, H5T_FLOAT, &t.inst.lot_size)) != 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute lot_size: %s", path, sym,
                      a == -1 ? "missing" : "must be a numeric scalar");
        goto out;
    }
    if (mm__attr_get_strbuf(grp, "source", t.inst.source, sizeof t.inst.source) == -2) {
        rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: attribute source: must be a string",
                      path, sym);
        goto out;
    }
    int8_t crossed = 0;
    if (attr_read_num(grp, "allow_crossed", H5T_NATIVE_INT8, H5T_INTEGER, &crossed) == -2) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: instrument %s: attribute allow_crossed: must be an integer", path, sym);
        goto out;
    }
    t.inst.allow_crossed = crossed != 0;
    /* Optional (files written before 2026-12 have none: 0, the run's default). */
    a = attr_read_num(grp, "year_seconds", H5T_NATIVE_DOUBLE, H5T_FLOAT, &t.inst.year_s);
    if (a == -2 || (a == 0 && !(t.inst.year_s > 0 && t.inst.year_s <= 1e12))) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: instrument %s: attribute year_seconds: must be a number in (0, 1e12]",
                      path, sym);
        goto out;
    }
    if (a != 0) t.inst.year_s = 0;
    int have_fp = 0;
    a = attr_read_num(grp, "fingerprint", H5T_NATIVE_UINT64, H5T_INTEGER, &t.inst.fingerprint);
    if (a == -2) {
        rc =
            mm__errf(err, MM_EFORMAT,
                     "%s: instrument %s: attribute fingerprint: must be an unsigned 64-bit integer",
                     path, sym);
        goto out;
    }
    have_fp = a == 0;

    for (int i = 0; i < 8; i++) {
        int64_t dim = 0;
        if ((rc = open_column(grp, "column", &MM__TICK_COLS[i], path, sym, &ds[i], &dim, err)))
            goto out;
        if (i == 0)
            n = (int64_t)dim;
        else if ((int64_t)dim != n) {
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: instrument %s: column %s: length %" PRId64
                          " differs from ts_ns length %" PRId64,
                          path, sym, MM__TICK_COLS[i].name, (int64_t)dim, n);
            goto out;
        }
    }
    if ((rc = open_depth(grp, path, sym, &t, &dgrp, dds, &m, err))) goto out;
    if ((rc = open_signal(grp, path, sym, n, &t, &sds, err))) goto out;
    if (!have_fp && !(flags & MM_LOAD_NO_VERIFY)) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: instrument %s: attribute fingerprint: missing (skip the check with "
                      "MM_LOAD_NO_VERIFY)",
                      path, sym);
        goto out;
    }
    int32_t levels = t.depth.levels, ids = t.depth.ids; /* the allocation rebinds t.depth */
    rc =
        mm_ticks_alloc_signal(&t, n, m, sds >= 0, (flags & MM_LOAD_SHM) ? MM_MEM_SHM : MM_MEM_HEAP);
    t.depth.levels = levels;
    t.depth.ids = ids;
    if (rc) {
        if (flags & MM_LOAD_SHM)
            mm__errf(err, rc,
                     "%s: instrument %s: cannot allocate %zu bytes of shared memory (/dev/shm) for "
                     "%" PRId64 " rows: %s",
                     path, sym, mm__ticks_block_bytes(n, m, sds >= 0), n, mm_strerror(rc));
        else
            mm__errf(err, rc, "%s: instrument %s: cannot allocate %" PRId64 " rows: %s", path, sym,
                     n, mm_strerror(rc));
        goto out;
    }
    for (int i = 0; i < 8 && n > 0; i++) {
        if (H5Dread(ds[i], mm__tick_col_type(i, 0), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    mm__tick_col_ptr(&t, i)) < 0) {
            rc = mm__errf(err, MM_EHDF5, "%s: instrument %s: column %s: read error", path, sym,
                          MM__TICK_COLS[i].name);
            goto out;
        }
    }
    for (int i = 0; i < 6 && m > 0; i++) {
        if (H5Dread(dds[i], mm__int_col_type(MM__DEPTH_COLS[i].size, 0), H5S_ALL, H5S_ALL,
                    H5P_DEFAULT, mm__depth_col_ptr(&t, i)) < 0) {
            rc = mm__errf(err, MM_EHDF5, "%s: instrument %s: depth column %s: read error", path,
                          sym, MM__DEPTH_COLS[i].name);
            goto out;
        }
    }
    if (sds >= 0 && n > 0 &&
        H5Dread(sds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.signal) < 0) {
        rc = mm__errf(err, MM_EHDF5, "%s: instrument %s: column signal: read error", path, sym);
        goto out;
    }
    if (!(flags & MM_LOAD_NO_VALIDATE)) {
        rc = mm_ticks_validate(&t, path, err);
        if (rc) goto out;
    }
    if (!(flags & MM_LOAD_NO_VERIFY)) {
        uint64_t fp = mm_ticks_fingerprint(&t);
        if (fp != t.inst.fingerprint) {
            rc = mm__errf(err, MM_ECHECKSUM,
                          "%s: instrument %s: fingerprint mismatch: stored %016" PRIx64
                          ", content %016" PRIx64
                          " (file modified or corrupt; MM_LOAD_NO_VERIFY skips the check)",
                          path, sym, t.inst.fingerprint, fp);
            goto out;
        }
    }
    if (t.mem_kind == MM_MEM_SHM && (rc = mm_ticks_seal(&t)) != 0) {
        mm__errf(err, rc, "%s: instrument %s: mprotect: %s", path, sym, mm_strerror(rc));
        goto out;
    }
out:
    if (sds >= 0) H5Dclose(sds);
    for (int i = 5; i >= 0; i--)
        if (dds[i] >= 0) H5Dclose(dds[i]);
    if (dgrp >= 0) H5Gclose(dgrp);
    for (int i = 7; i >= 0; i--)
        if (ds[i] >= 0) H5Dclose(ds[i]);
    H5Gclose(grp);
    if (rc)
        mm_ticks_free(&t);
    else
        *out = t;
    return rc;
}

int mm_ticks_load(const char *path, const char *symbol, int flags, mm_ticks *out, mm_error *err)
{
    if (!path || !out) return mm__errf(err, -EINVAL, "mm_ticks_load: NULL argument");
    if (symbol && !mm__valid_symbol(symbol))
        return mm__errf(err, MM_EUSAGE, "%s: symbol '%s' must match [A-Za-z0-9._-]+", path, symbol);
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    hid_t file;
    int rc = open_file(path, &file, err);
    if (rc) goto done;
    char only[1][MM_SYMBOL_MAX];
    if (!symbol) {
        int count = 0;
        rc = list_in_file(file, path, only, 1, &count, err);
        if (rc == 0 && count != 1)
            rc = mm__errf(err, MM_EUSAGE,
                          "%s: holds %d instruments; name one with the symbol argument", path,
                          count);
        symbol = only[0];
    }
    if (rc == 0) rc = load_group(file, path, symbol, flags, out, err);
    H5Fclose(file);
done:
    mm__h5quiet_end(&q);
    return rc;
}
