/* mm_det_exp and mm_det_log over arrays: the fast variants of the reference functions of
 * src/core/mm_detmath.h (docs/model.md 1.3), the same bits for every element. The loops are
 * compiled for the baseline and, on x86-64, for AVX2 and AVX-512, where the compiler runs 4 or 8
 * elements in the lanes of one vector: every lane performs the reference's IEEE operations in the
 * reference's order (vector +, -, *, / round like the scalar ones; no FMA contraction), so the
 * results are the reference's bits (tests/test_detmath.c checks each instruction set against a
 * table made once and against the reference). Many independent calls then overlap, where one call
 * of mm_det_exp is a chain of 14 dependent multiply-divide-add steps (docs/perf.md, "mm_det_exp
 * and mm_det_log"). */
#ifndef MM_DETMATH_N_H
#define MM_DETMATH_N_H

#include <stddef.h>

/* y[i] = mm_det_exp(x[i]) for i < n; every x[i] in [-700, 700]. y may be x (in place), or must not
 * overlap it otherwise. Runs the best instruction set this CPU has (mm__batch_isa_best). */
void mm_det_exp_n(const double *x, double *y, size_t n);
/* y[i] = mm_det_log(x[i]) for i < n; every x[i] normal, finite, > 0. Same rules as mm_det_exp_n. */
void mm_det_log_n(const double *x, double *y, size_t n);
/* The same on a given instruction set (MM_ISA_SCALAR, MM_ISA_AVX2, MM_ISA_AVX512 of mm_accel.h):
 * 0, or -ENODEV where the CPU lacks it or this build has no copy for it. */
int mm__det_exp_n_isa(int isa, const double *x, double *y, size_t n);
int mm__det_log_n_isa(int isa, const double *x, double *y, size_t n);

#endif
