/* Internals of the HDF5 tick store shared by its writer (h5store.c) and its reader
 * (h5store_read.c): the format tag, the eight columns and the depth stream's six
 * (docs/formats.md). */
#ifndef MM_H5STORE_H
#define MM_H5STORE_H

#include <hdf5.h>

#include "mmsim/ticks.h"

#define MM__TICKS_FORMAT "mmsim-ticks/1"

/* The columns in file order; mm__tick_col_ptr(t, i) is column i of a tape. */
typedef struct mm__tick_col {
    const char *name;
    int size; /* bytes per element */
    int is_signed;
} mm__tick_col;

static const mm__tick_col MM__TICK_COLS[8] = {
    {"ts_ns", 8, 1},  {"bid_px", 4, 1},   {"ask_px", 4, 1},   {"bid_sz", 4, 1},
    {"ask_sz", 4, 1}, {"trade_px", 4, 1}, {"trade_sz", 4, 1}, {"trade_side", 1, 1},
};

static inline void *mm__tick_col_ptr(const mm_ticks *t, int i)
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

/* The depth stream (docs/formats.md, "Depth"): the subgroup /ticks/<SYMBOL>/depth, its attributes
 * levels (int32) and ids (int8), and its six columns in file and fingerprint order. */
#define MM__DEPTH_GROUP "depth"
static const mm__tick_col MM__DEPTH_COLS[6] = {
    {"row", 8, 1}, {"join", 8, 1}, {"px", 4, 1}, {"sz", 4, 1}, {"side", 1, 1}, {"cause", 1, 1},
};

static inline void *mm__depth_col_ptr(const mm_ticks *t, int i)
{
    switch (i) {
    case 0:
        return t->depth.row;
    case 1:
        return t->depth.join;
    case 2:
        return t->depth.px;
    case 3:
        return t->depth.sz;
    case 4:
        return t->depth.side;
    default:
        return t->depth.cause;
    }
}

/* The signal (docs/formats.md, "Signal"): the float64 column /ticks/<SYMBOL>/signal, [n], with
 * its name as the string attribute `name`. */
#define MM__SIGNAL_COL "signal"

/* The HDF5 type of an integer column of `size` bytes: in the file (little-endian, what
 * docs/formats.md fixes) or in memory. */
static inline hid_t mm__int_col_type(int size, int in_file)
{
    switch (size) {
    case 8:
        return in_file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    case 4:
        return in_file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
    default:
        return in_file ? H5T_STD_I8LE : H5T_NATIVE_INT8;
    }
}

/* The HDF5 type of column i: in the file (little-endian, what docs/formats.md fixes) or in memory.
 */
static inline hid_t mm__tick_col_type(int i, int in_file)
{
    switch (MM__TICK_COLS[i].size) {
    case 8:
        return in_file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    case 4:
        return in_file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
    default:
        return in_file ? H5T_STD_I8LE : H5T_NATIVE_INT8;
    }
}

#endif
