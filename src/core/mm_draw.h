/* Draws of the Monte Carlo model (docs/model.md, section 3.3), written once for the host compiler
 * and nvcc (MM_HD): a normal quantile and drawn latencies. Every draw is a pure function of a
 * stream key and a position (mm_rng.h), so any engine gives the same numbers. */
#ifndef MM_DRAW_H
#define MM_DRAW_H

#include <math.h>
#include <stdint.h>

#include "mm_detmath.h"
#include "mm_hd.h"
#include "mm_rng.h"
#include "mmsim/sim.h"

/* Section 3.3: the standard normal quantile of u in (0, 1): Acklam's rational approximation
 * (relative error below 1.2e-9), in basic operations, mm_det_log and sqrt only. */
MM_HD double mm__norm_inv(double u)
{
    const double a1 = -3.969683028665376e+01, a2 = 2.209460984245205e+02,
                 a3 = -2.759285104469687e+02, a4 = 1.383577518672690e+02,
                 a5 = -3.066479806614716e+01, a6 = 2.506628277459239e+00;
    const double b1 = -5.447609879822406e+01, b2 = 1.615858368580409e+02,
                 b3 = -1.556989798598866e+02, b4 = 6.680131188771972e+01,
                 b5 = -1.328068155288572e+01;
    const double c1 = -7.784894002430293e-03, c2 = -3.223964580411365e-01,
                 c3 = -2.400758277161838e+00, c4 = -2.549732539343734e+00,
                 c5 = 4.374664141464968e+00, c6 = 2.938163982698783e+00;
    const double d1 = 7.784695709041462e-03, d2 = 3.224671290700398e-01, d3 = 2.445134137142996e+00,
                 d4 = 3.754408661907416e+00;
    const double plow = 0.02425;
    if (u < plow || u > 1 - plow) {
        double q = sqrt(-2 * mm_det_log(u < plow ? u : 1 - u));
        double x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) /
                   ((((d1 * q + d2) * q + d3) * q + d4) * q + 1);
        return u < plow ? x : -x;
    }
    double q = u - 0.5, r = q * q;
    return (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q /
           (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1);
}

/* Section 3.3: a latency around `base` ns, drawn at (purpose, a) of the stream `key`: constant:
 * base; empirical: base + samp[floor(u x nsamp)] (at most MM_SIM_LATENCY_MAX_NS); exponential with
 * mean base: -base ln(u); lognormal with median base: base exp(sigma z), z = mm__norm_inv(u); u =
 * mm_u01 of the draw's words 0 and 1; truncated to whole ns, at most MM_SIM_LATENCY_MAX_NS. base 0
 * draws nothing. */
MM_HD int64_t mm__draw_latency(uint64_t key, int32_t dist, double sigma, int64_t base,
                               uint32_t purpose, uint64_t a, const int64_t *samp, int64_t nsamp)
{
    if (dist == MM_LAT_CONSTANT || (base == 0 && dist != MM_LAT_EMPIRICAL)) return base;
    mm_u32x4 r = mm_stream4(key, purpose, a, 0);
    double u = mm_u01(r.v[0], r.v[1]);
    if (dist == MM_LAT_EMPIRICAL) {
        if (nsamp <= 0) return base;
        int64_t x = base + samp[(int64_t)(u * (double)nsamp)]; /* u < 1: an index below nsamp */
        return x > MM_SIM_LATENCY_MAX_NS ? MM_SIM_LATENCY_MAX_NS : x;
    }
    double x = dist == MM_LAT_EXPONENTIAL ? -(double)base * mm_det_log(u)
                                          : (double)base * mm_det_exp(sigma * mm__norm_inv(u));
    if (!(x < (double)MM_SIM_LATENCY_MAX_NS)) return MM_SIM_LATENCY_MAX_NS;
    return (int64_t)x;
}

/* Section 3.3: a Binomial(n, p) draw at purpose MM_RNG_CANCELS, position (a, b), u = mm_u01 of
 * words 0 and 1. With q = min(p, 1 - p) and m = n q: when m < 30, inversion: k = the smallest k
 * with u <= P(X <= k), walking f(0) = exp(n ln(1 - q)), f(k + 1) = f(k) (n - k) / (k + 1) x q / (1
 * - q) and stopping at k = min(n, floor(m) + 100) at the latest; otherwise the normal approximation
 * k = floor(m + z sqrt(m (1 - q)) + 0.5), z = mm__norm_inv(u), clamped to [0, n]. For p > 1/2 the
 * draw is n - k (k drawn with q = 1 - p). n <= 0 or p <= 0: 0; p >= 1: n. */
MM_HD int64_t mm__draw_binomial(uint64_t key, uint64_t a, uint32_t b, int64_t n, double p)
{
    if (n <= 0 || !(p > 0)) return 0;
    if (p >= 1) return n;
    double q = p <= 0.5 ? p : 1 - p, m = (double)n * q;
    mm_u32x4 r = mm_stream4(key, MM_RNG_CANCELS, a, b);
    double u = mm_u01(r.v[0], r.v[1]);
    int64_t k;
    if (m < 30) {
        double f = mm_det_exp((double)n * mm_det_log(1 - q)), cum = f, ratio = q / (1 - q);
        int64_t cap = (int64_t)m + 100;
        if (cap > n) cap = n;
        k = 0;
        while (u > cum && k < cap) {
            f = f * ((double)(n - k) / (double)(k + 1)) * ratio;
            k += 1;
            cum += f;
        }
    } else {
        double x = m + mm__norm_inv(u) * sqrt(m * (1 - q)) + 0.5;
        k = x < 0 ? 0 : x >= (double)n ? n : (int64_t)x;
    }
    return p <= 0.5 ? k : n - k;
}

#endif
