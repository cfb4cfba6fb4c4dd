/* checkmodel: every registered kernel against the reference, whole state bit for bit (dav1d
 * checkasm style).
 *
 * A kernel advances the states of m parameter combinations through a range of events of a prepared
 * tape. The table ck_kernels (ck_kernels.c; the interface in checkmodel.h) lists them: the
 * reference (mm_step_c, one combination at a time, every event) first, then every fast version (the
 * batched kernel; later SIMD variants and the CUDA kernel). For each seeded case (a random tape x
 * random combinations) the checker runs the reference and each kernel from the same initial states,
 * stops at CK_CHECKPOINTS evenly spaced events and compares every field of every mm_state: integers
 * exactly, doubles bit for bit (the model promises bit-identical results). The first mismatch of a
 * kernel is narrowed to one event (both sides re-run one event at a time from the last checkpoint
 * that matched) and printed with the field's name, both values, the seed, tape, combination and
 * event. Then each kernel's public whole-run entry (mm_sim_run_c, mm_sim_run_batch) is compared
 * with the reference's final states: its outcome (0, or -ERANGE when a run's accounting passes
 * 2^62) and every metric.
 *
 * Half of the combinations are drawn from realistic ranges (the dynamics that matter), half across
 * each parameter's whole accepted domain (docs/model.md, section 1.2: log-uniform over wide ranges,
 * an endpoint one time in four), on tapes that sometimes carry levels of up to INT32_MAX lots (odd
 * tapes are perturbed: trades through the touch, jumps, empty sides, crossed rows, a coarse clock
 * and bursts of events at one timestamp, with latencies on that clock). Built in a debug build, the
 * step's asserts (mm_det_exp / mm_det_log domains, inventory and queue invariants) and the
 * sanitizers watch every step.
 *
 * Usage. checkmodel [--seed S] [--tapes N] [--combos M] [--kernel NAME]...: seeded random tapes x
 * random combinations; prints the first mismatches; exit 1 on any.
 *
 * checkmodel --bench [--events E] [--tape FILE.h5] [--model canonical|peer] [--set key=value]...
 * [--combos M] [--kernel NAME]...: per kernel, checks it against the reference on the bench tape
 * first (whole states at checkpoints), then, only if it matched, times it and prints event x
 * combination updates per second and, for the batched kernels, the share of event x combination
 * slots that ran the step (the reference times a sample of 8 combinations). The tape: a generated
 * one of E events, a raw tape (--tape FILE.mmtape, written by mmsim export; every build), or a tick
 * file (--tape FILE.h5; full builds only). The model: "canonical" (fixed
 * offsets, probabilistic power-2 queue rule, 100 us latency, spread 1..32 x inventory limit 1..32)
 * or "peer" (tools/bench-peer's: spread 1..16 x inventory limit 1..50), then the --set values.
 *
 * checkmodel --list: prints the registered kernels. --kernel (repeatable) limits a run to the named
 * kernels (the reference always runs). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkmodel.h"

#define CK_CHECKPOINTS 8
#define CK_BENCH_SAMPLE 8
#define CK_RUN_STRIDE                                                                              \
    4 /* a CK_PER_COMBO kernel's public run is compared on every 4th combination */
#define CK_MAX_PRINTED 20
#ifndef CK_DEPTH_ROWS
#define CK_DEPTH_ROWS 30000
#endif

static int
    g_selected[CK_MAX_KERNELS]; /* --kernel: 1 for each kernel to run (all when none is named) */
static int g_skipped[CK_MAX_KERNELS]; /* advance returned -ENODEV (the kernel cannot run here) */
static int
    g_bad[CK_MAX_KERNELS]; /* cases in which the kernel differed from the reference or failed */

/* The (combination id, path) that state j of a case starts with: those of the public entries
 * (combination j of a batch is id c->id + j on path c->path, section 3.3), which check() draws per
 * tape over large ids and several paths, so a kernel that loses or mixes up the key of a state's
 * random streams (mm_state.id, .path, .key) differs from the reference. */
static int64_t ck_state_id(const mm_sim_config *c, int64_t j)
{
    return c->id + j;
}

static int32_t ck_state_path(const mm_sim_config *c)
{
    return c->path;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Checking. */
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
    printf("checkmodel: MISMATCH %s vs c: seed %" PRIu64 ", %s, combo %" PRId64
           " (strategy %d, queue rule %d), %s: %s\n",
           ck_kernels[k].name, ck_seed, cs->label, j, cs->p[j].strategy, cs->p[j].queue_rule, where,
           what);
}

/* Combination j of kernel k differs from the reference at the checkpoint after events [i0, i1):
 * re-run both from their states at i0 (r0, k0: equal there) one event at a time and report the
 * first event after which they differ, by field. */
static void localize(const ck_case *cs, int k, int64_t j, const mm_state *r0, const mm_state *k0,
                     int64_t i0, int64_t i1)
{
    mm_state a = *r0, b = *k0;
    char what[256], where[160];
    if (cs->d[j].levels > 1) { /* a ladder's rungs at i0 are not kept: the checkpoint */
        snprintf(where, sizeof where, "events %" PRId64 "..%" PRId64 " (a ladder)", i0, i1 - 1);
        report(cs, k, j, where, "the states or the ladder's rungs differ");
        return;
    }
    for (int64_t i = i0; i < i1; i++) {
        int rc = ck_kernels[0].advance(cs->tp, &cs->d[j], &a, 1, i, i + 1);
        if (!rc) rc = ck_kernels[k].advance(cs->tp, &cs->d[j], &b, 1, i, i + 1);
        if (rc) break;
        if (ck_state_diff(&a, &b, ck_kernels[k].name, what, sizeof what)) {
            snprintf(where, sizeof where,
                     "event %" PRId64 " (checkpoints: equal before event %" PRId64
                     ", differ before %" PRId64 ")",
                     i, i0, i1);
            report(cs, k, j, where, what);
            return;
        }
    }
    /* Not reproduced one combination at a time: the kernel mixes combinations. Report the
     * checkpoint. */
    snprintf(where, sizeof where, "events %" PRId64 "..%" PRId64 " (equal when run alone)", i0,
             i1 - 1);
    report(cs, k, j, where, "the states differ only when run with the other combinations");
}

/* One case: the reference and every selected kernel from the same initial states, compared whole at
 * CK_CHECKPOINTS checkpoints; then each selected kernel's public run against the reference's final
 * states. only >= 1: that kernel alone (and the reference). Returns the number of kernels that
 * differed (each reported), or -1 when something could not run. */
static int check_case(const ck_case *cs, int only, int64_t *overflowed, int with_run)
{
    int64_t m = cs->m, n = cs->t->n;
    size_t bytes = (size_t)(m > 0 ? m : 1) * sizeof(mm_state);
    mm_state *st[CK_MAX_KERNELS] = {0}, *prev[CK_MAX_KERNELS] = {0};
    /* Each kernel's own copy of the constants, for its own ladders' rungs (docs/model.md 6.2). */
    mm_derived *dk[CK_MAX_KERNELS] = {0};
    mm_side *rk[CK_MAX_KERNELS] = {0};
    mm_metrics *out = calloc((size_t)(m > 0 ? m : 1), sizeof *out);
    int *rc = calloc((size_t)(m > 0 ? m : 1), sizeof *rc);
    int alive[CK_MAX_KERNELS] = {0}, bad = 0, fail = !out || !rc;
    char what[256];
    for (int k = 0; k < ck_nkernels && !fail; k++) {
        if (!g_selected[k] || (only > 0 && k > 0 && k != only)) continue;
        st[k] = malloc(bytes);
        prev[k] = malloc(bytes);
        dk[k] = malloc((size_t)(m > 0 ? m : 1) * sizeof(mm_derived));
        int arc = 0;
        if (dk[k] && m > 0) {
            memcpy(dk[k], cs->d, (size_t)m * sizeof(mm_derived));
            rk[k] = mm__rungs_attach(dk[k], m, &arc);
        }
        if (!st[k] || !prev[k] || !dk[k] || arc)
            fail = 1;
        else
            for (int64_t j = 0; j < m; j++)
                mm__state_init(&st[k][j], cs->tp, &cs->d[j], ck_state_id(cs->c, j),
                               ck_state_path(cs->c));
        alive[k] = 1;
    }
    if (fail) {
        fprintf(stderr, "checkmodel: out of memory\n");
        goto out;
    }
    for (int cp = 1; cp <= CK_CHECKPOINTS && !fail; cp++) {
        int64_t i0 = n * (cp - 1) / CK_CHECKPOINTS, i1 = n * cp / CK_CHECKPOINTS;
        for (int k = 0; k < ck_nkernels; k++) {
            if (!alive[k]) continue;
            memcpy(prev[k], st[k], bytes);
            int r = ck_kernels[k].advance(cs->tp, dk[k], st[k], m, i0, i1);
            if (r == -ENODEV && k > 0) {
                if (!g_skipped[k]++)
                    printf("checkmodel: kernel %s cannot run on this machine: skipped\n",
                           ck_kernels[k].name);
                alive[k] = 0;
            } else if (r) {
                fprintf(stderr, "checkmodel: kernel %s failed on %s (%s)\n", ck_kernels[k].name,
                        cs->label, strerror(-r));
                if (k == 0) fail = 1;
                bad++, g_bad[k]++;
                alive[k] = 0;
            }
        }
        for (int k = 1; k < ck_nkernels && !fail; k++) {
            if (!alive[k]) continue;
            for (int64_t j = 0; j < m; j++) {
                if (!ck_state_diff(&st[0][j], &st[k][j], ck_kernels[k].name, what, sizeof what) &&
                    !ck_rungs_diff(&dk[0][j], &dk[k][j], ck_kernels[k].name, what, sizeof what))
                    continue;
                localize(cs, k, j, &prev[0][j], &prev[k][j], i0, i1);
                bad++, g_bad[k]++;
                alive[k] = 0; /* diverged: its later states say nothing more */
                break;
            }
        }
    }
    if (fail) goto out;
    for (int64_t j = 0; j < m; j++)
        *overflowed += st[0][j].ovf_event != 0;
    /* The public whole-run entries: outcome and every metric against the reference's final states.
     */
    for (int k = 0; k < ck_nkernels && with_run; k++) {
        if (!alive[k] || !ck_kernels[k].run) continue;
        mm_error e = {0};
        int r = 0;
        if (ck_kernels[k].flags &
            CK_PER_COMBO) /* one pass per combination: a sample (the states cover all) */
            for (int64_t j = 0; j < m && !r; j++) {
                rc[j] = 0;
                if (j % CK_RUN_STRIDE == 0) {
                    mm_sim_config cj = *cs->c; /* combination j's key (ck_state_id) */
                    cj.id = cs->c->id + j;
                    r = ck_kernels[k].run(cs->t, &cj, &cs->p[j], 1, &out[j], &rc[j], &e);
                }
            }
        else
            r = ck_kernels[k].run(cs->t, cs->c, cs->p, m, out, rc, &e);
        if (r) {
            fprintf(stderr, "checkmodel: %s's run failed on %s: %s\n", ck_kernels[k].name,
                    cs->label, e.msg);
            bad++, g_bad[k]++;
            continue;
        }
        for (int64_t j = 0; j < m; j++) {
            if ((ck_kernels[k].flags & CK_PER_COMBO) && j % CK_RUN_STRIDE) continue;
            int want = st[0][j].ovf_event ? -ERANGE : 0;
            mm_metrics ref;
            if (rc[j] != want)
                snprintf(what, sizeof what, "outcome: c %d, %s %d", want, ck_kernels[k].name,
                         rc[j]);
            else if (want)
                continue;
            else {
                mm__finish(&st[0][j], cs->tp, &cs->d[j], cs->c, &ref);
                if (!ck_metrics_diff(&ref, &out[j], ck_kernels[k].name, what, sizeof what))
                    continue;
            }
            report(cs, k, j, "whole run", what);
            bad++, g_bad[k]++;
            break;
        }
    }
out:
    for (int k = 0; k < ck_nkernels; k++) {
        free(st[k]);
        free(prev[k]);
        free(dk[k]);
        free(rk[k]);
    }
    free(out);
    free(rc);
    return fail ? -1 : bad;
}

typedef struct ck_bench_opts ck_bench_opts;
static int bench_tape(const ck_bench_opts *o, mm_ticks *t);

/* The taker walks past the touch (docs/model.md 3.1) in the reference's trace: taker fills at an
 * event and side after one at another price; and the rests of walks that rest (an active record
 * right after the walk's fills). */
typedef struct ck_walk_count {
    int64_t walks, rests, ev;
    int side, after_taker;
    int32_t px;
} ck_walk_count;

static void ck_walk_rec(const mm_trace_rec *r, void *user)
{
    ck_walk_count *w = user;
    int same = r->event == w->ev && r->side == w->side;
    if (r->kind == MM_TR_ACTIVE && w->after_taker && same) w->rests++;
    w->after_taker = r->kind == MM_TR_FILL && r->taker;
    if (!w->after_taker) return;
    if (same && r->px != w->px) w->walks++;
    w->ev = r->event;
    w->side = r->side;
    w->px = r->px;
}

/* check: tapes generated per seed, or (--tape FILE without --bench) that tape each time, with its
 * depth stream if it has one (book = l2, section 4.5), its timestamps as recorded. */
static const ck_bench_opts *ck_check_file;

static int check(int tapes, int combos)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    int64_t compared = 0, overflowed = 0, walks = 0, rests = 0;
    int64_t deeper[2] = {0},
            on_depth[MM_COUNTS] = {0}; /* l2, l3 combinations; counts on depth tapes */
    int bad = 0, depth_tapes = 0;
    memset(ck_batch_count, 0, sizeof ck_batch_count);
    ck_batch_lanes = 0;
    for (int ti = 0; ti < tapes; ti++) {
        mm_ticks t = {0};
        if (ck_check_file) {
            if (bench_tape(ck_check_file, &t)) return 1;
        } else {
            if (ck_gen_tape(&t, ck_seed * 1000 + (uint64_t)ti, 20000 + (int64_t)(ck_rnd() % 60000)))
                return 1;
            if (ti % 2 == 1) ck_perturb(&t);
            /* A depth stream (book = l2, l3; ck_depth.c) after the perturbation (its best level is
             * the level-1 columns), on every tape but the first of six and the lanes tapes below
             * (ti % 4 == 2: level 1, the lanes' l1 path; tape 4 of six has the lanes' families on a
             * depth stream), with order ids on tapes 1, 4, 5 of six (tape 3 without: l2 only). */
            if (ti % 6 && ti % 4 != 2) {
                if (t.n > CK_DEPTH_ROWS) t.n = CK_DEPTH_ROWS;
                if (ck_gen_depth(&t, ck_seed * 1000 + (uint64_t)ti, ti % 6 != 3)) return 1;
            }
            /* A signal column on three tapes in four (signal_skew, section 6), after the depth
             * stream (ck_add_signal carries it into the new block). */
            if (ti % 4 != 3 && ck_add_signal(&t)) {
                fprintf(stderr, "checkmodel: out of memory\n");
                return 1;
            }
        }
        /* The sampling clock (section 2): 0.3 ms on one tape in three, so that most events carry
         * several samples (the generated tapes have an event about every millisecond; at the
         * default 1 s a second sample of one event is rare), 1 s on the others. */
        c.sample_ns = ti % 3 == 2 ? 300000 : 1000000000;
        /* Another master seed and first id / path of the random streams per tape (3.3). */
        c.seed = ((uint64_t)ck_rnd() << 32) | ck_rnd();
        c.id = (int64_t)(ck_rnd() % 1000) * 1000003;
        c.path = (int32_t)(ck_rnd() % 100);
        /* Measured latencies for latency_dist = empirical (3.3): 1 to 50 pairs up to 20 ms. */
        int64_t se[50], sr[50];
        mm_latency_samples smp = {1 + ck_rnd() % 50, se, sr};
        for (int64_t k = 0; k < smp.n; k++) {
            se[k] = ck_rnd() % 20000000;
            sr[k] = ck_rnd() % 4 ? ck_rnd() % 20000000 : 0;
        }
        c.latency_samples = &smp;
        /* A recorded latency series on one tape in three (section 3.2). */
        mm_latency_series ls = {0};
        c.latency = NULL;
        if (ck_rnd() % 3 == 0) {
            ck_series(&ls, &t);
            c.latency = &ls;
        }
        mm_params *p = calloc((size_t)combos, sizeof *p);
        mm_derived *d = calloc((size_t)combos, sizeof *d);
        mm__tape tp;
        if (!p || !d || mm__tape_init(&tp, &t, &c)) {
            fprintf(stderr, "checkmodel: out of memory\n");
            return 1;
        }
        for (int j = 0; j < combos; j++) {
            if (j % 2)
                ck_wide_params(&p[j]);
            else
                ck_random_params(&p[j]);
            ck_fit_book(&p[j], &t);
            /* Combination 0 of each tape quotes one order a side: a mismatch of a ladder is
             * reported by checkpoint, of one order at its event and field (checkmodel_reports). */
            if (j == 0) p[j].levels = 1;
            if (!t.signal) p[j].signal_skew = 0; /* it needs a signal column */
        }
        /* Families for the batched kernel's shared states (docs/model.md section 8): one
         * combination in three is a copy of one of the three before it with another inventory
         * limit (the same one time in eight), both made to draw no random number three times in
         * four. */
        for (int j = 1; j < combos; j++) {
            if (ck_rnd() % 3) continue;
            int src = j - 1 - (int)(ck_rnd() % (uint32_t)(j < 3 ? j : 3));
            if (ck_rnd() % 4) ck_no_draws(&p[src]);
            p[j] = p[src];
            if (ck_rnd() % 8) {
                int64_t lim = (int64_t)p[j].quote_size * (1 + (int64_t)(ck_rnd() % 16));
                p[j].inv_limit = (int32_t)(lim > 1000000000 ? 1000000000 : lim);
            }
            /* Other fee rates one copy in two (a family's members may differ in them too:
             * docs/model.md 8, "Shared states"). */
            if (j % 2) {
                p[j].maker_fee_bps = (double)((int)(j % 5) - 2) * 0.5;
                p[j].taker_fee_bps = (double)(j % 3);
            }
        }
        /* One tape in four: every combination inside the lanes kernel's vector model (no
         * order-rate limit, no ladder), so that the batched kernel may choose it there
         * (sim_batch.c: where most combinations step); three families in four draw random numbers
         * (the lanes' draws, sim_lanes_draw.h: each latency law in turn) and the fourth none. The
         * same families on the depth tape 4 of each six, so that book = l2 and l3 states are shared
         * across inventory limits there. */
        if (ti % 4 == 2 || ti % 6 == 4)
            for (int j = 0; j < combos; j++) {
                /* ... in families of 10 as a sweep's grid makes them: the same combination with
                 * inventory limits 1..10 quote sizes. Splits there make many leaders mid-window,
                 * which the lanes kernel steps in groups of their own, each joining at its own
                 * event. */
                if (j % 10) {
                    p[j] = p[j - 1];
                    int64_t lim = (int64_t)p[j].quote_size * (1 + j % 10);
                    p[j].inv_limit = (int32_t)(lim > 1000000000 ? 1000000000 : lim);
                    if ((j / 10) % 2) { /* and fee rates of their own, every other family */
                        p[j].maker_fee_bps = (double)((int)(j % 5) - 2) * 0.5;
                        p[j].taker_fee_bps = (double)(j % 4);
                    }
                }
                /* Family f: none draws (f % 4 == 0), else latencies of law 1 + (f - 1) % 3
                 * (exponential, lognormal, empirical) besides its other draws. */
                int fam = j / 10;
                if (fam % 4 == 0)
                    ck_no_draws(&p[j]);
                else
                    p[j].latency_dist = 1 + (fam - 1) % 3;
                p[j].max_orders_per_s = 0;
                p[j].signal_skew = 0; /* the reference's alone (params_keys.c) */
                p[j].levels = 1;      /* ladders too (docs/model.md 6.2) */
            }
        /* With a depth stream, one combination in four takes liquidity behind the touch. */
        if (t.depth.levels > 0)
            for (int j = 3; j < combos; j += 4)
                ck_taker_params(&p[j]);
        for (int j = 0; j < combos; j++) {
            mm_error e = {0};
            if (mm_params_check(&p[j], &e)) {
                fprintf(stderr, "checkmodel: a drawn combination is refused: %s\n", e.msg);
                return 1;
            }
            mm__derive(&p[j], &t, &d[j]);
            deeper[d[j].book == MM_BOOK_L3] += d[j].book != MM_BOOK_L1;
        }
        char label[64];
        snprintf(label, sizeof label, "tape %d%s", ti, c.latency ? " (latency series)" : "");
        ck_case cs = {&t, &c, p, &tp, d, combos, label};
        int64_t before[MM_COUNTS];
        memcpy(before, ck_batch_count, sizeof before);
        int r = check_case(&cs, -1, &overflowed, 1);
        if (r < 0) return 1;
        for (int k = 0; k < MM_COUNTS && t.depth.levels; k++)
            on_depth[k] += ck_batch_count[k] - before[k];
        depth_tapes += t.depth.levels > 0;
        bad += r;
        compared += combos;
        for (int j = 3; j < combos && t.depth.levels > 0; j += 4) {
            mm_metrics mj;
            mm_error e = {0};
            ck_walk_count w = {0, 0, -1, 0, 0, 0};
            mm_sim_config cj = c;
            cj.id = c.id + j;
            if (mm_sim_run_c(&t, &cj, &p[j], &mj, ck_walk_rec, &w, &e) == 0) {
                walks += w.walks;
                rests += w.rests;
            }
        }
        mm__tape_free(&tp);
        free(d);
        free(p);
        mm_ticks_free(&t);
        if (c.latency) ck_series_free(&ls);
    }
    char ok[256] = "", differ[256] = "";
    for (int k = 1; k < ck_nkernels; k++) {
        if (!g_selected[k] || g_skipped[k]) continue;
        char *list = g_bad[k] ? differ : ok;
        snprintf(list + strlen(list), 256 - strlen(list), "%s%s", list[0] ? ", " : "",
                 ck_kernels[k].name);
    }
    printf("checkmodel: %" PRId64
           " combinations on %d tapes (half across the whole domains; %" PRId64
           " overflowed 2^62), seed %" PRIu64 ", whole states at %d checkpoints and every metric\n",
           compared, tapes, overflowed, ck_seed, CK_CHECKPOINTS);
    if (depth_tapes)
        printf("checkmodel: %" PRId64 " taker walks past the touch, %" PRId64
               " rests left resting (docs/model.md 3.1)\n",
               walks, rests);
    if (ck_batch_count[1] > 0)
        printf("checkmodel: batch stepped %" PRId64 " of its %" PRId64
               " event x combination slots; %" PRId64 " slots parked (shared states)\n",
               ck_batch_count[0], ck_batch_count[1], ck_batch_count[2]);
    if (ck_batch_count[MM_COUNT_SLOTS] > 0) {
        if (mm__batch_isa_supported(MM_ISA_AVX2))
            printf("checkmodel: batch chose the lanes kernel for %" PRId64
                   " slots; the lanes kernels stepped %" PRId64 " rare slots with mm_step_c\n",
                   ck_batch_lanes, ck_batch_count[MM_COUNT_RARE]);
        else
            printf("checkmodel: the lanes kernel is not chosen on this CPU (no AVX2)\n");
    }
    if (depth_tapes)
        printf("checkmodel: %d tapes with a depth stream: book = l2 ran on %" PRId64
               " combinations, l3 on %" PRId64 "; batch stepped %" PRId64 " of the %" PRId64
               " event x combination slots of those tapes, %" PRId64 " parked (shared states)\n",
               depth_tapes, deeper[0], deeper[1], on_depth[MM_COUNT_STEPS],
               on_depth[MM_COUNT_SLOTS], on_depth[MM_COUNT_SHARED]);
    char cov[1024];
    int undrawn = ck_enum_coverage(cov, sizeof cov);
    printf("checkmodel: enum values drawn (of the key table's): %s\n", cov);
    if (undrawn && compared >= 200) { /* with as many draws, a value never drawn is a broken draw */
        printf("checkmodel: %d enum values of the key table were never drawn\n", undrawn);
        bad = 1;
    }
    if (ok[0]) printf("checkmodel: %s == c, bit for bit\n", ok);
    if (differ[0]) printf("checkmodel: MISMATCH: %s != c\n", differ);
    printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad ? 1 : 0;
}

/* Benchmark options: the tape (NULL: a generated one of `events` events), the model and grid
 * ("canonical": spread 1..32 x inventory limit 1..32 lots, fixed offsets, power-2 queue rule, 100
 * us latency; "peer": tools/bench-peer's, spread 1..16 x inventory limit 1..50, fixed quotes around
 * the mid, 1 lot, risk-averse queue, no latency, -0.5 bp maker fee, unbounded fills, post-only),
 * and key=value settings applied to every combination after them. */
#define CK_MAX_SETS 32
typedef struct ck_bench_opts {
    const char *tape;
    int64_t events;
    int combos;
    int peer;
    const char *sets[CK_MAX_SETS];
    int nsets;
} ck_bench_opts;

static const char *const ck_peer_model[] = {
    "strategy=fixed",        "fair=mid",           "size=1",
    "queue=risk-averse",     "latency_ns=0",       "feed_latency_ns=0",
    "response_ns=0",         "maker_fee_bps=-0.5", "post_only=1",
    "fill_volume=unbounded", "requote=1",          "skew=0"};

static int bench_tape(const ck_bench_opts *o, mm_ticks *t)
{
    mm_error e = {0};
    size_t tl = o->tape ? strlen(o->tape) : 0;
    if (tl > 7 && !strcmp(o->tape + tl - 7, ".mmtape")) { /* every build: no HDF5 needed */
        if (mm_ticks_load_raw(o->tape, t, &e)) {
            fprintf(stderr, "checkmodel: --tape %s\n", e.msg);
            return 1;
        }
        return 0;
    }
    if (o->tape) {
#ifdef CK_TAPE_FILES
        if (mm_ticks_load(o->tape, NULL, MM_LOAD_NO_VERIFY, t, &e)) {
            fprintf(stderr, "checkmodel: --tape %s: %s\n", o->tape, e.msg);
            return 1;
        }
        return 0;
#else
        fprintf(stderr,
                "checkmodel: --tape %s: this build reads no HDF5 tick files (core_only): "
                "give a raw tape (mmsim export TAPE.h5 -o FILE.mmtape)\n",
                o->tape);
        return 1;
#endif
    }
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = 7;
    gp.events = o->events;
    if (mm_gen_ticks(&gp, t, &e)) {
        fprintf(stderr, "checkmodel: %s\n", e.msg);
        return 1;
    }
    return 0;
}

/* The bench grid's combination j. */
static int bench_params(const ck_bench_opts *o, int j, mm_params *p)
{
    mm_error e = {0};
    mm_params_defaults(p);
    if (o->peer) {
        for (size_t k = 0; k < sizeof ck_peer_model / sizeof ck_peer_model[0]; k++) {
            const char *kv = ck_peer_model[k], *eq = strchr(kv, '=');
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
            if (mm_params_set(p, key, eq + 1, &e)) goto bad;
        }
        p->spread_ticks = 1 + j % 16;
        p->inv_limit = 1 + (j / 16) % 50;
    } else {
        p->spread_ticks = 1 + j % 32;
        p->inv_limit = 1 + (j / 32) % 32;
        p->queue_rule = MM_QUEUE_POWER;
        p->queue_n = 2;
        p->latency_ns = 100000;
    }
    for (int k = 0; k < o->nsets; k++) {
        const char *kv = o->sets[k], *eq = strchr(kv, '=');
        char key[64];
        if (!eq || eq - kv >= (ptrdiff_t)sizeof key) {
            fprintf(stderr, "checkmodel: --set %s: want key=value\n", kv);
            return 1;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
        if (mm_params_set(p, key, eq + 1, &e)) goto bad;
    }
    return 0;
bad:
    fprintf(stderr, "checkmodel: %s\n", e.msg);
    return 1;
}

/* Benchmark: each kernel is timed only after it matched the reference on the same tape. For the
 * batched kernels it also prints the share of event x combination slots that ran the step. */
static int bench(const ck_bench_opts *o)
{
    mm_ticks t = {0};
    if (bench_tape(o, &t)) return 1;
    int combos = o->combos > 0 ? o->combos : o->peer ? 800 : 1024;
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
    for (int j = 0; j < combos; j++) {
        mm_error e = {0};
        if (bench_params(o, j, &p[j])) return 1;
        if (mm_sim_check_params(&p[j], &c, &e)) {
            fprintf(stderr, "checkmodel: combination %d: %s\n", j, e.msg);
            return 1;
        }
        mm__derive(&p[j], &t, &d[j]);
    }
    int arc = 0;
    mm_side *rungs = mm__rungs_attach(d, combos, &arc); /* ladders (--set levels=N) */
    if (arc) {
        fprintf(stderr, "checkmodel: out of memory\n");
        return 1;
    }
    /* The check sample: CK_BENCH_SAMPLE combinations spread over the grid. */
    int ns = combos < CK_BENCH_SAMPLE ? combos : CK_BENCH_SAMPLE;
    for (int j = 0; j < ns; j++) {
        ps[j] = p[j * (combos / ns)];
        ds[j] = d[j * (combos / ns)];
    }
    printf(
        "checkmodel --bench: %s, %" PRId64 " events, %s%s\n", o->tape ? o->tape : "generated tape",
        t.n,
        o->peer
            ? "bench-peer's model (spread 1..16 x inv_limit 1..50, risk-averse queue, no latency)"
            : "fixed-offset, power-2 queue rule, 100 us latency",
        o->nsets ? " with --set" : "");
    int64_t dummy = 0;
    int rc = 0;
    for (int k = 0; k < ck_nkernels; k++) {
        if (!g_selected[k]) continue;
        int printed0 = g_printed;
        if (k > 0) {
            ck_case cs = {
                &t, &c, ps, &tp, ds, ns, o->tape ? o->tape : "bench tape (generator seed 7)"};
            int r = check_case(&cs, k, &dummy, 0);
            if (r == 0 && g_skipped[k]) continue;
            if (r != 0 || g_printed != printed0) {
                printf("  %-8s differs from the reference on the bench tape: not timed\n",
                       ck_kernels[k].name);
                rc = 1;
                continue;
            }
        }
        int m = (ck_kernels[k].flags & CK_PER_COMBO) ? ns : combos;
        const mm_derived *dk = (ck_kernels[k].flags & CK_PER_COMBO) ? ds : d;
        for (int j = 0; j < m; j++)
            mm__state_init(&st[j], &tp, &dk[j], ck_state_id(&c, j), ck_state_path(&c));
        mm__rungs_reset(dk, m);
        memset(ck_batch_count, 0, sizeof ck_batch_count);
        double t0 = now();
        int r = ck_kernels[k].advance(&tp, dk, st, m, 0, t.n);
        double dt = now() - t0;
        if (r) {
            printf("  %-8s failed (%s): not timed\n", ck_kernels[k].name, strerror(-r));
            rc = 1;
            continue;
        }
        int64_t fills = 0;
        for (int j = 0; j < m; j++)
            fills += st[j].fills[0] + st[j].fills[1];
        char stepped[160] = "";
        if (ck_batch_count[MM_COUNT_SLOTS] > 0) {
            double all = (double)ck_batch_count[MM_COUNT_SLOTS];
            snprintf(stepped, sizeof stepped,
                     ", %.1f%% of slots stepped, %.1f%% shared, %.1f%% in lanes, %.2f%% rare",
                     100.0 * (double)ck_batch_count[MM_COUNT_STEPS] / all,
                     100.0 * (double)ck_batch_count[MM_COUNT_SHARED] / all,
                     100.0 * (double)ck_batch_count[MM_COUNT_LANES] / all,
                     100.0 * (double)ck_batch_count[MM_COUNT_RARE] / all);
        }
        printf("  %-8s %5d combos %8.3f s  %10.3e event x combo updates/s  (%" PRId64
               " fills%s)%s\n",
               ck_kernels[k].name, m, dt, (double)t.n * m / dt, fills, stepped,
               k == 0 ? "  [reference]" : "  [checked == c first]");
    }
    mm__tape_free(&tp);
    free(st);
    free(rungs);
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
    ck_bench_opts bo = {0};
    if (ck_check_keys()) return 1;
    assert(ck_nkernels <= CK_MAX_KERNELS);
    assert(ck_kernels[0].flags & CK_REFERENCE);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
        else if (!strcmp(argv[i], "--list")) {
            for (int k = 0; k < ck_nkernels; k++)
                printf("%s%s\n", ck_kernels[k].name,
                       ck_kernels[k].flags & CK_REFERENCE ? " (reference)" : "");
            return 0;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            ck_seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--tapes") && i + 1 < argc)
            tapes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--combos") && i + 1 < argc)
            combos = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--events") && i + 1 < argc)
            events = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--tape") && i + 1 < argc)
            bo.tape = argv[++i];
        else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            const char *mname = argv[++i];
            if (strcmp(mname, "peer") && strcmp(mname, "canonical")) {
                fprintf(stderr, "checkmodel: --model: unknown model '%s' (canonical, peer)\n",
                        mname);
                return 2;
            }
            bo.peer = !strcmp(mname, "peer");
        } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
            if (bo.nsets == CK_MAX_SETS) {
                fprintf(stderr, "checkmodel: --set: at most %d\n", CK_MAX_SETS);
                return 2;
            }
            bo.sets[bo.nsets++] = argv[++i];
        } else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
            const char *name = argv[++i];
            int k = 0;
            while (k < ck_nkernels && strcmp(ck_kernels[k].name, name))
                k++;
            if (k == ck_nkernels) {
                fprintf(stderr, "checkmodel: --kernel: unknown kernel '%s' (--list)\n", name);
                return 2;
            }
            g_selected[k] = 1;
            any_named = 1;
        } else {
            fprintf(stderr, "usage: checkmodel [--seed S] [--tapes N] [--combos M] [--kernel "
                            "NAME]... | --bench "
                            "[--events E] [--tape FILE.h5] [--model canonical|peer] [--set k=v]... "
                            "[--combos M] [--kernel NAME]... | --list\n");
            return 2;
        }
    }
    for (int k = 0; k < ck_nkernels; k++)
        g_selected[k] = g_selected[k] || !any_named || k == 0;
    if (tapes < 1 || combos == 0 || combos < -1 || events < 1) {
        fprintf(stderr, "checkmodel: --tapes, --combos and --events must be positive\n");
        return 2;
    }
    if (do_bench) {
        bo.events = events;
        bo.combos = combos;
        return bench(&bo);
    }
    if (bo.tape) ck_check_file = &bo;
    return check(tapes, combos > 0 ? combos : 40);
}
