/* mm_det_exp and mm_det_log written for the vectoriser (detmath_n.c, asmarket_lanes.c): the
 * reference's text (src/core/mm_detmath.h) with its branches as selects, the same bits. */
#ifndef MM_DETMATH_LANES_H
#define MM_DETMATH_LANES_H

#include <stdint.h>
#include <string.h>

/* The reference's steps with its two branches written as selects, so that the AVX2 copies
 * vectorise too (the compiler if-converts them only for AVX-512, which has mask registers). The
 * same IEEE operations on the same operands, hence the same bits: in mm__det_exp_lane, `t + h` with
 * h = -0.5 is `t - 0.5` exactly (IEEE defines a - b as a + (-b)), and t < 0 picks h as the
 * reference picks its branch; in mm__det_log_lane, m x 0.5 and e + 1 are taken exactly when the
 * reference takes them (the factor 1.0 - 0.5 big is 0.5 or 1.0 exactly, and m x 1.0 is m). The
 * constants, the loop bounds and the order of every operation are the reference's
 * (docs/model.md 1.3). tests/test_detmath.c checks the lanes against the table. */
static inline double mm__det_exp_lane(double x)
{
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double t = x * 1.4426950408889634;
    double h = t < 0 ? -0.5 : 0.5;
    int n = (int)(t + h);
    double r = (x - (double)n * ln2_hi) - (double)n * ln2_lo;
    double sum = 1.0;
    for (int k = 14; k >= 1; k--)
        sum = 1.0 + sum * r / (double)k;
    uint64_t bits = (uint64_t)(n + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return sum * scale;
}

static inline double mm__det_log_lane(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7FF) - 1023;
    bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    double m;
    memcpy(&m, &bits, sizeof m);
    int big = m > 1.4142135623730951;
    m = m * (1.0 - 0.5 * (double)big);
    e += big;
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double sum = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2)
        sum = sum * s2 + 1.0 / (double)k;
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    return (double)e * ln2_hi + (2.0 * s * sum + (double)e * ln2_lo);
}

#endif
