/* The HDF5 tick store (layout in docs/formats.md):
 *
 *   /                      attribute mmsim_format = "mmsim-ticks/1"
 *   /ticks/<SYMBOL>/       group, attributes symbol, source, tick_size, lot_size, fingerprint,
 * allow_crossed /ticks/<SYMBOL>/ts_ns  int64 [n], and bid_px ask_px bid_sz ask_sz trade_px trade_sz
 * (int32 [n]), trade_side (int8 [n]); chunked, optionally shuffle + deflate.
 *
 * The HDF5 library's own error printing is switched off around every call into it; errors come back
 * as one-line messages in mm_error. */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mm_internal.h"
#include "mm_h5util.h"
#include "mm_stale_tmp.h"

#define FORMAT_TAG "mmsim-ticks/1"

typedef struct col_desc {
    const char *name;
    int size; /* bytes per element */
    int is_signed;
} col_desc;

static const col_desc COLS[8] = {
    {"ts_ns", 8, 1},  {"bid_px", 4, 1},   {"ask_px", 4, 1},   {"bid_sz", 4, 1},
    {"ask_sz", 4, 1}, {"trade_px", 4, 1}, {"trade_sz", 4, 1}, {"trade_side", 1, 1},
};

static void *col_ptr(const mm_ticks *t, int i)
{
    switch (i) {
    case 0:
        return t->ts_ns;
    case 1:
        return t->bid_px;
    case 2:
        return t->ask_px;
    case 3:
        return t->bid_sz;
    case 4:
        return t->ask_sz;
    case 5:
        return t->trade_px;
    case 6:
        return t->trade_sz;
    default:
        return t->trade_side;
    }
}

static hid_t native_type(int i)
{
    switch (COLS[i].size) {
    case 8:
        return H5T_NATIVE_INT64;
    case 4:
        return H5T_NATIVE_INT32;
    default:
        return H5T_NATIVE_INT8;
    }
}

static hid_t file_type(int i)
{
    switch (COLS[i].size) {
    case 8:
        return H5T_STD_I64LE;
    case 4:
        return H5T_STD_I32LE;
    default:
        return H5T_STD_I8LE;
    }
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

/* ---- writing ----
 *
 * HDF5 never writes to disk here. The file is built in memory (the core driver, no backing store)
 * and its image is then written to "<path>.tmp.<pid>" with plain write(2), fsynced and renamed over
 * <path>.
 *
 * Why: HDF5 before 1.14.1 cannot survive a close that fails. When H5Fclose's last flush fails (a
 * full disk: pwrite ENOSPC), H5F__dest frees the file object anyway but returns an error, so the
 * file's ID stays in the library's table; HDF5's atexit handler then closes it a second time: a use
 * after free, SIGSEGV at exit (HDFGroup/hdf5 PR #2291). A failed flush also leaves the metadata
 * cache unusable ("slist already enabled"), so neither a retry nor an explicit H5Fflush first can
 * rescue the file. With the core driver every HDF5 write is a memory copy that cannot fail for lack
 * of disk, and every disk error is ours to see and report ("PATH: No space left on device").
 *
 * Cost: memory for the file once more while writing (the driver's buffer, written out as it is). */

static int write_column(hid_t grp, const mm_ticks *t, int i, const mm_write_opts *o)
{
    hsize_t dims = (hsize_t)t->n, maxdims = H5S_UNLIMITED;
    hsize_t chunk = (hsize_t)(o->chunk_rows > 0 ? o->chunk_rows : 65536);
    if (t->n > 0 && chunk > (hsize_t)t->n) chunk = (hsize_t)t->n;
    int rc = -1;
    hid_t space = H5Screate_simple(1, &dims, &maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds = -1;
    if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0) goto out;
    if (o->compress_level > 0 &&
        (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, (unsigned)o->compress_level) < 0))
        goto out;
    ds = H5Dcreate2(grp, COLS[i].name, file_type(i), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) goto out;
    if (t->n > 0 && H5Dwrite(ds, native_type(i), H5S_ALL, H5S_ALL, H5P_DEFAULT, col_ptr(t, i)) < 0)
        goto out;
    rc = 0;
out:
    if (ds >= 0 && H5Dclose(ds) < 0) rc = -1;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return rc;
}

static int write_group(hid_t file, const char *path, const mm_ticks *t, const mm_write_opts *o,
                       mm_error *err)
{
    hid_t ticks = -1, grp = -1;
    const char *sym = t->inst.symbol;
    int rc = MM_EHDF5;
    if (H5Lexists(file, "ticks", H5P_DEFAULT) > 0)
        ticks = H5Gopen2(file, "ticks", H5P_DEFAULT);
    else
        ticks = H5Gcreate2(file, "ticks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ticks < 0) {
        mm__errf(err, MM_EHDF5, "%s: cannot create group /ticks", path);
        goto out;
    }
    if (H5Lexists(ticks, sym, H5P_DEFAULT) > 0) {
        if (!o->replace) {
            rc = mm__errf(err, -EEXIST,
                          "%s: instrument %s: already in the file (--replace replaces it)", path,
                          sym);
            goto out;
        }
        if (H5Ldelete(ticks, sym, H5P_DEFAULT) < 0) {
            mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot replace", path, sym);
            goto out;
        }
    }
    grp = H5Gcreate2(ticks, sym, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (grp < 0) {
        mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot create group", path, sym);
        goto out;
    }
    int8_t crossed = (int8_t)(t->inst.allow_crossed ? 1 : 0);
    if (mm__attr_put_str(grp, "symbol", sym) || mm__attr_put_str(grp, "source", t->inst.source) ||
        mm__attr_put(grp, "tick_size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t->inst.tick_size, -1) ||
        mm__attr_put(grp, "lot_size", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t->inst.lot_size, -1) ||
        mm__attr_put(grp, "fingerprint", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                       &t->inst.fingerprint, -1) ||
        mm__attr_put(grp, "allow_crossed", H5T_STD_I8LE, H5T_NATIVE_INT8, &crossed, -1)) {
        mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot write attributes", path, sym);
        goto out;
    }
    for (int i = 0; i < 8; i++) {
        if (write_column(grp, t, i, o)) {
            mm__errf(err, MM_EHDF5, "%s: instrument %s: column %s: cannot write", path, sym,
                     COLS[i].name);
            goto out;
        }
    }
    rc = 0;
out:
    if (grp >= 0) H5Gclose(grp);
    if (ticks >= 0) H5Gclose(ticks);
    return rc;
}

/* The core driver's buffer, taken over when the file closes (the pattern of H5LTopen_file_image's
 * DONT_RELEASE flag): the image is written from the driver's own memory, never copied out of it. */
typedef struct image_owner {
    void *kept;     /* the buffer the driver released at close */
    size_t cap;     /* its size in bytes (the last allocation or resize) */
    size_t refused; /* bytes of an allocation that failed (0: none): the error is then -ENOMEM */
} image_owner;

static void *img_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
    image_owner *o = udata;
    void *p = malloc(size);
    if (!p)
        o->refused = size;
    else if (op == H5FD_FILE_IMAGE_OP_FILE_OPEN || op == H5FD_FILE_IMAGE_OP_FILE_RESIZE)
        o->cap = size;
    return p;
}

static void *img_memcpy(void *dest, const void *src, size_t size, H5FD_file_image_op_t op,
                        void *udata)
{
    (void)op;
    (void)udata;
    return memcpy(dest, src, size);
}

static void *img_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
    image_owner *o = udata;
    void *p = realloc(ptr, size);
    if (!p)
        o->refused = size;
    else if (op == H5FD_FILE_IMAGE_OP_FILE_OPEN || op == H5FD_FILE_IMAGE_OP_FILE_RESIZE)
        o->cap = size;
    return p;
}

static herr_t img_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
    image_owner *o = udata;
    if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && !o->kept)
        o->kept = ptr;
    else
        free(ptr);
    return 0;
}

static void *img_udata_copy(void *udata)
{
    return udata;
}

static herr_t img_udata_free(void *udata)
{
    (void)udata;
    return 0;
}

/* Build the file in memory: a new one, or the existing `path` read whole into memory (it is never
 * written through HDF5) with the instrument added. On success *image holds *size bytes of the file
 * (caller frees). */
static int build_image(const char *path, int exists, off_t old_size, const mm_ticks *t,
                       const mm_write_opts *o, void **image, size_t *size, mm_error *err)
{
    int rc = 0;
    ssize_t n = -1;
    hid_t file = -1;
    image_owner own = {NULL, 0, 0};
    /* Size the in-memory file once, to about its final size: 33 bytes a row for whole chunks (the
     * last chunk is stored whole), the old file, 1 MiB of metadata. The driver zeroes every step it
     * grows by, so a step too small would double the memory touched. */
    size_t chunk = (size_t)(o->chunk_rows > 0 ? o->chunk_rows : 65536);
    size_t rows = t->n > 0 ? ((size_t)t->n + chunk - 1) / chunk * chunk : 0;
    size_t incr = rows * 33 + (size_t)(exists ? old_size : 0) + ((size_t)1 << 20);
    H5FD_file_image_callbacks_t cb = {img_malloc,     img_memcpy,     img_realloc, img_free,
                                      img_udata_copy, img_udata_free, &own};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, incr, 0) < 0 ||
        H5Pset_file_image_callbacks(fapl, &cb) < 0) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot set up the HDF5 in-memory driver", path);
        goto out;
    }
    /* A new file is only named (the core driver without backing store creates nothing on disk). */
    file = exists ? H5Fopen(path, H5F_ACC_RDWR, fapl)
                  : H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    if (file < 0) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot %s the HDF5 file in memory", path,
                      exists ? "read" : "create");
        goto out;
    }
    if (!exists && mm__attr_put_str(file, "mmsim_format", FORMAT_TAG)) {
        rc = mm__errf(err, MM_EHDF5, "%s: cannot write attribute mmsim_format", path);
        goto out;
    }
    rc = write_group(file, path, t, o, err);
    if (rc) goto out;
    /* After the flush the first n bytes of the driver's buffer are the whole file (n = its end of
     * address space); the close that follows has nothing left to write. */
    n = H5Fflush(file, H5F_SCOPE_LOCAL) < 0 ? -1 : H5Fget_file_image(file, NULL, 0);
    if (n <= 0) rc = mm__errf(err, MM_EHDF5, "%s: cannot get the file image", path);
out:
    /* In memory, the close has nothing to write to disk: it cannot fail for a full disk. */
    if (file >= 0 && H5Fclose(file) < 0 && rc == 0)
        rc = mm__errf(err, MM_EHDF5, "%s: error closing the file", path);
    if (fapl >= 0) H5Pclose(fapl);
    if (rc == 0 && (!own.kept || own.cap < (size_t)n))
        rc = mm__errf(err, MM_EHDF5, "%s: the in-memory driver did not hand over its buffer", path);
    /* HDF5 reports a refused allocation of its buffer as a failed write: say what it was. */
    if (rc && own.refused)
        rc = mm__errf(err, -ENOMEM, "%s: out of memory (%zu bytes for the file in memory)", path,
                      own.refused);
    if (rc)
        free(own.kept);
    else {
        *image = own.kept;
        *size = (size_t)n;
    }
    return rc;
}

/* Write n bytes to a new file `tmp` (created exclusively), fsync and close it. Returns 0 or -errno.
 */
static int write_new_file(const char *tmp, const void *buf, size_t n)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return -errno;
    int rc = 0;
    for (size_t off = 0; off < n && rc == 0;) {
        size_t want = n - off < ((size_t)1 << 30) ? n - off : (size_t)1 << 30;
        ssize_t w = write(fd, (const char *)buf + off, want);
        if (w < 0 && errno != EINTR)
            rc = -errno;
        else if (w > 0)
            off += (size_t)w;
    }
    if (rc == 0 && fsync(fd) != 0) rc = -errno;
    if (close(fd) != 0 && rc == 0) rc = -errno;
    return rc;
}

/* fsync the directory that holds `path`, so a rename into it survives a power loss. */
static void fsync_dir_of(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    char *slash = strrchr(buf, '/');
    if (!slash)
        strcpy(buf, ".");
    else if (slash == buf)
        buf[1] = 0;
    else
        *slash = 0;
    int fd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

int mm_ticks_write(const char *path, mm_ticks *t, const mm_write_opts *opts, mm_error *err)
{
    mm_write_opts o = opts ? *opts : (mm_write_opts){0};
    if (!path || !t) return mm__errf(err, -EINVAL, "mm_ticks_write: NULL argument");
    if (!mm__valid_symbol(t->inst.symbol))
        return mm__errf(err, MM_EUSAGE,
                        "%s: symbol '%s' must match [A-Za-z0-9._-]+ (at most %d characters)", path,
                        t->inst.symbol, MM_SYMBOL_MAX - 1);
    if (o.compress_level < 0 || o.compress_level > 9)
        return mm__errf(err, MM_EUSAGE, "%s: compression level %d not in 0..9", path,
                        o.compress_level);
    int rc = mm_ticks_validate(t, path, err);
    if (rc) return rc;

    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return mm__errf(err, -ENAMETOOLONG, "%s: path too long", path);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return mm__errf(err, -EISDIR, "%s: is a directory", path);
    mm__remove_stale_tmps(path); /* of writers killed during their final write */
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    void *image = NULL;
    size_t size = 0;
    if (exists) {
        /* Append: only to a tick file (never into a results file or another HDF5 file). */
        char tag[64] = "";
        hid_t f = -1;
        rc = S_ISREG(st.st_mode) ? mm__h5_open_ro(path, &f, err) : MM__H5_NOT_HDF5;
        if (rc > 0) {
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: exists and is not an HDF5 file (refusing to overwrite)", path);
            goto out;
        }
        if (rc) goto out; /* the guard's error */
        mm__attr_get_strbuf(f, "mmsim_format", tag, sizeof tag); /* "" when missing or not a string */
        H5Fclose(f);
        if (strcmp(tag, FORMAT_TAG) != 0) {
            rc = tag[0] ? mm__errf(err, MM_EFORMAT,
                                   "%s: is a %s file, not a tick file (refusing to write into it)",
                                   path, tag)
                        : mm__errf(err, MM_EFORMAT,
                                   "%s: is an HDF5 file without mmsim_format = %s, not a tick file "
                                   "(refusing to write into it)",
                                   path, FORMAT_TAG);
            goto out;
        }
    }
    t->inst.fingerprint = mm_ticks_fingerprint(t);
    rc = build_image(path, exists, exists ? st.st_size : 0, t, &o, &image, &size, err);
    if (rc) goto out;
    rc = write_new_file(tmp, image, size);
    if (rc) {
        if (rc != -EEXIST)
            unlink(tmp); /* -EEXIST: not ours (another process of the same pid namespace?) */
        mm__errf(err, rc, "%s: %s", path, mm_strerror(rc));
        goto out;
    }
    if (rename(tmp, path) != 0) {
        rc = mm__errf(err, -errno, "%s: rename from %s: %s", path, tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    fsync_dir_of(path);
out:
    free(image);
    mm__h5quiet_end(&q);
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
                      path, FORMAT_TAG);
    else if (a == -2)
        rc = mm__errf(err, MM_EFORMAT, "%s: attribute mmsim_format: must be a string (expected %s)",
                      path, FORMAT_TAG);
    else if (a == -3)
        rc = mm__errf(err, -ENOMEM, "%s: out of memory reading attribute mmsim_format", path);
    else if (strcmp(tag, FORMAT_TAG) != 0)
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: attribute mmsim_format: '%s' is not a tick file format (expected %s)",
                      path, tag, FORMAT_TAG);
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
    hid_t ds[8];
    for (int i = 0; i < 8; i++)
        ds[i] = -1;
    mm_ticks t = {0};
    int rc = 0;
    int64_t n = -1;

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
        if (H5Lexists(grp, COLS[i].name, H5P_DEFAULT) <= 0) {
            rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: column %s: missing", path, sym,
                          COLS[i].name);
            goto out;
        }
        ds[i] = H5Dopen2(grp, COLS[i].name, H5P_DEFAULT);
        if (ds[i] < 0) {
            rc = mm__errf(err, MM_EFORMAT, "%s: instrument %s: column %s: not a dataset", path, sym,
                          COLS[i].name);
            goto out;
        }
        hid_t type = H5Dget_type(ds[i]);
        int ok = H5Tget_class(type) == H5T_INTEGER && (int)H5Tget_size(type) == COLS[i].size &&
                 H5Tget_sign(type) == H5T_SGN_2;
        if (!ok) {
            rc = mm__errf(
                err, MM_EFORMAT,
                "%s: instrument %s: column %s: wrong dtype (%s of %d bytes%s), expected int%d",
                path, sym, COLS[i].name, class_name(type), (int)H5Tget_size(type),
                H5Tget_class(type) == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE
                    ? ", unsigned"
                    : "",
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
            rc = mm__errf(
                err, MM_EFORMAT,
                "%s: instrument %s: column %s: must be one-dimensional (has %d dimensions)", path,
                sym, COLS[i].name, nd);
            goto out;
        }
        if (i == 0)
            n = (int64_t)dim;
        else if ((int64_t)dim != n) {
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: instrument %s: column %s: length %" PRId64
                          " differs from ts_ns length %" PRId64,
                          path, sym, COLS[i].name, (int64_t)dim, n);
            goto out;
        }
    }
    if (!have_fp && !(flags & MM_LOAD_NO_VERIFY)) {
        rc = mm__errf(
            err, MM_EFORMAT,
            "%s: instrument %s: attribute fingerprint: missing (skip the check with --no-verify)",
            path, sym);
        goto out;
    }
    rc = mm_ticks_alloc(&t, n, (flags & MM_LOAD_SHM) ? MM_MEM_SHM : MM_MEM_HEAP);
    if (rc) {
        if (flags & MM_LOAD_SHM)
            mm__errf(err, rc,
                     "%s: instrument %s: cannot allocate %zu bytes of shared memory (/dev/shm) for "
                     "%" PRId64 " rows: %s",
                     path, sym, mm__ticks_block_bytes(n), n, mm_strerror(rc));
        else
            mm__errf(err, rc, "%s: instrument %s: cannot allocate %" PRId64 " rows: %s", path, sym,
                     n, mm_strerror(rc));
        goto out;
    }
    for (int i = 0; i < 8 && n > 0; i++) {
        if (H5Dread(ds[i], native_type(i), H5S_ALL, H5S_ALL, H5P_DEFAULT, col_ptr(&t, i)) < 0) {
            rc = mm__errf(err, MM_EHDF5, "%s: instrument %s: column %s: read error", path, sym,
                          COLS[i].name);
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
                          "%s: instrument %s: fingerprint mismatch: stored %016" PRIx64
                          ", content %016" PRIx64
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
            rc = mm__errf(err, MM_EUSAGE, "%s: holds %d instruments; name one with --symbol", path,
                          count);
        symbol = only[0];
    }
    if (rc == 0) rc = load_group(file, path, symbol, flags, out, err);
    H5Fclose(file);
done:
    mm__h5quiet_end(&q);
    return rc;
}
