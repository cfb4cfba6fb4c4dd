/* The HDF5 tick store (layout in docs/formats.md):
 *
 *   /                      attribute mmsim_format = "mmsim-ticks/1"
 *   /ticks/<SYMBOL>/       group, attributes symbol, source, tick_size, lot_size, fingerprint,
 * allow_crossed, year_seconds (when recorded) /ticks/<SYMBOL>/ts_ns  int64 [n], and bid_px ask_px
 * bid_sz ask_sz trade_px trade_sz (int32 [n]), trade_side (int8 [n]); chunked, optionally shuffle +
 * deflate. A tape with depth adds the group /ticks/<SYMBOL>/depth (attributes levels, ids; columns
 * row join px sz side cause, [m] each). A tape with a signal adds /ticks/<SYMBOL>/signal (float64
 * [n], attribute name).
 *
 * This file writes (mm_ticks_write); h5store_read.c reads (mm_ticks_list, mm_ticks_load).
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

#include "mm_h5store.h"
#include "mm_h5util.h"
#include "mm_internal.h"
#include "mm_stale_tmp.h"

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

/* One column of n rows: `name`, of type ftype in the file, mtype in memory, from buf. */
static int write_typed(hid_t grp, const char *name, hid_t ftype, hid_t mtype, const void *buf,
                       int64_t n, const mm_write_opts *o)
{
    hsize_t dims = (hsize_t)n, maxdims = H5S_UNLIMITED;
    hsize_t chunk = (hsize_t)(o->chunk_rows > 0 ? o->chunk_rows : 65536);
    if (n > 0 && chunk > (hsize_t)n) chunk = (hsize_t)n;
    int rc = -1;
    hid_t space = H5Screate_simple(1, &dims, &maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds = -1;
    if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0) goto out;
    if (o->compress_level > 0 &&
        (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, (unsigned)o->compress_level) < 0))
        goto out;
    ds = H5Dcreate2(grp, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) goto out;
    if (n > 0 && H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) goto out;
    rc = 0;
out:
    if (ds >= 0 && H5Dclose(ds) < 0) rc = -1;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return rc;
}

/* One integer column of n rows: `name`, `size` bytes an element, from buf. */
static int write_column(hid_t grp, const char *name, int size, const void *buf, int64_t n,
                        const mm_write_opts *o)
{
    return write_typed(grp, name, mm__int_col_type(size, 1), mm__int_col_type(size, 0), buf, n, o);
}

static int write_group(hid_t file, const char *path, const mm_ticks *t, const mm_write_opts *o,
                       mm_error *err)
{
    hid_t ticks = -1, grp = -1, dgrp = -1;
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
            rc = mm__errf(
                err, -EEXIST,
                "%s: instrument %s: already in the file (mm_write_opts.replace replaces it)", path,
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
        mm__attr_put(grp, "fingerprint", H5T_STD_U64LE, H5T_NATIVE_UINT64, &t->inst.fingerprint,
                     -1) ||
        mm__attr_put(grp, "allow_crossed", H5T_STD_I8LE, H5T_NATIVE_INT8, &crossed, -1) ||
        (t->inst.year_s > 0 && mm__attr_put(grp, "year_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                            &t->inst.year_s, -1))) {
        mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot write attributes", path, sym);
        goto out;
    }
    for (int i = 0; i < 8; i++) {
        if (write_column(grp, MM__TICK_COLS[i].name, MM__TICK_COLS[i].size, mm__tick_col_ptr(t, i),
                         t->n, o)) {
            mm__errf(err, MM_EHDF5, "%s: instrument %s: column %s: cannot write", path, sym,
                     MM__TICK_COLS[i].name);
            goto out;
        }
    }
    /* The depth stream, only for a tape that has one: an L1 tape's group is as before. */
    if (t->depth.levels > 0) {
        int8_t ids = (int8_t)t->depth.ids;
        dgrp = H5Gcreate2(grp, MM__DEPTH_GROUP, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (dgrp < 0 ||
            mm__attr_put(dgrp, "levels", H5T_STD_I32LE, H5T_NATIVE_INT32, &t->depth.levels, -1) ||
            mm__attr_put(dgrp, "ids", H5T_STD_I8LE, H5T_NATIVE_INT8, &ids, -1)) {
            mm__errf(err, MM_EHDF5, "%s: instrument %s: cannot create group depth", path, sym);
            goto out;
        }
        for (int i = 0; i < 6; i++) {
            if (write_column(dgrp, MM__DEPTH_COLS[i].name, MM__DEPTH_COLS[i].size,
                             mm__depth_col_ptr(t, i), t->depth.n, o)) {
                mm__errf(err, MM_EHDF5, "%s: instrument %s: depth column %s: cannot write", path,
                         sym, MM__DEPTH_COLS[i].name);
                goto out;
            }
        }
    }
    /* The signal, only for a tape that has one: a float64 column with its name as an attribute. */
    if (t->signal) {
        hid_t sds = -1;
        int bad = write_typed(grp, MM__SIGNAL_COL, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, t->signal,
                              t->n, o) ||
                  (sds = H5Dopen2(grp, MM__SIGNAL_COL, H5P_DEFAULT)) < 0 ||
                  mm__attr_put_str(sds, "name", t->signal_name);
        if (sds >= 0) H5Dclose(sds);
        if (bad) {
            mm__errf(err, MM_EHDF5, "%s: instrument %s: column signal: cannot write", path, sym);
            goto out;
        }
    }
    rc = 0;
out:
    if (dgrp >= 0) H5Gclose(dgrp);
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
    /* Size the in-memory file once, to about its final size: 33 bytes a row (41 with a signal) and
     * 26 a depth row for
     * whole chunks (the last chunk is stored whole), the old file, 1 MiB of metadata. The driver
     * zeroes every step it grows by, so a step too small would double the memory touched. */
    size_t chunk = (size_t)(o->chunk_rows > 0 ? o->chunk_rows : 65536);
    size_t rows = t->n > 0 ? ((size_t)t->n + chunk - 1) / chunk * chunk : 0;
    size_t drows = t->depth.n > 0 ? ((size_t)t->depth.n + chunk - 1) / chunk * chunk : 0;
    size_t incr = rows * (t->signal ? 41 : 33) + drows * 26 + (size_t)(exists ? old_size : 0) +
                  ((size_t)1 << 20);
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
    if (!exists && mm__attr_put_str(file, "mmsim_format", MM__TICKS_FORMAT)) {
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
        mm__attr_get_strbuf(f, "mmsim_format", tag,
                            sizeof tag); /* "" when missing or not a string */
        H5Fclose(f);
        if (strcmp(tag, MM__TICKS_FORMAT) != 0) {
            rc = tag[0] ? mm__errf(err, MM_EFORMAT,
                                   "%s: is a %s file, not a tick file (refusing to write into it)",
                                   path, tag)
                        : mm__errf(err, MM_EFORMAT,
                                   "%s: is an HDF5 file without mmsim_format = %s, not a tick file "
                                   "(refusing to write into it)",
                                   path, MM__TICKS_FORMAT);
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
