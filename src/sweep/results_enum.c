/* The HDF5 type of the int32 index columns (the tape axis, enum parameter axes) of the results
 * table (docs/results.md): an HDF5 ENUM over little-endian int32 whose member i is the name of
 * value i of the axis, so that h5py and pandas show names (h5py.check_enum_dtype) while the
 * column's bytes stay the int32 indexes the content hash covers.
 *
 * Files written before this (the same format tag) store a plain int32; both are read. The reader's
 * memory type uses the file's own enum where it is one over little-endian int32: the memory and the
 * file type are then equal and HDF5 copies the rows without a conversion (an enum to int32
 * conversion exists, but goes member by member through a background buffer). Writing needs the
 * enum in the memory type as well: HDF5 has no int32 to enum conversion. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "results_int.h"

hid_t mm__enum_h5type(const char *const *names, int32_t n)
{
    hid_t t = H5Tenum_create(H5T_STD_I32LE);
    for (int32_t i = 0; t >= 0 && i < n; i++) {
        /* The value is given in the enum's base type (little-endian int32: the host's, see the
         * byte order check in results_int.h). */
        if (H5Tenum_insert(t, names[i], &i) < 0) {
            H5Tclose(t);
            t = -1;
        }
    }
    return t;
}

int mm__enum_is_index(hid_t t)
{
    if (H5Tget_class(t) != H5T_ENUM) return 0;
    hid_t b = H5Tget_super(t);
    int ok = b >= 0 && H5Tget_class(b) == H5T_INTEGER && H5Tget_sign(b) == H5T_SGN_2 &&
             H5Tget_size(b) == 4;
    if (b >= 0) H5Tclose(b);
    return ok;
}

/* 1 when enum e has exactly the n members names[i] = i, 0 when not, -ENOMEM. */
static int enum_same(hid_t e, const char *const *names, int32_t n)
{
    if (H5Tget_nmembers(e) != n) return 0;
    for (int32_t i = 0; i < n; i++) {
        /* The file's base may be big-endian: compare through the converted value, not bytes. */
        int32_t v = i;
        unsigned char raw[4];
        memcpy(raw, &v, 4);
        /* Room for one character more than the expected name: a longer name differs. */
        size_t cap = strlen(names[i]) + 2;
        char *buf = malloc(cap);
        if (!buf) return -ENOMEM;
        hid_t b = H5Tget_super(e);
        int ok = b >= 0 && H5Tconvert(H5T_NATIVE_INT32, b, 1, raw, NULL, H5P_DEFAULT) >= 0 &&
                 H5Tenum_nameof(e, raw, buf, cap) >= 0 && !strcmp(buf, names[i]);
        if (b >= 0) H5Tclose(b);
        free(buf);
        if (!ok) return 0;
    }
    return 1;
}

int mm__results_mtype(hid_t ds, const mm__rlayout *l, const mm_results_axis *axes, const char *path,
                      hid_t *out, mm_error *err)
{
    *out = -1;
    int n_axes = l->n_cols - 1 - l->n_metrics;
    hid_t ft = H5Dget_type(ds);
    hid_t *enums = malloc(((size_t)n_axes + 1) * sizeof *enums);
    int rc = ft < 0 ? mm__errf(err, MM_EHDF5, "%s: /results: cannot read its type", path) : 0;
    if (!enums && rc == 0) rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
    int32_t made = 0;
    for (; rc == 0 && made < n_axes; made++) {
        const mm_results_axis *x = &axes[made];
        enums[made] = -1;
        if (x->type != MM_COL_ENUM) continue;
        int k = H5Tget_member_index(ft, x->key);
        hid_t mt = k >= 0 ? H5Tget_member_type(ft, (unsigned)k) : -1;
        if (mt < 0) {
            rc = mm__errf(err, MM_EHDF5, "%s: /results: cannot read column %s", path, x->key);
            break;
        }
        if (H5Tget_class(mt) != H5T_ENUM) { /* a plain int32: a file from before the enums */
            H5Tclose(mt);
            continue;
        }
        int same = enum_same(mt, x->names, x->n);
        if (same < 0) {
            H5Tclose(mt);
            rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
            break;
        }
        if (!same) {
            H5Tclose(mt);
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: /results column %s: its enum members are not the names of "
                          "/axes/%s in order",
                          path, x->key, x->key);
            break;
        }
        hid_t base = H5Tget_super(mt);
        int le = base >= 0 && H5Tequal(base, H5T_STD_I32LE) > 0;
        if (base >= 0) H5Tclose(base);
        if (le)
            enums[made] = mt; /* the file's own type: no conversion */
        else
            H5Tclose(mt); /* another byte order: HDF5 converts to the plain int32 */
    }
    if (rc == 0 && (*out = mm__rlayout_h5type_enums(l, enums)) < 0)
        rc = mm__errf(err, MM_EHDF5, "%s: cannot build the row type", path);
    for (int32_t a = 0; enums && a < made && a < n_axes; a++)
        if (enums[a] >= 0) H5Tclose(enums[a]);
    free(enums);
    if (ft >= 0) H5Tclose(ft);
    return rc;
}
