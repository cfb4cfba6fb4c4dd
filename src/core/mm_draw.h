/* Draws of the Monte Carlo model (docs/model.md, section 3.3), written once for the host compiler
 * and nvcc (MM_HD): a normal quantile, drawn latencies and the binomial draw of cancels ahead of
 * us. Every draw is a pure function of a stream key and a position (mm_rng.h), so any engine gives
 * the same numbers. */
#ifndef MM_DRAW_H
#define MM_DRAW_H

#include <math.h>
#include <stdint.h>

#include "mm_detmath.h"
#include "mm_hd.h"
#include "mm_rng.h"
#include "mmsim/sim.h"

/* Section 3.3: the pieces of the standard normal quantile (Acklam's rational approximation) and of
 * mm__exp_quick's polynomial, written once as expressions of variables (arguments evaluated many
 * times) for a double or a vector of doubles: mm__norm_inv and mm__exp_quick below, and their lanes
 * copies (src/core/accel/sim_lanes_draw.h), do the same operations in the same order. Central
 * region: q = u - 0.5, r = q^2; tail: q = sqrt(-2 ln(min(u, 1 - u))), the value for u below 1/2. */
#define MM__NORM_CENTRAL(q, r)                                                                     \
    ((((((-3.969683028665376e+01 * (r) + 2.209460984245205e+02) * (r)-2.759285104469687e+02) *     \
            (r) +                                                                                  \
        1.383577518672690e+02) *                                                                   \
       (r)-3.066479806614716e+01) *                                                                \
          (r) +                                                                                    \
      2.506628277459239e+00) *                                                                     \
     (q) /                                                                                         \
     (((((-5.447609879822406e+01 * (r) + 1.615858368580409e+02) * (r)-1.556989798598866e+02) *     \
            (r) +                                                                                  \
        6.680131188771972e+01) *                                                                   \
       (r)-1.328068155288572e+01) *                                                                \
          (r) +                                                                                    \
      1))
#define MM__NORM_TAIL(q)                                                                           \
    ((((((-7.784894002430293e-03 * (q)-3.223964580411365e-01) * (q)-2.400758277161838e+00) *       \
        (q)-2.549732539343734e+00) *                                                               \
           (q) +                                                                                   \
       4.374664141464968e+00) *                                                                    \
          (q) +                                                                                    \
      2.938163982698783e+00) /                                                                     \
     ((((7.784695709041462e-03 * (q) + 3.224671290700398e-01) * (q) + 2.445134137142996e+00) *     \
           (q) +                                                                                   \
       3.754408661907416e+00) *                                                                    \
          (q) +                                                                                    \
      1))
#define MM__NORM_PLOW 0.02425
/* mm__exp_quick's Taylor polynomial of exp(r) to degree 13 in Estrin's scheme, r2 = r^2, r4 = r2^2,
 * r8 = r4^2, coefficients 1/k! rounded to double. */
#define MM__EXP_QUICK_POLY(r, r2, r4, r8)                                                          \
    ((((1.0 + (r)) + (0.5 + 0.16666666666666666 * (r)) * (r2)) +                                   \
      ((0.041666666666666664 + 0.008333333333333333 * (r)) +                                       \
       (0.001388888888888889 + 0.0001984126984126984 * (r)) * (r2)) *                              \
          (r4)) +                                                                                  \
     (((2.48015873015873e-05 + 2.7557319223985893e-06 * (r)) +                                     \
       (2.755731922398589e-07 + 2.505210838544172e-08 * (r)) * (r2)) +                             \
      (2.08767569878681e-09 + 1.6059043836821613e-10 * (r)) * (r4)) *                              \
         (r8))

/* Section 3.3: the standard normal quantile of u in (0, 1): Acklam's rational approximation
 * (relative error below 1.2e-9), in basic operations, mm_det_log and sqrt only. */
MM_HD double mm__norm_inv(double u)
{
    if (u < MM__NORM_PLOW || u > 1 - MM__NORM_PLOW) {
        double q = sqrt(-2 * mm_det_log(u < MM__NORM_PLOW ? u : 1 - u));
        double x = MM__NORM_TAIL(q);
        return u < MM__NORM_PLOW ? x : -x;
    }
    double q = u - 0.5, r = q * q;
    return MM__NORM_CENTRAL(q, r);
}

/* exp(x) for -700 <= x <= 700 within 2^-49 of exp(x) relative, with no division: x = n ln2 + r as
 * in mm_det_exp, then the Taylor polynomial of exp(r) to degree 13 (|r| <= 0.35: truncation below
 * 1e-17) in Estrin's scheme, coefficients 1/k! rounded to double. Not the model's exp: its value
 * may differ from mm_det_exp's in the last bits, so it only serves mm__lat_lognormal, which uses it
 * where it provably gives mm_det_exp's integer. */
MM_HD double mm__exp_quick(double x)
{
    MM_HD_ASSERT(x >= -700.0 && x <= 700.0);
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double t = x * 1.4426950408889634;
    int n = (int)(t < 0 ? t - 0.5 : t + 0.5);
    double r = (x - (double)n * ln2_hi) - (double)n * ln2_lo;
    double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    double sum = MM__EXP_QUICK_POLY(r, r2, r4, r8);
    uint64_t bits = (uint64_t)(n + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return sum * scale;
}

/* Section 3.3, lognormal: min(floor(base x mm_det_exp(v)), MM_SIM_LATENCY_MAX_NS) for v = sigma z,
 * |v| < 45. mm_det_exp is a chain of 14 dependent divisions (about 75 ns); the draw needs only the
 * integer. So first y = base x mm__exp_quick(v): both exps are within 2^-49 of exp(v) (relative;
 * mm_det_exp within 4 ulp, tests/test_rng.c), so the model's base x mm_det_exp(v) lies within 2^-47
 * y of y. Where [y (1 - 2^-40), y (1 + 2^-40)], 128x wider, holds no integer and not the cap, every
 * value in it has the same floor and the same side of the cap: that is the draw, the same bits.
 * Otherwise (about y x 2^-39 of draws: 1 in 5 million for base 100,000) mm_det_exp decides. */
MM_HD int64_t mm__lat_lognormal(int64_t base, double v)
{
    double y = (double)base * mm__exp_quick(v);
    double e = 1.0 / 1099511627776.0; /* 2^-40 */
    double lo = y * (1.0 - e), hi = y * (1.0 + e);
    double cap = (double)MM_SIM_LATENCY_MAX_NS;
    if (lo >= cap) return MM_SIM_LATENCY_MAX_NS;
    if (hi < cap && (int64_t)lo == (int64_t)hi) return (int64_t)lo;
    double x = (double)base * mm_det_exp(v);
    if (!(x < cap)) return MM_SIM_LATENCY_MAX_NS;
    return (int64_t)x;
}

/* Section 3.3: a latency around `base` ns, drawn at (purpose, a, b) of the stream `key`: constant:
 * base; empirical: base + samp[floor(u x nsamp)] (at most MM_SIM_LATENCY_MAX_NS); exponential with
 * mean base: -base ln(u); lognormal with median base: base exp(sigma z), z = mm__norm_inv(u); u =
 * mm_u01 of the draw's words 0 and 1; truncated to whole ns, at most MM_SIM_LATENCY_MAX_NS. base 0
 * draws nothing. */
MM_HD_BIG int64_t mm__draw_latency(uint64_t key, int32_t dist, double sigma, int64_t base,
                                   uint32_t purpose, uint64_t a, uint32_t b, const int64_t *samp,
                                   int64_t nsamp)
{
    if (dist == MM_LAT_CONSTANT || (base == 0 && dist != MM_LAT_EMPIRICAL)) return base;
    mm_u32x4 r = mm_stream4(key, purpose, a, b);
    double u = mm_u01(r.v[0], r.v[1]);
    if (dist == MM_LAT_EMPIRICAL) {
        if (nsamp <= 0) return base;
        int64_t x = base + samp[(int64_t)(u * (double)nsamp)]; /* u < 1: an index below nsamp */
        return x > MM_SIM_LATENCY_MAX_NS ? MM_SIM_LATENCY_MAX_NS : x;
    }
    if (dist == MM_LAT_LOGNORMAL) return mm__lat_lognormal(base, sigma * mm__norm_inv(u));
    double x = -(double)base * mm_det_log(u);
    if (!(x < (double)MM_SIM_LATENCY_MAX_NS)) return MM_SIM_LATENCY_MAX_NS;
    return (int64_t)x;
}

/* Section 3.3, BTRD: the Stirling correction fc(k) = ln k! - ((k + 1/2) ln(k + 1) - (k + 1) +
 * ln(2 pi) / 2). For k <= 15 the correctly rounded value (computed to 50 digits); otherwise the
 * series 1/(12 x) - 1/(360 x^3) + 1/(1260 x^5) - 1/(1680 x^7), x = k + 1, evaluated as written
 * below (truncation error below 7e-15). */
MM_HD double mm__binom_fc(int64_t k)
{
    switch (k) {
    case 0:
        return 0.08106146679532726;
    case 1:
        return 0.0413406959554093;
    case 2:
        return 0.02767792568499834;
    case 3:
        return 0.020790672103765093;
    case 4:
        return 0.016644691189821193;
    case 5:
        return 0.013876128823070748;
    case 6:
        return 0.01189670994589177;
    case 7:
        return 0.010411265261972096;
    case 8:
        return 0.009255462182712733;
    case 9:
        return 0.00833056343336287;
    case 10:
        return 0.007573675487951841;
    case 11:
        return 0.00694284010720953;
    case 12:
        return 0.006408994188004207;
    case 13:
        return 0.0059513701127588475;
    case 14:
        return 0.005554733551962801;
    case 15:
        return 0.0052076559196096404;
    }
    double x = 1.0 / (double)(k + 1), x2 = x * x;
    return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - x2 / 1680.0) * x2) * x2) * x;
}

/* Section 3.3, BTRD step 3.3: ln(f(k) / f(m)) for the Binomial(n, p) pmf f, with m = floor((n + 1)
 * p), r = p / (1 - p), 0 <= k <= n: Hoermann's expression h + (n + 1) ln(nm / nk) + (k + 1/2)
 * ln(nk r / (k + 1)) - fc(k) - fc(n - k), h = (m + 1/2) ln((m + 1) / (r nm)) + fc(m) + fc(n - m),
 * nm = n - m + 1, nk = n - k + 1, with ln(nm / nk) taken as ln(1 + (k - m) / nk) (mm_det_log1p:
 * multiplied by n + 1, a plain ln of the rounded quotient would cost n x 1e-16). */
MM_HD double mm__binom_lnratio(int64_t n, double r, int64_t m, int64_t k)
{
    int64_t nm = n - m + 1, nk = n - k + 1;
    double h = ((double)m + 0.5) * mm_det_log(((double)m + 1.0) / (r * (double)nm)) +
               mm__binom_fc(m) + mm__binom_fc(n - m);
    return h + (double)(n + 1) * mm_det_log1p((double)(k - m) / (double)nk) +
           ((double)k + 0.5) * mm_det_log((double)nk * r / ((double)k + 1.0)) - mm__binom_fc(k) -
           mm__binom_fc(n - k);
}

/* Section 3.3: rounds of BTRD before it gives up and returns the mode. A round is rejected with
 * probability below 1/4 for n p >= 30 (1.13 to 1.31 rounds a draw measured, n p = 30 .. 1e9), so 64
 * rounds all rejected have probability below 1e-38. */
#define MM_BINOM_ROUNDS 64

/* Section 3.3: Binomial(n, p) for 0 < p <= 1/2 and n p >= 30 by Hoermann's BTRD (transformed
 * rejection with decomposition; "The generation of binomial random variates", J. Statist. Comput.
 * Simul. 46, 1993), exact in law up to the rounding of the acceptance test. Round j (j = 0, 1, ...)
 * reads the block at purpose word MM_RNG_BLOCK(MM_RNG_CANCELS, j), position (a, b): v = mm_u01 of
 * words 0 and 1, w = mm_u01 of words 2 and 3. Operation order as written. */
MM_HD int64_t mm__binom_btrd(uint64_t key, uint64_t a, uint32_t b, int64_t n, double p)
{
    double nd = (double)n, q = 1.0 - p;
    int64_t m = (int64_t)((nd + 1.0) * p); /* the mode; floor, the product is positive */
    double r = p / q, nr = (nd + 1.0) * r, npq = nd * p * q, spq = sqrt(npq);
    double bb = 1.15 + 2.53 * spq, aa = -0.0873 + 0.0248 * bb + 0.01 * p, c = nd * p + 0.5;
    double alpha = (2.83 + 5.1 / bb) * spq, vr = 0.92 - 4.2 / bb, urvr = 0.86 * vr;
    for (uint32_t j = 0; j < MM_BINOM_ROUNDS; j++) {
        mm_u32x4 blk = mm_stream4(key, MM_RNG_BLOCK(MM_RNG_CANCELS, j), a, b);
        double v = mm_u01(blk.v[0], blk.v[1]), w = mm_u01(blk.v[2], blk.v[3]), u;
        if (v <= urvr) { /* 1: the centre, under the pmf: accept at once */
            u = v / vr - 0.43;
            double x = floor((2.0 * aa / (0.5 - fabs(u)) + bb) * u + c);
            MM_HD_ASSERT(x >= 0 && x <= nd);
            return (int64_t)x;
        }
        if (v >= vr) { /* 2: a point (u, v) of the hat above the box */
            u = w - 0.5;
        } else { /* the tails |u| > 0.43 under the box */
            u = v / vr - 0.93;
            u = (u < 0 ? -0.5 : 0.5) - u;
            v = w * vr;
        }
        double us = 0.5 - fabs(u); /* 3.0 */
        double kd = floor((2.0 * aa / us + bb) * u + c);
        if (kd < 0 || kd > nd) continue;
        int64_t k = (int64_t)kd;
        v = v * alpha / (aa / (us * us) + bb);
        int64_t km = k > m ? k - m : m - k;
        if (km <= 15) { /* 3.1: f(k) / f(m) by the recursion f(i) / f(i - 1) = nr / i - r */
            double f = 1.0;
            if (m < k)
                for (int64_t i = m + 1; i <= k; i++)
                    f = f * (nr / (double)i - r);
            else
                for (int64_t i = k + 1; i <= m; i++)
                    v = v * (nr / (double)i - r);
            if (v <= f) return k;
            continue;
        }
        v = mm_det_log(v); /* 3.2: squeeze on ln(f(k) / f(m)) */
        double kmd = (double)km;
        double rho = (kmd / npq) * (((kmd / 3.0 + 0.625) * kmd + 1.0 / 6.0) / npq + 0.5);
        double t = -kmd * kmd / (2.0 * npq);
        if (v < t - rho) return k;
        if (v > t + rho) continue;
        if (v <= mm__binom_lnratio(n, r, m, k)) return k; /* 3.3 */
    }
    return m;
}

/* Section 3.3: a Binomial(n, p) draw at purpose MM_RNG_CANCELS, position (a, b), for n < 2^31.
 * With q = min(p, 1 - p) and mean n q: when n q < 30, inversion with u = mm_u01 of words 0 and 1 of
 * block 0: k = the smallest k with u <= P(X <= k), walking f(0) = exp(n ln(1 - q)) (ln(1 - q) as
 * mm_det_log1p(-q)), f(k + 1) = f(k) (n - k) / (k + 1) x q / (1 - q) and stopping at k = min(n,
 * floor(n q) + 100) at the latest; otherwise mm__binom_btrd(n, q). For p > 1/2 the draw is n - k
 * (k drawn with q = 1 - p, exact since p >= 1/2). n <= 0 or p <= 0: 0; p >= 1: n. */
MM_HD_BIG int64_t mm__draw_binomial(uint64_t key, uint64_t a, uint32_t b, int64_t n, double p)
{
    if (n <= 0 || !(p > 0)) return 0;
    if (p >= 1) return n;
    MM_HD_ASSERT(n <= INT64_C(2147483647));
    double q = p <= 0.5 ? p : 1 - p, m = (double)n * q;
    int64_t k;
    if (m < 30) {
        mm_u32x4 r = mm_stream4(key, MM_RNG_CANCELS, a, b);
        double u = mm_u01(r.v[0], r.v[1]);
        double f = mm_det_exp((double)n * mm_det_log1p(-q)), cum = f, ratio = q / (1 - q);
        int64_t cap = (int64_t)m + 100;
        if (cap > n) cap = n;
        k = 0;
        while (u > cum && k < cap) {
            f = f * ((double)(n - k) / (double)(k + 1)) * ratio;
            k += 1;
            cum += f;
        }
    } else {
        k = mm__binom_btrd(key, a, b, n, q);
    }
    return p <= 0.5 ? k : n - k;
}

#endif
