/* Helpers for the Criterion tests: run the mmsim binary, temporary paths, raw HDF5 writing for
 * malformed-file tests. Tools and tests only; never linked into the library. */
#ifndef MM_TESTUTIL_H
#define MM_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"

/* Run argv (argv[0] = "mmsim" is replaced by $MMSIM_BIN) and capture stdout and stderr
 * (NUL-terminated, caller frees). Returns the exit status, or 128 + signal number. */
int tu_run(const char *const *argv, char **out, char **err);

/* A fresh temporary directory for this test (removed by tu_cleanup); returns its path. */
const char *tu_tmpdir(void);
/* Path inside the temporary directory (static buffer rotated over 8 slots). */
const char *tu_path(const char *name);
void tu_cleanup(void);

/* Number of lines in s (a final line without newline counts). */
int tu_lines(const char *s);

/* Directory of the shared real data (../shared/data beside the checkout), or NULL when absent. */
const char *tu_shared_data(void);

/* Criterion assertions that two tapes hold the same rows, fingerprint, symbol, tick and lot size.
 */
void tu_assert_same_ticks(const mm_ticks *a, const mm_ticks *b);

/* A hand-built tape row: time (ms after 1e12 ns), bid px x size, ask px x size (size 0: that side
 * empty), trade px x size x side. */
typedef struct tu_row {
    double ms;
    int32_t b, bs, a, as, tpx, tsz, tside;
} tu_row;
/* The tape of rows r[0 .. n) (heap; crossed rows allowed) of instrument symbol, tick and lot. */
mm_ticks tu_rows_tape(const tu_row *r, int n, const char *symbol, double tick, double lot);

/* A hand-built depth row (docs/formats.md "Depth"): tape row, side (+1 bid, -1 ask), price, size
 * after, cause (enum mm_depth_cause), and with order ids the joining row (ADD: its own row; a
 * removal: the row its order joined, -1 before the file; left 0 in a row of a stream without ids,
 * where it is written -1). */
typedef struct tu_drow {
    int64_t row;
    int side;
    int32_t px, sz;
    int cause;
    int64_t join;
} tu_drow;
/* tu_rows_tape with the depth stream d[0 .. nd) of `levels` levels per side, with order ids when
 * ids = 1. */
mm_ticks tu_rows_depth_tape(const tu_row *r, int n, const tu_drow *d, int nd, int levels, int ids,
                            const char *symbol, double tick, double lot);

/* A small valid synthetic tape (heap) of n rows. */
void tu_small_tape(mm_ticks *t, int64_t n, uint64_t seed);
/* The path of fixtures/<rel> (MMSIM_FIXTURES, set by meson test; asserted); four calls' results
 * stay valid at once. */
const char *tu_fixture(const char *rel);
/* mm_gen_ticks(gp) added to the tick file at path (created if absent); asserts on error. */
void tu_gen_write(const char *path, const mm_gen_params *gp);

/* 1 when sweep engine e can run on this machine (the CUDA engine needs a device). */
int tu_engine_runs(int e);

/* Write a tape with the HDF5 C API and no validation, so tests can store malformed data. Column
 * `override_col` (or NULL) is written with HDF5 type `override_type` (an H5T_* id cast to int64_t)
 * and `override_len` rows (-1: same as the others); `skip_col` is left out entirely; fingerprint
 * written as given in t->inst.fingerprint. */
void tu_write_raw(const char *path, const mm_ticks *t, const char *skip_col,
                  const char *override_col, int64_t override_type, int64_t override_len);

#endif
