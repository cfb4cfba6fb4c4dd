/* checkmodel: the batched kernel against the reference, bit for bit (dav1d checkasm style).
 *
 *   checkmodel [--seed S] [--tapes N] [--combos M]   seeded random tapes x random parameters; every metric
 *                                                     of every combination compared bit for bit; prints the
 *                                                     first mismatches; exit 1 on any.
 *   checkmodel --bench [--events E] [--combos M]      checks first, then prints event x combination updates
 *                                                     per second for the reference and the batched kernel
 *                                                     (fixed-offset strategy, probabilistic queue rule). */
#include <inttypes.h>
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
    p->queue_n = 0.5 + 2.5 * rndu();
    p->trade_through_only = rnd() % 5 == 0;
    p->post_only = rnd() % 3 != 0;
    p->latency_ns = rnd() % 3 == 0 ? 0 : (int64_t)(rnd() % 5000000);
    p->feed_latency_ns = rnd() % 2 ? 0 : (int64_t)(rnd() % 2000000);
    p->maker_fee_bps = (double)((int)(rnd() % 5) - 2) * 0.5;
    p->taker_fee_bps = (double)(rnd() % 5);
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
        }
    }
}

static int check(int tapes, int combos)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    int64_t total_bad = 0, compared = 0;
    int printed = 0;
    for (int ti = 0; ti < tapes; ti++) {
        mm_ticks t = {0};
        if (gen_tape(&t, g_seed * 1000 + (uint64_t)ti, 20000 + (int64_t)(rnd() % 60000))) return 1;
        if (ti % 2 == 1) perturb(&t);
        mm_params *p = calloc((size_t)combos, sizeof *p);
        mm_metrics *rb = calloc((size_t)combos, sizeof *rb);
        for (int j = 0; j < combos; j++) random_params(&p[j]);
        mm_error e = {0};
        if (mm_sim_run_batch(&t, &c, p, combos, rb, &e)) {
            fprintf(stderr, "checkmodel: %s\n", e.msg);
            return 1;
        }
        for (int j = 0; j < combos; j++) {
            mm_metrics r;
            if (mm_sim_run_c(&t, &c, &p[j], &r, NULL, NULL, &e)) {
                fprintf(stderr, "checkmodel: %s\n", e.msg);
                return 1;
            }
            int bad = compare(&r, &rb[j], j, &printed);
            if (bad && printed <= 20) printf("  (tape %d, strategy %d, queue %d)\n", ti, p[j].strategy, p[j].queue_rule);
            total_bad += bad;
            compared++;
        }
        free(p);
        free(rb);
        mm_ticks_free(&t);
    }
    printf("checkmodel: %" PRId64 " combinations on %d tapes, seed %" PRIu64 ": %s\n", compared, tapes, g_seed,
           total_bad ? "MISMATCH" : "batched == reference, bit for bit");
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
