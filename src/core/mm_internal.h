/* Internal helpers shared by every layer: error formatting and the column layout of a tape. */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"

/* Fill err (if not NULL) with code and a printf-style one-line message; returns code. Newlines in
 * the formatted text are replaced by spaces so the message stays on one line. */
int mm__errf(mm_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* v as "%g" prints it when that reads back as v, else with the fewest digits (up to 17) that do:
 * a value in a message is the value given, never a neighbour rounded onto a bound ("1.0000001
 * must be in [0, 1]", not "1 must be in [0, 1]"). buf: MM__G_LEN bytes; returns buf. MM__G(v):
 * the same into a buffer that lives until the end of the enclosing block (a compound literal). */
#define MM__G_LEN 32
const char *mm__fmt_g(double v, char buf[MM__G_LEN]);
#define MM__G(v) mm__fmt_g((v), (char[MM__G_LEN]){0})

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

/* Bytes of the single block that holds n rows of all columns, depth_n depth rows and, when signal
 * is 1, the signal column, each column MM_COL_ALIGN-aligned (depth_n 0, signal 0: the tick columns
 * alone). */
size_t mm__ticks_block_bytes(int64_t n, int64_t depth_n, int signal);

/* Point t's column pointers (and t->depth's, with t->depth.n = depth_n; t->signal, NULL when
 * signal is 0) into `base` (MM_COL_ALIGN-aligned, mm__ticks_block_bytes(n, depth_n, signal)
 * bytes). depth.levels, .ids and signal_name are not touched. */
void mm__ticks_bind(mm_ticks *t, void *base, int64_t n, int64_t depth_n, int signal);

/* Heap allocation of a zeroed block for n rows (core code uses this; shared memory lives in io),
 * and with room for depth_n depth rows and the signal column (signal 1). */
int mm__ticks_alloc_heap(mm_ticks *t, int64_t n);
int mm__ticks_alloc_heap_depth(mm_ticks *t, int64_t n, int64_t depth_n, int signal);
/* The signal's rules (docs/formats.md, "Signal"), called by mm_ticks_validate: a tape with a
 * signal column has a valid name and only finite values (MM_EINVALID naming file, instrument,
 * column signal and row). */
int mm__signal_validate(const mm_ticks *t, const char *file, mm_error *err);

/* The depth rules of docs/formats.md ("Depth"), called by mm_ticks_validate: 0 or MM_EINVALID
 * naming file, instrument, depth column and depth row. Allocates nothing. */
int mm__depth_validate(const mm_ticks *t, const char *file, mm_error *err);
/* The depth fields of s (mm_ticks_summarize). */
void mm__depth_summarize(const mm_ticks *t, mm_ticks_stats *s);

/* Parameter keys by index (params_keys.c): index of a key (-1 if unknown), and a copy of that one
 * field. */
int mm__params_key_index(const char *key);
void mm__params_copy_key(mm_params *dst, const mm_params *src, int key_index);

/* qsort's comparison of doubles, ascending, NaN last. */
int mm__cmp_f64(const void *a, const void *b);
/* Quantile p (in [0, 1]) of the ascending x[0 .. n), n >= 1: linear between order statistics, h =
 * (n - 1) p (numpy's default "linear", Hyndman-Fan type 7). */
double mm__quantile(const double *x, int64_t n, double p);

/* MM_EUSAGE "KEY: V is not a (0), b (1) or c (2)" for the first enum key whose value is not one the
 * key table lists; else 0. */
int mm__params_check_enums(const mm_params *p, mm_error *err);

/* MM_EUSAGE "KEY: V must be in [lo, hi) unit" for the first number outside its domain in the key
 * table (keys of another strategy not checked; inv_limit's lower bound, the size, left to
 * mm_params_check); else 0. */
int mm__params_check_ranges(const mm_params *p, mm_error *err);
/* Number key i's domain in the key table: [lo, hi] (lo_open, hi_open: the bound excluded), integer:
 * an integer key. 0, or -1 for an enum key or an index out of range. */
int mm__params_key_domain(int key_index, double *lo, double *hi, int *lo_open, int *hi_open,
                          int *integer);

/* Section 3.3: the stream id of p's family (the combinations that differ from p at most in
 * inv_limit and the fee rates; docs/model.md 3.3 defines the sum). */
uint64_t mm__params_family(const mm_params *p);
/* The kernel capabilities (MM_CAP_*, mm_state.h) of p: the AND of those of each key's value. */
unsigned mm__params_caps(const mm_params *p);
/* The capabilities of key i's value v (its enum index, or its number): for tests and the docs. */
unsigned mm__params_key_caps(int key_index, double v);

/* The generator's parameters fitted by simulation (calibrate_fit.c): trade_size to the tape's lots
 * per trade row and improve_frac to its mean spread, the others already in p. Returns 0 or an
 * error of mm_gen_ticks. */
int mm__calibrate_sim(const mm_facts *f, mm_gen_params *p, mm_error *err);

#endif
