/* Stylised facts of a tape and the generator's parameters fitted to them (docs/synthetic.md,
 * "Calibration"). One pass per fact over the columns; no I/O, no allocation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

static int two_sided(const mm_ticks *t, int64_t i)
{
    return t->bid_sz[i] > 0 && t->ask_sz[i] > 0 && t->bid_px[i] != MM_PX_NONE_BID &&
           t->ask_px[i] != MM_PX_NONE_ASK;
}

/* Twice the mid of row i, ticks (exact integer). */
static int64_t mid2(const mm_ticks *t, int64_t i)
{
    return (int64_t)t->bid_px[i] + t->ask_px[i];
}

/* RMS of the change of the mid over horizon h_ns, on the clock first + k h: the mid at a time is
 * that of the last two-sided row at or before it. Returns the number of changes in *count. */
static double rms_change(const mm_ticks *t, int64_t h_ns, int64_t *count)
{
    int64_t t0 = t->ts_ns[0], t1 = t->ts_ns[t->n - 1];
    int64_t j = 0, have = 0, m = 0, prev = 0, k = 0;
    double sum = 0;
    for (int64_t clock = t0; clock <= t1; clock += h_ns) {
        while (j < t->n && t->ts_ns[j] <= clock) {
            if (two_sided(t, j)) {
                m = mid2(t, j);
                have = 1;
            }
            j++;
        }
        if (!have) continue;
        if (k > 0) {
            double d = (double)(m - prev) * 0.5;
            sum += d * d;
        }
        prev = m;
        k++;
    }
    *count = k > 0 ? k - 1 : 0;
    return *count > 0 ? sqrt(sum / (double)*count) : 0.0;
}

/* Mean of s_k s_(k+lag) over the sides s (+1, -1) of consecutive trade rows (side 0 skipped);
 * the number of pairs in *pairs. */
static double sign_corr(const mm_ticks *t, int lag, int64_t *pairs)
{
    int8_t ring[1024] = {0}; /* the last 1024 sides, enough for lag <= 1000 */
    int64_t k = 0, n = 0;
    double sum = 0;
    for (int64_t i = 0; i < t->n; i++) {
        if (!(t->trade_sz[i] > 0) || t->trade_side[i] == 0) continue;
        int8_t s = t->trade_side[i] > 0 ? 1 : -1;
        if (k >= lag) {
            sum += s * ring[(k - lag) & 1023];
            n++;
        }
        ring[k & 1023] = s;
        k++;
    }
    *pairs = n;
    return n ? sum / (double)n : 0.0;
}

int mm_ticks_facts(const mm_ticks *t, mm_facts *f, mm_error *err)
{
    if (!t || !f) return mm__errf(err, -EINVAL, "facts: no tape");
    memset(f, 0, sizeof *f);
    if (t->n < 2) return mm__errf(err, -EINVAL, "%s: fewer than 2 rows", t->inst.symbol);
    f->rows = t->n;
    f->seconds = (double)(t->ts_ns[t->n - 1] - t->ts_ns[0]) * 1e-9;
    if (!(f->seconds > 0))
        return mm__errf(err, -EINVAL, "%s: all %lld rows have the same time", t->inst.symbol,
                        (long long)t->n);
    /* Spreads: a histogram of 1..100 ticks and one bin above, enough for the 99th percentile. */
    int64_t hist[102] = {0};
    double qsum = 0, spsum = 0, nlsum = 0, impsum = 0;
    int64_t imp_n = 0, wide = 0, improves = 0;
    int64_t j = 0, last_two = -1, jm = 0;
    int have_after = 0;
    for (int64_t i = 0; i < t->n; i++) {
        if (t->trade_sz[i] > 0) {
            f->trades++;
            f->trade_lots += t->trade_sz[i];
        }
        if (!two_sided(t, i)) continue;
        int64_t s = (int64_t)t->ask_px[i] - t->bid_px[i];
        f->two_sided_rows++;
        spsum += (double)s;
        hist[s < 1 ? 0 : s > 100 ? 101 : s]++;
        qsum += 0.5 * ((double)t->bid_sz[i] + t->ask_sz[i]);
        if (last_two >= 0) {
            /* A touch that receded (bid down, ask up) shows the size of the level behind it. */
            if (t->bid_px[i] < t->bid_px[last_two]) {
                nlsum += t->bid_sz[i];
                f->new_levels++;
            }
            if (t->ask_px[i] > t->ask_px[last_two]) {
                nlsum += t->ask_sz[i];
                f->new_levels++;
            }
            /* Improvement: after a spread of more than one tick, one touch moves inward and the
             * other stays (the generator's improve event). */
            int32_t pb = t->bid_px[last_two], pa = t->ask_px[last_two];
            if (pa - pb > 1) {
                wide++;
                if ((t->bid_px[i] > pb && t->ask_px[i] == pa) ||
                    (t->ask_px[i] < pa && t->bid_px[i] == pb))
                    improves++;
            }
            /* Impact: a trade's side times the change of the mid from the row before it to the
             * last row at or before 1 s after it. */
            if (t->trade_sz[i] > 0 && t->trade_side[i] != 0) {
                int64_t until = t->ts_ns[i] + 1000000000;
                if (j < i) j = i, have_after = 0;
                while (j < t->n && t->ts_ns[j] <= until) {
                    if (two_sided(t, j)) jm = mid2(t, j), have_after = 1;
                    j++;
                }
                if (!have_after) jm = mid2(t, i), have_after = 1;
                impsum += (double)t->trade_side[i] * (double)(jm - mid2(t, last_two)) * 0.5;
                imp_n++;
            }
        }
        last_two = i;
    }
    if (f->two_sided_rows == 0)
        return mm__errf(err, -EINVAL, "%s: no row has both a bid and an ask", t->inst.symbol);
    double nt = (double)f->two_sided_rows;
    f->events_per_s = (double)(t->n - 1) / f->seconds;
    f->trades_per_s = (double)f->trades / f->seconds;
    for (int s = 0; s <= 101; s++) {
        int b = s <= 1 ? 0 : s >= MM_FACTS_SPREADS ? MM_FACTS_SPREADS - 1 : s - 1;
        f->spread_share[b] += (double)hist[s] / nt;
    }
    int64_t acc = 0, want = (int64_t)ceil(0.99 * nt);
    for (int s = 0; s <= 101; s++) {
        acc += hist[s];
        if (acc >= want) {
            f->spread_p99 = s < 1 ? 1 : s;
            break;
        }
    }
    f->spread_mean = spsum / nt;
    f->improve_share = wide ? (double)improves / (double)wide : 0.0;
    f->queue_mean = qsum / nt;
    f->new_level_queue = f->new_levels ? nlsum / (double)f->new_levels : f->queue_mean;
    f->impact_1s = imp_n ? impsum / (double)imp_n : 0.0;
    static const int64_t H[3] = {1000000000, 10000000000, 60000000000};
    for (int k = 0; k < 3; k++)
        f->vol[k] = rms_change(t, H[k], &f->vol_samples[k]);
    f->sign_corr[0] = sign_corr(t, 1, &f->sign_pairs[0]);
    double lag = floor(f->trades_per_s + 0.5);
    f->sign_lag = lag < 1 ? 1 : lag > 1000 ? 1000 : (int32_t)lag;
    f->sign_corr[1] = sign_corr(t, f->sign_lag, &f->sign_pairs[1]);
    return 0;
}

int mm_gen_calibrate(const mm_ticks *t, mm_gen_params *p, mm_facts *f, int *capped, mm_error *err)
{
    mm_facts local;
    if (!f) f = &local;
    if (capped) *capped = 0;
    if (!p) return mm__errf(err, -EINVAL, "calibrate: no parameters to fill");
    int rc = mm_ticks_facts(t, f, err);
    if (rc) return rc;
    mm_gen_defaults(p);
    p->seed = 1;
    p->events = t->n;
    p->start_ns = t->ts_ns[0];
    p->rate_hz = f->events_per_s;
    if (p->rate_hz > 1e9) p->rate_hz = 1e9;
    p->trade_frac = (double)f->trades / (double)t->n;
    if (p->trade_frac > 0.9) p->trade_frac = 0.9;
    p->max_spread = f->spread_p99 < 1 ? 1 : f->spread_p99 > 100 ? 100 : f->spread_p99;
    double q = f->new_level_queue + 0.5;
    p->mean_queue = q < 1 ? 1 : q > 1000000 ? 1000000 : (int32_t)q;
    /* trade_persist b: right after a trade the next event is a trade of the same side with
     * probability b, so the sides of consecutive trades form a Markov chain with lag-L
     * autocorrelation b^L. Real flow has a longer memory than a Markov chain (its lag-1
     * correlation underrates the runs a second of trades sees), so b is the larger of c1 and
     * cL^(1/L), L the trades in a second, each counted only when it is over three standard
     * errors (3 / sqrt(pairs); else 0), at most 0.99. trade_frac is then the chance of a fresh
     * trade: the share f of trade rows is trade_frac / (1 - b (1 - trade_frac)). */
    double f_rows = p->trade_frac, b = 0;
    for (int k = 0; k < 2; k++) {
        double c = f->sign_corr[k], n = (double)f->sign_pairs[k];
        if (n > 0 && c > 3 / sqrt(n)) {
            double bk = k ? pow(c, 1.0 / f->sign_lag) : c;
            if (bk > b) b = bk;
        }
    }
    if (b > 0.99) b = 0.99;
    p->trade_persist = b;
    p->trade_frac = f_rows * (1 - b) / (1 - b * f_rows);
    /* The 10 s variance per second of the mid. A trade is informed with probability inf and moves
     * the fair price J ticks its way; x = J inf. Within a second a trade's run goes on for s1 =
     * 1 + b (1 - exp(-rate (1 - b))) / (1 - b) trades on average (at each of the Poisson(rate)
     * events with probability b), so its 1 s impact is x s1: x = impact / s1. Its variance per
     * second is lam (J x + 2 x^2 b / (1 - b)) (lam: trade rows per second; the second term the
     * runs' share); when that exceeds the tape's, x is lowered to the root that gives it exactly,
     * and vol takes what is left. J is the smallest jump with inf <= 1 and a move probability vol^2
     * / (rate J^2) within half of the room 0.9 - trade_frac. (The 60 s horizon would be less
     * touched by the spread's bounce but gives too few changes on a short capture.) */
    double var10 = f->vol[1] * f->vol[1] / 10.0;
    p->improve_frac = 0.05; /* for the choice of vol; fitted last */
    double room = 0.9 - (p->improve_frac - 0.05) - p->trade_frac;
    double lam = f->trades_per_s, g = 2 * b / (1 - b);
    double s1 = 1 + b * (1 - exp(-p->rate_hz * (1 - b))) / (1 - b);
    double x0 = f->impact_1s > 0 && lam > 0 ? f->impact_1s / s1 : 0, x = 0, v2 = var10;
    int32_t J = 1;
    for (; J <= 1000; J++) {
        x = x0;
        double vt = lam * ((double)J * x + g * x * x);
        if (vt > var10) {
            x = g > 0 ? (-(double)J + sqrt((double)J * J + 4 * g * var10 / lam)) / (2 * g)
                      : var10 / (lam * (double)J);
            vt = var10;
        }
        v2 = var10 - vt;
        if (v2 < 0) v2 = 0;
        if (x <= (double)J && v2 / (p->rate_hz * (double)J * (double)J) <= 0.5 * room) break;
    }
    if (J > 1000) J = 1000;
    p->move_ticks = J;
    double inf = x / (double)J;
    p->informed = inf < 0 ? 0 : inf > 1 ? 1 : inf;
    double v2max = room * p->rate_hz * (double)J * (double)J;
    if (v2 > v2max) {
        v2 = v2max;
        if (capped) *capped = 1;
    }
    p->vol_ticks = sqrt(v2);
    /* Rounding sqrt back up could pass the bound by an ulp: step down until it holds. */
    while (p->vol_ticks > 0 &&
           p->vol_ticks * p->vol_ticks / (p->rate_hz * (double)(J * J)) + p->trade_frac >
               0.9 - (p->improve_frac - 0.05))
        p->vol_ticks = nextafter(p->vol_ticks, 0);
    int32_t first_bid = 0;
    for (int64_t i = 0; i < t->n; i++)
        if (two_sided(t, i)) {
            first_bid = t->bid_px[i];
            break;
        }
    p->start_px = first_bid < 1000 ? 1000 : first_bid > INT32_MAX / 2 ? INT32_MAX / 2 : first_bid;
    p->tick_size = t->inst.tick_size;
    p->lot_size = t->inst.lot_size;
    strcpy(p->symbol, t->inst.symbol);
    /* trade_size and improve_frac: by simulation (calibrate_fit.c). */
    return mm__calibrate_sim(f, p, err);
}
