/* checkmodel: every registered kernel against the reference, whole state bit for bit (dav1d checkasm style).
 *
 * A kernel advances the states of m parameter combinations through a range of events of a prepared tape. The
 * table `kernels` below lists them: the reference (mm_step_c, one combination at a time, every event) first,
 * then every fast version (the batched kernel; later SIMD variants and the CUDA kernel). For each seeded case
 * (a random tape x random combinations) the checker runs the reference and each kernel from the same initial
 * states, stops at CK_CHECKPOINTS evenly spaced events and compares every field of every mm_state: integers
 * exactly, doubles bit for bit (the model promises bit-identical results). The first mismatch of a kernel is
 * narrowed to one event (both sides re-run one event at a time from the last checkpoint that matched) and
 * printed with the field's name, both values, the seed, tape, combination and event. Then each kernel's
 * public whole-run entry (mm_sim_run_c, mm_sim_run_batch) is compared with the reference's final states:
 * its outcome (0, or -ERANGE when a run's accounting passes 2^62) and every metric.
 *
 * Half of the combinations are drawn from realistic ranges (the dynamics that matter), half across each
 * parameter's whole accepted domain (docs/model.md, section 1.2: log-uniform over wide ranges, an endpoint
 * one time in four), on tapes that sometimes carry levels of up to INT32_MAX lots (odd tapes are perturbed:
 * trades through the touch, jumps, empty sides, crossed rows). Built in a debug build, the step's asserts
 * (mm_det_exp / mm_det_log domains, inventory and queue invariants) and the sanitizers watch every step.
 *
 *   checkmodel [--seed S] [--tapes N] [--combos M] [--kernel NAME]...
 *       seeded random tapes x random combinations; prints the first mismatches; exit 1 on any.
 *   checkmodel --bench [--events E] [--combos M] [--kernel NAME]...
 *       per kernel: checks it against the reference on the bench tape first (whole states at checkpoints),
 *       then, only if it matched, times it and prints event x combination updates per second (fixed-offset
 *       strategy, probabilistic queue rule; the reference times a sample of 8 combinations).
 *   checkmodel --list      prints the registered kernels.
 * --kernel (repeatable) limits the run to the named kernels (the reference always runs). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm_rng.h"
#include "mmsim/mmsim.h"
#include "sim_tape.h"

/* ---------------------------------------------------------------------------------------------------------
 * The kernel registry.
 *
 * advance: move the m states st[0..m) (derived constants d[0..m), from mm__derive) through events [i0, i1)
 *          of the prepared tape tp (mm__tape_init), 0 <= i0 <= i1 <= tp->t->n. States start from
 *          mm__state_init; advancing over [0, a) then [a, n) must give the same states as over [0, n), and
 *          each combination's state must not depend on the others (the checker re-runs one combination alone,
 *          one event at a time, to find the first differing event). Returns 0, or a negative errno
 *          (-ENOMEM) that the checker reports as a failure.
 * run:     the kernel's public whole-run entry, or NULL: metrics of the n combinations p[0..n) on the tape t,
 *          with rc[j] = 0 or -ERANGE per combination (a run whose accounting passed 2^62). Returns 0, or a
 *          negative code for any other failure (err filled).
 * flags:   CK_REFERENCE marks the reference (exactly one, the first row): every other kernel is compared
 *          with it. CK_PER_COMBO marks a kernel whose cost is one full pass per combination: --bench times
 *          it on a sample of CK_BENCH_SAMPLE combinations, and its run is compared on every CK_RUN_STRIDE-th
 *          combination only (its states are compared on all of them).
 *
 * To register a new kernel (mm_step_avx2, the CUDA kernel, ...): write an advance function with the contract
 * above (a CUDA kernel copies the states to the device, runs events [i0, i1), copies them back), add one row
 * to `kernels` (name as printed and as --kernel selects it; a kernel that needs hardware the machine may lack
 * is added under its #if, or its advance returns -ENODEV and is reported as skipped), and add checkmodel.c's
 * sources if it lives in its own file. Nothing else changes: check and bench loop over the table.
 * --------------------------------------------------------------------------------------------------------- */
typedef int (*ck_advance_fn)(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                             int64_t i1);
typedef int (*ck_run_fn)(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n, mm_metrics *out,
                         int *rc, mm_error *err);

enum { CK_REFERENCE = 1u << 0, CK_PER_COMBO = 1u << 1 };

typedef struct ck_kernel {
    const char *name;
    ck_advance_fn advance;
    ck_run_fn run;
    unsigned flags;
} ck_kernel;

/* The reference: mm_step_c on every event, exactly as mm_sim_run_c (src/core/sim_ref.c) runs it. */
static int advance_c(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0, int64_t i1)
{
    mm_event ev;
    for (int64_t i = i0; i < i1; i++) {
        mm__event(tp, i, &ev);
        for (int64_t j = 0; j < m; j++) mm_step_c(&st[j], &ev, &d[j], NULL);
    }
    return 0;
}

static int run_c(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n, mm_metrics *out, int *rc,
                 mm_error *err)
{
    for (int64_t j = 0; j < n; j++) {
        rc[j] = mm_sim_run_c(t, c, &p[j], &out[j], NULL, NULL, err);
        if (rc[j] && rc[j] != -ERANGE) return rc[j];
    }
    return 0;
}

/* The batched kernel (src/core/sim_batch.c): skips the events that cannot change a combination's state. */
static int advance_batch(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0, int64_t i1)
{
    size_t cap = (size_t)(m > 0 ? m : 1);
    mm__guards g = {malloc(cap * 8), malloc(cap * 8), malloc(cap * 8), malloc(cap)};
    int rc = g.lo && g.hi && g.land && g.kind ? 0 : -ENOMEM;
    if (!rc) mm__sim_batch_advance(tp, d, st, &g, m, i0, i1);
    free(g.kind);
    free(g.land);
    free(g.hi);
    free(g.lo);
    return rc;
}

static int run_batch(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n, mm_metrics *out,
                     int *rc, mm_error *err)
{
    int r = mm_sim_run_batch(t, c, p, n, out, err);
    for (int64_t j = 0; j < n; j++) rc[j] = 0;
    if (r == -ERANGE) {
        /* One combination's accounting overflowed and the batch stopped: the outcome of each, one at a time. */
        for (int64_t j = 0; j < n; j++) {
            rc[j] = mm_sim_run_batch(t, c, &p[j], 1, &out[j], err);
            if (rc[j] && rc[j] != -ERANGE) return rc[j];
        }
        return 0;
    }
    return r;
}

#ifdef CK_SELFTEST
/* The checker's own test (Meson test checkmodel_reports): the batched kernel with a bug injected at event
 * CK_BUG_EVENT (every combination counts one order too many); the checker must name the field and the event. */
#define CK_BUG_EVENT 777
static int advance_broken(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0, int64_t i1)
{
    if (i0 > CK_BUG_EVENT || i1 <= CK_BUG_EVENT) return advance_batch(tp, d, st, m, i0, i1);
    int rc = advance_batch(tp, d, st, m, i0, CK_BUG_EVENT + 1);
    for (int64_t j = 0; j < m; j++) st[j].orders++;
    return rc ? rc : advance_batch(tp, d, st, m, CK_BUG_EVENT + 1, i1);
}
#endif

static const ck_kernel kernels[] = {
    {"c", advance_c, run_c, CK_REFERENCE | CK_PER_COMBO}, /* mm_step_c, mm_sim_run_c: the reference */
    {"batch", advance_batch, run_batch, 0},               /* mm__sim_batch_advance, mm_sim_run_batch */
#ifdef CK_SELFTEST
    {"broken", advance_broken, NULL, 0},
#endif
};
#define CK_NKERNELS ((int)(sizeof kernels / sizeof kernels[0]))
#define CK_CHECKPOINTS 8
#define CK_BENCH_SAMPLE 8
#define CK_RUN_STRIDE 4 /* a CK_PER_COMBO kernel's public run is compared on every 4th combination */
#define CK_MAX_PRINTED 20

static int g_selected[CK_NKERNELS]; /* --kernel: 1 for each kernel to run (all when none is named) */

/* ---------------------------------------------------------------------------------------------------------
 * The whole state, field by field (never memcmp a struct: padding). CK_STATE_FIELDS lists every field of
 * mm_state: I for integers, D for doubles; check_field_list() verifies at start-up that their sizes add up to
 * sizeof(mm_state), so a field added to mm_state and not here stops the checker.
 * --------------------------------------------------------------------------------------------------------- */
#define CK_SIDE_FIELDS(I, k) \
    I(s[k].px) I(s[k].qty) I(s[k].ahead) I(s[k].deep) I(s[k].land_ns) I(s[k].new_px) I(s[k].new_qty)
#define CK_STATE_FIELDS(I, D)                                                                                    \
    CK_SIDE_FIELDS(I, 0) CK_SIDE_FIELDS(I, 1) I(q) I(cash2) D(fees) I(volume) I(fills[0]) I(fills[1]) I(orders) \
    I(cancels) I(rejects) I(max_abs_q) D(twq) I(t_q) I(mk2[0]) I(mk2[1]) I(mk2[2]) I(ovf_event) D(pnl_prev)     \
    D(ret_mean) D(ret_m2) D(pnl_peak) D(max_dd) I(n_ret)
_Static_assert(MM_MARKOUTS == 3, "CK_STATE_FIELDS lists mk2[0..2]");

static int check_field_list(void)
{
    size_t bytes = 0;
    mm_state st;
#define SZ(f) bytes += sizeof st.f;
    CK_STATE_FIELDS(SZ, SZ)
#undef SZ
    (void)st;
    if (bytes != sizeof(mm_state)) {
        fprintf(stderr, "checkmodel: CK_STATE_FIELDS covers %zu of the %zu bytes of mm_state: list the new fields\n",
                bytes, sizeof(mm_state));
        return -1;
    }
    return 0;
}

static int same_d(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The first field in which k differs from r (integers exactly, doubles bit for bit): 1 with its name and both
 * values written into what (cap bytes), or 0 when the states are equal. */
static int state_diff(const mm_state *r, const mm_state *k, const char *kname, char *what, size_t cap)
{
#define I(f)                                                                                                    \
    if (r->f != k->f) {                                                                                         \
        snprintf(what, cap, "field %s: c %" PRId64 ", %s %" PRId64, #f, (int64_t)r->f, kname, (int64_t)k->f);  \
        return 1;                                                                                               \
    }
#define D(f)                                                                                                    \
    if (!same_d(r->f, k->f)) {                                                                                  \
        snprintf(what, cap, "field %s: c %.17g, %s %.17g", #f, r->f, kname, k->f);                              \
        return 1;                                                                                               \
    }
    CK_STATE_FIELDS(I, D)
#undef I
#undef D
    return 0;
}

/* The first metric in which b differs from r; same contract as state_diff. */
static int metrics_diff(const mm_metrics *r, const mm_metrics *b, const char *kname, char *what, size_t cap)
{
#define I(f)                                                                                                    \
    if (r->f != b->f) {                                                                                         \
        snprintf(what, cap, "metric %s: c %" PRId64 ", %s %" PRId64, #f, (int64_t)r->f, kname, (int64_t)b->f); \
        return 1;                                                                                               \
    }
#define D(f)                                                                                                    \
    if (!same_d(r->f, b->f)) {                                                                                  \
        snprintf(what, cap, "metric %s: c %.17g, %s %.17g", #f, r->f, kname, b->f);                             \
        return 1;                                                                                               \
    }
    D(pnl) D(fees) I(volume) I(fills_bid) I(fills_ask) I(orders) I(cancels) I(rejects) I(final_q) I(max_abs_q)
    D(mean_abs_q) D(sharpe) D(max_drawdown) D(markout[0]) D(markout[1]) D(markout[2])
#undef I
#undef D
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------
 * Seeded draws: tapes, their perturbations and parameter combinations.
 * --------------------------------------------------------------------------------------------------------- */
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

/* ---------------------------------------------------------------------------------------------------------
 * Checking.
 * --------------------------------------------------------------------------------------------------------- */
typedef struct ck_case {
    const mm_ticks *t;
    const mm_sim_config *c;
    const mm_params *p;
    const mm__tape *tp;
    const mm_derived *d;
    int64_t m;
    const char *label; /* "tape 3" or "bench tape" */
} ck_case;

static int g_printed;

static void report(const ck_case *cs, int k, int64_t j, const char *where, const char *what)
{
    if (g_printed++ >= CK_MAX_PRINTED) return;
    printf("checkmodel: MISMATCH %s vs c: seed %" PRIu64 ", %s, combo %" PRId64 " (strategy %d, queue rule %d), %s: %s\n",
           kernels[k].name, g_seed, cs->label, j, cs->p[j].strategy, cs->p[j].queue_rule, where, what);
}

/* Combination j of kernel k differs from the reference at the checkpoint after events [i0, i1): re-run both
 * from their states at i0 (r0, k0: equal there) one event at a time and report the first event after which
 * they differ, by field. */
static void localize(const ck_case *cs, int k, int64_t j, const mm_state *r0, const mm_state *k0, int64_t i0,
                     int64_t i1)
{
    mm_state a = *r0, b = *k0;
    char what[256], where[160];
    for (int64_t i = i0; i < i1; i++) {
        int rc = kernels[0].advance(cs->tp, &cs->d[j], &a, 1, i, i + 1);
        if (!rc) rc = kernels[k].advance(cs->tp, &cs->d[j], &b, 1, i, i + 1);
        if (rc) break;
        if (state_diff(&a, &b, kernels[k].name, what, sizeof what)) {
            snprintf(where, sizeof where, "event %" PRId64 " (checkpoints: equal before event %" PRId64 ", differ before %" PRId64 ")",
                     i, i0, i1);
            report(cs, k, j, where, what);
            return;
        }
    }
    /* Not reproduced one combination at a time: the kernel mixes combinations. Report the checkpoint. */
    snprintf(where, sizeof where, "events %" PRId64 "..%" PRId64 " (equal when run alone)", i0, i1 - 1);
    report(cs, k, j, where, "the states differ only when run with the other combinations");
}

/* One case: the reference and every selected kernel from the same initial states, compared whole at
 * CK_CHECKPOINTS checkpoints; then each selected kernel's public run against the reference's final states.
 * Returns the number of kernels that differed (each reported), or -1 when something could not run. */
static int check_case(const ck_case *cs, int64_t *overflowed, int with_run)
{
    int64_t m = cs->m, n = cs->t->n;
    size_t bytes = (size_t)(m > 0 ? m : 1) * sizeof(mm_state);
    mm_state *st[CK_NKERNELS] = {0}, *prev[CK_NKERNELS] = {0};
    mm_metrics *out = calloc((size_t)(m > 0 ? m : 1), sizeof *out);
    int *rc = calloc((size_t)(m > 0 ? m : 1), sizeof *rc);
    int alive[CK_NKERNELS] = {0}, bad = 0, fail = !out || !rc;
    char what[256];
    for (int k = 0; k < CK_NKERNELS && !fail; k++) {
        if (!g_selected[k]) continue;
        st[k] = malloc(bytes);
        prev[k] = malloc(bytes);
        if (!st[k] || !prev[k]) fail = 1;
        else
            for (int64_t j = 0; j < m; j++) mm__state_init(&st[k][j], cs->tp);
        alive[k] = 1;
    }
    if (fail) {
        fprintf(stderr, "checkmodel: out of memory\n");
        goto out;
    }
    for (int cp = 1; cp <= CK_CHECKPOINTS && !fail; cp++) {
        int64_t i0 = n * (cp - 1) / CK_CHECKPOINTS, i1 = n * cp / CK_CHECKPOINTS;
        for (int k = 0; k < CK_NKERNELS; k++) {
            if (!alive[k]) continue;
            memcpy(prev[k], st[k], bytes);
            int r = kernels[k].advance(cs->tp, cs->d, st[k], m, i0, i1);
            if (r) {
                fprintf(stderr, "checkmodel: kernel %s failed on %s (%s)\n", kernels[k].name, cs->label, strerror(-r));
                if (k == 0) fail = 1;
                bad++;
                alive[k] = 0;
            }
        }
        for (int k = 1; k < CK_NKERNELS && !fail; k++) {
            if (!alive[k]) continue;
            for (int64_t j = 0; j < m; j++) {
                if (!state_diff(&st[0][j], &st[k][j], kernels[k].name, what, sizeof what)) continue;
                localize(cs, k, j, &prev[0][j], &prev[k][j], i0, i1);
                bad++;
                alive[k] = 0; /* diverged: its later states say nothing more */
                break;
            }
        }
    }
    if (fail) goto out;
    for (int64_t j = 0; j < m; j++) *overflowed += st[0][j].ovf_event != 0;
    /* The public whole-run entries: outcome and every metric against the reference's final states. */
    for (int k = 0; k < CK_NKERNELS && with_run; k++) {
        if (!g_selected[k] || !kernels[k].run || (k > 0 && !alive[k])) continue;
        mm_error e = {0};
        int r = 0;
        if (kernels[k].flags & CK_PER_COMBO) /* one pass per combination: a sample (the states cover all) */
            for (int64_t j = 0; j < m && !r; j++) {
                rc[j] = 0;
                if (j % CK_RUN_STRIDE == 0) r = kernels[k].run(cs->t, cs->c, &cs->p[j], 1, &out[j], &rc[j], &e);
            }
        else
            r = kernels[k].run(cs->t, cs->c, cs->p, m, out, rc, &e);
        if (r) {
            fprintf(stderr, "checkmodel: %s's run failed on %s: %s\n", kernels[k].name, cs->label, e.msg);
            bad++;
            continue;
        }
        for (int64_t j = 0; j < m; j++) {
            if ((kernels[k].flags & CK_PER_COMBO) && j % CK_RUN_STRIDE) continue;
            int want = st[0][j].ovf_event ? -ERANGE : 0;
            mm_metrics ref;
            if (rc[j] != want) snprintf(what, sizeof what, "outcome: c %d, %s %d", want, kernels[k].name, rc[j]);
            else if (want) continue;
            else {
                mm__finish(&st[0][j], cs->tp, &cs->d[j], cs->c, &ref);
                if (!metrics_diff(&ref, &out[j], kernels[k].name, what, sizeof what)) continue;
            }
            report(cs, k, j, "whole run", what);
            bad++;
            break;
        }
    }
out:
    for (int k = 0; k < CK_NKERNELS; k++) {
        free(st[k]);
        free(prev[k]);
    }
    free(out);
    free(rc);
    return fail ? -1 : bad;
}

static int check(int tapes, int combos)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    int64_t compared = 0, overflowed = 0;
    int bad = 0;
    for (int ti = 0; ti < tapes; ti++) {
        mm_ticks t = {0};
        if (gen_tape(&t, g_seed * 1000 + (uint64_t)ti, 20000 + (int64_t)(rnd() % 60000))) return 1;
        if (ti % 2 == 1) perturb(&t);
        mm_params *p = calloc((size_t)combos, sizeof *p);
        mm_derived *d = calloc((size_t)combos, sizeof *d);
        mm__tape tp;
        if (!p || !d || mm__tape_init(&tp, &t, &c)) {
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
            mm__derive(&p[j], &t.inst, &d[j]);
        }
        char label[32];
        snprintf(label, sizeof label, "tape %d", ti);
        ck_case cs = {&t, &c, p, &tp, d, combos, label};
        int r = check_case(&cs, &overflowed, 1);
        if (r < 0) return 1;
        bad += r;
        compared += combos;
        mm__tape_free(&tp);
        free(d);
        free(p);
        mm_ticks_free(&t);
    }
    char names[256] = "";
    for (int k = 1; k < CK_NKERNELS; k++)
        if (g_selected[k])
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "", kernels[k].name);
    printf("checkmodel: %" PRId64 " combinations on %d tapes (half across the whole domains; %" PRId64
           " overflowed 2^62), seed %" PRIu64 ", whole states at %d checkpoints and every metric: %s%s\n",
           compared, tapes, overflowed, g_seed, CK_CHECKPOINTS, bad ? "MISMATCH in " : "", names);
    if (!bad) printf("checkmodel: %s == c, bit for bit\n", names);
    printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------------------
 * Benchmark: each kernel is timed only after it matched the reference on the same tape.
 * --------------------------------------------------------------------------------------------------------- */
static int bench(int64_t events, int combos)
{
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = 7;
    gp.events = events;
    mm_ticks t = {0};
    mm_error e = {0};
    if (mm_gen_ticks(&gp, &t, &e)) {
        fprintf(stderr, "checkmodel: %s\n", e.msg);
        return 1;
    }
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params *p = calloc((size_t)combos, sizeof *p), *ps = calloc(CK_BENCH_SAMPLE, sizeof *ps);
    mm_derived *d = calloc((size_t)combos, sizeof *d), *ds = calloc(CK_BENCH_SAMPLE, sizeof *ds);
    mm_state *st = malloc((size_t)combos * sizeof *st);
    mm__tape tp;
    if (!p || !ps || !d || !ds || !st || mm__tape_init(&tp, &t, &c)) {
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
        mm__derive(&p[j], &t.inst, &d[j]);
    }
    /* The check sample: CK_BENCH_SAMPLE combinations spread over the grid. */
    int ns = combos < CK_BENCH_SAMPLE ? combos : CK_BENCH_SAMPLE;
    for (int j = 0; j < ns; j++) {
        ps[j] = p[j * (combos / ns)];
        ds[j] = d[j * (combos / ns)];
    }
    printf("checkmodel --bench: %" PRId64 " events, fixed-offset, power-2 queue rule, 100 us latency\n", events);
    int64_t dummy = 0;
    int rc = 0;
    for (int k = 0; k < CK_NKERNELS; k++) {
        if (!g_selected[k]) continue;
        int printed0 = g_printed;
        if (k > 0) {
            ck_case cs = {&t, &c, ps, &tp, ds, ns, "bench tape (generator seed 7)"};
            int r = check_case(&cs, &dummy, 0);
            if (r != 0 || g_printed != printed0) {
                printf("  %-8s differs from the reference on the bench tape: not timed\n", kernels[k].name);
                rc = 1;
                continue;
            }
        }
        int m = (kernels[k].flags & CK_PER_COMBO) ? ns : combos;
        const mm_derived *dk = (kernels[k].flags & CK_PER_COMBO) ? ds : d;
        for (int j = 0; j < m; j++) mm__state_init(&st[j], &tp);
        double t0 = now();
        int r = kernels[k].advance(&tp, dk, st, m, 0, t.n);
        double dt = now() - t0;
        if (r) {
            printf("  %-8s failed (%s): not timed\n", kernels[k].name, strerror(-r));
            rc = 1;
            continue;
        }
        int64_t fills = 0;
        for (int j = 0; j < m; j++) fills += st[j].fills[0] + st[j].fills[1];
        printf("  %-8s %5d combos %8.3f s  %10.3e event x combo updates/s  (%" PRId64 " fills)%s\n", kernels[k].name, m,
               dt, (double)t.n * m / dt, fills, k == 0 ? "  [reference]" : "  [checked == c first]");
    }
    mm__tape_free(&tp);
    free(st);
    free(ds);
    free(d);
    free(ps);
    free(p);
    mm_ticks_free(&t);
    return rc;
}

int main(int argc, char **argv)
{
    int do_bench = 0, tapes = 6, combos = -1, any_named = 0;
    int64_t events = 1000000;
    if (check_field_list()) return 1;
    assert(kernels[0].flags & CK_REFERENCE);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench")) do_bench = 1;
        else if (!strcmp(argv[i], "--list")) {
            for (int k = 0; k < CK_NKERNELS; k++)
                printf("%s%s\n", kernels[k].name, kernels[k].flags & CK_REFERENCE ? " (reference)" : "");
            return 0;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--tapes") && i + 1 < argc) tapes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--combos") && i + 1 < argc) combos = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--events") && i + 1 < argc) events = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
            const char *name = argv[++i];
            int k = 0;
            while (k < CK_NKERNELS && strcmp(kernels[k].name, name)) k++;
            if (k == CK_NKERNELS) {
                fprintf(stderr, "checkmodel: --kernel: unknown kernel '%s' (--list)\n", name);
                return 2;
            }
            g_selected[k] = 1;
            any_named = 1;
        } else {
            fprintf(stderr, "usage: checkmodel [--seed S] [--tapes N] [--combos M] [--kernel NAME]... | --bench "
                            "[--events E] [--combos M] [--kernel NAME]... | --list\n");
            return 2;
        }
    }
    for (int k = 0; k < CK_NKERNELS; k++) g_selected[k] = g_selected[k] || !any_named || k == 0;
    if (tapes < 1 || combos == 0 || combos < -1 || events < 1) {
        fprintf(stderr, "checkmodel: --tapes, --combos and --events must be positive\n");
        return 2;
    }
    if (do_bench) return bench(events, combos > 0 ? combos : 1024);
    return check(tapes, combos > 0 ? combos : 40);
}
