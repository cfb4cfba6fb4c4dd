/* mmsim: a market-making tick simulator.
 *
 * This header is the entry point of the public API: the export macro, the version, error codes and
 * the error context that every library call fills in. The tick store lives in <mmsim/ticks.h>.
 *
 * Conventions (all public functions):
 *   - return 0 on success or a negative error code (a negated errno value such as -EINVAL or
 * -ENOMEM, or one of the MM_E* codes below); mm_strerror() turns a code into text;
 *   - take an optional `mm_error *err` (may be NULL) that receives a one-line message naming the
 * file, instrument, column and row concerned; the library never prints and never exits.
 */
#ifndef MMSIM_MMSIM_H
#define MMSIM_MMSIM_H

#include <stddef.h>
#include <stdint.h>

#if defined(MM_BUILDING_LIB)
#define MM_API __attribute__((visibility("default")))
#else
#define MM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MM_VERSION_MAJOR 0
#define MM_VERSION_MINOR 1
#define MM_VERSION_PATCH 0

/* Error codes beyond errno. All are negative; -errno values are used for system errors. */
enum mm_errcode {
    MM_EFORMAT =
        -1000, /* input file is not in the expected format (not HDF5, missing column, dtype) */
    MM_EINVALID =
        -1001, /* input data violates a validation rule (unsorted times, negative size, ...) */
    MM_ECHECKSUM = -1002,    /* stored fingerprint does not match the content */
    MM_ENOTFOUND = -1003,    /* instrument or object not found */
    MM_EHDF5 = -1004,        /* the HDF5 library reported an error */
    MM_EUSAGE = -1005,       /* a parameter or configuration value is invalid */
    MM_EINTERRUPTED = -1006, /* stopped on request (mm_sweep_opts.cancel); completed work is kept */
    MM_ELOCKED = -1007, /* the output is being written by another process (its journal is locked) */
};

/* One-line, human-readable error context. `msg` is always NUL-terminated and never contains a
 * newline. */
typedef struct mm_error {
    int code;
    char msg[768];
} mm_error;

/* Text for an error code (never NULL). */
MM_API const char *mm_strerror(int code);

/* Library version as "MAJOR.MINOR.PATCH". */
MM_API const char *mm_version(void);

#ifdef __cplusplus
}
#endif

#include "mmsim/sim.h"
#include "mmsim/ticks.h"

#endif
