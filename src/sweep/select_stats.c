/* The statistics of honest selection (include/mmsim/select.h, docs/select.md): PBO by CSCV, the
 * deflated Sharpe ratio, walk-forward selection and neighbourhood smoothing. Pure arithmetic on a
 * T x N performance matrix; no I/O. tests/test_select.c checks each against values computed by
 * hand and, where /usr/bin/python3 has numpy and scipy, against them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "mmsim/select.h"

double mm_select_norm_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

double mm_select_norm_ppf(double p)
{
    if (!(p >= 0 && p <= 1)) return NAN;
    if (p == 0) return -INFINITY;
    if (p == 1) return INFINITY;
    /* Bisection on the distribution function: slow (about 80 halvings) but with no table of
     * coefficients to get wrong; callers need a handful of values. In the lower tail erfc keeps
     * full relative precision. */
    double lo = -40, hi = 40;
    while (1) {
        double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi) break;
        if (mm_select_norm_cdf(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return fabs(mm_select_norm_cdf(lo) - p) <= fabs(mm_select_norm_cdf(hi) - p) ? lo : hi;
}

/* The statistic of sums s (sum), s2 (sum of squares) over c periods. */
static double stat_from(double s, double s2, double c, int stat)
{
    if (c <= 0) return NAN;
    if (stat == MM_SELECT_PNL) return s;
    double mean = s / c, var = s2 / c - mean * mean;
    if (!(var > 0)) return mean > 0 ? INFINITY : mean < 0 ? -INFINITY : 0;
    return mean / sqrt(var);
}

double mm_select_stat_of(const double *perf, int64_t N, int64_t n, int64_t t0, int64_t t1, int stat)
{
    if (stat == MM_SELECT_PNL) {
        double s = 0;
        for (int64_t t = t0; t < t1; t++)
            s += perf[t * N + n];
        return t1 > t0 ? s : NAN;
    }
    /* Two passes (mean, then squared deviations): the Sharpe of a window read exactly. */
    double s = 0, c = (double)(t1 - t0);
    if (t1 <= t0) return NAN;
    for (int64_t t = t0; t < t1; t++)
        s += perf[t * N + n];
    double mean = s / c, d = 0;
    for (int64_t t = t0; t < t1; t++)
        d += (perf[t * N + n] - mean) * (perf[t * N + n] - mean);
    double var = d / c;
    if (!(var > 0)) return mean > 0 ? INFINITY : mean < 0 ? -INFINITY : 0;
    return mean / sqrt(var);
}

int64_t mm_select_n_splits(int32_t S)
{
    if (S < 2 || S % 2 || S > MM_SELECT_SPLITS_MAX) return 0;
    int64_t c = 1;
    for (int32_t i = 1; i <= S / 2; i++)
        c = c * (S / 2 + i) / i;
    return c;
}

int mm_select_pbo(const double *perf, int64_t T, int64_t N, int32_t S, int stat, double *logits,
                  int64_t *n_logits, double *pbo, mm_error *err)
{
    if (!perf || !pbo) return mm__errf(err, -EINVAL, "mm_select_pbo: NULL argument");
    if (N < 2) return mm__errf(err, -EINVAL, "pbo: %" PRId64 " trials (2 or more)", N);
    if (S < 2 || S % 2 || S > MM_SELECT_SPLITS_MAX || S > T)
        return mm__errf(err, -EINVAL,
                        "pbo: %" PRId32 " splits of %" PRId64
                        " periods (an even number from 2 to %d, at most the periods)",
                        S, T, MM_SELECT_SPLITS_MAX);
    /* Per group and trial: the sum, the sum of squares and the count of its periods. */
    size_t gn = (size_t)S * (size_t)N;
    double *gs = calloc(gn, sizeof *gs), *gq = calloc(gn, sizeof *gq), *gc = calloc(S, sizeof *gc);
    double *is = malloc((size_t)N * sizeof *is), *os = malloc((size_t)N * sizeof *os);
    if (!gs || !gq || !gc || !is || !os) {
        free(gs), free(gq), free(gc), free(is), free(os);
        return mm__errf(err, -ENOMEM, "pbo: out of memory (%" PRId64 " trials)", N);
    }
    for (int32_t g = 0; g < S; g++) {
        int64_t t0 = g * T / S, t1 = (g + 1) * T / S;
        gc[g] = (double)(t1 - t0);
        for (int64_t t = t0; t < t1; t++)
            for (int64_t n = 0; n < N; n++) {
                double v = perf[t * N + n];
                gs[(size_t)g * N + n] += v;
                gq[(size_t)g * N + n] += v * v;
            }
    }
    int32_t h = S / 2, pick[MM_SELECT_SPLITS_MAX];
    for (int32_t i = 0; i < h; i++)
        pick[i] = i;
    int64_t k = 0, low = 0;
    while (1) {
        unsigned char in[MM_SELECT_SPLITS_MAX] = {0};
        for (int32_t i = 0; i < h; i++)
            in[pick[i]] = 1;
        double ci = 0, co = 0;
        for (int32_t g = 0; g < S; g++) {
            if (in[g])
                ci += gc[g];
            else
                co += gc[g];
        }
        int64_t best = 0;
        for (int64_t n = 0; n < N; n++) {
            double si = 0, qi = 0, so = 0, qo = 0;
            for (int32_t g = 0; g < S; g++) {
                double s = gs[(size_t)g * N + n], q = gq[(size_t)g * N + n];
                if (in[g])
                    si += s, qi += q;
                else
                    so += s, qo += q;
            }
            is[n] = stat_from(si, qi, ci, stat);
            os[n] = stat_from(so, qo, co, stat);
            if (is[n] > is[best]) best = n;
        }
        double worse = 0, equal = 0;
        for (int64_t n = 0; n < N; n++)
            if (n != best) {
                worse += os[n] < os[best];
                equal += os[n] == os[best];
            }
        double omega = (1 + worse + equal / 2) / (double)(N + 1);
        double lg = log(omega / (1 - omega));
        if (logits) logits[k] = lg;
        low += lg <= 0;
        k++;
        /* The next choice of h groups out of S, lexicographic. */
        int32_t i = h - 1;
        while (i >= 0 && pick[i] == S - h + i)
            i--;
        if (i < 0) break;
        pick[i]++;
        for (int32_t j = i + 1; j < h; j++)
            pick[j] = pick[j - 1] + 1;
    }
    if (n_logits) *n_logits = k;
    *pbo = (double)low / (double)k;
    free(gs), free(gq), free(gc), free(is), free(os);
    return 0;
}

int mm_select_dsr(const double *r, int64_t T, double sr_var, int64_t n_trials,
                  mm_select_dsr_out *out, mm_error *err)
{
    if (!r || !out) return mm__errf(err, -EINVAL, "mm_select_dsr: NULL argument");
    if (T < 2 || n_trials < 1)
        return mm__errf(err, -EINVAL, "dsr: %" PRId64 " returns of %" PRId64 " trials (T >= 2)", T,
                        n_trials);
    double s = 0;
    for (int64_t t = 0; t < T; t++)
        s += r[t];
    double mean = s / (double)T, m2 = 0, m3 = 0, m4 = 0;
    for (int64_t t = 0; t < T; t++) {
        double d = r[t] - mean;
        m2 += d * d;
        m3 += d * d * d;
        m4 += d * d * d * d;
    }
    m2 /= (double)T, m3 /= (double)T, m4 /= (double)T;
    const double g = 0.57721566490153286; /* the Euler-Mascheroni constant */
    double nt = (double)n_trials;
    out->T = T;
    out->n_trials = n_trials;
    out->sr = m2 > 0 ? mean / sqrt(m2) : NAN;
    out->skew = m2 > 0 ? m3 / pow(m2, 1.5) : NAN;
    out->kurt = m2 > 0 ? m4 / (m2 * m2) : NAN;
    out->sr0 = n_trials < 2 ? 0
                            : sqrt(sr_var) * ((1 - g) * mm_select_norm_ppf(1 - 1 / nt) +
                                              g * mm_select_norm_ppf(1 - 1 / (nt * exp(1.0))));
    double rad = 1 - out->skew * out->sr + (out->kurt - 1) / 4 * out->sr * out->sr;
    out->z = rad > 0 ? (out->sr - out->sr0) * sqrt((double)(T - 1)) / sqrt(rad) : NAN;
    out->dsr = isnan(out->z) ? NAN : mm_select_norm_cdf(out->z);
    return 0;
}

int mm_select_walk_forward(const double *perf, int64_t T, int64_t N, int64_t window,
                           int64_t min_train, int stat, int64_t *chosen, double *oos, mm_error *err)
{
    if (!perf || !chosen || !oos) return mm__errf(err, -EINVAL, "mm_select_walk_forward: NULL");
    if (N < 1 || T < 1 || window < 0 || min_train < 1)
        return mm__errf(err, -EINVAL,
                        "walk-forward: %" PRId64 " periods, %" PRId64 " trials, window %" PRId64
                        ", first %" PRId64,
                        T, N, window, min_train);
    for (int64_t t = 0; t < T; t++) {
        chosen[t] = -1;
        oos[t] = NAN;
        if (t < min_train) continue;
        int64_t t0 = window > 0 && t > window ? t - window : 0, best = -1;
        double bv = 0;
        for (int64_t n = 0; n < N; n++) {
            double v = mm_select_stat_of(perf, N, n, t0, t, stat);
            if (best < 0 || v > bv) best = n, bv = v;
        }
        chosen[t] = best;
        oos[t] = perf[t * N + best];
    }
    return 0;
}

void mm_select_smooth(const double *v, int32_t n_dims, const int32_t *dims,
                      const unsigned char *ordered, double *out)
{
    int64_t N = 1;
    for (int32_t d = 0; d < n_dims; d++)
        N *= dims[d];
    for (int64_t n = 0; n < N; n++) {
        double s = 0;
        int64_t c = 0, stride = 1;
        if (!isnan(v[n])) s += v[n], c++;
        for (int32_t d = n_dims - 1; d >= 0; d--) {
            int64_t i = n / stride % dims[d];
            if (ordered[d]) {
                if (i > 0 && !isnan(v[n - stride])) s += v[n - stride], c++;
                if (i + 1 < dims[d] && !isnan(v[n + stride])) s += v[n + stride], c++;
            }
            stride *= dims[d];
        }
        out[n] = c ? s / (double)c : NAN;
    }
}
