/* HDF5 helpers shared by the tick store (h5store.c), the results table (src/sweep/results*.c) and
 * the command line's output checks (src/cli/cli_util.c): the names that differ between HDF5 1.10
 * and 1.12+, a quiet error stack, string and numeric attributes, and opening a file from outside
 * read-only with the corrupt-heap guard (mm_h5guard.h) run before anything reads a variable-length
 * string from it. Internal to the library (mm__ names); nothing here prints. */
#ifndef MM_H5UTIL_H
#define MM_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"

/* HDF5 1.10 (Debian 12) and 1.12+ name a few calls differently. */
#if H5_VERSION_GE(1, 12, 0)
#define MM_H5_IS_HDF5(p) H5Fis_accessible((p), H5P_DEFAULT)
#define MM_H5_RECLAIM(type, space, buf) H5Treclaim((type), (space), H5P_DEFAULT, (buf))
#define MM_H5_LITERATE H5Literate2
typedef H5L_info2_t mm__h5_linfo;
#else
#define MM_H5_IS_HDF5(p) H5Fis_hdf5(p)
#define MM_H5_RECLAIM(type, space, buf) H5Dvlen_reclaim((type), (space), H5P_DEFAULT, (buf))
#define MM_H5_LITERATE H5Literate
typedef H5L_info_t mm__h5_linfo;
#endif

/* Silence HDF5's automatic error printing for the duration of one public call. Instead of printing,
 * a failing HDF5 call records in sys_errno the first system error behind it (HDF5's file drivers
 * put "errno = N" in the error stack's text: a full disk is ENOSPC), so the caller can report the
 * system error
 * ("OUT: No space left on device") rather than the HDF5 call that saw it. */
typedef struct mm__h5quiet {
    H5E_auto2_t func;
    void *data;
    int sys_errno;
} mm__h5quiet;
void mm__h5quiet_begin(mm__h5quiet *q);
void mm__h5quiet_end(mm__h5quiet *q);

/* Open path read-only if it is an HDF5 file, then run mm__h5_guard on it. Returns 0 with *file
 * open; MM__H5_NOT_HDF5 (path is not an HDF5 file) or MM__H5_NO_OPEN (HDF5 says it is one but
 * cannot open it), both positive and leaving err untouched so that each caller words them; or the
 * guard's negative error (MM_EFORMAT "PATH: corrupt HDF5 file (...)", -ENOMEM), recorded in err.
 * *file is -1 on every failure. Call it inside mm__h5quiet_begin/end. */
enum { MM__H5_NOT_HDF5 = 1, MM__H5_NO_OPEN = 2 };
int mm__h5_open_ro(const char *path, hid_t *file, mm_error *err);

/* The user block of files mmsim writes (results files: docs/results.md, "User block"): the first
 * MM__H5_USERBLOCK bytes, before HDF5's superblock, hold the text "mmsim_format=TAG\n" and zeros,
 * TAG being the root attribute mmsim_format. It tells what a file is without opening it with HDF5
 * (the HDF5 guard's probe and a metadata cache): cli_check_h5_kind reads it first.
 * mm__h5_userblock_put writes it into a closed file created with that user block (0, or -errno);
 * mm__h5_userblock_tag copies TAG into tag (cap bytes, NUL-terminated) and returns 1 when path
 * starts with such a block followed by the HDF5 signature, else 0 (any other file, unreadable). */
#define MM__H5_USERBLOCK 512
int mm__h5_userblock_put(const char *path, const char *tag);
int mm__h5_userblock_tag(const char *path, char *tag, size_t cap);

/* Attributes. Writers return 0 or -1. Readers return 0, -1 when missing, -2 when of the wrong type
 * or shape, -3 when memory for a string could not be allocated (the string readers). Strings are
 * written variable-length UTF-8 (what h5py returns as str). */
int mm__attr_put_str(hid_t obj, const char *name, const char *val);
int mm__attr_put_strs(hid_t obj, const char *name, const char *const *vals, int32_t n);
/* -1 for n means a scalar. */
int mm__attr_put(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *vals,
                 int32_t n);
/* A variable-length string attribute (scalar or one element) into a malloc'd copy. */
int mm__attr_get_str(hid_t obj, const char *name, char **out);
/* A 1-D (or scalar) variable-length string attribute: malloc'd array of malloc'd strings. */
int mm__attr_get_strs(hid_t obj, const char *name, char ***out, int32_t *n);
/* A string attribute, variable or fixed length, into buf of cap bytes (cap > 0), cut to cap - 1
 * bytes. buf is "" on every failure. */
int mm__attr_get_strbuf(hid_t obj, const char *name, char *buf, size_t cap);
/* Numeric attribute of exactly n elements (scalar when n == 1) of HDF5 class cls, converted to
 * mtype. */
int mm__attr_get(hid_t obj, const char *name, hid_t mtype, H5T_class_t cls, void *vals, int32_t n);
/* Number of elements of a 1-D (or scalar: 1) attribute, or -1 missing, -2 not simple. */
int64_t mm__attr_len(hid_t obj, const char *name);

#endif
