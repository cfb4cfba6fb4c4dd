/* The parameters of the generator that only a simulation can fit (trade_size, improve_frac)
 * (docs/synthetic.md, "Calibration"); the check of a fit over seeds: calibrate_check.c. No I/O. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

/* The fit's synthetic days use seeds MM__FIT_SEED0, MM__FIT_SEED0 + 1, ...: not the seeds 1..20
 * of the check (mm_gen_fit_check), so that the check is out of sample. */
#define MM__FIT_SEED0 1001
#define MM__FIT_DAY_MAX 200000   /* events of a fit day, at most */
#define MM__FIT_EVENTS (1 << 21) /* events per evaluation: K days of a fit day's length ... */
#define MM__FIT_DAYS_MIN 4       /* ... K within [4, 48] */
#define MM__FIT_DAYS_MAX 48
#define MM__FIT_SIZE_DAYS 2      /* days behind each step of the trade size (a mean per trade) */
#define MM__FIT_SPREAD_TOL 0.01  /* the spread's root is found to 1% of the target ... */
#define MM__FIT_SPREAD_EVALS 14  /* ... or after this many evaluations */
#define MM__FIT_IMPROVE_MIN 1e-4 /* the least improve_frac tried */

/* Sums over the days of one evaluation: the rows' spread (ticks) and rows, trade rows and lots. */
typedef struct fit_sums {
    double spread, rows, trades, lots;
} fit_sums;

/* Generate `days` days of p with seeds seed0, seed0 + 1, ... and add them up into s. */
static int run_days(const mm_gen_params *p, uint64_t seed0, int days, fit_sums *s, mm_error *err)
{
    *s = (fit_sums){0};
    mm_gen_params d = *p;
    for (int k = 0; k < days; k++) {
        d.seed = seed0 + (uint64_t)k;
        mm_ticks g = {0};
        int rc = mm_gen_ticks(&d, &g, err);
        if (rc) return rc;
        for (int64_t i = 0; i < g.n; i++) {
            s->spread += (double)g.ask_px[i] - g.bid_px[i];
            if (g.trade_sz[i] > 0) {
                s->trades += 1;
                s->lots += g.trade_sz[i];
            }
        }
        s->rows += (double)g.n;
        free(g.mem_base); /* heap; core does not link the io layer's mm_ticks_free */
    }
    return 0;
}

/* trade_size: a trade wants size(w, m), uniform on 1..2m-1, and takes at most the displayed size,
 * so the lots per trade row fall short of m by the trades the queue caps. m starts at the tape's
 * lots per trade row `want` and steps m <- round(m want / got) (got: the synthetic lots per trade
 * row over MM__FIT_SIZE_DAYS days); got(m) / m falls as m grows, so the steps climb to the fixed
 * point from below. At most 8 steps, m in 1..1000000. */
static int fit_trade_size(mm_gen_params *p, double want, mm_error *err)
{
    for (int it = 0; it < 8; it++) {
        fit_sums s;
        int rc = run_days(p, MM__FIT_SEED0, MM__FIT_SIZE_DAYS, &s, err);
        if (rc) return rc;
        if (!(s.trades > 0)) return 0;
        double m = floor((double)p->trade_size * want / (s.lots / s.trades) + 0.5);
        int32_t mi = m < 1 ? 1 : m > 1000000 ? 1000000 : (int32_t)m;
        if (mi == p->trade_size) break;
        p->trade_size = mi;
    }
    return 0;
}

/* A mean spread s of 1..max ticks on a line: log((s - 1) / (max - s)), each difference taken as at
 * least 1e-9. */
static double mm__logit_spread(double s, int32_t max)
{
    double a = s - 1 > 1e-9 ? s - 1 : 1e-9, b = max - s > 1e-9 ? max - s : 1e-9;
    return log(a / b);
}

/* The mean spread (ticks) of p's fit days at improve_frac x: *out, and in *h the root function
 * of fit_improve, logit(spread) - logit(target). */
static int spread_at(const mm_gen_params *p, double x, int days, double target, double *out,
                     double *h, mm_error *err)
{
    mm_gen_params d = *p;
    d.improve_frac = x;
    fit_sums s;
    int rc = run_days(&d, MM__FIT_SEED0, days, &s, err);
    if (rc) return rc;
    *out = s.rows > 0 ? s.spread / s.rows : 0;
    *h = mm__logit_spread(*out, p->max_spread) - mm__logit_spread(target, p->max_spread);
    return 0;
}

/* improve_frac: the root of spread(x) = target for x in [lo, hi] (0 < lo < hi), spread(x) the
 * mean spread of the fit days (common seeds, but any change of x sends some days down another
 * path, so spread(x) is a noisy falling function). The spread is a birth-death chain on
 * 1..max_spread that widens at the rate trades empty a touch and narrows at the rate x; near
 * x = 1e-4 and 0.5 it sits flat against a bound, where false position on the spread itself
 * creeps, while logit(spread) = log((spread - 1) / (max_spread - spread)) maps the range onto the
 * line and is close to a straight line in log x (AMZN, BTCUSDT: 5 to 7 evaluations). The root is
 * sought as that of h = logit(spread(x)) - logit(target) in log x, by Illinois false position
 * (regula falsi whose stale end's weight halves), until the spread is within MM__FIT_SPREAD_TOL of
 * the target. A target outside (1, max_spread), or outside [spread(hi), spread(lo)], gives the
 * bound. */
static int fit_improve(mm_gen_params *p, double lo, double hi, int days, double target,
                       mm_error *err)
{
    if (!(target > 1 + 1e-9 && target < p->max_spread - 1e-9)) {
        p->improve_frac = target < p->max_spread - 1e-9 ? hi : lo;
        return 0;
    }
    double slo, shi, flo, fhi;
    int rc = spread_at(p, lo, days, target, &slo, &flo, err);
    if (!rc) rc = spread_at(p, hi, days, target, &shi, &fhi, err);
    if (rc) return rc;
    if (shi >= target || slo <= target) {
        p->improve_frac = shi >= target ? hi : lo;
        return 0;
    }
    double a = log(lo), b = log(hi), x = 0.5 * (lo + hi);
    int side = 0; /* which end the last two steps moved: -1 lo, +1 hi */
    for (int it = 0; it < MM__FIT_SPREAD_EVALS; it++) {
        x = exp(b - fhi * (b - a) / (fhi - flo)); /* flo > 0 > fhi */
        double sx, fx;
        rc = spread_at(p, x, days, target, &sx, &fx, err);
        if (rc) return rc;
        if (fabs(sx - target) <= MM__FIT_SPREAD_TOL * target) break;
        if (sx > target) {
            a = log(x), flo = fx;
            if (side == -1) fhi *= 0.5; /* Illinois: the stale end's weight halves */
            side = -1;
        } else {
            b = log(x), fhi = fx;
            if (side == 1) flo *= 0.5;
            side = 1;
        }
    }
    p->improve_frac = x;
    return 0;
}

int mm__calibrate_sim(const mm_facts *f, mm_gen_params *p, mm_error *err)
{
    mm_gen_params trial = *p;
    trial.events = p->events < MM__FIT_DAY_MAX ? p->events : MM__FIT_DAY_MAX;
    int64_t k = trial.events > 0 ? MM__FIT_EVENTS / trial.events : MM__FIT_DAYS_MAX;
    int days = k < MM__FIT_DAYS_MIN   ? MM__FIT_DAYS_MIN
               : k > MM__FIT_DAYS_MAX ? MM__FIT_DAYS_MAX
                                      : (int)k;
    double p_move = trial.vol_ticks * trial.vol_ticks /
                    (trial.rate_hz * (double)trial.move_ticks * (double)trial.move_ticks);
    double hi = 0.95 - trial.trade_frac - p_move - 1e-9; /* 1e-9: the bound's rounding */
    hi = hi > 0.5 ? 0.5 : hi < 0 ? 0 : hi;
    double want = f->trades > 0 ? (double)f->trade_lots / (double)f->trades : 0;
    trial.trade_size = 0;
    if (want > 0) trial.trade_size = want + 0.5 < 1e6 ? (int32_t)(want + 0.5) : 1000000;
    /* Two rounds: the size at improve_frac 0.05, improve_frac at that size, the size again (fresh
     * quotes after improvements are smaller, so more trades are capped), and improve_frac again
     * at the final size whenever the size moved, even by a lot: any change of a draw sends every
     * fit day down another path, so a spread fitted at another size is off by the days' noise
     * (about sd / sqrt(days)). The second search starts in [0.9 x, 1.1 x] around the first root
     * x, and falls back to the whole range when that does not hold the root. */
    int rc = 0;
    if (want > 0) rc = fit_trade_size(&trial, want, err);
    if (!rc) rc = fit_improve(&trial, MM__FIT_IMPROVE_MIN, hi, days, f->spread_mean, err);
    int32_t m1 = trial.trade_size;
    if (!rc && want > 0) rc = fit_trade_size(&trial, want, err);
    if (!rc && trial.trade_size != m1) {
        double a = 0.9 * trial.improve_frac, b = 1.1 * trial.improve_frac;
        if (b > hi) b = hi;
        rc = fit_improve(&trial, a, b, days, f->spread_mean, err);
        if (!rc && (trial.improve_frac == a || trial.improve_frac == b))
            rc = fit_improve(&trial, MM__FIT_IMPROVE_MIN, hi, days, f->spread_mean, err);
    }
    if (rc) return rc;
    p->trade_size = trial.trade_size;
    p->improve_frac = trial.improve_frac;
    return 0;
}
