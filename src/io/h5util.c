/* HDF5 helpers shared by the tick store, the results table and the command line (mm_h5util.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm_h5guard.h"
#include "mm_h5util.h"
#include "mm_internal.h"

/* Error stack walk: the first "errno = N" in a description (H5FD sec2: "file write failed: ...,
 * errno = 28, error message = 'No space left on device', ..."). */
static herr_t find_errno(unsigned n, const H5E_error2_t *e, void *data)
{
    (void)n;
    int *found = data;
    const char *p = e && e->desc ? strstr(e->desc, "errno = ") : NULL;
    if (p && *found == 0) {
        long v = strtol(p + 8, NULL, 10);
        if (v > 0 && v < 4096) *found = (int)v;
    }
    return 0;
}

/* Called by HDF5 instead of printing when an API call fails. */
static herr_t capture(hid_t stack, void *data)
{
    mm__h5quiet *q = data;
    if (q->sys_errno == 0) H5Ewalk2(stack, H5E_WALK_DOWNWARD, find_errno, &q->sys_errno);
    return 0;
}

void mm__h5quiet_begin(mm__h5quiet *q)
{
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    q->sys_errno = 0;
    H5Eset_auto2(H5E_DEFAULT, capture, q);
}

void mm__h5quiet_end(mm__h5quiet *q)
{
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

static hid_t vlen_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static hid_t space_of(int32_t n)
{
    if (n < 0) return H5Screate(H5S_SCALAR);
    hsize_t d = (hsize_t)n;
    return H5Screate_simple(1, &d, NULL);
}

int mm__attr_put(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *vals, int32_t n)
{
    hid_t space = space_of(n);
    hid_t a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a < 0 ? -1 : (n == 0 ? 0 : H5Awrite(a, mtype, vals));
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return r < 0 ? -1 : 0;
}

int mm__attr_put_str(hid_t obj, const char *name, const char *val)
{
    hid_t t = vlen_str_type();
    const char *v = val ? val : "";
    int r = mm__attr_put(obj, name, t, t, &v, -1);
    H5Tclose(t);
    return r;
}

int mm__attr_put_strs(hid_t obj, const char *name, const char *const *vals, int32_t n)
{
    hid_t t = vlen_str_type();
    int r = mm__attr_put(obj, name, t, t, vals, n);
    H5Tclose(t);
    return r;
}

int64_t mm__attr_len(hid_t obj, const char *name)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t space = H5Aget_space(a);
    int nd = H5Sget_simple_extent_ndims(space);
    int64_t n = nd == 0 || nd == 1 ? (int64_t)H5Sget_simple_extent_npoints(space) : -2;
    if (H5Sget_simple_extent_type(space) == H5S_NULL) n = 0;
    H5Sclose(space);
    H5Aclose(a);
    return n;
}

/* Read all n strings of a (scalar or 1-D) variable-length string attribute into malloc'd copies. */
static int read_strs(hid_t obj, const char *name, char **out, int32_t n)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t ftype = H5Aget_type(a);
    int rc = -2;
    if (H5Tget_class(ftype) == H5T_STRING && H5Tis_variable_str(ftype) > 0) {
        hid_t mt = vlen_str_type();
        H5Tset_cset(mt,
                    H5Tget_cset(ftype)); /* HDF5 converts no character sets: read ASCII as ASCII */
        char **tmp = calloc((size_t)n + 1, sizeof *tmp);
        if (!tmp) rc = -3;
        if (tmp && (n == 0 || H5Aread(a, mt, tmp) >= 0)) {
            rc = 0;
            for (int32_t i = 0; i < n; i++) {
                out[i] = strdup(tmp[i] ? tmp[i] : "");
                if (!out[i]) rc = -3;
            }
            hid_t space = H5Aget_space(a);
            if (n > 0) MM_H5_RECLAIM(mt, space, tmp);
            H5Sclose(space);
        }
        free(tmp);
        H5Tclose(mt);
    }
    H5Tclose(ftype);
    H5Aclose(a);
    return rc;
}

int mm__attr_get_str(hid_t obj, const char *name, char **out)
{
    int64_t n = mm__attr_len(obj, name);
    if (n == -1) return -1;
    if (n != 1) return -2;
    return read_strs(obj, name, out, 1);
}

int mm__attr_get_strs(hid_t obj, const char *name, char ***out, int32_t *n)
{
    int64_t len = mm__attr_len(obj, name);
    if (len < 0) return (int)len;
    if (len > INT32_MAX) return -2;
    char **v = calloc((size_t)len + 1, sizeof *v);
    if (!v) return -3;
    int rc = read_strs(obj, name, v, (int32_t)len);
    if (rc) {
        for (int64_t i = 0; i < len; i++)
            free(v[i]);
        free(v);
        return rc;
    }
    *out = v;
    *n = (int32_t)len;
    return 0;
}

int mm__attr_get(hid_t obj, const char *name, hid_t mtype, H5T_class_t cls, void *vals, int32_t n)
{
    int64_t len = mm__attr_len(obj, name);
    if (len == -1) return -1;
    if (len != n) return -2;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t t = H5Aget_type(a);
    int rc = H5Tget_class(t) == cls && (n == 0 || H5Aread(a, mtype, vals) >= 0) ? 0 : -2;
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

int mm__attr_get_strbuf(hid_t obj, const char *name, char *buf, size_t cap)
{
    buf[0] = 0;
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t type = H5Aget_type(a);
    int rc = -2;
    if (H5Tget_class(type) == H5T_STRING) {
        /* Read in the attribute's own character set: HDF5 converts none. */
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_cset(mt, H5Tget_cset(type));
        if (H5Tis_variable_str(type) > 0) {
            H5Tset_size(mt, H5T_VARIABLE);
            char *s = NULL;
            if (H5Aread(a, mt, &s) >= 0 && s) {
                snprintf(buf, cap, "%s", s);
                H5free_memory(s);
                rc = 0;
            }
        } else {
            /* Fixed length: room for every byte and a terminator, whatever the padding. */
            size_t sz = H5Tget_size(type);
            char *tmp = calloc(1, sz + 1);
            H5Tset_size(mt, sz + 1);
            H5Tset_strpad(mt, H5T_STR_NULLTERM);
            if (!tmp)
                rc = -3;
            else if (H5Aread(a, mt, tmp) >= 0) {
                snprintf(buf, cap, "%s", tmp);
                rc = 0;
            }
            free(tmp);
        }
        H5Tclose(mt);
    }
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}

int mm__h5_open_ro(const char *path, hid_t *file, mm_error *err)
{
    *file = -1;
    if (MM_H5_IS_HDF5(path) <= 0) return MM__H5_NOT_HDF5;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return MM__H5_NO_OPEN;
    /* Before the first variable-length string is read: a corrupt global heap would hang
     * HDF5 1.10.8. */
    int rc = mm__h5_guard(f, path, err);
    if (rc) {
        H5Fclose(f);
        return rc;
    }
    *file = f;
    return 0;
}

#define MM__UB_KEY "mmsim_format="

int mm__h5_userblock_put(const char *path, const char *tag)
{
    char ub[MM__H5_USERBLOCK] = {0};
    int len = snprintf(ub, sizeof ub, MM__UB_KEY "%s\n", tag);
    if (len < 0 || (size_t)len >= sizeof ub) return -EINVAL;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    ssize_t w = pwrite(fd, ub, sizeof ub, 0);
    int rc = w == (ssize_t)sizeof ub ? 0 : w < 0 ? -errno : -EIO;
    if (close(fd) != 0 && rc == 0) rc = -errno;
    return rc;
}

int mm__h5_userblock_tag(const char *path, char *tag, size_t cap)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char b[MM__H5_USERBLOCK + 8];
    if (cap) tag[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = pread(fd, b, sizeof b, 0);
    close(fd);
    size_t k = sizeof MM__UB_KEY - 1;
    if (n != (ssize_t)sizeof b || memcmp(b, MM__UB_KEY, k) || memcmp(b + MM__H5_USERBLOCK, sig, 8))
        return 0;
    const unsigned char *nl = memchr(b + k, '\n', MM__H5_USERBLOCK - k);
    if (!nl || (size_t)(nl - b - k) >= cap) return 0;
    memcpy(tag, b + k, (size_t)(nl - b - k));
    tag[nl - b - k] = 0;
    return 1;
}
