/* checkmodel: seeded draws of tapes, their perturbations and parameter combinations. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkmodel.h"
#include "mm_internal.h"
#include "mm_rng.h"

uint64_t ck_seed = 1;
static uint32_t g_ctr;

uint32_t ck_rnd(void)
{
    return mm_rng4(ck_seed, g_ctr++, 0xC0FFEE, 0, 0).v[0];
}
static double rndu(void)
{
    return (double)ck_rnd() / 4294967296.0;
}

/* A double in [lo, hi] (hi_open: [lo, hi)): an endpoint one time in four (the largest double below
 * hi when open), else log-uniform when lo > 0 and uniform on a log scale from 1e-6 x hi otherwise.
 */
static double wide_d(double lo, double hi, int hi_open)
{
    uint32_t r = ck_rnd() % 8;
    double top = hi_open ? nextafter(hi, lo) : hi;
    if (r == 0) return lo;
    if (r == 1) return top;
    double a = lo > 0 ? lo : hi * 1e-6;
    double v = exp(log(a) + (log(top) - log(a)) * rndu());
    if (lo <= 0 && ck_rnd() % 4 == 0) v = (top - lo) * rndu() + lo;
    return v < lo ? lo : v > top ? top : v;
}

static int64_t wide_i(int64_t lo, int64_t hi)
{
    uint32_t r = ck_rnd() % 8;
    if (r == 0) return lo;
    if (r == 1) return hi;
    double v = wide_d(lo > 0 ? (double)lo : 1.0, (double)hi, 0);
    int64_t x = (int64_t)v;
    return x < lo ? lo : x > hi ? hi : x;
}

/* A value of enum key `key`, uniform over every value the key table lists: a value added to the
 * table is drawn the day it is added (and its kernels checked against the reference). */
#define CK_ENUMS 16
static struct {
    const char *key;
    uint32_t n, seen; /* values in the table; bit v: value v was drawn */
} enums[CK_ENUMS];

static int32_t ck_enum(const char *key)
{
    const char *const *names = NULL;
    if (mm_params_key_kind(key, &names) != MM_KEY_ENUM || !names) {
        fprintf(stderr, "checkmodel: %s is not an enum key of the key table\n", key);
        abort();
    }
    uint32_t n = 0;
    while (names[n])
        n++;
    int32_t v = (int32_t)(ck_rnd() % n);
    for (int i = 0; i < CK_ENUMS; i++)
        if (!enums[i].key || !strcmp(enums[i].key, key)) {
            enums[i].key = key;
            enums[i].n = n;
            enums[i].seen |= v < 32 ? 1u << v : 0;
            break;
        }
    return v;
}

int ck_enum_coverage(char *buf, size_t cap)
{
    int missing = 0;
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < CK_ENUMS && enums[i].key; i++) {
        int drawn = __builtin_popcount(enums[i].seen);
        missing += (int)enums[i].n - drawn;
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s %d/%u", i ? ", " : "",
                                enums[i].key, drawn, enums[i].n);
        if (len >= cap) len = cap - 1;
    }
    return missing;
}

/* Every key ck_random_params draws. ck_check_keys refuses a key table with a key not listed here,
 * so a key added to the model is drawn (a line below) before checkmodel passes again. */
static const char *const DRAWN[] = {"strategy",
                                    "spread",
                                    "skew",
                                    "fair",
                                    "size",
                                    "inv_limit",
                                    "requote",
                                    "queue",
                                    "queue_n",
                                    "trade_through_only",
                                    "post_only",
                                    "fill_volume",
                                    "cross_rule",
                                    "reject_backoff_ns",
                                    "max_orders_per_s",
                                    "close_penalty_ticks",
                                    "latency_ns",
                                    "feed_latency_ns",
                                    "response_ns",
                                    "latency_dist",
                                    "latency_sigma",
                                    "queue_join",
                                    "cancel_draw",
                                    "trade_reach",
                                    "stress_latency",
                                    "stress_vol",
                                    "stress_liquidity",
                                    "maker_fee_bps",
                                    "taker_fee_bps",
                                    "as_gamma",
                                    "as_k",
                                    "as_sigma",
                                    "as_horizon",
                                    "glft_gamma",
                                    "glft_k",
                                    "glft_A",
                                    "glft_sigma",
                                    "glft_Q",
                                    "book",
                                    "signal_skew",
                                    "levels",
                                    "level_step",
                                    "level_size"};

int ck_check_keys(void)
{
    int bad = 0;
    for (int i = 0; i < mm_params_key_count(); i++) {
        const char *k = mm_params_key_name(i, NULL);
        int found = 0;
        for (size_t j = 0; j < sizeof DRAWN / sizeof DRAWN[0]; j++)
            found |= !strcmp(DRAWN[j], k);
        if (!found) {
            fprintf(stderr,
                    "checkmodel: key %s of the key table is never drawn: draw it in "
                    "tests/checkmodel/ck_draw.c (ck_random_params) and list it in DRAWN\n",
                    k);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

void ck_random_params(mm_params *p)
{
    mm_params_defaults(p);
    p->strategy = ck_enum("strategy");
    p->spread_ticks = (double)(ck_rnd() % 6) + (ck_rnd() % 2 ? 0.5 : 0.0);
    p->skew_ticks = (ck_rnd() % 3) * 0.25;
    p->fair_micro = ck_enum("fair");
    p->as_gamma = 0.01 + rndu();
    p->as_k = 0.5 + 2 * rndu();
    p->as_sigma = 0.5 + 3 * rndu();
    p->as_horizon_s = ck_rnd() % 4 == 0 ? 0 : 1 + 30 * rndu();
    p->glft_gamma = 0.01 + rndu();
    p->glft_k = 0.5 + 2 * rndu();
    p->glft_A = 0.5 + 5 * rndu();
    p->glft_sigma = 0.5 + 3 * rndu();
    p->glft_Q = 1 + (int32_t)(ck_rnd() % 10);
    p->quote_size = 1 + (int32_t)(ck_rnd() % 5);
    p->inv_limit = p->quote_size * (1 + (int32_t)(ck_rnd() % 8));
    p->requote_ticks = 1 + (int32_t)(ck_rnd() % 3);
    p->queue_rule = ck_enum("queue");
    p->queue_n =
        ck_rnd() % 4 ? 0.5 + 2.5 * rndu() : 100 * (1 - rndu()); /* steep rules too, up to n = 100 */
    p->trade_through_only = ck_rnd() % 5 == 0;
    p->post_only = ck_rnd() % 3 != 0;
    p->fill_volume = ck_enum("fill_volume");
    p->cross_rule = ck_enum("cross_rule");
    p->reject_backoff_ns = ck_rnd() % 2 ? 0 : (int64_t)(ck_rnd() % 3000000);
    /* Order-rate limits that bind on the generated tapes (tens of events per second) one time in
     * two: the held orders, the bucket and the wake time of the skip test. */
    p->max_orders_per_s = ck_rnd() % 2 ? 0 : 1 + (int32_t)(ck_rnd() % 20);
    p->close_penalty_ticks = (int32_t)(ck_rnd() % 20);
    p->latency_ns = ck_rnd() % 3 == 0 ? 0 : (int64_t)(ck_rnd() % 5000000);
    p->feed_latency_ns = ck_rnd() % 2 ? 0 : (int64_t)(ck_rnd() % 2000000);
    /* Response latencies from 0 to ~50 ms: reports queue up (and overflow the 8-entry queue) on the
     * generated tapes' tens of events per second only with the longer ones. */
    p->response_ns = ck_rnd() % 3 == 0   ? 0
                     : ck_rnd() % 2 == 0 ? (int64_t)(ck_rnd() % 5000000)
                                         : (int64_t)(ck_rnd() % 50000000);
    /* Latencies on the perturbed tapes' clock grid (CK_TS_GRID_NS) one time in four: actions that
     * land exactly at an event's timestamp. */
    if (ck_rnd() % 4 == 0) {
        p->latency_ns -= p->latency_ns % CK_TS_GRID_NS;
        p->feed_latency_ns -= p->feed_latency_ns % CK_TS_GRID_NS;
        p->response_ns -= p->response_ns % CK_TS_GRID_NS;
    }
    /* Execution randomness (section 3.3) one time in two each. */
    p->latency_dist = ck_rnd() % 2 ? MM_LAT_CONSTANT : ck_enum("latency_dist");
    p->latency_sigma = 2 * rndu();
    p->queue_join = ck_enum("queue_join");
    p->trade_reach = ck_rnd() % 2 ? 1 : rndu();
    p->cancel_draw = ck_enum("cancel_draw");
    /* book: on a tape with a depth stream (--tape) auto and l2 run section 4.5, else l1. */
    p->book = ck_enum("book");
    /* The stresses stay 1: stress_vol and stress_liquidity change only a synthetic day
     * (docs/montecarlo.md), and stress_latency only scales latency_ns, feed_latency_ns and
     * response_ns, which a checkmodel run draws directly (it is refused with the recorded latencies
     * half the tapes have). */
    p->maker_fee_bps = (double)((int)(ck_rnd() % 5) - 2) * 0.5;
    p->taker_fee_bps = (double)(ck_rnd() % 5);
    /* The signal moves the fair price (section 6) one time in two: a few ticks per unit either way
     * (check forces 0 on a tape without a signal). */
    p->signal_skew = ck_rnd() % 2 ? 0 : 6 * rndu() - 3;
    /* Ladders (docs/model.md 6.2) one time in three: 2..8 rungs, 1..3 ticks apart, equal sizes or
     * growing / shrinking ones. */
    p->levels = ck_rnd() % 3 ? 1 : 2 + (int32_t)(ck_rnd() % 7);
    p->level_step = 1 + (int32_t)(ck_rnd() % 3);
    p->level_size = ck_rnd() % 2 ? 1 : 0.5 + 1.5 * rndu();
}

int ck_add_signal(mm_ticks *t)
{
    mm_ticks s = {0};
    if (mm__ticks_alloc_heap_depth(&s, t->n, t->depth.n, 1)) return -1;
    memcpy(s.mem_base, t->mem_base, mm__ticks_block_bytes(t->n, t->depth.n, 0));
    s.inst = t->inst;
    s.depth.levels = t->depth.levels;
    s.depth.ids = t->depth.ids;
    snprintf(s.signal_name, sizeof s.signal_name, "ck");
    int kind = (int)(ck_rnd() % 3);
    double walk = 0;
    for (int64_t i = 0; i < s.n; i++) {
        if (kind == 0) { /* a random walk kept within +-5 */
            walk += rndu() - 0.5;
            if (walk > 5 || walk < -5) walk *= 0.5;
            s.signal[i] = walk;
        } else if (kind == 1) { /* small integers, changing now and then */
            if (ck_rnd() % 20 == 0) walk = (double)((int)(ck_rnd() % 7) - 3);
            s.signal[i] = walk;
        } else { /* zero, with a spike one row in a hundred */
            s.signal[i] = ck_rnd() % 100 ? 0.0 : 40 * rndu() - 20;
        }
    }
    mm_ticks_free(t);
    *t = s;
    return 0;
}

/* A value of the domain [lo, hi] (lo_open, hi_open: that bound excluded) of a key of the table: a
 * domain around 0 (the fees) on either side of it, as wide_d. */
static double wide_dom(double lo, double hi, int lo_open, int hi_open, int integer)
{
    if (integer)
        return (double)wide_i((int64_t)lo + (lo_open ? 1 : 0), (int64_t)hi - (hi_open ? 1 : 0));
    if (lo < 0 && hi > 0) return ck_rnd() % 2 ? wide_d(0, hi, hi_open) : -wide_d(0, -lo, lo_open);
    /* Open at 0: from the least normal double (mm_params_set, as strtod, refuses subnormals). */
    return wide_d(lo_open ? (lo == 0 ? DBL_MIN : nextafter(lo, hi)) : lo, hi, hi_open);
}

/* Each number, one time in two, across its whole domain as the key table states it (params_keys.c:
 * the domain mm_params_check accepts; a key added to the table is drawn wide the day it is added),
 * the others from the realistic ranges, so that the extremes meet quotes near the touch, queues and
 * fills. The stresses stay 1 (see ck_random_params). */
void ck_wide_params(mm_params *p)
{
    ck_random_params(p);
    for (int i = 0; i < mm_params_key_count(); i++) {
        const char *key = mm_params_key_name(i, NULL);
        double lo, hi;
        int lo_open, hi_open, integer;
        if (mm__params_key_domain(i, &lo, &hi, &lo_open, &hi_open, &integer)) continue; /* enum */
        if (!strncmp(key, "stress_", 7) || ck_rnd() % 2) continue;
        double v = wide_dom(lo, hi, lo_open, hi_open, integer);
        char text[64];
        if (integer)
            snprintf(text, sizeof text, "%lld", (long long)v);
        else
            snprintf(text, sizeof text, "%.17g", v);
        mm_error e = {0};
        if (mm_params_set(p, key, text, &e)) {
            fprintf(stderr, "checkmodel: the key table's domain of %s gave %s: %s\n", key, text,
                    e.msg);
            abort();
        }
    }
    /* The one domain that depends on another key: inv_limit in [size, 1e9]. */
    if (p->inv_limit < p->quote_size) p->inv_limit = (int32_t)wide_i(p->quote_size, 1000000000);
}

int ck_gen_tape(mm_ticks *t, uint64_t seed, int64_t events)
{
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = seed;
    gp.events = events;
    gp.vol_ticks = 1 + 4 * rndu();
    gp.trade_frac = 0.05 + 0.3 * rndu();
    gp.max_spread = 1 + (int32_t)(ck_rnd() % 4);
    gp.mean_queue = 5 + (int32_t)(ck_rnd() % 60);
    mm_error e = {0};
    if (mm_gen_ticks(&gp, t, &e)) {
        fprintf(stderr, "checkmodel: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* Stress the rare paths the generator does not produce: trades through several levels, jumps of the
 * book, empty sides, crossed rows. The engines need not see a realistic market, only the same one.
 */
void ck_perturb(mm_ticks *t)
{
    /* A coarse clock one time in two (timestamps rounded down to CK_TS_GRID_NS, or to 1 ms, or to 1
     * s as some feeds print them: many events share one, and latencies on the grid land exactly at
     * an event), and bursts of events at one timestamp. */
    static const int64_t GRIDS[] = {CK_TS_GRID_NS, 1000000, 1000000000};
    int64_t grid = ck_rnd() % 2 ? GRIDS[ck_rnd() % 3] : 0;
    for (int64_t i = 0; i < t->n && grid; i++)
        t->ts_ns[i] -= t->ts_ns[i] % grid;
    for (int64_t i = 1; i < t->n; i++) {
        if (ck_rnd() % 50 == 0) t->ts_ns[i] = t->ts_ns[i - 1];
        uint32_t r = ck_rnd() % 1000;
        if (r >= 900 && t->trade_sz[i] > 0 && t->trade_side[i] != 0 && i + 1 < t->n) {
            /* A trade printed before its depth change (Binance: the trade is its own row): the
             * row keeps the previous book and the trade is at its best; the drop comes next row
             * (docs/model.md 4.4, traded volume). */
            t->bid_px[i] = t->bid_px[i - 1];
            t->bid_sz[i] = t->bid_sz[i - 1];
            t->ask_px[i] = t->ask_px[i - 1];
            t->ask_sz[i] = t->ask_sz[i - 1];
            int32_t best = t->trade_side[i] < 0 ? t->bid_px[i] : t->ask_px[i];
            int32_t shown = t->trade_side[i] < 0 ? t->bid_sz[i] : t->ask_sz[i];
            if (shown > 0) t->trade_px[i] = best;
        } else if (r < 30 && t->trade_sz[i] > 0) {
            int32_t k = 1 + (int32_t)(ck_rnd() % 3);
            t->trade_px[i] += t->trade_side[i] > 0 ? k : -k; /* through the touch */
        } else if (r < 45) {
            int32_t k = (int32_t)(ck_rnd() % 11) - 5;
            t->bid_px[i] += k;
            t->ask_px[i] +=
                k + (int32_t)(ck_rnd() % 3) - 1; /* a jump; sometimes locked or crossed */
        } else if (r < 50) {
            if (ck_rnd() % 2) {
                t->bid_sz[i] = 0;
                t->bid_px[i] = MM_PX_NONE_BID;
            } else {
                t->ask_sz[i] = 0;
                t->ask_px[i] = MM_PX_NONE_ASK;
            }
        } else if (r < 60) {
            t->bid_sz[i] = (int32_t)(ck_rnd() % 3); /* thin and emptied-out queues */
            if (t->bid_sz[i] == 0) t->bid_px[i] = MM_PX_NONE_BID;
        } else if (r < 65) {
            /* A huge level for a while, shrinking (cancels of up to ~2^31 lots; n ln(ahead) far
             * past 700). */
            int64_t big = 100000000 + (int64_t)(ck_rnd() % 2000000000u), len = 1 + ck_rnd() % 40;
            int bid = ck_rnd() % 2;
            for (int64_t j = i; j < t->n && j < i + len; j++) {
                int32_t *sz = bid ? &t->bid_sz[j] : &t->ask_sz[j];
                if (*sz == 0) continue;
                int64_t v = *sz + big - (j - i) * (big / len);
                *sz = (int32_t)(v > INT32_MAX ? INT32_MAX : v < 1 ? 1 : v);
            }
        }
    }
}

/* A recorded latency series over t's span (section 3.2): 2 to 40 points, some before and after
 * the tape, entry and response latencies from 0 to ~20 ms that rise and fall steeply (faster than
 * the clock: later messages would overtake earlier ones without the channel's order), sometimes
 * a single point. The arrays are owned by the caller (ck_series_free). */
void ck_series(mm_latency_series *ls, const mm_ticks *t)
{
    int64_t n = ck_rnd() % 5 == 0 ? 1 : 2 + ck_rnd() % 39;
    int64_t *ts = malloc((size_t)n * sizeof *ts), *e = malloc((size_t)n * sizeof *e),
            *r = malloc((size_t)n * sizeof *r);
    if (!ts || !e || !r) abort();
    int64_t t0 = t->ts_ns[0], span = t->ts_ns[t->n - 1] - t0 + 1;
    int64_t x = t0 - span / 10 + (int64_t)(ck_rnd() % 1000);
    for (int64_t i = 0; i < n; i++) {
        ts[i] = x;
        x += 1 + (int64_t)(rndu() * (double)span * 1.2 / (double)n);
        if (ck_rnd() % 6 == 0) x = ts[i] + 1 + ck_rnd() % 1000; /* a steep step */
        e[i] = ck_rnd() % 4 == 0 ? 0 : (int64_t)(ck_rnd() % 20000000);
        r[i] = ck_rnd() % 4 == 0 ? 0 : (int64_t)(ck_rnd() % 20000000);
    }
    /* Steep steps can leave every point before the tape: the last one goes into it (a series that
     * does not meet the tape is refused). */
    if (n >= 2 && ts[n - 1] < t0 + span / 2) ts[n - 1] = t0 + span / 2;
    ls->n = n;
    ls->ts_ns = ts;
    ls->entry_ns = e;
    ls->response_ns = r;
}

void ck_series_free(mm_latency_series *ls)
{
    free((void *)ls->ts_ns);
    free((void *)ls->entry_ns);
    free((void *)ls->response_ns);
}

void ck_taker_params(mm_params *p)
{
    p->post_only = 0;
    p->cross_rule = MM_CROSS_REJECT;
    p->strategy = MM_STRAT_FIXED;
    p->spread_ticks = (ck_rnd() % 3) * 0.5;
    /* Sizes of 10 to 900,000 lots (a LOBSTER touch holds hundreds of shares, a Binance one up to
     * 1e5 lots of 1e-6 BTC); a skew of 0 to 16 ticks per quote size of inventory, so that quotes
     * sent as they are cross the book by up to 16 ticks a quote size. */
    int32_t scale = 1;
    for (uint32_t e = 1 + ck_rnd() % 5; e > 0; e--)
        scale *= 10;
    p->quote_size = (1 + (int32_t)(ck_rnd() % 9)) * scale;
    p->inv_limit = p->quote_size * (1 + (int32_t)(ck_rnd() % 8));
    p->skew_ticks = ck_rnd() % 4 ? (double)(1 << (ck_rnd() % 5)) / p->quote_size : 0.0;
    p->latency_ns = 1000000 + (int64_t)(ck_rnd() % 20000000);
    p->max_orders_per_s = 0;
}

void ck_no_draws(mm_params *p)
{
    p->latency_dist = MM_LAT_CONSTANT;
    p->queue_join = MM_JOIN_BACK;
    p->trade_reach = 1;
    p->cancel_draw = MM_CANCEL_ROUND;
}
