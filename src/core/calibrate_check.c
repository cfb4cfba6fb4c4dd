/* The generator's fit checked against a real tape (mm_gen_fit_check, declared in
 * include/mmsim/ticks.h; docs/synthetic.md "Calibration"): the stylised facts of the tape
 * (mm_ticks_facts, calibrate.c) beside their mean and spread over the synthetic days of seeds 1..N.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

const char *mm_fit_fact_name(mm_fit_fact k)
{
    switch (k) {
    case MM_FIT_EVENTS_PER_S:
        return "events_per_s";
    case MM_FIT_TRADES:
        return "trades";
    case MM_FIT_TRADE_LOTS:
        return "traded_lots";
    case MM_FIT_LOTS_PER_TRADE:
        return "lots_per_trade";
    case MM_FIT_SPREAD_MEAN:
        return "spread_mean_ticks";
    case MM_FIT_NEW_LEVEL:
        return "new_level_lots";
    case MM_FIT_VOL_10S:
        return "vol_10s_ticks";
    case MM_FIT_IMPACT_1S:
        return "impact_1s_ticks";
    case MM_FIT_SIGN_CORR:
        return "trade_sign_corr_lag1";
    case MM_FIT_FACTS:
        break;
    }
    return "?";
}

/* The value of fact k; `scale` multiplies the counts (trades, lots) of a tape longer than the
 * check's days. */
static double fact_value(const mm_facts *f, mm_fit_fact k, double scale)
{
    switch (k) {
    case MM_FIT_EVENTS_PER_S:
        return f->events_per_s;
    case MM_FIT_TRADES:
        return (double)f->trades * scale;
    case MM_FIT_TRADE_LOTS:
        return (double)f->trade_lots * scale;
    case MM_FIT_LOTS_PER_TRADE:
        return f->trades > 0 ? (double)f->trade_lots / (double)f->trades : 0;
    case MM_FIT_SPREAD_MEAN:
        return f->spread_mean;
    case MM_FIT_NEW_LEVEL:
        return f->new_level_queue;
    case MM_FIT_VOL_10S:
        return f->vol[1];
    case MM_FIT_IMPACT_1S:
        return f->impact_1s;
    case MM_FIT_SIGN_CORR:
        return f->sign_corr[0];
    case MM_FIT_FACTS:
        break;
    }
    return 0;
}

int mm_gen_fit_check(const mm_ticks *t, const mm_gen_params *p, int seeds, int64_t events,
                     mm_gen_fit *out, mm_error *err)
{
    if (!t || !p || !out || seeds < 2 || events < 2)
        return mm__errf(err, -EINVAL, "fit check: bad argument (seeds >= 2, events >= 2)");
    memset(out, 0, sizeof *out);
    mm_facts f;
    int rc = mm_ticks_facts(t, &f, err);
    if (rc) return rc;
    out->seeds = seeds;
    out->events = events;
    double scale = (double)events / (double)t->n;
    double sum[MM_FIT_FACTS] = {0}, sum2[MM_FIT_FACTS] = {0};
    for (int k = 0; k < MM_FIT_FACTS; k++)
        out->real[k] = fact_value(&f, (mm_fit_fact)k, scale);
    mm_gen_params d = *p;
    d.events = events;
    for (int s = 1; s <= seeds; s++) {
        d.seed = (uint64_t)s;
        mm_ticks g = {0};
        mm_facts gf;
        rc = mm_gen_ticks(&d, &g, err);
        if (!rc) rc = mm_ticks_facts(&g, &gf, err);
        free(g.mem_base); /* heap; core does not link the io layer's mm_ticks_free */
        if (rc) return rc;
        for (int k = 0; k < MM_FIT_FACTS; k++) {
            double v = fact_value(&gf, (mm_fit_fact)k, 1);
            sum[k] += v;
            sum2[k] += v * v;
        }
    }
    for (int k = 0; k < MM_FIT_FACTS; k++) {
        double m = sum[k] / seeds, v = (sum2[k] - seeds * m * m) / (seeds - 1);
        out->mean[k] = m;
        out->sd[k] = v > 0 ? sqrt(v) : 0;
    }
    return 0;
}
