/* checkmodel: the batched kernel against the reference, bit for bit (dav1d checkasm style).
 *
 * Half of the combinations are drawn from realistic ranges (the dynamics that matter), half across each
 * parameter's whole accepted domain (docs/model.md, section 1.2: log-uniform over wide ranges, an endpoint
 * one time in four), on tapes that sometimes carry levels of up to INT32_MAX lots. Both engines must agree on
 * the outcome too (a run whose accounting passes 2^62 fails with -ERANGE in both). Built in a debug build,
 * the step's asserts (mm_det_exp / mm_det_log domains, inventory and queue invariants) and the sanitizers
 * watch every step.
 *
 *   checkmodel [--seed S] [--tapes N] [--combos M]   seeded random tapes x random parameters; every metric
 *                                                     of every combination compared bit for bit; prints the
 *                                                     first mismatches; exit 1 on any.
 *   checkmodel --bench [--events E] [--combos M]      checks first, then prints event x combination updates
 *                                                     per second for the reference and the batched kernel
 *                                                     (fixed-offset strategy, probabilistic queue rule). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm_rng.h"
#include "mmsim/mmsim.h"

static uint64_t g_seed = 1;
static uint32_t g_ctr;

static uint32_t rnd(void)
{
    return mm_rng4(g_seed, g_ctr++, 0xC0FFEE, 0, 0).v[0];
}
static double rndu(void)
{
    return (double)rnd() / 4294967296.0;
}

/* A double in [lo, hi] (hi_open: [lo, hi)): an endpoint one time in four (the largest double below hi when
 * open), else log-uniform when lo > 0 and uniform on a log scale from 1e-6 x hi otherwise. */
static double wide_d(double lo, double hi, int hi_open)
{
    uint32_t r = rnd() % 8;
    double top = hi_open ? nextafter(hi, lo) : hi;
    if (r == 0) return lo;
    if (r == 1) return top;
    double a = lo > 0 ? lo : hi * 1e-6;
    double v = exp(log(a) + (log(top) - log(a)) * rndu());
    if (lo <= 0 && rnd() % 4 == 0) v = (top - lo) * rndu() + lo;
    return v < lo ? lo : v > top ? top : v;
}

static int64_t wide_i(int64_t lo, int64_t hi)
{
    uint32_t r = rnd() % 8;
    if (r == 0) return lo;
    if (r == 1) return hi;
    double v = wide_d(lo > 0 ? (double)lo : 1.0, (double)hi, 0);
    int64_t x = (int64_t)v;
    return x < lo ? lo : x > hi ? hi : x;
}

static void random_params(mm_params *p)
{
    mm_params_defaults(p);
    p->strategy = (int32_t)(rnd() % 3);
    p->spread_ticks = (double)(rnd() % 6) + (rnd() % 2 ? 0.5 : 0.0);
    p->skew_ticks = (rnd() % 3) * 0.25;
    p->fair_micro = (int32_t)(rnd() % 2);
    p->as_gamma = 0.01 + rndu();
    p->as_k = 0.5 + 2 * rndu();
    p->as_sigma = 0.5 + 3 * rndu();
    p->as_horizon_s = rnd() % 4 == 0 ? 0 : 1 + 30 * rndu();
    p->glft_gamma = 0.01 + rndu();
    p->glft_k = 0.5 + 2 * rndu();
    p->glft_A = 0.5 + 5 * rndu();
    p->glft_sigma = 0.5 + 3 * rndu();
    p->glft_Q = 1 + (int32_t)(rnd() % 10);
    p->quote_size = 1 + (int32_t)(rnd() % 5);
    p->inv_limit = p->quote_size * (1 + (int32_t)(rnd() % 8));
    p->requote_ticks = 1 + (int32_t)(rnd() % 3);
    p->queue_rule = (int32_t)(rnd() % 3);
    p->queue_n = rnd() % 4 ? 0.5 + 2.5 * rndu() : 100 * (1 - rndu()); /* steep rules too, up to n = 100 */
    p->trade_through_only = rnd() % 5 == 0;
    p->post_only = rnd() % 3 != 0;
    p->latency_ns = rnd() % 3 == 0 ? 0 : (int64_t)(rnd() % 5000000);
    p->feed_latency_ns = rnd() % 2 ? 0 : (int64_t)(rnd() % 2000000);
    p->maker_fee_bps = (double)((int)(rnd() % 5) - 2) * 0.5;
    p->taker_fee_bps = (double)(rnd() % 5);
}

/* Each parameter, one time in two, across its whole accepted domain (mm_params_check); the others from the
 * realistic ranges, so that the extremes meet quotes near the touch, queues and fills. */
static void wide_params(mm_params *p)
{
    random_params(p);
#define W(field, draw) \
    if (rnd() % 2) p->field = draw
    W(spread_ticks, wide_d(0, 1e6, 1));
    W(skew_ticks, wide_d(0, 1e6, 1));
    W(as_gamma, wide_d(1e-6, 1e6, 1));
    W(as_k, wide_d(1e-6, 1e6, 1));
    W(as_sigma, wide_d(0, 1e6, 1));
    W(as_horizon_s, wide_d(0, 1e9, 1));
    W(glft_gamma, wide_d(1e-6, 1e6, 1));
    W(glft_k, wide_d(1e-6, 1e6, 1));
    W(glft_A, wide_d(1e-6, 1e9, 1));
    W(glft_sigma, wide_d(0, 1e6, 1));
    W(glft_Q, (int32_t)wide_i(1, INT32_MAX));
    W(quote_size, (int32_t)wide_i(1, 100000000));
    W(inv_limit, (int32_t)wide_i(p->quote_size, 1000000000));
    if (p->inv_limit < p->quote_size) p->inv_limit = (int32_t)wide_i(p->quote_size, 1000000000);
    W(requote_ticks, (int32_t)wide_i(1, INT32_MAX));
    W(queue_n, rnd() % 4 == 0 ? 1e-300 : rnd() % 3 == 0 ? 100 : 100 * (1 - rndu())); /* (0, 100] */
    W(latency_ns, wide_i(0, INT64_C(3600000000000)));
    W(feed_latency_ns, wide_i(0, INT64_C(3600000000000)));
    W(maker_fee_bps, (rnd() % 2 ? 1 : -1) * wide_d(0, 1e4, 1));
    W(taker_fee_bps, (rnd() % 2 ? 1 : -1) * wide_d(0, 1e4, 1));
#undef W
}

static int same_d(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Compare two metric records field by field (never memcmp a struct: padding). Returns mismatch count. */
static int compare(const mm_metrics *r, const mm_metrics *b, int64_t combo, int *printed)
{
    int bad = 0;
#define CI(f)                                                                                       \
    if (r->f != b->f) {                                                                             \
        bad++;                                                                                      \
        if ((*printed)++ < 20)                                                                      \
            printf("  combo %" PRId64 ": %s ref %" PRId64 " batched %" PRId64 "\n", combo, #f, (int64_t)r->f, (int64_t)b->f); \
    }
#define CD(f)                                                                                       \
    if (!same_d(r->f, b->f)) {                                                                      \
        bad++;                                                                                      \
        if ((*printed)++ < 20) printf("  combo %" PRId64 ": %s ref %.17g batched %.17g\n", combo, #f, r->f, b->f); \
    }
    CD(pnl) CD(fees) CI(volume) CI(fills_bid) CI(fills_ask) CI(orders) CI(cancels) CI(rejects) CI(final_q)
    CI(max_abs_q) CD(mean_abs_q) CD(sharpe) CD(max_drawdown) CD(markout[0]) CD(markout[1]) CD(markout[2])
    return bad;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int gen_tape(mm_ticks *t, uint64_t seed, int64_t events)
{
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = seed;
    gp.events = events;
    gp.vol_ticks = 1 + 4 * rndu();
    gp.trade_frac = 0.05 + 0.3 * rndu();
    gp.max_spread = 1 + (int32_t)(rnd() % 4);
    gp.mean_queue = 5 + (int32_t)(rnd() % 60);
    mm_error e = {0};
    if (mm_gen_ticks(&gp, t, &e)) {
        fprintf(stderr, "checkmodel: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* Stress the rare paths the generator does not produce: trades through several levels, jumps of the
 * book, empty sides, crossed rows. The engines need not see a realistic market, only the same one. */
static void perturb(mm_ticks *t)
{
    for (int64_t i = 1; i < t->n; i++) {
        uint32_t r = rnd() % 1000;
        if (r < 30 && t->trade_sz[i] > 0) {
            int32_t k = 1 + (int32_t)(rnd() % 3);
            t->trade_px[i] += t->trade_side[i] > 0 ? k : -k; /* through the touch */
        } else if (r < 45) {
            int32_t k = (int32_t)(rnd() % 11) - 5;
            t->bid_px[i] += k;
            t->ask_px[i] += k + (int32_t)(rnd() % 3) - 1; /* a jump; sometimes locked or crossed */
        } else if (r < 50) {
            if (rnd() % 2) {
                t->bid_sz[i] = 0;
                t->bid_px[i] = MM_PX_NONE_BID;
            } else {
                t->ask_sz[i] = 0;
                t->ask_px[i] = MM_PX_NONE_ASK;
            }
        } else if (r < 60) {
            t->bid_sz[i] = (int32_t)(rnd() % 3); /* thin and emptied-out queues */
            if (t->bid_sz[i] == 0) t->bid_px[i] = MM_PX_NONE_BID;
        } else if (r < 65) {
            /* A huge level for a while, shrinking (cancels of up to ~2^31 lots; n ln(ahead) far past 700). */
            int64_t big = 100000000 + (int64_t)(rnd() % 2000000000u), len = 1 + rnd() % 40;
            int bid = rnd() % 2;
            for (int64_t j = i; j < t->n && j < i + len; j++) {
                int32_t *sz = bid ? &t->bid_sz[j] : &t->ask_sz[j];
                if (*sz == 0) continue;
                int64_t v = *sz + big - (j - i) * (big / len);
                *sz = (int32_t)(v > INT32_MAX ? INT32_MAX : v < 1 ? 1 : v);
            }
        }
    }
}

static int check(int tapes, int combos)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    int64_t total_bad = 0, compared = 0, overflowed = 0;
    int printed = 0;
    for (int ti = 0; ti < tapes; ti++) {
        mm_ticks t = {0};
        if (gen_tape(&t, g_seed * 1000 + (uint64_t)ti, 20000 + (int64_t)(rnd() % 60000))) return 1;
        if (ti % 2 == 1) perturb(&t);
        mm_params *p = calloc((size_t)combos, sizeof *p);
        mm_metrics *rb = calloc((size_t)combos, sizeof *rb);
        int *rcb = calloc((size_t)combos, sizeof *rcb);
        if (!p || !rb || !rcb) {
            fprintf(stderr, "checkmodel: out of memory\n");
            return 1;
        }
        for (int j = 0; j < combos; j++) {
            if (j % 2) wide_params(&p[j]);
            else random_params(&p[j]);
            mm_error e = {0};
            if (mm_params_check(&p[j], &e)) {
                fprintf(stderr, "checkmodel: a drawn combination is refused: %s\n", e.msg);
                return 1;
            }
        }
        mm_error e = {0};
        int rc = mm_sim_run_batch(&t, &c, p, combos, rb, &e);
        if (rc == -ERANGE) {
            /* One combination's accounting overflowed: the outcome of each, one at a time. */
            for (int j = 0; j < combos; j++) rcb[j] = mm_sim_run_batch(&t, &c, &p[j], 1, &rb[j], &e);
        } else if (rc) {
            fprintf(stderr, "checkmodel: %s\n", e.msg);
            return 1;
        }
        for (int j = 0; j < combos; j++) {
            mm_metrics r;
            int rcr = mm_sim_run_c(&t, &c, &p[j], &r, NULL, NULL, &e);
            if (rcr && rcr != -ERANGE) {
                fprintf(stderr, "checkmodel: %s\n", e.msg);
                return 1;
            }
            overflowed += rcr != 0;
            if (rcr != rcb[j]) {
                total_bad++;
                if (printed++ < 20) printf("  combo %d: outcome ref %d batched %d\n", j, rcr, rcb[j]);
                continue;
            }
            int bad = rcr ? 0 : compare(&r, &rb[j], j, &printed);
            if (bad && printed <= 20) printf("  (tape %d, strategy %d, queue %d)\n", ti, p[j].strategy, p[j].queue_rule);
            total_bad += bad;
            compared++;
        }
        free(p);
        free(rb);
        free(rcb);
        mm_ticks_free(&t);
    }
    printf("checkmodel: %" PRId64 " combinations on %d tapes (half across the whole domains; %" PRId64
           " overflowed 2^62 in both), seed %" PRIu64 ": %s\n",
           compared, tapes, overflowed, g_seed, total_bad ? "MISMATCH" : "batched == reference, bit for bit");
    printf("%d passed, %d failed\n", total_bad ? 0 : 1, total_bad ? 1 : 0);
    return total_bad ? 1 : 0;
}

static int bench(int64_t events, int combos)
{
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = 7;
    gp.events = events;
    mm_ticks t = {0};
    mm_error e = {0};
    if (mm_gen_ticks(&gp, &t, &e)) return 1;
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params *p = calloc((size_t)combos, sizeof *p);
    mm_metrics *out = calloc((size_t)combos, sizeof *out);
    if (!p || !out) {
        fprintf(stderr, "checkmodel: out of memory\n");
        return 1;
    }
    /* The canonical grid: spread 1..32 ticks x inventory limit 1..32 lots, probabilistic queue (power 2). */
    for (int j = 0; j < combos; j++) {
        mm_params_defaults(&p[j]);
        p[j].spread_ticks = 1 + j % 32;
        p[j].inv_limit = 1 + (j / 32) % 32;
        p[j].queue_rule = MM_QUEUE_POWER;
        p[j].queue_n = 2;
        p[j].latency_ns = 100000;
    }
    /* Check before timing: a sample of combinations against the reference. */
    int nref = combos < 8 ? combos : 8, printed = 0, bad = 0;
    mm_metrics *ref = calloc((size_t)nref, sizeof *ref);
    if (!ref) {
        fprintf(stderr, "checkmodel: out of memory\n");
        return 1;
    }
    double t0 = now();
    for (int j = 0; j < nref; j++) mm_sim_run_c(&t, &c, &p[j * (combos / nref)], &ref[j], NULL, NULL, &e);
    double t_ref = now() - t0;
    t0 = now();
    if (mm_sim_run_batch(&t, &c, p, combos, out, &e)) return 1;
    double t_batch = now() - t0;
    for (int j = 0; j < nref; j++) bad += compare(&ref[j], &out[j * (combos / nref)], j * (combos / nref), &printed);
    if (bad) {
        printf("checkmodel --bench: batched differs from the reference; not timing\n");
        return 1;
    }
    int64_t fills = 0;
    for (int j = 0; j < combos; j++) fills += out[j].fills_bid + out[j].fills_ask;
    double u_ref = (double)events * nref / t_ref, u_batch = (double)events * combos / t_batch;
    printf("checkmodel --bench: %" PRId64 " events, fixed-offset, power-2 queue rule, %" PRId64 " fills in all\n", events, fills);
    printf("  reference  (mm_sim_run_c)     %2d combos  %8.3f s  %10.3e event x combo updates/s\n", nref, t_ref, u_ref);
    printf("  batched    (mm_sim_run_batch) %4d combos %8.3f s  %10.3e event x combo updates/s  (%.1fx the reference)\n",
           combos, t_batch, u_batch, u_batch / u_ref);
    free(p);
    free(out);
    free(ref);
    mm_ticks_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    int do_bench = 0, tapes = 6, combos = -1;
    int64_t events = 1000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench")) do_bench = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--tapes") && i + 1 < argc) tapes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--combos") && i + 1 < argc) combos = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--events") && i + 1 < argc) events = atoll(argv[++i]);
        else {
            fprintf(stderr, "usage: checkmodel [--seed S] [--tapes N] [--combos M] | --bench [--events E] [--combos M]\n");
            return 2;
        }
    }
    if (do_bench) return bench(events, combos > 0 ? combos : 1024);
    return check(tapes, combos > 0 ? combos : 40);
}
