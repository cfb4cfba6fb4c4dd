/* Rules that a wrong version used to pass the suite with (issue 28), each planted by tools/mutants:
 * - streams: the random streams of a Monte Carlo sweep's row are keyed by its family (every
 *   parameter but inv_limit and the fee rates: a key that ignored it gave every row one stream, so
 *   rows that differ only in a parameter the draws and fills do not read came out identical), and
 *   not by its row (docs/model.md 3.3);
 * - grid: a range a:b:step includes b within its 1e-9 tolerance (0.1:0.3:0.1 is 3 values, not 2);
 * - latency_series: the recorded latency is floored, also on a falling segment, and held at its
 *   first point before it (docs/model.md 3.2), expectations worked out by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"

TestSuite(streams, .fini = tu_cleanup);

/* A sweep of the small tape over `axis` (its spec) with exponential latencies and uniform queue
 * joins, master seed 7, P paths kept, each row's paths (row-major) into m. */
enum { P = 4 };
static void draw_sweep(const char *tape, const char *axis, const char *spec, const char *fixed_fee,
                       const char *out, int64_t rows, mm_metrics *m, mm_params *pr)
{
    mm_error e = {0};
    const char *tapes[1] = {tape};
    mm_grid *g = NULL;
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    if (fixed_fee) cr_assert_eq(mm_grid_set(g, "maker_fee_bps", fixed_fee, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, axis, spec, &e), 0, "%s", e.msg);
    if (!fixed_fee) cr_assert_eq(mm_grid_add_axis(g, "maker_fee_bps", "0,0.5", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "latency_dist", "exponential", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "latency_ns", "300000", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "queue_join", "uniform", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_combo_count(g), rows);
    for (int64_t k = 0; k < rows; k++)
        cr_assert_eq(mm_grid_combo(g, k, &pr[k], NULL), 0);
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_SERIAL;
    o.workers = 1;
    o.seed = 7;
    o.paths = P;
    o.keep_paths = 1;
    o.objective = "pnl_p5";
    o.config_text = "test";
    mm_sweep_report rep;
    cr_assert_eq(mm_sweep_run(g, &o, out, &rep, &e), 0, "%s", e.msg);
    mm_grid_free(g);
    mm_results_reader *r = NULL;
    cr_assert_eq(mm_results_open(out, &r, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_read_paths(r, 0, rows * P, m, &e), 0, "%s", e.msg);
    mm_results_close(r);
}

static int same_path(const mm_metrics *a, const mm_metrics *b)
{
    return a->orders == b->orders && a->volume == b->volume && a->fills_bid == b->fills_bid &&
           a->fills_ask == b->fills_ask;
}

Test(streams, a_family_draws_one_stream_and_other_families_their_own, .timeout = 120)
{
    /* docs/model.md 3.3: a combination's streams are keyed by its family (every parameter but
     * inv_limit and the fee rates) and the path, not by its row. close_penalty_ticks changes no
     * draw, order or fill (only pnl_close), so rows that differ in it differ in orders and volume
     * only because their families have streams of their own (a key that ignored the family gave
     * them one stream); rows that differ only in maker_fee_bps draw the same paths, fill for
     * fill; and a combination draws the same paths in another grid, at another row. */
    mm_ticks t = {0};
    mm_error e = {0};
    tu_small_tape(&t, 3000, 11);
    const char *path = tu_path("t.h5");
    cr_assert_eq(mm_ticks_write(path, &t, NULL, &e), 0, "%s", e.msg);
    char spec[600];
    snprintf(spec, sizeof spec, "%s#%s", path, t.inst.symbol);
    mm_ticks_free(&t);
    mm_metrics m[4 * P], m2[P];
    mm_params p[4], p2[1];
    draw_sweep(spec, "close_penalty_ticks", "0,3", NULL, tu_path("s.h5"), 4, m, p);
    int fee_moved = 0, fam_moved = 0, moved = 0;
    for (int r = 0; r < 4; r++)
        for (int s = r + 1; s < 4; s++) {
            int one_family = p[r].close_penalty_ticks == p[s].close_penalty_ticks;
            cr_assert(p[r].maker_fee_bps != p[s].maker_fee_bps || !one_family);
            for (int k = 0; k < P; k++) {
                const mm_metrics *a = &m[r * P + k], *b = &m[s * P + k];
                cr_assert(a->orders > 100, "row %d path %d: %lld orders", r, k,
                          (long long)a->orders);
                if (one_family) {
                    cr_assert(same_path(a, b),
                              "rows %d and %d (fees apart), path %d: %lld vs %lld orders", r, s, k,
                              (long long)a->orders, (long long)b->orders);
                    fee_moved += a->pnl != b->pnl; /* the fee moves the PnL */
                } else {
                    fam_moved += !same_path(a, b);
                }
            }
        }
    for (int k = 1; k < P; k++)
        moved += !same_path(&m[k], &m[0]);
    cr_assert(moved > 0, "the paths of row 0 are all the same");
    cr_assert(fee_moved > 0, "the fee rows have equal PnL");
    cr_assert_eq(fam_moved, 4 * P, "%d of %d paths of rows in two families drew differently",
                 fam_moved, 4 * P);
    /* The combination of row 3 alone (row 0 of a one-row grid): the same paths. */
    char fee[32];
    snprintf(fee, sizeof fee, "%g", p[3].maker_fee_bps);
    char cp[32];
    snprintf(cp, sizeof cp, "%d", (int)p[3].close_penalty_ticks);
    draw_sweep(spec, "close_penalty_ticks", cp, fee, tu_path("s2.h5"), 1, m2, p2);
    for (int k = 0; k < P; k++)
        cr_assert(same_path(&m2[k], &m[3 * P + k]) && m2[k].pnl == m[3 * P + k].pnl,
                  "path %d of the combination at row 3 and alone differ", k);
    /* as_gamma is not read by the fixed strategy: the two rows have equal constants (they could
     * share a state) but are two families, so they draw their own numbers (the stream key is a
     * shared field: states with other keys never share). */
    mm_metrics m3[2 * P];
    mm_params p3[2];
    draw_sweep(spec, "as_gamma", "0.1,0.2", "0", tu_path("s3.h5"), 2, m3, p3);
    int apart = 0;
    for (int k = 0; k < P; k++)
        apart += !same_path(&m3[k], &m3[P + k]);
    cr_assert_eq(apart, P, "%d of %d paths of two families with equal constants differ", apart, P);
}

Test(grid, a_decimal_range_includes_its_end)
{
    /* (0.3 - 0.1) / 0.1 is 1.9999999999999998 in doubles: without the 1e-9 tolerance the range
     * stops at 0.2. The values are 0.1, 0.2, 0.3 (within 1e-12, whatever their last bits). */
    const struct {
        const char *key, *spec;
        int n;
        double first, last;
    } cs[] = {{"maker_fee_bps", "0.1:0.3:0.1", 3, 0.1, 0.3},
              {"taker_fee_bps", "0.7:1.3:0.2", 4, 0.7, 1.3},
              {"skew", "0:0.3:0.1", 4, 0, 0.3},
              {"trade_reach", "0.1:0.7:0.3", 3, 0.1, 0.7}};
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        mm_grid *g = NULL;
        mm_error e = {0};
        const char *tapes[1] = {"t.h5#SYN"};
        cr_assert_eq(mm_grid_new(&g, &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_add_axis(g, cs[c].key, cs[c].spec, &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_axis_count(g), 2);
        cr_assert_eq(mm_grid_axis_size(g, 1), cs[c].n, "%s=%s: %d values, want %d", cs[c].key,
                     cs[c].spec, mm_grid_axis_size(g, 1), cs[c].n);
        cr_assert_eq(mm_grid_combo_count(g), cs[c].n);
        for (int k = 0; k < cs[c].n; k++) {
            mm_params p;
            cr_assert_eq(mm_grid_combo(g, k, &p, NULL), 0);
            double v = !strcmp(cs[c].key, "maker_fee_bps")   ? p.maker_fee_bps
                       : !strcmp(cs[c].key, "taker_fee_bps") ? p.taker_fee_bps
                       : !strcmp(cs[c].key, "skew")          ? p.skew_ticks
                                                             : p.trade_reach;
            double want = cs[c].first + (cs[c].last - cs[c].first) * k / (cs[c].n - 1);
            cr_assert(fabs(v - want) < 1e-12, "%s=%s value %d: %.17g, want %.17g", cs[c].key,
                      cs[c].spec, k, v, want);
        }
        mm_grid_free(g);
    }
}

/* ---- Recorded latency series (docs/model.md 3.2) ---- */

#define T0 INT64_C(1000000000000)

typedef struct trace_log {
    int n;
    mm_trace_rec r[64];
} trace_log;

static void on_trace(const mm_trace_rec *r, void *user)
{
    trace_log *l = user;
    cr_assert_lt(l->n, 64);
    l->r[l->n++] = *r;
}

Test(latency_series, floored_on_a_falling_segment_and_held_before_the_first_point)
{
    /* Entry latency 1 ms at t0 + 10 ms falling to 0 at t0 + 40 ms; response 0. Fixed strategy,
     * spread 1, 1 lot, no latency_ns: the delay of an action decided at ts is E(ts) (at least 1
     * ns).
     * - ts = t0 (before the series' first point): E = 1 ms, the first point's value. The orders
     *   land at the row of exactly 1 ms. (Extrapolating the first segment backwards would give
     *   1 ms + floor(-1 ms x -10 ms / 30 ms) = 1,333,333 ns: the row of 20 ms.)
     * - ts = t0 + 20 ms: the mid moves 102 -> 103, both quotes are replaced: E = 1,000,000 +
     *   floor(-1,000,000 x 10,000,000 / 30,000,000) = 1,000,000 + floor(-333,333.3) = 666,666 ns.
     *   They land at the row of exactly 20,666,666 ns. (Truncating toward 0 gives 666,667 ns: the
     *   row of 21 ms.) */
    int64_t lt[] = {T0 + 10000000, T0 + 40000000}, le[] = {1000000, 0}, lr[] = {0, 0};
    mm_latency_series ls = {2, lt, le, lr};
    const struct {
        int64_t ns;
        int32_t b, a;
    } rows[] = {{0, 100, 104},
                {1000000, 100, 104},
                {20000000, 101, 105},
                {20666666, 101, 105},
                {21000000, 101, 105}};
    enum { N = sizeof rows / sizeof rows[0] };
    mm_ticks t = {0};
    cr_assert_eq(mm_ticks_alloc(&t, N, MM_MEM_HEAP), 0);
    strcpy(t.inst.symbol, "LAT");
    t.inst.tick_size = 0.25;
    t.inst.lot_size = 2;
    for (int i = 0; i < N; i++) {
        t.ts_ns[i] = T0 + rows[i].ns;
        t.bid_px[i] = rows[i].b;
        t.ask_px[i] = rows[i].a;
        t.bid_sz[i] = t.ask_sz[i] = 10;
        t.trade_px[i] = t.trade_sz[i] = t.trade_side[i] = 0;
    }
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 1;
    p.quote_size = 1;
    p.inv_limit = 5;
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    c.latency = &ls;
    static trace_log l;
    mm_metrics m, b;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, on_trace, &l, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &b, &e), 0, "%s", e.msg);
    cr_assert(m.orders == b.orders && m.cancels == b.cancels && m.pnl == b.pnl);
    mm_ticks_free(&t);
    for (int side = -1; side <= 1; side += 2) {
        int64_t sent[4], land[4];
        int32_t px[4];
        int ns = 0, na = 0;
        for (int i = 0; i < l.n; i++) {
            if (l.r[i].side != side) continue;
            if (l.r[i].kind == MM_TR_ORDER && ns < 4) sent[ns++] = l.r[i].ts_ns - T0;
            if (l.r[i].kind == MM_TR_ACTIVE && na < 4) {
                px[na] = l.r[i].px;
                land[na++] = l.r[i].ts_ns - T0;
            }
        }
        cr_assert(ns == 2 && na == 2, "side %d: %d orders, %d landings", side, ns, na);
        cr_assert(sent[0] == 0 && sent[1] == 20000000, "side %d: sent at %lld, %lld ns", side,
                  (long long)sent[0], (long long)sent[1]);
        cr_assert_eq(px[0], side > 0 ? 101 : 103);
        cr_assert_eq(px[1], side > 0 ? 102 : 104);
        cr_assert_eq(land[0], 1000000, "side %d: first order landed at %lld ns, want 1000000", side,
                     (long long)land[0]);
        cr_assert_eq(land[1], 20666666, "side %d: replacement landed at %lld ns, want 20666666",
                     side, (long long)land[1]);
    }
}
