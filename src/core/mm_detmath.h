/* Deterministic elementary functions built from IEEE-754 basic operations only (+ - * / and exact
 * scaling), so results are bit-identical on every machine and on the GPU, unlike libm whose
 * last-ulp rounding differs between implementations. Requires no FMA contraction
 * (-ffp-contract=off, nvcc
 * --fmad=false). Accuracy: within 4 ulp of a correctly rounded result (tests/test_rng.c), plenty
 * for sampling. */
#ifndef MM_DETMATH_H
#define MM_DETMATH_H

#include <stdint.h>
#include <string.h>

#include "mm_hd.h"

/* Natural logarithm. Domain: finite normal x > 0, i.e. 2^-1022 <= x <= DBL_MAX (the exponent is
 * read from the bit pattern, so a zero, subnormal, infinite or NaN x gives a meaningless finite
 * number). Callers keep x in it: docs/model.md, section 1.2 lists every call and why its argument
 * is in the domain. */
MM_HD double mm_det_log(double x)
{
    MM_HD_ASSERT(x >= 2.2250738585072014e-308 && x <= 1.7976931348623157e308);
    /* Split x = m * 2^e with m in [sqrt(1/2), sqrt(2)) using the bit pattern (exact). */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7FF) - 1023;
    bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull; /* m in [1, 2) */
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        e += 1;
    }
    /* ln(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716; the series to s^23 is below 1e-18.
     */
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double sum = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2)
        sum = sum * s2 + 1.0 / (double)k;
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    return (double)e * ln2_hi + (2.0 * s * sum + (double)e * ln2_lo);
}

/* ln(1 + x), accurate also when x is small (where mm_det_log(1 + x) would lose the low bits of x in
 * the sum 1 + x). Domain: x > -1 with 1 + x in mm_det_log's domain. For -0.29 < x < 0.41: 2
 * atanh(s), s = x / (2 + x), |s| < 0.1716, the series of mm_det_log to s^23 (error below 1e-18);
 * otherwise mm_det_log(1 + x), where |ln(1 + x)| > 0.34 keeps the rounding of 1 + x within an ulp.
 */
MM_HD double mm_det_log1p(double x)
{
    if (!(x > -0.29 && x < 0.41)) return mm_det_log(1.0 + x);
    double s = x / (2.0 + x);
    double s2 = s * s;
    double sum = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2)
        sum = sum * s2 + 1.0 / (double)k;
    return 2.0 * s * sum;
}

/* Exponential function: exp(x) = 2^n * exp(r), r = x - n ln2, Taylor series of exp(r). Domain: -700
 * <= x <= 700, so that n = round(x / ln2) is in [-1010, 1010] and 2^n is built as a normal double.
 * Outside it the exponent field overflows into the sign bit or underflows and the result is
 * garbage, not inf or 0 as libm gives (exp(2147) came out as -3.9e-287): callers bound x first
 * (docs/model.md, section 1.2). */
MM_HD double mm_det_exp(double x)
{
    MM_HD_ASSERT(x >= -700.0 && x <= 700.0);
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double t = x * 1.4426950408889634;
    int n = (int)(t < 0 ? t - 0.5 : t + 0.5);
    double r = (x - (double)n * ln2_hi) - (double)n * ln2_lo; /* |r| <= 0.35 */
    /* Horner form of the Taylor polynomial to degree 14: 1 + r(1 + r/2(1 + r/3(...))). */
    double sum = 1.0;
    for (int k = 14; k >= 1; k--)
        sum = 1.0 + sum * r / (double)k;
    uint64_t bits = (uint64_t)(n + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return sum * scale;
}

#endif
