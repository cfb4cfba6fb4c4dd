/* The Avellaneda-Stoikov model market: parameters, derived constants, one path, the summary over
 * paths (docs/montecarlo.md). The step itself is mm_asmarket.h (MM_HD). No I/O, no threads: the
 * threaded runner is src/sweep/asmarket_run.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_asmarket.h"
#include "mm_internal.h"

void mm_as_defaults(mm_as_params *p)
{
    memset(p, 0, sizeof *p);
    p->strategy = MM_AS_INVENTORY;
    p->s0 = 100;
    p->T = 1;
    p->dt = 0.005;
    p->sigma = 2;
    p->k = 1.5;
    p->A = 140;
    p->q0 = 0;
    p->gamma = 0.1;
}

#define BAD(field, ...) return mm__errf(err, MM_EUSAGE, field ": " __VA_ARGS__)

/* round(T / dt), for T and dt in their domains (at most 1e15 before the 1e9 check). */
static int64_t steps_of(double T, double dt)
{
    return (int64_t)floor(T / dt + 0.5);
}

int mm_as_check(const mm_as_params *p, mm_error *err)
{
    if (!p) return mm__errf(err, -EINVAL, "mm_as_check: NULL argument");
    if (p->strategy < MM_AS_INVENTORY || p->strategy > MM_AS_FIXED)
        BAD("strategy", "%d is not inventory (0), symmetric (1), glft (2) or fixed (3)",
            p->strategy);
    if (!(p->s0 > 0 && p->s0 < 1e9)) BAD("s0", "%s must be in (0, 1e9)", MM__G(p->s0));
    if (!(p->T > 0 && p->T <= 1e6)) BAD("T", "%s must be in (0, 1e6]", MM__G(p->T));
    if (!(p->dt >= 1e-9 && p->dt <= p->T))
        BAD("dt", "%s must be in [1e-9, T = %s]", MM__G(p->dt), MM__G(p->T));
    int64_t n = steps_of(p->T, p->dt);
    if (n > 1000000000)
        BAD("dt", "%s gives %lld steps over T = %s (at most 1e9)", MM__G(p->dt), (long long)n,
            MM__G(p->T));
    if (!(fabs((double)n * p->dt - p->T) <= 1e-9 * p->T))
        BAD("dt", "%s does not divide T = %s into whole steps", MM__G(p->dt), MM__G(p->T));
    if (!(p->sigma >= 0 && p->sigma < 1e6)) BAD("sigma", "%s must be in [0, 1e6)", MM__G(p->sigma));
    if (!(p->k >= 1e-6 && p->k < 1e6)) BAD("k", "%s must be in [1e-6, 1e6)", MM__G(p->k));
    if (!(p->A >= 1e-6 && p->A < 1e9)) BAD("A", "%s must be in [1e-6, 1e9)", MM__G(p->A));
    if (p->q0 < -1000000000 || p->q0 > 1000000000)
        BAD("q0", "%lld must be in [-1e9, 1e9]", (long long)p->q0);
    if (p->strategy != MM_AS_FIXED && !(p->gamma >= 1e-6 && p->gamma < 1e6))
        BAD("gamma", "%s must be in [1e-6, 1e6)", MM__G(p->gamma));
    if (p->strategy == MM_AS_FIXED) {
        if (!(p->spread >= 0 && p->spread < 1e6))
            BAD("spread", "%s must be in [0, 1e6)", MM__G(p->spread));
        if (!(p->skew >= 0 && p->skew < 1e6)) BAD("skew", "%s must be in [0, 1e6)", MM__G(p->skew));
    }
    if (p->inv_limit < 0 || p->inv_limit > 1000000000)
        BAD("inv_limit", "%lld must be in [0, 1e9] (0: none)", (long long)p->inv_limit);
    return 0;
}

int64_t mm_as_steps(const mm_as_params *p)
{
    return steps_of(p->T, p->dt);
}

/* The inventory strategy's half spread: (1/gamma) ln(1 + gamma/k) + (gamma sigma^2 / 2) tau, and
 * its skew gamma sigma^2 tau (docs/montecarlo.md 2). */
static void inventory_rule(const mm_as_params *p, double *hs0, double *hs1, double *sk1)
{
    double g = p->gamma;
    *hs0 = mm_det_log(1.0 + g / p->k) / g;
    *hs1 = g * p->sigma * p->sigma / 2.0;
    *sk1 = g * p->sigma * p->sigma;
}

double mm_as_symmetric_spread(const mm_as_params *p)
{
    if (mm_as_check(p, NULL)) return NAN;
    double hs0, hs1, sk1;
    inventory_rule(p, &hs0, &hs1, &sk1);
    int64_t n = steps_of(p->T, p->dt);
    double sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += 2.0 * (hs0 + hs1 * (p->T - (double)i * p->dt));
    return sum / (double)n;
}

int mm__as_derive(const mm_as_params *p, mm__as_derived *d, mm_error *err)
{
    int rc = mm_as_check(p, err);
    if (rc) return rc;
    memset(d, 0, sizeof *d);
    d->s0 = p->s0;
    d->T = p->T;
    d->dt = p->dt;
    d->ds = p->sigma * sqrt(p->dt);
    d->A_dt = p->A * p->dt;
    d->ln_A_dt = mm_det_log(d->A_dt); /* A dt >= 1e-15: normal, in mm_det_log's domain */
    d->k = p->k;
    d->n_steps = steps_of(p->T, p->dt);
    d->q0 = p->q0;
    d->inv_limit = p->inv_limit;
    double g = p->gamma;
    switch (p->strategy) {
    case MM_AS_INVENTORY:
        inventory_rule(p, &d->hs0, &d->hs1, &d->sk1);
        break;
    case MM_AS_SYMMETRIC:
        d->hs0 = mm_as_symmetric_spread(p) / 2.0;
        break;
    case MM_AS_GLFT: {
        /* c1 = (1/gamma) ln(1 + gamma/k); x = sigma^2 gamma / (2 k A) (1 + gamma/k)^(1 + k/gamma):
         * bid depth c1 + (2q + 1)/2 sqrt(x), ask depth c1 - (2q - 1)/2 sqrt(x). The exponent
         * (1 + k/gamma) ln(1 + gamma/k) is in [1, 27.7] over the domains, so exp is in range. */
        double l = mm_det_log(1.0 + g / p->k);
        double x = p->sigma * p->sigma * g / (2.0 * p->k * p->A) * mm_det_exp((1.0 + p->k / g) * l);
        d->hs0 = l / g + sqrt(x) / 2.0;
        d->sk0 = sqrt(x);
        break;
    }
    default: /* MM_AS_FIXED */
        d->hs0 = p->spread;
        d->sk0 = p->skew;
        break;
    }
    return 0;
}

void mm__as_path(const mm__as_derived *d, uint64_t key, mm_as_path_result *out)
{
    mm__as_state st;
    mm__as_state_init(d, &st);
    for (int64_t i = 0; i < d->n_steps; i++)
        mm_as_step_c(d, &st, key, i);
    mm__as_path_result_of(d, &st, out);
}

void mm__as_path_result_of(const mm__as_derived *d, const mm__as_state *s, mm_as_path_result *out)
{
    mm__as_state st = *s;
    double n = (double)d->n_steps;
    double sT = mm__as_mid(d, st.m);
    memset(out, 0, sizeof *out);
    out->profit = st.cash + (double)st.q * sT - (double)d->q0 * d->s0;
    out->cash = st.cash;
    out->final_mid = sT;
    out->mean_spread = st.both_quoted ? st.spread_sum / (double)st.both_quoted : NAN;
    out->mean_abs_q = st.abs_q_sum / n;
    double mean = st.d_sum / n, var = st.d_sq / n - mean * mean;
    out->step_pnl_std = var > 0 ? sqrt(var) : 0.0;
    out->max_drawdown = st.max_dd;
    out->final_q = st.q;
    out->max_abs_q = st.max_abs_q;
    out->bid_fills = st.bid_fills;
    out->ask_fills = st.ask_fills;
    out->both_quoted = st.both_quoted;
}

int mm_as_run_path(const mm_as_params *p, uint64_t seed, int64_t id, int32_t path,
                   mm_as_path_result *out, mm_error *err)
{
    if (!p || !out) return mm__errf(err, -EINVAL, "mm_as_run_path: NULL argument");
    if (path < 0) BAD("path", "%d must not be negative", path);
    mm__as_derived d;
    int rc = mm__as_derive(p, &d, err);
    if (rc) return rc;
    mm__as_path(&d, mm_stream_key(seed, id, path), out);
    return 0;
}

int mm_as_summarize(const mm_as_path_result *r, int64_t n, mm_as_summary *s, mm_error *err)
{
    if (!r || !s) return mm__errf(err, -EINVAL, "mm_as_summarize: NULL argument");
    if (n < 1) BAD("paths", "%lld must be at least 1", (long long)n);
    double *x = malloc((size_t)n * sizeof *x);
    if (!x) return mm__errf(err, -ENOMEM, "paths: no memory to sort %lld profits", (long long)n);
    memset(s, 0, sizeof *s);
    s->paths = n;
    double dn = (double)n;
    double sp = 0, sq = 0, spread = 0, fills = 0, maq = 0, mdd = 0;
    int64_t quoted = 0, losses = 0;
    for (int64_t i = 0; i < n; i++) {
        sp += r[i].profit;
        sq += (double)r[i].final_q;
        if (r[i].both_quoted) {
            spread += r[i].mean_spread;
            quoted++;
        }
        fills += (double)(r[i].bid_fills + r[i].ask_fills);
        maq += (double)r[i].max_abs_q;
        mdd += r[i].max_drawdown;
        losses += r[i].profit < 0;
        x[i] = r[i].profit;
    }
    s->profit_mean = sp / dn;
    s->q_mean = sq / dn;
    s->spread_mean = quoted ? spread / (double)quoted : NAN;
    s->fills_mean = fills / dn;
    s->max_abs_q_mean = maq / dn;
    s->max_drawdown_mean = mdd / dn;
    s->prob_loss = (double)losses / dn;
    double vp = 0, vq = 0;
    for (int64_t i = 0; i < n; i++) {
        double a = r[i].profit - s->profit_mean, b = (double)r[i].final_q - s->q_mean;
        vp += a * a;
        vq += b * b;
    }
    s->profit_std = sqrt(vp / dn);
    s->q_std = sqrt(vq / dn);
    s->profit_se = s->profit_std / sqrt(dn);
    qsort(x, (size_t)n, sizeof *x, mm__cmp_f64);
    s->profit_p5 = mm__quantile(x, n, 0.05);
    s->profit_p50 = mm__quantile(x, n, 0.50);
    s->profit_p95 = mm__quantile(x, n, 0.95);
    int64_t tail = (n + 19) / 20; /* ceil(n / 20) >= 1 */
    double ts = 0;
    for (int64_t i = 0; i < tail; i++)
        ts += x[i];
    s->profit_cvar5 = ts / (double)tail;
    free(x);
    return 0;
}
