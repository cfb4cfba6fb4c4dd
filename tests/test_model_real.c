/* Model invariants on real tapes (../shared/data: LOBSTER AMZN level 1 and GOOG level 5, the
 * Binance BTCUSDT capture), imported with the project's importers. When none of the three is there
 * the program exits 77, which Meson reports as SKIP (not as a pass); a tape that alone is missing
 * is a skipped Criterion test.
 *   - |q| never exceeds the inventory limit, at any step of a trace;
 *   - no fill at a price the market did not reach;
 *   - fill_volume = bounded: in each event, the passive fills of a side never exceed what the
 * market offered there: the traded size (a trade at or through our price) plus the displayed
 * opposite size (when at or through our price); with 1,000-lot quotes too. Under fill_volume =
 * unbounded the same check must find violations (the check can fail);
 *   - under the trade-through-only rule, a wider spread never gets more fills than a narrower one,
 *     everything else equal (zero latency, a limit that never binds, no skew).
 * Each combination also runs through the batched kernel, which must agree with the reference. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmsim/import.h"
#include "mmsim/mmsim.h"
#include "testutil.h"

/* The input file(s) of a real tape: 1 if they exist (b is "" for a one-file source). */
static int real_paths(const char *which, char *a, char *b, size_t cap)
{
    const char *d = tu_shared_data();
    struct stat st;
    if (!d) return 0;
    b[0] = 0;
    if (!strcmp(which, "BTCUSDT")) {
        snprintf(a, cap, "%s/binance/usdm_btcusdt_20240808.gz", d);
        return stat(a, &st) == 0;
    }
    int levels = !strcmp(which, "AMZN") ? 1 : 5;
    snprintf(a, cap, "%s/lobster/%s_2012-06-21_34200000_57600000_message_%d.csv.gz", d, which,
             levels);
    snprintf(b, cap, "%s/lobster/%s_2012-06-21_34200000_57600000_orderbook_%d.csv.gz", d, which,
             levels);
    return stat(a, &st) == 0 && stat(b, &st) == 0;
}

static const char *const REAL[] = {"AMZN", "GOOG", "BTCUSDT"};

static int load_real(const char *which, mm_ticks *t)
{
    char a[1024], b[1024];
    if (!real_paths(which, a, b, sizeof a)) return 0;
    mm_import_opts o;
    mm_import_opts_init(&o);
    mm_import_report rep;
    mm_error e = {0};
    int rc;
    if (!strcmp(which, "BTCUSDT")) {
        o.symbol = "BTCUSDT";
        o.tick = "0.1";
        o.lot = "0.001";
        rc = mm_import_binance(a, &o, t, &rep, &e);
    } else {
        o.symbol = which;
        o.date = "2012-06-21";
        rc = mm_import_lobster(a, b, &o, t, &rep, &e);
    }
    cr_assert_eq(rc, 0, "%s", e.msg);
    /* The importers record the market's year: 365 x 24 h for crypto, 252 x 6.5 h for equities. */
    cr_assert_eq(t->inst.year_s, !strcmp(which, "BTCUSDT") ? 31536000.0 : 5896800.0);
    mm_ticks_stats st;
    mm_ticks_summarize(t, &st);
    if (!strcmp(which, "BTCUSDT")) cr_assert_eq(st.ts_resolution_ns, 1000000, "a 1 ms clock");
    if (!strcmp(which, "AMZN")) cr_assert_eq(st.same_ts_rows, 4232);
    return 1;
}

typedef struct check_ctx {
    const mm_ticks *t;
    int64_t limit, fills, max_abs_q;
    int count_only;        /* 1: count volume-bound violations instead of failing on one */
    int64_t over;          /* fill events past the volume bound (count_only) */
    int64_t ev[2], sum[2]; /* per side (0 buy, 1 sell): event of the last passive fill, lots */
} check_ctx;

/* What the market offered an order of side `side` (+1 buy) at px in event i (section 4). */
static int64_t offered(const mm_ticks *t, int64_t i, int side, int32_t px)
{
    int64_t o = 0;
    if (side > 0) {
        if (t->trade_sz[i] > 0 && t->trade_side[i] < 0 && t->trade_px[i] <= px) o += t->trade_sz[i];
        if (t->ask_sz[i] > 0 && t->ask_px[i] <= px) o += t->ask_sz[i];
    } else {
        if (t->trade_sz[i] > 0 && t->trade_side[i] > 0 && t->trade_px[i] >= px) o += t->trade_sz[i];
        if (t->bid_sz[i] > 0 && t->bid_px[i] >= px) o += t->bid_sz[i];
    }
    return o;
}

static void on_rec(const mm_trace_rec *r, void *user)
{
    check_ctx *c = user;
    int64_t aq = r->q < 0 ? -r->q : r->q;
    cr_assert_leq(aq, c->limit, "|q| = %ld past the limit %ld at event %ld", (long)aq,
                  (long)c->limit, (long)r->event);
    if (aq > c->max_abs_q) c->max_abs_q = aq;
    if (r->kind != MM_TR_FILL) return;
    c->fills++;
    /* The market reached our price at this event: a trade at or through it, or the opposite best at
     * or through it (after the event, or before it for an order taking on arrival). */
    const mm_ticks *t = c->t;
    int64_t i = r->event;
    int reached;
    if (r->side > 0) {
        reached = (t->trade_sz[i] > 0 && t->trade_side[i] < 0 && t->trade_px[i] <= r->px) ||
                  (t->ask_sz[i] > 0 && t->ask_px[i] <= r->px) ||
                  (i > 0 && t->ask_sz[i - 1] > 0 && t->ask_px[i - 1] <= r->px);
    } else {
        reached = (t->trade_sz[i] > 0 && t->trade_side[i] > 0 && t->trade_px[i] >= r->px) ||
                  (t->bid_sz[i] > 0 && t->bid_px[i] >= r->px) ||
                  (i > 0 && t->bid_sz[i - 1] > 0 && t->bid_px[i - 1] >= r->px);
    }
    cr_assert(reached, "fill %s %d @ %d at event %ld: the market never reached that price",
              r->side > 0 ? "buy" : "sell", r->qty, r->px, (long)i);
    if (r->taker) return;
    int s = r->side > 0 ? 0 : 1;
    if (c->ev[s] != i) c->ev[s] = i, c->sum[s] = 0;
    c->sum[s] += r->qty;
    int64_t off = offered(t, i, r->side, r->px);
    if (c->count_only) {
        c->over += c->sum[s] > off && c->sum[s] - r->qty <= off; /* once per event and side */
        return;
    }
    cr_assert_leq(c->sum[s], off, "%s fills of %ld lots @ %d at event %ld: the market offered %ld",
                  r->side > 0 ? "buy" : "sell", (long)c->sum[s], r->px, (long)i, (long)off);
}

static void invariants(const char *which)
{
    mm_ticks t = {0};
    if (!load_real(which, &t)) cr_skip_test("../shared/data not available");
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    int64_t total_fills = 0;
    /* A recorded latency series over the tape (entry 0 -> 2 ms -> 0.5 ms, response 3 ms -> 0 ->
     * 1 ms), used by the last four combinations. */
    int64_t lt[3] = {t.ts_ns[0], t.ts_ns[t.n / 2], t.ts_ns[t.n - 1]};
    int64_t le[3] = {0, 2000000, 500000}, lr[3] = {3000000, 0, 1000000};
    mm_latency_series ls = {3, lt, le, lr};
    /* A spread of strategies, queue rules, latencies (entry, feed, response, recorded) and limits.
     */
    for (int k = 0; k < 12; k++) {
        c.latency = k >= 8 ? &ls : NULL;
        mm_params p;
        mm_params_defaults(&p);
        p.strategy = k % 3;
        p.spread_ticks = k % 4;
        p.skew_ticks = (k % 2) * 0.1;
        p.quote_size = 1 + k % 3;
        p.inv_limit = p.quote_size * (2 + k % 5);
        p.queue_rule = k % 3;
        p.latency_ns = (k % 4) * 250000;
        p.feed_latency_ns = (k % 2) * 100000;
        p.response_ns = (k % 3) * 500000;
        p.post_only = k % 5 != 0;
        p.as_sigma = 1;
        p.glft_A = 5;
        p.glft_Q = 1 + k % 4;
        check_ctx cc = {&t, p.inv_limit, 0, 0, 0, 0, {-1, -1}, {0, 0}};
        if (p.strategy == MM_STRAT_GLFT && (int64_t)p.glft_Q * p.quote_size < cc.limit)
            cc.limit = (int64_t)p.glft_Q * p.quote_size;
        mm_metrics m, b;
        mm_error e = {0};
        cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, on_rec, &cc, &e), 0, "%s", e.msg);
        cr_assert_eq(cc.fills, m.fills_bid + m.fills_ask);
        cr_assert_leq(m.max_abs_q, cc.limit);
        cr_assert_eq(m.max_abs_q, cc.max_abs_q);
        cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &b, &e), 0, "%s", e.msg);
        cr_assert(m.pnl == b.pnl && m.volume == b.volume && m.sharpe == b.sharpe,
                  "%s combo %d: batched differs", which, k);
        total_fills += cc.fills;
    }
    cr_assert_gt(total_fills, 100, "%s: too few fills to mean anything", which);
    c.latency = NULL;
    /* Large quotes (1,000 lots; 1 BTC on the capture): the volume bound holds by default, and the
     * old unbounded rule breaks it (so the check above can fail). */
    int64_t over_unbounded = 0;
    for (int u = 0; u < 2; u++) {
        mm_params p;
        mm_params_defaults(&p);
        p.quote_size = 1000;
        p.inv_limit = 1000000;
        p.fill_volume = u ? MM_FILL_UNBOUNDED : MM_FILL_BOUNDED;
        check_ctx cc = {&t, p.inv_limit, 0, 0, u, 0, {-1, -1}, {0, 0}};
        mm_metrics m;
        mm_error e = {0};
        cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, on_rec, &cc, &e), 0, "%s", e.msg);
        cr_assert_gt(cc.fills, 10, "%s: too few fills with 1,000-lot quotes", which);
        if (u) over_unbounded = cc.over;
    }
    cr_assert_gt(over_unbounded, 0, "%s: unbounded fills never passed the market's volume", which);
    /* Monotonicity under trade-through-only. */
    int64_t prev_b = INT64_MAX, prev_a = INT64_MAX;
    for (int s = 0; s <= 6; s++) {
        mm_params p;
        mm_params_defaults(&p);
        p.spread_ticks = s;
        p.trade_through_only = 1;
        p.inv_limit = 1000000000;
        mm_metrics m;
        mm_error e = {0};
        cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), 0, "%s", e.msg);
        cr_assert_leq(m.fills_bid, prev_b,
                      "%s: spread %d gets more bid fills (%ld) than spread %d (%ld)", which, s,
                      (long)m.fills_bid, s - 1, (long)prev_b);
        cr_assert_leq(m.fills_ask, prev_a, "%s: spread %d gets more ask fills", which, s);
        prev_b = m.fills_bid;
        prev_a = m.fills_ask;
    }
    mm_ticks_free(&t);
}

Test(model_real, amzn_level1_invariants, .timeout = 300)
{
    invariants("AMZN");
}

Test(model_real, goog_level5_invariants, .timeout = 300)
{
    invariants("GOOG");
}

Test(model_real, btcusdt_invariants, .timeout = 300)
{
    invariants("BTCUSDT");
}

/* Criterion's main, preceded by the check for the data: Meson counts exit status 77 as a skipped
 * test. Its worker processes re-run this binary and find main by its symbol (BoxFort), hence the
 * default visibility under the project's -fvisibility=hidden. */
__attribute__((visibility("default"))) int main(int argc, char *argv[])
{
    int any = 0;
    char a[1024], b[1024];
    for (size_t k = 0; k < sizeof REAL / sizeof REAL[0]; k++)
        any |= real_paths(REAL[k], a, b, sizeof a);
    if (!any) {
        printf("model_real: no real tape under ../shared/data (MMSIM_SHARED_DATA): skipped\n");
        return 77;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
