/* Parameters, derived constants, per-tape precomputation and final metrics (docs/model.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "sim_tape.h"

void mm_params_defaults(mm_params *p)
{
    memset(p, 0, sizeof *p);
    p->strategy = MM_STRAT_FIXED;
    p->spread_ticks = 1;
    p->skew_ticks = 0;
    p->as_gamma = 0.1;
    p->as_k = 1.5;
    p->as_sigma = 2;
    p->as_horizon_s = 60;
    p->glft_gamma = 0.1;
    p->glft_k = 1.5;
    p->glft_A = 1;
    p->glft_sigma = 2;
    p->glft_Q = 10;
    p->quote_size = 1;
    p->inv_limit = 10;
    p->requote_ticks = 1;
    p->queue_rule = MM_QUEUE_POWER;
    p->queue_n = 2;
    p->post_only = 1;
    p->close_penalty_ticks = 10;
    p->latency_sigma = 1;
    p->trade_reach = 1;
    p->stress_latency = 1;
    p->stress_vol = 1;
    p->stress_liquidity = 1;
    p->levels = 1;
    p->level_step = 1;
    p->level_size = 1;
}

void mm_sim_config_defaults(mm_sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->sample_ns = 1000000000;
    c->year_s = 0; /* the tape's (mm_sim_year_s) */
    c->markout_ns[0] = INT64_C(1000000000);
    c->markout_ns[1] = INT64_C(10000000000);
    c->markout_ns[2] = INT64_C(60000000000);
    c->seed = 1;
}

#define BAD(field, ...) return mm__errf(err, MM_EUSAGE, field ": " __VA_ARGS__)

double mm_sim_year_s(const mm_sim_config *c, const mm_instrument *inst)
{
    if (c->year_s > 0) return c->year_s;
    return inst && inst->year_s > 0 ? inst->year_s : MM_SIM_YEAR_S_DEFAULT;
}

int mm_sim_config_check(const mm_sim_config *c, const mm_ticks *t, mm_error *err)
{
    if (!c) return mm__errf(err, -EINVAL, "mm_sim_config_check: NULL argument");
    if (c->sample_ns <= 0) BAD("sample_ns", "%" PRId64 " must be > 0 ns", c->sample_ns);
    if (c->id < 0) BAD("id", "%" PRId64 " must be >= 0", c->id);
    if (c->path < 0) BAD("path", "%d must be >= 0", c->path);
    if (!(c->year_s == 0 || (c->year_s > 0 && c->year_s <= 1e12)))
        BAD("year_s", "%s must be 0 (the tape's) or in (0, 1e12] s", MM__G(c->year_s));
    for (int k = 0; k < MM_MARKOUTS; k++)
        if (c->markout_ns[k] < 1 || c->markout_ns[k] > MM_SIM_HORIZON_MAX_NS)
            BAD("markout_ns", "horizon %d: %" PRId64 " must be in [1, %" PRId64 "] ns", k + 1,
                c->markout_ns[k], MM_SIM_HORIZON_MAX_NS);
    const mm_latency_samples *sm = c->latency_samples;
    if (sm) {
        if (sm->n < 1 || !sm->entry_ns || !sm->response_ns)
            BAD("latency_samples", "no samples (at least one)");
        for (int64_t i = 0; i < sm->n; i++)
            if (sm->entry_ns[i] < 0 || sm->entry_ns[i] > MM_SIM_LATENCY_MAX_NS ||
                sm->response_ns[i] < 0 || sm->response_ns[i] > MM_SIM_LATENCY_MAX_NS)
                BAD("latency_samples",
                    "sample %" PRId64 ": %" PRId64 ", %" PRId64 " must be in [0, 1 h] ns", i,
                    sm->entry_ns[i], sm->response_ns[i]);
    }
    const mm_latency_series *ls = c->latency;
    if (ls) {
        if (ls->n < 1 || !ls->ts_ns || !ls->entry_ns || !ls->response_ns)
            BAD("latency", "the latency series is empty (at least one point)");
        for (int64_t i = 0; i < ls->n; i++) {
            if (ls->ts_ns[i] < MM_SIM_TS_MIN || ls->ts_ns[i] > MM_SIM_TS_MAX)
                BAD("latency",
                    "point %" PRId64 ": time %" PRId64 " is outside [-2^62, 2^62 - 1] ns", i,
                    ls->ts_ns[i]);
            if (i > 0 && ls->ts_ns[i] <= ls->ts_ns[i - 1])
                BAD("latency",
                    "point %" PRId64 ": time %" PRId64
                    " is not after the previous point's %" PRId64,
                    i, ls->ts_ns[i], ls->ts_ns[i - 1]);
            if (ls->entry_ns[i] < 0 || ls->entry_ns[i] > MM_SIM_LATENCY_MAX_NS)
                BAD("latency",
                    "point %" PRId64 ": entry latency %" PRId64 " must be in [0, 1 h] ns", i,
                    ls->entry_ns[i]);
            if (ls->response_ns[i] < 0 || ls->response_ns[i] > MM_SIM_LATENCY_MAX_NS)
                BAD("latency",
                    "point %" PRId64 ": response latency %" PRId64 " must be in [0, 1 h] ns", i,
                    ls->response_ns[i]);
        }
        /* A series from another day would silently hold its end values all day. */
        if (t && t->n > 0 && ls->n >= 2 &&
            (ls->ts_ns[ls->n - 1] < t->ts_ns[0] || ls->ts_ns[0] > t->ts_ns[t->n - 1]))
            BAD("latency",
                "the series spans [%" PRId64 ", %" PRId64 "] ns and instrument %s [%" PRId64
                ", %" PRId64 "] ns: they do not overlap",
                ls->ts_ns[0], ls->ts_ns[ls->n - 1], t->inst.symbol, t->ts_ns[0],
                t->ts_ns[t->n - 1]);
    }
    if (t && !(t->inst.year_s == 0 || (t->inst.year_s > 0 && t->inst.year_s <= 1e12)))
        return mm__errf(err, MM_EFORMAT, "instrument %s: year_s: %s must be 0 or in (0, 1e12] s",
                        t->inst.symbol, MM__G(t->inst.year_s));
    if (!t || t->n <= 0) return 0;
    /* The timestamps: in range (so that ts + horizon, ts + delay and every difference of two
     * timestamps are exact in int64) and in order (mm_ticks_validate checks the order too, but a
     * tape loaded with MM_LOAD_NO_VERIFY or built in memory has not been through it). */
    for (int64_t i = 0; i < t->n; i++) {
        int64_t ts = t->ts_ns[i];
        if (ts < MM_SIM_TS_MIN || ts > MM_SIM_TS_MAX)
            return mm__errf(err, MM_EINVALID,
                            "instrument %s: column ts_ns: row %" PRId64 ": timestamp %" PRId64
                            " is outside the simulator's range [-2^62, 2^62 - 1] ns",
                            t->inst.symbol, i, ts);
        if (i > 0 && ts < t->ts_ns[i - 1])
            return mm__errf(err, MM_EINVALID,
                            "instrument %s: column ts_ns: row %" PRId64 ": timestamp %" PRId64
                            " is before the previous row's %" PRId64,
                            t->inst.symbol, i, ts, t->ts_ns[i - 1]);
    }
    int64_t span = t->ts_ns[t->n - 1] - t->ts_ns[0]; /* < 2^63 by the range above */
    int64_t samples = span / c->sample_ns;
    if (samples > MM_SIM_SAMPLES_MAX)
        BAD("sample_ns",
            "%" PRId64 " ns gives %" PRId64
            " samples over the %.9g s of instrument %s (at most %" PRId64 "; take a longer clock)",
            c->sample_ns, samples, (double)span * 1e-9, t->inst.symbol, MM_SIM_SAMPLES_MAX);
    return 0;
}

int mm_sim_check_params(const mm_params *p, const mm_sim_config *c, mm_error *err)
{
    int rc = mm_params_check(p, err);
    if (rc) return rc;
    if (p->latency_dist == MM_LAT_EMPIRICAL && !(c && c->latency_samples))
        BAD("latency_dist", "empirical needs measured latencies (latency samples)");
    if (p->stress_latency != 1 && c && (c->latency || p->latency_dist == MM_LAT_EMPIRICAL))
        BAD("stress_latency",
            "scales latency_ns, feed_latency_ns and response_ns, not recorded latencies (a "
            "latency series or empirical samples): scale those files instead");
    if (p->stress_vol != 1 && !(c && c->synthetic))
        BAD("stress_vol", "stresses a synthetic market generated per path, not a recorded tape "
                          "(sweep over synthetic markets)");
    if (p->stress_liquidity != 1 && !(c && c->synthetic))
        BAD("stress_liquidity", "stresses a synthetic market generated per path, not a recorded "
                                "tape (sweep over synthetic markets)");
    return 0;
}

int mm_params_check(const mm_params *p, mm_error *err)
{
    /* Every enum key's value is one the key table lists, and every number is in the domain the
     * table gives it (params_keys.c); then the rules that tie two keys together. */
    int rc = mm__params_check_enums(p, err);
    if (!rc) rc = mm__params_check_ranges(p, err);
    if (rc) return rc;
    if (p->inv_limit < p->quote_size || p->inv_limit > 1000000000)
        BAD("inv_limit", "%d must be in [size=%d, 1e9] lots", p->inv_limit, p->quote_size);
    if (p->stress_latency > 1) {
        int64_t m = MM_SIM_LATENCY_MAX_NS / p->stress_latency;
        if (p->latency_ns > m || p->feed_latency_ns > m || p->response_ns > m)
            BAD("stress_latency", "%d x the latencies exceeds 1 h", p->stress_latency);
    }
    return 0;
}

int mm__params_tape_check(const mm_params *p, const mm_ticks *t, mm_error *err)
{
    if (p->book == MM_BOOK_L3 && t->depth.levels > 0 && !t->depth.ids)
        return mm__errf(err, MM_EUSAGE,
                        "book: l3 needs order ids (LOBSTER), and tape %s's depth stream has none "
                        "(book = l2 reads it)",
                        t->inst.symbol);
    if (p->signal_skew != 0 && !t->signal)
        return mm__errf(err, MM_EUSAGE,
                        "signal_skew: %s needs a signal column, and tape %s has none (attach one "
                        "with mm_ticks_write_signal)",
                        MM__G(p->signal_skew), t->inst.symbol);
    if (p->book >= MM_BOOK_L2 && t->depth.levels <= 0)
        return mm__errf(err, MM_EUSAGE,
                        "book: l2 and l3 need a depth stream, and tape %s has none (import it with "
                        "one, mm_import_opts.depth_levels > 0; book = auto takes l2 where there "
                        "is one)",
                        t->inst.symbol);
    return 0;
}

void mm__derive(const mm_params *p, const mm_ticks *t, mm_derived *d)
{
    const mm_instrument *inst = &t->inst;
    memset(d, 0, sizeof *d);
    d->size = p->quote_size;
    d->limit = p->inv_limit;
    switch ((enum mm_strategy)p->strategy) { /* no default: a new strategy is a compile error */
    case MM_STRAT_AS: {
        double g = p->as_gamma, s2 = p->as_sigma * p->as_sigma;
        double c =
            (1.0 / g) * mm_det_log(1.0 + g / p->as_k); /* half of (2/gamma) ln(1 + gamma/k) */
        if (p->as_horizon_s > 0) {
            d->hs0 = c + 0.5 * g * s2 * p->as_horizon_s;
            d->sk0 = g * s2 * p->as_horizon_s;
        } else {
            d->time_varying = 1;
            d->hs0 = c;
            d->hs1 = 0.5 * g * s2;
            d->sk1 = g * s2;
        }
        break;
    }
    case MM_STRAT_GLFT: {
        double g = p->glft_gamma, k = p->glft_k, s2 = p->glft_sigma * p->glft_sigma;
        double c1 = (1.0 / g) * mm_det_log(1.0 + g / k);
        double x =
            s2 * g / (2.0 * k * p->glft_A) * mm_det_exp((1.0 + k / g) * mm_det_log(1.0 + g / k));
        double sx = sqrt(x);
        d->hs0 = c1 + 0.5 * sx;
        d->sk0 = sx / (double)p->quote_size;
        int64_t qlim = (int64_t)p->glft_Q * p->quote_size;
        if (qlim < d->limit) d->limit = (int32_t)qlim;
        break;
    }
    case MM_STRAT_FIXED:
        d->hs0 = p->spread_ticks;
        d->sk0 = p->skew_ticks;
        break;
    }
    d->fair_micro = p->fair_micro;
    d->queue_rule = p->queue_rule;
    d->queue_n = p->queue_n;
    d->tto = p->trade_through_only;
    d->post_only = p->post_only;
    d->fill_unbounded = p->fill_volume == MM_FILL_UNBOUNDED;
    d->cross_join = p->cross_rule == MM_CROSS_JOIN;
    d->backoff_ns = p->reject_backoff_ns;
    d->rate = p->max_orders_per_s;
    d->close_pen = p->close_penalty_ticks;
    d->requote = p->requote_ticks;
    /* The step makes an action's delay at least 1 ns: it never lands inside the group of rows that
     * share the timestamp of the event it was decided on (one market order printed as several rows;
     * docs/model.md 3). */
    d->feed_ns = p->feed_latency_ns * p->stress_latency;
    d->entry_ns = p->latency_ns * p->stress_latency;
    d->resp_ns = p->response_ns * p->stress_latency;
    d->lat_dist = p->latency_dist;
    d->lat_sigma = p->latency_sigma;
    d->join_uniform = p->queue_join == MM_JOIN_UNIFORM;
    d->reach32 = mm_prob32(p->trade_reach);
    d->cancel_binom = p->cancel_draw == MM_CANCEL_BINOMIAL;
    d->caps = mm__params_caps(p);
    /* Section 4.5: book = auto is the deepest the tape supports; l2 on a tape without depth is
     * refused before a run (mm_sim_check_params) and computes as l1 here. */
    int deepest = t->depth.levels <= 0 ? MM_BOOK_L1 : t->depth.ids ? MM_BOOK_L3 : MM_BOOK_L2;
    switch ((enum mm_book)p->book) {
    case MM_BOOK_AUTO:
        d->book = deepest;
        break;
    case MM_BOOK_L1:
    case MM_BOOK_L2:
    case MM_BOOK_L3:
        d->book = p->book < deepest ? p->book : deepest;
        break;
    }
    d->levels = p->levels;
    d->lstep = p->level_step;
    d->lsize = p->level_size;
    d->rungs = NULL; /* the engine's (mm__rungs_attach) */
    d->money = inst->tick_size * inst->lot_size;
    d->signal_skew = p->signal_skew;
    d->maker_rate = p->maker_fee_bps * 1e-4 * d->money;
    d->taker_rate = p->taker_fee_bps * 1e-4 * d->money;
    /* 3.3: a combination that draws keys its streams by its family */
    int draws = d->lat_dist != MM_LAT_CONSTANT || d->join_uniform || d->cancel_binom ||
                d->reach32 != (UINT64_C(1) << 32);
    d->fam = draws ? mm__params_family(p) : 0;
    d->draws = draws;
}

/* Section 3.2: the series' value y at time ts, j being the last point at or before ts (0 when ts is
 * before the first): the end points hold outside the series; between points j and j + 1, y_j +
 * floor((y_j+1 - y_j) x (ts - ts_j) / (ts_j+1 - ts_j)), exact in 128-bit integers. */
static int64_t mm__lat_interp(const mm_latency_series *ls, const int64_t *y, int64_t j, int64_t ts)
{
    if (ts <= ls->ts_ns[0]) return y[0];
    if (j + 1 >= ls->n) return y[ls->n - 1];
    __extension__ typedef __int128 i128;
    i128 num = (i128)(y[j + 1] - y[j]) * (i128)(ts - ls->ts_ns[j]);
    i128 den = (i128)ls->ts_ns[j + 1] - ls->ts_ns[j];
    i128 qt = num / den;
    if (num % den != 0 && num < 0) qt -= 1; /* floor, also for a falling latency */
    return y[j] + (int64_t)qt;
}

int mm__tape_init(mm__tape *tp, const mm_ticks *t, const mm_sim_config *c)
{
    memset(tp, 0, sizeof *tp);
    /* Callers check first (mm_sim_config_check, with a message); this keeps the arithmetic below
     * exact. */
    int rc = mm_sim_config_check(c, t, NULL);
    if (rc) return rc;
    tp->t = t;
    tp->seed = c->seed;
    int64_t n = t->n;
    size_t sz = (size_t)(n > 0 ? n : 1);
    tp->mid2 = malloc(sz * sizeof(int64_t));
    tp->nsamp = malloc(sz * sizeof(int32_t));
    if (c->latency) {
        tp->lat_e = malloc(sz * sizeof(int64_t));
        tp->lat_r = malloc(sz * sizeof(int64_t));
        if (!tp->lat_e || !tp->lat_r) {
            mm__tape_free(tp);
            return -ENOMEM;
        }
    }
    for (int k = 0; k < MM_MARKOUTS; k++)
        tp->mid2_h[k] = malloc(sz * sizeof(int64_t));
    tp->traded[0] = malloc(sz * sizeof(int64_t));
    tp->traded[1] = malloc(sz * sizeof(int64_t));
    int ok = tp->mid2 && tp->nsamp && tp->traded[0] && tp->traded[1];
    for (int k = 0; k < MM_MARKOUTS; k++)
        ok = ok && tp->mid2_h[k];
    if (!ok) {
        mm__tape_free(tp);
        return -ENOMEM;
    }
    mm__tape_view *v = &tp->v;
    v->n = n;
    v->ts_ns = t->ts_ns;
    v->bid_px = t->bid_px;
    v->ask_px = t->ask_px;
    v->bid_sz = t->bid_sz;
    v->ask_sz = t->ask_sz;
    v->trade_px = t->trade_px;
    v->trade_sz = t->trade_sz;
    v->trade_side = t->trade_side;
    v->signal = t->signal;
    v->mid2 = tp->mid2;
    v->nsamp = tp->nsamp;
    v->traded[0] = tp->traded[0];
    v->traded[1] = tp->traded[1];
    v->lat_e = tp->lat_e;
    v->lat_r = tp->lat_r;
    if (c->latency_samples) {
        v->samp_e = c->latency_samples->entry_ns;
        v->samp_r = c->latency_samples->response_ns;
        v->nsamp_lat = c->latency_samples->n;
    }
    for (int k = 0; k < MM_MARKOUTS; k++)
        v->mid2_h[k] = tp->mid2_h[k];
    if (t->depth.levels > 0 && (rc = mm__tape_depth(tp))) {
        mm__tape_free(tp);
        return rc;
    }
    if (n == 0) return 0;
    tp->t0 = v->t0 = t->ts_ns[0];
    tp->t_end = v->t_end = t->ts_ns[n - 1];
    /* nsamp[i] = k(i) - k(i-1), k(i) = floor((ts_i - t0) / sample_ns) (k(-1) = 0). Timestamps do
     * not decrease, so k is kept with the next boundary (k + 1) x sample_ns: a row before it
     * keeps k, one in the next interval adds 1, and only a row past that (a gap of more than one
     * interval) divides. The same k as dividing every row, without a 64-bit division per row. */
    int64_t last = 0, kprev = 0, ki = 0, next = c->sample_ns;
    for (int64_t i = 0; i < n; i++) {
        if (t->bid_sz[i] > 0 && t->ask_sz[i] > 0) last = (int64_t)t->bid_px[i] + t->ask_px[i];
        tp->mid2[i] = last;
        int64_t dt = t->ts_ns[i] - tp->t0;
        if (dt >= next) {
            if (dt - next < c->sample_ns)
                ki++;
            else
                ki = dt / c->sample_ns;
            /* (k + 1) x sample_ns, saturated: past INT64_MAX no dt reaches it */
            if (__builtin_mul_overflow(ki + 1, c->sample_ns, &next)) next = INT64_MAX;
        }
        tp->nsamp[i] = (int32_t)(ki - kprev);
        kprev = ki;
    }
    /* Section 2: the volume traded at each side's best level since that level last changed (its
     * price or its size), over the rows before i. A row that changes the level starts a new count
     * (its own trade is the event's, 4.4); a row that leaves it as it was adds the size of a trade
     * at that price that could fill an order there (seller-initiated for the bid). Row 0 has no
     * book before it. */
    for (int k = 0; k < 2; k++) {
        const int32_t *px = k == 0 ? t->bid_px : t->ask_px, *sz = k == 0 ? t->bid_sz : t->ask_sz;
        int hit = k == 0 ? -1 : 1;
        int64_t acc = 0;
        tp->traded[k][0] = 0;
        for (int64_t i = 1; i < n; i++) {
            tp->traded[k][i] = acc; /* the count after row i-1 */
            if (px[i] != px[i - 1] || sz[i] != sz[i - 1])
                acc = 0;
            else if (t->trade_sz[i] > 0 && t->trade_side[i] == hit && t->trade_px[i] == px[i])
                acc += t->trade_sz[i];
        }
    }
    if (c->latency) {
        const mm_latency_series *ls = c->latency;
        int64_t j = 0; /* the last point at or before ts (or 0) */
        for (int64_t i = 0; i < n; i++) {
            int64_t ts = t->ts_ns[i];
            while (j + 1 < ls->n && ls->ts_ns[j + 1] <= ts)
                j++;
            tp->lat_e[i] = mm__lat_interp(ls, ls->entry_ns, j, ts);
            tp->lat_r[i] = mm__lat_interp(ls, ls->response_ns, j, ts);
        }
    }
    for (int k = 0; k < MM_MARKOUTS; k++) {
        int64_t j = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t target = t->ts_ns[i] + c->markout_ns[k];
            if (j < i) j = i;
            while (j + 1 < n && t->ts_ns[j + 1] <= target)
                j++;
            tp->mid2_h[k][i] = tp->mid2[j];
        }
    }
    return 0;
}

void mm__tape_free(mm__tape *tp)
{
    free(tp->lat_e);
    free(tp->lat_r);
    free(tp->mid2);
    free(tp->nsamp);
    free(tp->traded[0]);
    free(tp->traded[1]);
    free(tp->dbeg);
    free(tp->lv_key);
    free(tp->lv_beg);
    free(tp->lv_idx);
    for (int k = 0; k < MM_MARKOUTS; k++)
        free(tp->mid2_h[k]);
    memset(tp, 0, sizeof *tp);
}

/* Each field's init in MM_STATE_FIELDS (mm_state.h). */
#define MM_INIT_ZERO(l)
#define MM_INIT_NEVER(l) l = MM_NEVER;
#define MM_INIT_MIN(l) l = INT64_MIN;
#define MM_INIT_T0(l) l = tp->t0;
#define MM_INIT_ID(l) l = id;
#define MM_INIT_PATH(l) l = path;
#define MM_INIT_KEY(l) l = d->draws ? mm_stream_key(tp->seed, (int64_t)d->fam, path) : 0;
#define MM_INIT_FIELD(kind, f, init, role) MM_INIT_##init(st->f)
void mm__state_init(mm_state *st, const mm__tape *tp, const mm_derived *d, int64_t id, int32_t path)
{
    memset(st, 0, sizeof *st); /* ZERO, and the padding: equal states are equal bytes */
    MM_STATE_FIELDS(MM_INIT_FIELD)
}

mm_side *mm__rungs_attach(mm_derived *d, int64_t m, int *rc)
{
    int64_t need = 0;
    for (int64_t j = 0; j < m; j++)
        need += 2 * (int64_t)(d[j].levels - 1);
    *rc = 0;
    if (need == 0) return NULL;
    mm_side *store = malloc((size_t)need * sizeof *store);
    if (!store) {
        *rc = -ENOMEM;
        return NULL;
    }
    need = 0;
    for (int64_t j = 0; j < m; j++) {
        d[j].rungs = d[j].levels > 1 ? store + need : NULL;
        need += 2 * (int64_t)(d[j].levels - 1);
    }
    mm__rungs_reset(d, m);
    return store;
}

void mm__rungs_reset(const mm_derived *d, int64_t m)
{
    mm_state z, *st = &z; /* a side as mm__state_init leaves it, from its fields' table */
    memset(st, 0, sizeof *st);
    MM_SIDE_FIELDS(MM_INIT_FIELD, 0)
    for (int64_t j = 0; j < m; j++)
        for (int32_t r = 0; r < 2 * (d[j].levels - 1); r++)
            d[j].rungs[r] = z.s[0];
}

/* Section 7.1, pnl_close: the final position closed against the last row of the tape, walking no
 * deeper than the displayed size: a long sells min(q, bid size) at the bid and the rest at bid -
 * close_penalty_ticks; a short buys at the ask and ask + penalty. With that side empty, all of it
 * at the last valid mid -/+ the penalty. The taker fee is paid on the closing notional. Cash in
 * half-ticks x lots, exact (|q| <= 1e9, prices < 2^31 + 1e6). */
static double mm__pnl_close(const mm_state *st, const mm__tape *tp, const mm_derived *d)
{
    const mm__tape_view *v = &tp->v;
    int64_t q = st->q, aq = q < 0 ? -q : q;
    if (q == 0 || v->n == 0) return mm__pnl(st, v->n ? v->mid2[v->n - 1] : 0, d);
    int64_t i = v->n - 1, s = q > 0 ? -1 : 1; /* the closing trade's side: sell a long */
    int64_t px2, sz;                          /* twice the touch price, its size */
    if (q > 0 ? v->bid_sz[i] > 0 : v->ask_sz[i] > 0) {
        px2 = 2 * (int64_t)(q > 0 ? v->bid_px[i] : v->ask_px[i]);
        sz = q > 0 ? v->bid_sz[i] : v->ask_sz[i];
    } else {
        px2 = v->mid2[i];
        sz = 0;
    }
    int64_t q1 = aq < sz ? aq : sz, q2 = aq - q1;
    int64_t pen2 = 2 * (int64_t)d->close_pen * s; /* a sell gets less: -2 x penalty */
    /* Cash of the closing trades: a sell adds price x qty, a buy subtracts it (twice, exact). */
    int64_t got2 = -s * (px2 * q1 + (px2 + pen2) * q2);
    double notional = 0.5 * ((double)px2 * (double)q1 + (double)(px2 + pen2) * (double)q2);
    double fee = d->taker_rate * notional;
    return (double)mm__wadd(st->cash2, got2) * 0.5 * d->money - st->fees - fee;
}

/* Section 7.1, pnl_inventory: the rest of the PnL before fees, gross = pnl + fees as mm__pnl
 * computes it, once the spread capture s is taken out, chosen so that (s + pnl_inventory) - fees
 * reproduces pnl bit for bit: the first of i0 = gross - s, then i0 one step (nextafter) up, one
 * down, two up, two down, ... up to MM_PNL_REST_STEPS steps, that does; i0 when none does. None
 * may: when s and i0 partly cancel (each larger than gross), s + i is exact and lies on the grid of
 * their last bits, coarser than gross's (docs/model.md 7.1); the sum is then within an ulp. */
#define MM_PNL_REST_STEPS 64
static double mm__pnl_rest(double gross, double s, double fees, double pnl)
{
    double i0 = gross - s, up = i0, down = i0;
    if ((s + i0) - fees == pnl) return i0;
    for (int k = 0; k < MM_PNL_REST_STEPS; k++) {
        up = nextafter(up, INFINITY);
        if ((s + up) - fees == pnl) return up;
        down = nextafter(down, -INFINITY);
        if ((s + down) - fees == pnl) return down;
    }
    return i0;
}

void mm__finish(const mm_state *st, const mm__tape *tp, const mm_derived *d, const mm_sim_config *c,
                mm_metrics *m)
{
    memset(m, 0, sizeof *m);
    int64_t n = tp->t->n;
    int64_t mid2 = n > 0 ? tp->mid2[n - 1] : 0;
    int64_t aq = st->q < 0 ? -st->q : st->q;
    m->pnl = mm__pnl(st, mid2, d);
    m->fees = st->fees;
    /* mm__pnl before its fees: pnl == gross - fees, the same operations. */
    double gross = (double)mm__wadd(st->cash2, st->q * mid2) * 0.5 * d->money;
    m->pnl_spread = (double)st->spread2 * 0.5 * d->money;
    m->pnl_inventory = mm__pnl_rest(gross, m->pnl_spread, st->fees, m->pnl);
    m->volume = st->volume;
    m->fills_bid = st->fills[0];
    m->fills_ask = st->fills[1];
    m->orders = st->orders;
    m->cancels = st->cancels;
    m->rejects = st->rejects;
    m->final_q = st->q;
    m->max_abs_q = st->max_abs_q;
    double span = (double)(tp->t_end - tp->t0);
    double twq = st->twq + (double)aq * (double)(tp->t_end - st->t_q);
    m->mean_abs_q = span > 0 ? twq / span : (double)aq;
    if (st->n_ret >= 2 && st->ret_m2 > 0) {
        double sd = sqrt(st->ret_m2 / (double)st->n_ret);
        m->sharpe = st->ret_mean / sd *
                    sqrt(mm_sim_year_s(c, &tp->t->inst) / ((double)c->sample_ns * 1e-9));
    }
    double peak = st->pnl_peak > m->pnl ? st->pnl_peak : m->pnl;
    m->max_drawdown = st->max_dd > peak - m->pnl ? st->max_dd : peak - m->pnl;
    for (int k = 0; k < MM_MARKOUTS; k++)
        m->markout[k] = (double)st->mk2[k] * 0.5 * d->money;
    m->pnl_close = mm__pnl_close(st, tp, d);
    m->held = st->held;
    double span_s = span * 1e-9;
    if (span > 0) {
        m->orders_per_s = (double)st->orders / span_s;
        m->cancels_per_s = (double)st->cancels / span_s;
        m->rejects_per_s = (double)st->rejects / span_s;
    }
}

int mm__overflow_err(int64_t ovf_event, int64_t combo, mm_error *err)
{
    char who[48] = "";
    if (combo >= 0) snprintf(who, sizeof who, "combination %" PRId64 ": ", combo);
    return mm__errf(err, -ERANGE,
                    "%scash or markout passed 2^62 half-ticks x lots at event %" PRId64
                    ": prices x sizes too large for exact accounting (lower size or skew)",
                    who, ovf_event - 1);
}
