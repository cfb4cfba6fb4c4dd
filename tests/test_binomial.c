/* The binomial draw of cancels ahead of us (docs/model.md 3.3, src/core/mm_draw.h): its law is the
 * Binomial(n, p) law. A chi-square goodness-of-fit test against the exact pmf (long double lgamma)
 * over many (n, p), from n = 10 to 2^31 - 1 and p near 0, 1/2 and 1, on both the inversion (n q <
 * 30) and BTRD (n q >= 30); the pieces of BTRD (the Stirling corrections, the log of f(k) / f(m))
 * against long double; and the draw is a pure function of (key, position). Fixed seeds: the result
 * is the same on every run. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_draw.h"

/* ln f(k) of Binomial(n, p), long double. */
static long double ln_pmf(int64_t n, long double p, int64_t k)
{
    return lgammal((long double)n + 1) - lgammal((long double)k + 1) -
           lgammal((long double)(n - k) + 1) + (long double)k * logl(p) +
           (long double)(n - k) * log1pl(-p);
}

/* Wilson-Hilferty: a chi-square with df degrees of freedom as a standard normal z. */
static double wh_z(double x2, int df)
{
    double d = 2.0 / (9.0 * df);
    return (cbrt(x2 / df) - (1 - d)) / sqrt(d);
}

/* N draws of Binomial(n, p) at positions (i, c) of `key`, binned into bins of about equal expected
 * count (at least 1 / 64 of the mass each, every expected count >= 5; the values outside
 * mean +- (9 sd + 30), whose mass is below 1e-17, join the end bins), against the exact pmf.
 * Returns the Wilson-Hilferty z of the chi-square statistic; *df_out its degrees of freedom. */
static double chi2_z(uint64_t key, uint32_t c, int64_t n, double p, int N, int *df_out)
{
    double mean = (double)n * p, sd = sqrt(mean * (1 - p));
    int64_t lo = (int64_t)floor(mean - 9 * sd - 30), hi = (int64_t)ceil(mean + 9 * sd + 30);
    if (lo < 0) lo = 0;
    if (hi > n) hi = n;
    int64_t w = hi - lo + 1;
    int64_t *cnt = calloc((size_t)w, sizeof *cnt);
    cr_assert(cnt);
    for (int i = 0; i < N; i++) {
        int64_t k = mm__draw_binomial(key, (uint64_t)i, c, n, p);
        cr_assert(k >= 0 && k <= n, "n %lld p %g: draw %lld", (long long)n, p, (long long)k);
        cnt[(k < lo ? lo : k > hi ? hi : k) - lo]++;
    }
    /* The pmf over lo..hi: from the mode outward by f(k + 1) / f(k) = (n - k) / (k + 1) x p / (1 -
     * p) in long double, normalised by its sum (lgamma of numbers near 1e9 is good to only 2e-9,
     * so it checks the mode's value instead). */
    long double *pmf = malloc((size_t)w * sizeof *pmf), total = 0, r = (long double)p / (1 - p);
    cr_assert(pmf);
    int64_t mode = (int64_t)(((double)n + 1) * p);
    if (mode < lo) mode = lo;
    if (mode > hi) mode = hi;
    pmf[mode - lo] = 1;
    for (int64_t k = mode; k < hi; k++)
        pmf[k + 1 - lo] = pmf[k - lo] * ((long double)(n - k) / (long double)(k + 1)) * r;
    for (int64_t k = mode; k > lo; k--)
        pmf[k - 1 - lo] = pmf[k - lo] * ((long double)k / (long double)(n - k + 1)) / r;
    for (int64_t k = lo; k <= hi; k++)
        total += pmf[k - lo];
    long double f_mode = expl(ln_pmf(n, p, mode));
    cr_assert(fabsl(1 / total / f_mode - 1) < 1e-7L, "n %lld p %g: f(mode) %.12Lg, lgamma %.12Lg",
              (long long)n, p, 1 / total, f_mode);
    /* Greedy bins over lo..hi. */
    double target = 1.0 / 64 > 5.0 / N ? 1.0 / 64 : 5.0 / N;
    double x2 = 0, e = 0, o = 0, e_prev = -1, o_prev = 0;
    int bins = 0;
    for (int64_t k = lo; k <= hi; k++) {
        double f = (double)(pmf[k - lo] / total);
        e += f;
        o += (double)cnt[k - lo];
        if (e >= target || k == hi) {
            if (k == hi && e_prev >= 0 && e * N < 5) { /* a small last bin joins the one before */
                e += e_prev;
                o += o_prev;
                x2 -= (o_prev - e_prev * N) * (o_prev - e_prev * N) / (e_prev * N);
                bins--;
            }
            x2 += (o - e * N) * (o - e * N) / (e * N);
            bins++;
            e_prev = e;
            o_prev = o;
            e = o = 0;
        }
    }
    free(cnt);
    free(pmf);
    *df_out = bins - 1;
    return bins > 1 ? wh_z(x2, bins - 1) : 0;
}

/* n q below 30 takes the inversion, from 30 BTRD; p > 1/2 the mirror. */
static const struct {
    int64_t n;
    double p;
} cases[] = {{10, 0.5},           {10, 0.01},         {10, 0.99},          {31, 0.97},
             {60, 0.5},           {100, 0.5},         {100, 0.3},          {100, 0.29},
             {100, 0.97},         {100, 0.7},         {10000, 0.5},        {10000, 0.003},
             {10000, 0.0031},     {10000, 0.1},       {10000, 0.999},      {10000, 0.995},
             {1000000, 0.5},      {1000000, 3e-5},    {1000000, 1e-4},     {1000000, 0.2},
             {1000000, 1 - 1e-4}, {1000000, 0.75},    {1000000000, 0.5},   {1000000000, 3e-8},
             {1000000000, 1e-7},  {1000000000, 1e-5}, {1000000000, 0.3},   {1000000000, 1 - 1e-7},
             {1000000000, 0.9},   {2147483647, 0.5},  {2147483647, 0.123}, {2147483647, 2e-8},
             {37, 0.81},          {45, 0.6667}};

Test(binomial, draws_pass_a_chi_square_test_against_the_exact_pmf, .timeout = 120)
{
    /* 200,000 draws per (n, p); z > 5 (a chi-square p-value below 3e-7) fails. The old normal
     * approximation (n q >= 30) fails this at n q = 30 .. 1e4. */
    const int N = 200000;
    int ncase = (int)(sizeof cases / sizeof cases[0]), bad = 0;
    char msg[4096] = "";
    for (int c = 0; c < ncase; c++) {
        int df = 0;
        uint64_t key = mm_stream_key(28, c, 0);
        double z = chi2_z(key, (uint32_t)c, cases[c].n, cases[c].p, N, &df);
        if (z > 5) {
            bad++;
            size_t l = strlen(msg);
            snprintf(msg + l, sizeof msg - l, " n %lld p %g: z %.1f (df %d);",
                     (long long)cases[c].n, cases[c].p, z, df);
        }
    }
    cr_assert_eq(bad, 0, "%d of %d (n, p) fail:%s", bad, ncase, msg);
}

Test(binomial, stirling_corrections_match_long_double)
{
    /* fc(k) = ln k! - ((k + 1/2) ln(k + 1) - (k + 1) + ln(2 pi) / 2): the table (k <= 15) and the
     * series beyond, within 1e-14 of long double. */
    const long double hl2pi = 0.918938533204672741780329736405617640L;
    for (int64_t k = 0; k <= 2000; k++) {
        long double x = (long double)k + 1;
        long double ref = lgammal(x) - ((x - 0.5L) * logl(x) - x + hl2pi);
        double got = mm__binom_fc(k);
        cr_assert(fabsl((long double)got - ref) < 1e-14L, "fc(%lld) = %.17g, want %.17Lg",
                  (long long)k, got, ref);
    }
}

Test(binomial, the_log_of_f_k_over_f_m_is_accurate)
{
    /* BTRD's step 3.3 against long double lgamma, for k from 0 to n around the mode: the error
     * stays below 2e-16 n + 1e-12 (the rounding of products of size n; 4e-7 at n = 2^31). */
    const struct {
        int64_t n;
        double p;
    } cs[] = {{60, 0.5},          {1000, 0.03},      {100000, 0.3},      {1000000, 0.5},
              {1000000000, 1e-7}, {1000000000, 0.5}, {2147483647, 0.123}};
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        int64_t n = cs[c].n;
        double p = cs[c].p, r = p / (1 - p);
        int64_t m = (int64_t)(((double)n + 1) * p);
        double sd = sqrt((double)n * p * (1 - p)), worst = 0;
        for (int j = -40; j <= 40; j++) {
            int64_t k = m + (int64_t)(j * sd / 4);
            if (k < 0 || k > n) continue;
            double got = mm__binom_lnratio(n, r, m, k);
            long double ref = ln_pmf(n, p, k) - ln_pmf(n, p, m);
            double err = fabs((double)((long double)got - ref));
            if (err > worst) worst = err;
            cr_assert(err < 2e-16 * (double)n + 1e-12, "n %lld p %g k %lld: %.17g, want %.17Lg",
                      (long long)n, p, (long long)k, got, ref);
        }
        cr_log_info("n %lld p %g: worst error %.3g", (long long)n, p, worst);
    }
}

Test(binomial, a_draw_is_a_function_of_its_key_and_position)
{
    /* The same (key, a, b) gives the same value, whatever was drawn before; other positions and
     * keys give other values (of 1,000 BTRD draws with sd 50, at most a few dozen coincide). */
    uint64_t k1 = mm_stream_key(5, 1, 0), k2 = mm_stream_key(5, 2, 0);
    int same_b = 0, same_key = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t x = mm__draw_binomial(k1, (uint64_t)i, 0, 10000, 0.5);
        cr_assert_eq(mm__draw_binomial(k1, (uint64_t)i, 0, 10000, 0.5), x);
        same_b += mm__draw_binomial(k1, (uint64_t)i, 1, 10000, 0.5) == x;
        same_key += mm__draw_binomial(k2, (uint64_t)i, 0, 10000, 0.5) == x;
    }
    cr_assert(same_b < 40 && same_key < 40, "%d, %d of 1000 equal", same_b, same_key);
    cr_assert_eq(MM_RNG_BLOCK(MM_RNG_CANCELS, 0), MM_RNG_CANCELS);
    cr_assert_eq(mm__draw_binomial(k1, 0, 0, 0, 0.5), 0);
    cr_assert_eq(mm__draw_binomial(k1, 0, 0, 10, 0), 0);
    cr_assert_eq(mm__draw_binomial(k1, 0, 0, 10, 1), 10);
    cr_assert_eq(mm__draw_binomial(k1, 0, 0, 2147483647, 1), 2147483647);
}
