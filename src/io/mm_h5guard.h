/* A guard run after HDF5 opens a file that came from outside and before anything reads a
 * variable-length string from it (docs/formats.md, "Corrupt files HDF5 cannot read"). */
#ifndef MM_H5GUARD_H
#define MM_H5GUARD_H

#include <hdf5.h>

#include "mmsim/mmsim.h"

/* HDF5 1.10.8 (Debian 12) divides by zero opening a dataset whose chunked layout has a zero
 * dimension (finding F9) and reads out of bounds on a string attribute whose heap ID names a
 * missing heap object (F7): for a file open read-only, every dataset is first opened and every
 * variable-length string attribute read in a forked child, and a child that does not exit cleanly
 * gives MM_EFORMAT "PATH: corrupt HDF5 file (HDF5 crashes reading it)". It also decodes a global
 * heap collection ("GCOL") forever when the walk over its objects does not advance (a free-space
 * object of size 0), and reads past its buffer when an object claims more bytes than its collection
 * holds; every variable-length string (each mmsim format tag) is read through such a heap, so a
 * corrupt file would hang or crash mmsim instead of being reported. This scans the file at path,
 * which is open in HDF5 as file, for such a heap: whole up to 64 MiB, above that skipping the raw
 * data of every dataset (so the cost follows the metadata, not the columns). Returns 0 (nothing
 * found; also when the file cannot be mapped: HDF5 then reports its own error), or MM_EFORMAT with
 * "PATH: corrupt HDF5 file (global heap at byte N does not advance)" or
 * "... has an object past its end)". */
int mm__h5_guard(hid_t file, const char *path, mm_error *err);

#endif
