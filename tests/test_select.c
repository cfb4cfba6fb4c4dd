/* The statistics of honest selection (include/mmsim/select.h, docs/select.md) on small matrices
 * whose answers are worked out by hand in the comments (and, for the deflated Sharpe ratio, by
 * scipy once when the test was written: tests/select_scipy.py checks a whole file against scipy
 * at test time). */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmsim/select.h"

/* T = 4 periods x N = 3 trials, perf[t][n]. */
static const double PERF[4 * 3] = {4, 1, 2, /* t = 0 */
                                   0, 3, 1, /* t = 1 */
                                   1, 0, 5, /* t = 2 */
                                   2, 2, 0 /* t = 3 */};

Test(select, normal_quantiles)
{
    cr_assert_eq(mm_select_norm_cdf(0), 0.5);
    cr_assert(fabs(mm_select_norm_ppf(0.975) - 1.959963984540054) < 1e-14);
    cr_assert(fabs(mm_select_norm_ppf(0.1) + 1.2815515655446004) < 1e-14);
    cr_assert(isinf(mm_select_norm_ppf(1)) && isinf(mm_select_norm_ppf(0)));
    cr_assert(isnan(mm_select_norm_ppf(1.5)));
}

Test(select, split_counts_are_binomials)
{
    cr_assert_eq(mm_select_n_splits(2), 2);
    cr_assert_eq(mm_select_n_splits(4), 6);
    cr_assert_eq(mm_select_n_splits(16), 12870);
    cr_assert_eq(mm_select_n_splits(3), 0);
    cr_assert_eq(mm_select_n_splits(18), 0);
}

/* S = 4: each group is one period. Training halves {0,1} {0,2} {0,3} {1,2} {1,3} {2,3}:
 *   {0,1}: sums 4 4 3, best n0 (tie: lowest); test {2,3}: 3 2 5, n0 beats one: r = 2, omega =
 *          2/4, logit 0;
 *   {0,2}: 5 1 7 -> n2; test {1,3}: 2 5 1: worst, r = 1, omega 1/4, logit ln(1/3);
 *   {0,3}: 6 3 2 -> n0; test 1 3 6: worst;  {1,2}: 1 3 6 -> n2; test 6 3 2: worst;
 *   {1,3}: 2 5 1 -> n1; test 5 1 7: worst;  {2,3}: 3 2 5 -> n2; test 4 4 3: worst.
 * Every logit <= 0: PBO = 1 (the matrix is built to punish the in-sample best). */
Test(select, pbo_by_hand)
{
    double lg[6], pbo;
    int64_t n;
    mm_error e = {0};
    cr_assert_eq(mm_select_pbo(PERF, 4, 3, 4, MM_SELECT_PNL, lg, &n, &pbo, &e), 0, "%s", e.msg);
    cr_assert_eq(n, 6);
    cr_assert_eq(pbo, 1.0);
    cr_assert_eq(lg[0], 0.0);
    for (int k = 1; k < 6; k++)
        cr_assert(fabs(lg[k] - log(1.0 / 3)) < 1e-15, "logit %d = %g", k, lg[k]);
    /* The same matrix reversed in sign, in two halves. */
    double neg[12];
    for (int i = 0; i < 12; i++)
        neg[i] = -PERF[i];
    cr_assert_eq(mm_select_pbo(neg, 4, 3, 2, MM_SELECT_PNL, lg, &n, &pbo, &e), 0, "%s", e.msg);
    /* S = 2: train {0,1} (sums -4 -4 -3 -> n2), test {2,3} (-3 -2 -5): n2 the worst: logit ln(1/3);
     * train {2,3} (-3 -2 -5 -> n1), test {0,1} (-4 -4 -3): n1 ties n0, below n2: r = 1.5,
     * omega 1.5/4, logit ln(0.6). */
    cr_assert_eq(n, 2);
    cr_assert(fabs(lg[0] - log(1.0 / 3)) < 1e-15);
    cr_assert(fabs(lg[1] - log(0.6)) < 1e-15);
    cr_assert_eq(pbo, 1.0);
}

Test(select, pbo_refuses_bad_splits)
{
    double pbo;
    mm_error e = {0};
    cr_assert_eq(mm_select_pbo(PERF, 4, 3, 3, MM_SELECT_PNL, NULL, NULL, &pbo, &e), -EINVAL);
    cr_assert_eq(mm_select_pbo(PERF, 4, 3, 6, MM_SELECT_PNL, NULL, NULL, &pbo, &e), -EINVAL);
    cr_assert_eq(mm_select_pbo(PERF, 4, 1, 2, MM_SELECT_PNL, NULL, NULL, &pbo, &e), -EINVAL);
}

/* Expanding: t = 1 chooses on {0}: 4 1 2 -> n0, oos perf[1][0] = 0; t = 2 on {0,1}: 4 4 3 -> n0,
 * oos 1; t = 3 on {0,1,2}: 5 4 8 -> n2, oos 0. Rolling window 1: t = 1 -> n0 (0), t = 2 on {1}:
 * n1 (0), t = 3 on {2}: n2 (0). */
Test(select, walk_forward_by_hand)
{
    int64_t ch[4];
    double oos[4];
    mm_error e = {0};
    cr_assert_eq(mm_select_walk_forward(PERF, 4, 3, 0, 1, MM_SELECT_PNL, ch, oos, &e), 0);
    cr_assert_eq(ch[0], -1);
    cr_assert(isnan(oos[0]));
    cr_assert(ch[1] == 0 && ch[2] == 0 && ch[3] == 2);
    cr_assert(oos[1] == 0 && oos[2] == 1 && oos[3] == 0);
    cr_assert_eq(mm_select_walk_forward(PERF, 4, 3, 1, 1, MM_SELECT_PNL, ch, oos, &e), 0);
    cr_assert(ch[1] == 0 && ch[2] == 1 && ch[3] == 2);
    cr_assert(oos[1] == 0 && oos[2] == 0 && oos[3] == 0);
}

/* Sharpe of a window: trial 0 over all four periods: 4 0 1 2, mean 7/4, population variance
 * (2.25^2 + 1.75^2 + 0.75^2 + 0.25^2) / 4 = 2.1875. */
Test(select, sharpe_of_a_window)
{
    double v = mm_select_stat_of(PERF, 3, 0, 0, 4, MM_SELECT_SHARPE);
    cr_assert(fabs(v - 1.75 / sqrt(2.1875)) < 1e-15);
    cr_assert_eq(mm_select_stat_of(PERF, 3, 0, 0, 4, MM_SELECT_PNL), 7.0);
    const double flat[2] = {1, 1};
    cr_assert(isinf(mm_select_stat_of(flat, 1, 0, 0, 2, MM_SELECT_SHARPE)));
}

/* r = 0.5 -0.2 1.1 0.3 0.9 -0.4 0.7 0.2, N = 10 trials, var(SR) = 0.04: scipy (skew, kurtosis
 * with fisher=False, norm.ppf, norm.cdf) gives sr 0.79749774122155, skew -0.18540915868368912,
 * kurt 1.8869245213022, sr0 0.31491966026915, z 1.124629657896504, dsr 0.8696269996740256. */
Test(select, deflated_sharpe_against_scipy)
{
    const double r[8] = {0.5, -0.2, 1.1, 0.3, 0.9, -0.4, 0.7, 0.2};
    mm_select_dsr_out d;
    mm_error e = {0};
    cr_assert_eq(mm_select_dsr(r, 8, 0.04, 10, &d, &e), 0);
    cr_assert(fabs(d.sr - 0.79749774122155) < 1e-13);
    cr_assert(fabs(d.skew + 0.18540915868368912) < 1e-13);
    cr_assert(fabs(d.kurt - 1.8869245213022) < 1e-13);
    cr_assert(fabs(d.sr0 - 0.31491966026915) < 1e-13, "sr0 %.17g", d.sr0);
    cr_assert(fabs(d.z - 1.124629657896504) < 1e-12);
    cr_assert(fabs(d.dsr - 0.8696269996740256) < 1e-12);
    /* One trial: nothing to deflate (sr0 = 0). */
    cr_assert_eq(mm_select_dsr(r, 8, 0.04, 1, &d, &e), 0);
    cr_assert_eq(d.sr0, 0.0);
}

/* A 2 x 2 grid 1 2 / 3 4 (the last axis fastest). Both axes numeric: each point with its two
 * neighbours: (1+2+3)/3 = 2, (2+1+4)/3, (3+4+1)/3, (4+3+2)/3 = 3. The first axis an enum: only
 * along the second: (1+2)/2 = 1.5 twice, (3+4)/2 = 3.5 twice. NaN is left out. */
Test(select, neighbourhood_by_hand)
{
    const double v[4] = {1, 2, 3, 4};
    const int32_t dims[2] = {2, 2};
    double out[4];
    mm_select_smooth(v, 2, dims, (const unsigned char[]){1, 1}, out);
    cr_assert(out[0] == 2 && fabs(out[1] - 7.0 / 3) < 1e-15 && fabs(out[2] - 8.0 / 3) < 1e-15 &&
              out[3] == 3);
    mm_select_smooth(v, 2, dims, (const unsigned char[]){0, 1}, out);
    cr_assert(out[0] == 1.5 && out[1] == 1.5 && out[2] == 3.5 && out[3] == 3.5);
    const double w[4] = {1, NAN, 3, 4};
    mm_select_smooth(w, 2, dims, (const unsigned char[]){1, 1}, out);
    cr_assert(out[0] == 2 && isnan(out[1]) == 0 && out[1] == 2.5);
}

/* ---- the two honest markets (docs/select.md, "Two honest tests") ---- */

#include "mmsim/asmarket.h"

/* The Avellaneda-Stoikov market (the paper's set-up, seed 1): one region of a grid truly earns.
 * Trials: the fixed strategy at spreads 0.1, 0.2, .. 2.0 from the mid (no skew, no limit); periods:
 * 32 paths, each an independent day of the market that every trial meets (combination id 0, path
 * p). The expected profit of a fixed spread d is 2 A exp(-k d) d T (no adverse selection in this
 * market), largest at d = 1/k = 0.67 and within 10% of it for d in about [0.43, 0.98]. The
 * walk-forward must choose in [0.4, 1.0] every time, the in-sample best too, and PBO be low. */
#define AS_N 20
#define AS_T 32
Test(select, as_market_walk_forward_finds_the_earning_spreads, .timeout = 60)
{
    static double perf[AS_T * AS_N];
    mm_as_params p;
    mm_as_defaults(&p);
    p.strategy = MM_AS_FIXED;
    mm_error e = {0};
    for (int n = 0; n < AS_N; n++) {
        p.spread = 0.1 * (n + 1);
        for (int t = 0; t < AS_T; t++) {
            mm_as_path_result r;
            cr_assert_eq(mm_as_run_path(&p, 1, 0, t, &r, &e), 0, "%s", e.msg);
            perf[t * AS_N + n] = r.profit;
        }
    }
    int64_t ch[AS_T];
    double oos[AS_T], pbo, lg[12870];
    int64_t nl;
    cr_assert_eq(mm_select_walk_forward(perf, AS_T, AS_N, 0, 4, MM_SELECT_PNL, ch, oos, &e), 0);
    char chosen[512] = "";
    double total = 0;
    for (int t = 4; t < AS_T; t++) {
        cr_assert(ch[t] >= 3 && ch[t] <= 9, "period %d chose spread %.1f", t, 0.1 * (ch[t] + 1));
        snprintf(chosen + strlen(chosen), sizeof chosen - strlen(chosen), " %.1f",
                 0.1 * (ch[t] + 1));
        total += oos[t];
    }
    cr_log_info("AS market: walk-forward spreads%s; out-of-sample profit %.2f", chosen, total);
    cr_assert_eq(mm_select_pbo(perf, AS_T, AS_N, 16, MM_SELECT_PNL, lg, &nl, &pbo, &e), 0);
    cr_log_info("AS market: PBO %.4f over %lld splits", pbo, (long long)nl);
    cr_assert(pbo < 0.1, "PBO %g", pbo);
}
