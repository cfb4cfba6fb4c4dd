/* stress_vol on synthetic markets (docs/model.md 3.4, docs/montecarlo.md section 10): the fair
 * price's volatility of a stressed day is stress_vol times the market's, also for a fractional
 * J x stress_vol. Measured over many paths of mm_sweep_synthetic_day on markets with max_spread 1,
 * whose mid is the fair price itself (the spread stays one tick: no bounce to blur it), against
 * the confidence interval of the ratio of realised variances. Fixed seeds. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmsim/mmsim.h"
#include "mmsim/sweep.h"
#include "mmsim/ticks.h"

/* A market whose mid is its fair price: spread always 1 (max_spread 1), 10,000 events at 1 kHz. */
static mm_gen_params market(int32_t move_ticks, double vol, double informed, double persist)
{
    mm_gen_params g;
    mm_gen_defaults(&g);
    g.events = 10000;
    g.max_spread = 1;
    g.move_ticks = move_ticks;
    g.vol_ticks = vol;
    g.informed = informed;
    g.trade_persist = persist;
    return g;
}

/* Realised variance of path p's day: the sum over blocks of 1,000 events of the squared change of
 * twice the mid (ticks^2; blocks much longer than a run of trades, so that a run's informed moves,
 * which go the same way, fall in one block). */
static double realised_var(const mm_gen_params *g, int32_t path, double stress)
{
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_sweep_synthetic_day(g, 28, 0, path, stress, 1, &t, &e), 0, "%s", e.msg);
    double s = 0;
    for (int64_t i = 1000; i <= t.n; i += 1000) {
        double d = ((double)t.bid_px[i - 1] + t.ask_px[i - 1]) -
                   ((double)t.bid_px[i - 1000] + t.ask_px[i - 1000]);
        s += d * d;
    }
    cr_assert(t.n == 10000);
    for (int64_t i = 0; i < t.n; i++)
        cr_assert_eq(t.ask_px[i] - t.bid_px[i], 1);
    mm_ticks_free(&t);
    return s;
}

/* Over paths 0 .. P-1, the ratio R = sum Y / sum X of the stressed (Y) and unstressed (X) days'
 * realised variances and its standard error by the delta method, sqrt(sum (Y - R X)^2) / sum X
 * (the days of one path share their draws, so the pairs are correlated; the formula allows for
 * it). R estimates stress^2. */
static void check_ratio(const mm_gen_params *g, double stress, int P, const char *what)
{
    static double x[1000], y[1000];
    double sx = 0, sy = 0;
    cr_assert(P <= 1000);
    for (int p = 0; p < P; p++) {
        x[p] = realised_var(g, p, 1);
        y[p] = realised_var(g, p, stress);
        sx += x[p];
        sy += y[p];
    }
    double r = sy / sx, v = 0;
    for (int p = 0; p < P; p++)
        v += (y[p] - r * x[p]) * (y[p] - r * x[p]);
    double se = sqrt(v) / sx, want = stress * stress;
    cr_log_info("%s, stress_vol %g: variance ratio %.4f +- %.4f (want %.4f), volatility ratio %.4f",
                what, stress, r, se, want, sqrt(r));
    cr_assert(fabs(r - want) <= 4.5 * se + 1e-12 * want && se < 0.05 * want,
              "%s, stress_vol %g: realised variance ratio %.4f, standard error %.4f; want %.4f "
              "(volatility ratio %.4f, want %g)",
              what, stress, r, se, want, sqrt(r), stress);
}

Test(stress, fractional_stress_vol_scales_random_moves_exactly, .timeout = 120)
{
    /* J = 1: 0.5 and 1.5 were rounded to 1 and 2 (0.5 did nothing, 1.5 acted as 2). */
    mm_gen_params g = market(1, 4, 0, 0);
    check_ratio(&g, 0.5, 500, "J 1");
    check_ratio(&g, 1.5, 500, "J 1");
    check_ratio(&g, 2.5, 500, "J 1");
    check_ratio(&g, 2, 500, "J 1"); /* whole: the move size doubles, as before */
}

Test(stress, fractional_stress_vol_scales_informed_runs_exactly, .timeout = 120)
{
    /* J = 2 with random moves, informed trades and runs of trades (whose informed moves go the
     * same way): 1.25 (J' = 3), 0.3 (J' = 1), 1.5 (whole, J' = 3). */
    mm_gen_params g = market(2, 1.5, 0.3, 0.5);
    check_ratio(&g, 1.25, 500, "J 2, informed runs");
    check_ratio(&g, 0.3, 500, "J 2, informed runs");
    check_ratio(&g, 1.5, 500, "J 2, informed runs");
}

Test(stress, stress_vol_0_stops_the_fair_price_and_a_move_past_1000_ticks_is_refused)
{
    mm_gen_params g = market(2, 1.5, 0.3, 0.5);
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_sweep_synthetic_day(&g, 28, 0, 0, 0, 1, &t, &e), 0, "%s", e.msg);
    for (int64_t i = 0; i < t.n; i++)
        cr_assert(t.bid_px[i] == t.bid_px[0] && t.ask_px[i] == t.ask_px[0], "row %lld moved",
                  (long long)i);
    mm_ticks_free(&t);
    g.move_ticks = 20;
    cr_assert_eq(mm_sweep_synthetic_day(&g, 28, 0, 0, 60, 1, &t, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg,
                     "stress_vol: 60 x move_ticks 20 is a move of 1200 ticks, more than 1000");
}
