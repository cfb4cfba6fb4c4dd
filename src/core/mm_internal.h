/* Internal helpers shared by every layer: error formatting and the column layout of a tape. */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"

/* Fill err (if not NULL) with code and a printf-style one-line message; returns code. Newlines in
 * the formatted text are replaced by spaces so the message stays on one line. */
int mm__errf(mm_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A strict decimal number, nothing around it (no blanks, hex, octal, inf or nan). integer:
 * [-]digits; otherwise [+-] digits [. digits] [(e|E) [+-] digits], or with digits after the point
 * only. The one check the CLI and the results queries share (params_keys.c). */
int mm__is_decimal(const char *s, int integer);

/* A grid range lo:hi:step in decimal (decimal.c, docs/sweep.md "Ranges"): value k is
 * (lo + k x step) x 10^e exactly, lo and step integers over the common exponent e. */
typedef struct mm__decimal_range {
    int64_t lo, step;
    int32_t e;
} mm__decimal_range;
/* From the bounds' text (strict decimals, mm__is_decimal): 0, or -1 when they do not fit 18
 * significant digits over a common exponent (the caller then computes in binary). */
int mm__decimal_range_init(const char *lo, const char *step, mm__decimal_range *r);
/* Value k, the decimal converted to the nearest double once: 0, or -1 on overflow. */
int mm__decimal_range_value(const mm__decimal_range *r, int64_t k, double *v);
/* The shortest "%.Ng" text of v (N = 1..17) that reads back as exactly v; an integer below 2^53 as
 * one ("60", not "6e+01"; -0 as "-0"). Returns buf. */
const char *mm__fmt_shortest(double v, char *buf, size_t cap);

/* 1 if s is a valid instrument symbol: [A-Za-z0-9._-]+, shorter than MM_SYMBOL_MAX. */
int mm__valid_symbol(const char *s);

/* Column alignment of every tape block, bytes. */
#define MM_COL_ALIGN 64

/* Bytes of the single block that holds n rows of all columns, each column MM_COL_ALIGN-aligned. */
size_t mm__ticks_block_bytes(int64_t n);

/* Point t's column pointers into `base` (MM_COL_ALIGN-aligned, mm__ticks_block_bytes(n) bytes). */
void mm__ticks_bind(mm_ticks *t, void *base, int64_t n);

/* Heap allocation of a zeroed block for n rows (core code uses this; shared memory lives in io). */
int mm__ticks_alloc_heap(mm_ticks *t, int64_t n);

/* Parameter keys by index (params_keys.c): index of a key (-1 if unknown), and a copy of that one
 * field. */
int mm__params_key_index(const char *key);
void mm__params_copy_key(mm_params *dst, const mm_params *src, int key_index);

#endif
